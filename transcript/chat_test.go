package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func ptr(v float64) *float64 { return &v }

func TestParseChatJSON(t *testing.T) {
	t.Parallel()
	tr, format, err := ParseChat([]byte("\xef\xbb\xbf" + `[
		{"speaker": "Agente", "text": "Buenos días, ¿en qué le ayudo?", "timestamp": "2024-05-02T10:00:00Z"},
		{"speaker": "Cliente", "text": " Quiero cancelar mi plan. ", "timestamp": "2024-05-02T10:00:12.5Z"},
		{"speaker": "Agente", "text": "Con gusto."}
	]`))
	require.NoError(t, err)
	require.Equal(t, ChatJSON, format)
	require.Equal(t, ChatEngine, tr.Engine)
	require.Equal(t, []Segment{
		{Start: ptr(0), Speaker: Agent, Name: "Agente", Text: "Buenos días, ¿en qué le ayudo?"},
		{Start: ptr(12.5), Speaker: Customer, Name: "Cliente", Text: "Quiero cancelar mi plan."},
		{Speaker: Agent, Name: "Agente", Text: "Con gusto."},
	}, tr.Segments)
	require.Equal(t, "Buenos días, ¿en qué le ayudo?\nQuiero cancelar mi plan.\nCon gusto.", tr.Text)

	tr, _, err = ParseChat([]byte(`[{"speaker":"Ana","text":"hi","timestamp":3},{"speaker":"Customer","text":"yo","timestamp":"01:02:03.5"}]`))
	require.NoError(t, err)
	require.Equal(t, []Segment{
		{Start: ptr(3), Speaker: Agent, Name: "Ana", Text: "hi"},
		{Start: ptr(3723.5), Speaker: Customer, Name: "Customer", Text: "yo"},
	}, tr.Segments, "the unnamed party of a two-party chat is the other role")
}

func TestParseChatText(t *testing.T) {
	t.Parallel()
	tr, format, err := ParseChat([]byte("Asesora María: Hola, gracias por escribir.\r\n\r\n" +
		"[00:01:05] Usuario: Tengo un problema\ncon mi factura.\n" +
		"10:02 - Asesora María: Lo reviso.\n"))
	require.NoError(t, err)
	require.Equal(t, ChatText, format)
	require.Equal(t, []Segment{
		{Speaker: Agent, Name: "Asesora María", Text: "Hola, gracias por escribir."},
		{Start: ptr(65), Speaker: Customer, Name: "Usuario", Text: "Tengo un problema\ncon mi factura."},
		{Start: ptr(602), Speaker: Agent, Name: "Asesora María", Text: "Lo reviso."},
	}, tr.Segments)

	tr, _, err = ParseChat([]byte("Pedro: hola\nLucía: hola\nMarta: hola\n"))
	require.NoError(t, err)
	for _, s := range tr.Segments {
		require.Equal(t, Unknown, s.Speaker, "nothing says who is who among three strangers")
	}
}

func TestParseChatRejects(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"binary":             "RIFF\x00\x00\x00\x00WAVEfmt ",
		"not utf-8":          "Agent: caf\xe9",
		"empty":              "  \n\n",
		"no speaker first":   "just some notes\nAgent: hi",
		"json object":        `{"speaker":"Agent","text":"hi"}`,
		"json empty list":    `[]`,
		"json turn no text":  `[{"speaker":"Agent"}]`,
		"json wrong types":   `[{"speaker":1,"text":"x"}]`,
		"json bad timestamp": `[{"speaker":"Agent","text":"x","timestamp":"yesterday"}]`,
		"json NUL in text":   `[{"speaker":"Agent","text":"hi\u0000there"}]`,
		"json NUL speaker":   `[{"speaker":"Age\u0000nt","text":"hi"}]`,
		"text bad timestamp": "[99:99] Agent: hi",
	}
	for name, in := range cases {
		_, _, err := ParseChat([]byte(in))
		require.ErrorIs(t, err, ErrNotChat, name)
	}
}

func TestSpeakerOf(t *testing.T) {
	t.Parallel()
	for label, want := range map[string]string{
		"AGENTE": Agent, "Operador 12": Agent, "Ana (asesora)": Agent, "Support bot": Agent,
		"cliente": Customer, "Usuário": Customer, "Usuario": Customer, "Caller": Customer, "Pedro": Unknown,
	} {
		require.Equal(t, want, SpeakerOf(label), label)
	}
}

func TestParseChatRefusesTimesNoClockShows(t *testing.T) {
	t.Parallel()
	for _, ts := range []string{"0:NaN", "NaN:00", "Inf:00", "0:+Inf", "1e308:59"} {
		for _, chat := range []string{
			`[{"speaker":"Agent","text":"hi","timestamp":"` + ts + `"}]`,
			"[" + ts + "] Agent: hi",
		} {
			_, _, err := ParseChat([]byte(chat))
			require.ErrorIs(t, err, ErrNotChat, chat)
			require.Contains(t, err.Error(), "timestamp", chat)
		}
	}
}

// A turn continued over very many lines is joined once: joining line by
// line copied the turn once per line, and a chat at the upload limit took
// hours.
func TestParseChatLongTurnIsLinear(t *testing.T) {
	t.Parallel()
	lines := MaxChatChars/2 - 1
	tr, _, err := ParseChat([]byte("Agent: x\n" + strings.Repeat("y\n", lines)))
	require.NoError(t, err)
	require.Len(t, tr.Segments, 1)
	require.Len(t, tr.Segments[0].Text, 1+2*lines)
	// At the byte limit, too many characters, found as quickly.
	_, _, err = ParseChat([]byte("Agent: x\n" + strings.Repeat("y\n", MaxChatBytes/2-5)))
	require.ErrorContains(t, err, "characters; the limit is")
}

func TestChatLimits(t *testing.T) {
	t.Parallel()
	turns := func(n int, text string) []byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s: %s\n", []string{"Agent", "Customer"}[i%2], text)
		}
		return []byte(b.String())
	}
	_, _, err := ParseChat(turns(MaxChatTurns, "ok"))
	require.NoError(t, err)
	_, _, err = ParseChat(turns(MaxChatTurns+1, "ok"))
	require.Equal(t, &TooLargeError{What: "turns", Count: MaxChatTurns + 1, Limit: MaxChatTurns}, err)

	// Characters, not bytes: "ñ" is two bytes and one character.
	half := strings.Repeat("ñ", MaxChatChars/2)
	_, _, err = ParseChat(turns(2, half))
	require.NoError(t, err)
	_, _, err = ParseChat(turns(2, half+"n"))
	require.Equal(t, &TooLargeError{What: "characters", Count: MaxChatChars + 2, Limit: MaxChatChars}, err)
	require.EqualError(t, err, "it has 500002 characters; the limit is 500000")

	// JSON chats too.
	_, _, err = ParseChat([]byte(`[` + strings.Repeat(`{"speaker":"Agent","text":"x"},`, MaxChatTurns) + `{"speaker":"Customer","text":"y"}]`))
	require.Equal(t, &TooLargeError{What: "turns", Count: MaxChatTurns + 1, Limit: MaxChatTurns}, err)
}

func TestMarshalChatReadsBack(t *testing.T) {
	t.Parallel()
	tr, _, err := ParseChat([]byte("[00:01] Ana: Hola, ¿me da su [DNI]?\n[00:05] Cliente: Sí, es [DNI].\n"))
	require.NoError(t, err)
	b, err := MarshalChat(tr)
	require.NoError(t, err)
	back, format, err := ParseChat(b)
	require.NoError(t, err)
	require.Equal(t, ChatJSON, format)
	require.Equal(t, tr, back)
}
