package scoring_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

func TestMergeTakesTheFirstSourceThatJudges(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Version: 2, Criteria: []scoring.Criterion{
		crit("greet", "OPENING", 10, false, scoring.Both),
		crit("notice", "COMPLIANCE", 10, true, scoring.Call),
		crit("solve", "SKILLS", 20, false, scoring.Both),
		crit("bye", "CLOSING", 10, false, scoring.Both),
	}}
	edit := map[string]scoring.Verdict{"solve": {Complies: false, Explanation: "analyst"}}
	previous := map[string]scoring.Verdict{
		"greet":   {CriterionID: "greet", Complies: true, Explanation: "engine", Evidence: "hola"},
		"solve":   {CriterionID: "solve", Complies: true, Explanation: "engine"},
		"notice":  {CriterionID: "notice", Complies: true, Explanation: "engine"},
		"dropped": {CriterionID: "dropped", Complies: true},
	}

	got, missing := scoring.Merge(card, scoring.Chat, edit, previous)
	require.Equal(t, []string{"bye"}, missing, "a criterion nobody judged")
	require.Equal(t, []scoring.Verdict{
		{CriterionID: "greet", Complies: true, Explanation: "engine", Evidence: "hola"},
		{CriterionID: "solve", Complies: false, Explanation: "analyst"},
	}, got, "in scorecard order; the call-only and the dropped criteria are left out")
	_, err := scoring.Score(card, scoring.Chat, got, 85)
	require.Error(t, err, "an incomplete merge cannot be scored")

	engine := map[string]scoring.Verdict{"bye": {Complies: true, Explanation: "engine, new criterion"}, "greet": {Complies: false}}
	got, missing = scoring.Merge(card, scoring.Chat, edit, previous, engine)
	require.Empty(t, missing)
	require.Len(t, got, 3)
	require.True(t, got[0].Complies, "the previous verdict comes before the engine's")
	require.Equal(t, "bye", got[2].CriterionID)
	res, err := scoring.Score(card, scoring.Chat, got, 85)
	require.NoError(t, err)
	require.Equal(t, 50.0, res.Score)
}

func TestResultVerdictsRoundTrip(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{
		crit("a", "X", 1, false, scoring.Both), crit("b", "Y", 2, true, scoring.Both),
	}}
	in := []scoring.Verdict{
		{CriterionID: "a", Complies: true, Explanation: "yes", Evidence: "quote"},
		{CriterionID: "b", Complies: false, Explanation: "no"},
	}
	res, err := scoring.Score(card, scoring.Call, in, 50)
	require.NoError(t, err)
	again, missing := scoring.Merge(card, scoring.Call, res.Verdicts())
	require.Empty(t, missing)
	require.Equal(t, in, again)
}

func TestSubset(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Version: 3, Criteria: []scoring.Criterion{
		crit("a", "X", 1, false, scoring.Both), crit("b", "X", 1, false, scoring.Both), crit("c", "X", 1, false, scoring.Both),
	}}
	sub := card.Subset([]string{"c", "a", "zzz"})
	require.Equal(t, 3, sub.Version)
	require.Len(t, sub.Criteria, 2)
	require.Equal(t, "a", sub.Criteria[0].ID)
	require.Equal(t, "c", sub.Criteria[1].ID)
}
