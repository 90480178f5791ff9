package transcript

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// renderJSON writes a transcript back as the JSON list of turns ParseChat reads.
func renderJSON(t *testing.T, tr Transcript) []byte {
	t.Helper()
	type turn struct {
		Speaker   string   `json:"speaker"`
		Text      string   `json:"text"`
		Timestamp *float64 `json:"timestamp,omitempty"`
	}
	turns := make([]turn, len(tr.Segments))
	for i, s := range tr.Segments {
		turns[i] = turn{Speaker: s.Name, Text: s.Text, Timestamp: s.Start}
	}
	b, err := json.Marshal(turns)
	require.NoError(t, err)
	return b
}

// FuzzParseChat holds ParseChat to its contract on any input: it fails only
// with ErrNotChat (or is too large), and what it accepts has a speaker for every turn, finite
// non-negative times, stores as JSON, and reads back the same from its JSON
// form.
func FuzzParseChat(f *testing.F) {
	for _, seed := range []string{
		"Agente: Hola\nCliente: Buenas",
		"[10:02:03] Agent: hi\n[10:02:09] Customer: hello\ncontinued line",
		"10:02 - Ana: hola\n10:03 - Cliente: que tal",
		`[{"speaker":"Agente","text":"Hola","timestamp":"2024-05-02T10:00:00Z"},{"speaker":"Cliente","text":"x","timestamp":"2024-05-02T10:00:12.5Z"}]`,
		`[{"speaker":"Ana","text":"hi","timestamp":3},{"speaker":"Customer","text":"yo","timestamp":"01:02:03.5"}]`,
		`[{"speaker":"A","text":"b","timestamp":"0:NaN"}]`,
		"(00:01:02) Bot: hola",
		"\xef\xbb\xbfCliente: con BOM",
		"", "[]", "no speaker here", "\x00", "\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, format, err := ParseChat(b)
		if err != nil {
			_, tooLarge := errors.AsType[*TooLargeError](err)
			require.True(t, errors.Is(err, ErrNotChat) || tooLarge, "%v", err)
			return
		}
		require.Contains(t, []string{ChatJSON, ChatText}, format)
		require.NotEmpty(t, tr.Segments)
		for _, s := range tr.Segments {
			require.Contains(t, []string{Agent, Customer, Unknown}, s.Speaker)
			require.NotEmpty(t, s.Name)
			if s.Start != nil {
				require.False(t, math.IsNaN(*s.Start) || math.IsInf(*s.Start, 0) || *s.Start < 0, "start %v", *s.Start)
			}
		}
		_, err = json.Marshal(tr)
		require.NoError(t, err)

		again, format, err := ParseChat(renderJSON(t, tr))
		require.NoError(t, err)
		require.Equal(t, ChatJSON, format)
		require.Equal(t, tr, again)
	})
}
