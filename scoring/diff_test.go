package scoring_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	v1 := scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{
		crit("greet", "OPENING", 10, false, scoring.Both),
		crit("polite", "COMPLIANCE", 10, true, scoring.Both),
		crit("old", "SKILLS", 10, false, scoring.Both),
	}}
	before, err := scoring.Score(v1, scoring.Chat, []scoring.Verdict{
		{CriterionID: "greet", Complies: true, Explanation: "said hello", Evidence: "hola"},
		{CriterionID: "polite", Complies: true, Explanation: "polite"},
		{CriterionID: "old", Complies: true, Explanation: "fine"},
	}, 85)
	require.NoError(t, err)

	t.Run("an analyst flips one item", func(t *testing.T) {
		after, err := scoring.Score(v1, scoring.Chat, []scoring.Verdict{
			{CriterionID: "greet", Complies: true, Explanation: "said hello", Evidence: "hola"},
			{CriterionID: "polite", Complies: false, Explanation: "was rude at 01:10"},
			{CriterionID: "old", Complies: true, Explanation: "fine"},
		}, 85)
		require.NoError(t, err)
		d := scoring.Compare(before, after)
		require.Nil(t, d.ScorecardVersion)
		require.Equal(t, 100.0, *d.Score.From)
		require.Equal(t, 0.0, *d.Score.To)
		require.True(t, *d.Passed.From)
		require.False(t, *d.Passed.To)
		require.Len(t, d.Items, 1)
		it := d.Items[0]
		require.Equal(t, "polite", it.CriterionID)
		require.Equal(t, scoring.ItemChanged, it.Change)
		require.True(t, *it.Complies.From)
		require.False(t, *it.Complies.To)
		require.Equal(t, "polite", *it.Explanation.From)
		require.Equal(t, "was rude at 01:10", *it.Explanation.To)
		require.Nil(t, it.Weight)
		require.Nil(t, it.Evidence)

		raw, err := json.Marshal(d)
		require.NoError(t, err)
		require.JSONEq(t, `{"score":{"from":100,"to":0},"passed":{"from":true,"to":false},"items":[
			{"criterion_id":"polite","question":"Question polite?","change":"changed",
			 "complies":{"from":true,"to":false},"explanation":{"from":"polite","to":"was rude at 01:10"}}]}`, string(raw))
	})

	t.Run("a new scorecard version", func(t *testing.T) {
		v2 := scoring.Scorecard{Version: 2, Criteria: []scoring.Criterion{
			crit("greet", "OPENING", 20, false, scoring.Both),
			crit("polite", "COMPLIANCE", 10, true, scoring.Both),
			crit("new", "CLOSING", 10, false, scoring.Both),
		}}
		v2.Criteria[1].Question = "Was the agent polite?"
		after, err := scoring.Score(v2, scoring.Chat, []scoring.Verdict{
			{CriterionID: "greet", Complies: true, Explanation: "said hello", Evidence: "hola"},
			{CriterionID: "polite", Complies: true, Explanation: "polite"},
			{CriterionID: "new", Complies: false, Explanation: "no goodbye"},
		}, 85)
		require.NoError(t, err)
		d := scoring.Compare(before, after)
		require.Equal(t, &scoring.IntChange{From: 1, To: 2}, d.ScorecardVersion)
		var changes []string
		for _, it := range d.Items {
			changes = append(changes, it.CriterionID+":"+it.Change)
		}
		require.Equal(t, []string{"greet:changed", "polite:changed", "new:added", "old:removed"}, changes)
		require.Equal(t, 10.0, *d.Items[0].Weight.From)
		require.Equal(t, 20.0, *d.Items[0].Weight.To)
		require.Nil(t, d.Items[0].Complies)
		require.Equal(t, "Question polite?", *d.Items[1].QuestionChange.From)
		require.Nil(t, d.Items[2].Complies.From)
		require.False(t, *d.Items[2].Complies.To)
		require.True(t, *d.Items[3].Complies.From)
		require.Nil(t, d.Items[3].Complies.To)
	})

	t.Run("nothing changed", func(t *testing.T) {
		d := scoring.Compare(before, before)
		require.Empty(t, d.Items)
		require.NotNil(t, d.Items, "an empty list, not null")
	})
}
