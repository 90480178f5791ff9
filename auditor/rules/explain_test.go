package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExplanationsQuoteTheTranscriptsLanguageFirst: a rule's lexicon has
// both languages; an English explanation quotes the English phrases first
// and a Spanish one the Spanish phrases, the rest counted.
func TestExplanationsQuoteTheTranscriptsLanguageFirst(t *testing.T) {
	t.Parallel()
	phrases := []string{"confirm* … dni", "fecha de nacimiento", "documento de identidad", "número de documento",
		"a nombre de quién", "date of birth", "postcode", "security question"}
	require.Equal(t, `It does not apply, so it is met: nothing was said of "date of birth", "postcode", "security question", `+
		`"confirm* … dni", "fecha de nacimiento" (and 3 more).`, english{}.notApplicable(phrases))
	require.Equal(t, `No aplica, así que se cumple: no se habló de «confirm* … dni», «fecha de nacimiento», «documento de identidad», `+
		`«número de documento», «a nombre de quién» (y 3 más).`, spanish{}.notApplicable(phrases))
}
