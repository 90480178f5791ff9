package rules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExplanationsQuoteOnlyTheTranscriptsLanguage: a rule's lexicon has
// both languages; an English explanation quotes only the English phrases
// and a Spanish one only the Spanish phrases, unless the rule has none of
// that language.
func TestExplanationsQuoteOnlyTheTranscriptsLanguage(t *testing.T) {
	t.Parallel()
	phrases := []string{"confirm* … dni", "fecha de nacimiento", "documento de identidad", "número de documento",
		"a nombre de quién", "date of birth", "postcode", "security question"}
	require.Equal(t, `It does not apply, so it is met: nothing was said of "date of birth", "postcode", "security question".`,
		english{}.notApplicable(phrases))
	require.Equal(t, `No aplica, así que se cumple: no se habló de «confirm* … dni», «fecha de nacimiento», «documento de identidad», `+
		`«número de documento», «a nombre de quién».`, spanish{}.notApplicable(phrases))
	require.Equal(t, `El agente no dijo ninguna de estas frases: «hello», «good morning».`,
		spanish{}.missing([]string{"hello", "good morning"}, scope{speaker: "agent"}, nil), "a rule of one language")
	require.Equal(t, `The agent did not say "hola".`, english{}.missing([]string{"hola"}, scope{speaker: "agent"}, nil), "a rule of one language")
	require.Equal(t, `The agent did not say any of "hi", "good morning".`,
		english{}.missing([]string{"hola", "hi", "buenos días", "good morning"}, scope{speaker: "agent"}, nil))
}

// TestLooksSpanish: an explanation of an English interaction quotes none
// of the default scorecard's Spanish phrases, even those with no accent
// ("nombre completo"), and keeps its English ones.
func TestLooksSpanish(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"nombre completo", "nombre del titular", "a nombre de quien", "pregunta de seguridad",
		"por motivos de seguridad", "documento de identidad", "fecha de nacimiento", "numero de cliente"} {
		require.True(t, looksSpanish(p), p)
	}
	// What makes verification apply, in the default scorecard: an English
	// chat's explanation quoted «me han cobrado» as English.
	for _, p := range []string{"me han cobrado", "me cobraron", "me cobran", "me rechazaron|bloquearon|cobraron",
		"quiero cancelar|cambiar|anular", "no tengo internet|luz", "no me llega|llegó", "ya veo|tengo|entré",
		"reviso|revisé|consulto|miro|busco tu|su cuenta", "aquí|aqui tengo|veo tu|su|sus|tus", "terminación|terminacion|terminada|terminado en"} {
		require.True(t, looksSpanish(p), p)
	}
	for _, p := range []string{"full name", "security question", "date of birth", "account number", "postcode",
		"charged me", "i was charged", "cancel my", "i have {name} here", "let me|i'll|ill pull|bring that|it|this up",
		"i want|need|would like to cancel|change|return", "number you are calling", "on the system|file|record|account"} {
		require.False(t, looksSpanish(p), p)
	}
}

// TestNoSpanishPhraseIsTakenForEnglish: every phrase of the default
// scorecard that an English explanation may quote (looksSpanish false)
// has no word that dev's Spanish interactions use and its English ones
// never do; an English call's empathy once listed «entiendo», «comprendo»
// and «lamento».
func TestNoSpanishPhraseIsTakenForEnglish(t *testing.T) {
	t.Parallel()
	word := regexp.MustCompile(`[\p{L}']+`)
	used := map[string]map[string]bool{"es": {}, "en": {}}
	files, err := filepath.Glob(filepath.Join("..", "..", "eval", "cases", "dev", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var c struct {
			Language string
			Chat     string
			Turns    []struct{ Text string }
			Segments []struct{ Text string }
		}
		require.NoError(t, json.Unmarshal(b, &c), f)
		text := []string{c.Chat}
		for _, x := range c.Turns {
			text = append(text, x.Text)
		}
		for _, x := range c.Segments {
			text = append(text, x.Text)
		}
		for _, w := range word.FindAllString(strings.ToLower(strings.Join(text, " ")), -1) {
			used[c.Language][w] = true
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "scoring", "default_scorecard.json"))
	require.NoError(t, err)
	var card struct{ Criteria []struct{ Rule any } }
	require.NoError(t, json.Unmarshal(b, &card))
	var walk func(v any, check func(string))
	walk = func(v any, check func(string)) {
		switch v := v.(type) {
		case string:
			check(v)
		case []any:
			for _, x := range v {
				walk(x, check)
			}
		case map[string]any:
			for _, x := range v {
				walk(x, check)
			}
		}
	}
	checked := 0
	for _, c := range card.Criteria {
		walk(c.Rule, func(p string) {
			if looksSpanish(p) {
				return
			}
			checked++
			for _, w := range word.FindAllString(strings.ToLower(p), -1) {
				require.False(t, used["es"][w] && !used["en"][w], "%q is taken for English, yet %q is a Spanish word", p, w)
			}
		})
	}
	require.Greater(t, checked, 500, "the English phrases were found")
}
