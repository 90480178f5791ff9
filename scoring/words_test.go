package scoring_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

func TestCriterionIn(t *testing.T) {
	t.Parallel()
	c := scoring.Criterion{ID: "greeting", Question: "¿Saludó?", Guidance: "Cumple si saluda.",
		Translations: map[string]scoring.Words{
			"en":    {Question: "Did the agent greet?", Guidance: "Met when the agent greets."},
			"en-GB": {Question: "Did the agent greet, mate?"},
		}}
	for lang, want := range map[string]string{
		"en": "Did the agent greet?", "EN_us": "Did the agent greet?", "en-gb": "Did the agent greet, mate?",
		"es": "¿Saludó?", "es-MX": "¿Saludó?", "": "¿Saludó?", "fr": "¿Saludó?",
	} {
		require.Equal(t, want, c.In(lang).Question, lang)
	}
	require.Equal(t, "Met when the agent greets.", c.In("en").Guidance)
	require.Empty(t, c.In("en-GB").Guidance, "a translation's words go together")
	require.Equal(t, c.Translations, c.In("en").Translations)

	card := scoring.Scorecard{Version: 3, Criteria: []scoring.Criterion{c}}
	require.Equal(t, "Did the agent greet?", card.In("en").Criteria[0].Question)
	require.Equal(t, "¿Saludó?", card.Criteria[0].Question, "In copies")
	for _, q := range []string{"¿saludó?", "did the agent  GREET?", "Did the agent greet, mate?"} {
		got, ok := card.ByQuestion(q)
		require.True(t, ok, q)
		require.Equal(t, "greeting", got.ID)
	}

	// Without translations the JSON is what it was.
	b, err := json.Marshal(scoring.Criterion{ID: "x"})
	require.NoError(t, err)
	require.NotContains(t, string(b), "translations")
}
