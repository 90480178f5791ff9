package scoring_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
)

func TestDefaultScorecard(t *testing.T) {
	t.Parallel()
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	require.NoError(t, scoring.Validate(card, rules.CheckRule))
	require.Equal(t, 1, card.Version)

	var ids, categories []string
	for _, c := range card.Criteria {
		ids = append(ids, c.ID)
		if len(categories) == 0 || categories[len(categories)-1] != c.Category {
			categories = append(categories, c.Category)
		}
		require.NotEmpty(t, c.Guidance, c.ID)
	}
	require.Equal(t, []string{"greeting", "recording_notice", "verification", "no_forbidden_phrases",
		"empathy", "resolution", "further_help", "farewell"}, ids)
	require.Equal(t, []string{"OPENING", "COMPLIANCE", "SKILLS", "CLOSING"}, categories)

	// Weights sum to 100 for a call, so weights read as points.
	var calls float64
	for _, c := range card.Applicable(scoring.Call) {
		calls += c.Weight
	}
	require.Equal(t, 100.0, calls)
	require.Len(t, card.Applicable(scoring.Chat), 7)

	// Each criterion reads English in an English interaction, and can be
	// named by its question in either language.
	english, err := scoring.DefaultScorecard("en")
	require.NoError(t, err)
	for i, c := range card.In("en-GB").Criteria {
		require.Equal(t, english.Criteria[i].Question, c.Question)
		require.Equal(t, english.Criteria[i].Guidance, c.Guidance)
		require.NotEqual(t, card.Criteria[i].Question, c.Question, c.ID)
		byEnglish, ok := card.ByQuestion(c.Question)
		require.True(t, ok)
		require.Equal(t, c.ID, byEnglish.ID)
	}
	require.Equal(t, card.Criteria[0].Question, english.In("es_MX").Criteria[0].Question)

	// Each call gives an independent copy.
	again, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	card.Criteria[0].Weight = 99
	require.Equal(t, 10.0, again.Criteria[0].Weight)
}

// TestDefaultScorecardAlternatives keeps the default scorecard's phrases
// free of a mistake the rule language cannot catch: "|" separates the
// alternatives of one word, so "ha quedado|han quedado registrado" is four
// words ("ha", "quedado" or "han", "quedado", "registrado") that are never
// said. A word that is an alternative both of a word of a phrase and of
// the next says that two phrases were meant; so does a contraction beside
// its own first word followed by the word it contracts ("that's|that is
// rough" is "that's is rough" or "that is rough", never "that's rough").
func TestDefaultScorecardAlternatives(t *testing.T) {
	t.Parallel()
	card, err := scoring.DefaultScorecard("en")
	require.NoError(t, err)
	for _, c := range card.Criteria {
		var rule map[string]any
		require.NoError(t, json.Unmarshal(c.Rule, &rule), c.ID)
		for key, value := range rule {
			phrases, _ := value.([]any)
			for _, p := range phrases {
				phrase, _ := p.(string)
				words := strings.Fields(phrase)
				for i := 1; i < len(words); i++ {
					a, b := strings.Split(words[i-1], "|"), strings.Split(words[i], "|")
					if len(a) == 1 && len(b) == 1 {
						continue // "bye bye": a word said twice
					}
					for _, w := range a {
						require.NotContains(t, b, w, "%s %s: %q: write the alternatives of several words as a group, (ha quedado|han quedado), or as phrases of their own", c.ID, key, phrase)
						stem, contracted := strings.CutSuffix(w, "'s")
						require.False(t, contracted && slices.Contains(a, stem) && (slices.Contains(b, "is") || slices.Contains(b, "has")),
							"%s %s: %q: %q and %q %s are phrases of their own", c.ID, key, phrase, w, stem, words[i])
					}
				}
			}
		}
	}
}
