package eval_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/eval"
	"github.com/auditd/auditd/scoring"
)

func TestTally(t *testing.T) {
	t.Parallel()
	c := &eval.Case{ID: "x", Split: eval.Dev, Language: "es", Kind: scoring.Chat}
	critical := scoring.Criterion{ID: "respect", Critical: true}
	plain := scoring.Criterion{ID: "greeting"}
	outcome := func(cr scoring.Criterion, label, verdict, review bool) eval.Outcome {
		return eval.Outcome{Case: c, Criterion: cr, Label: eval.Label{Complies: label},
			Verdict: scoring.Item{CriterionID: cr.ID, Complies: verdict, Assessment: scoring.Assessment{NeedsReview: review}}}
	}
	var tl eval.Tally
	for _, o := range []eval.Outcome{
		outcome(plain, true, true, false),     // agrees, confident
		outcome(plain, false, true, true),     // false complies, to review
		outcome(plain, true, false, false),    // false fails, confident
		outcome(critical, false, true, false), // critical false complies, confident
		outcome(critical, false, false, true), // agrees, to review
	} {
		tl.Add(o)
	}
	require.Equal(t, eval.Tally{N: 5, Agree: 2, FalseComplies: 2, FalseFails: 1, Confident: 3, ConfidentAgree: 1,
		CriticalFails: 2, CriticalFalseComplies: 1}, tl)
	require.InDelta(t, 0.4, tl.Agreement(), 1e-9)
	require.InDelta(t, 1.0/3, tl.ConfidentAgreement(), 1e-9)
	require.InDelta(t, 0.4, tl.Routed(), 1e-9)
	require.InDelta(t, 0.5, tl.CriticalFalseComplyRate(), 1e-9)
	require.Zero(t, eval.Tally{}.Agreement(), "no verdicts is no agreement, not a division by zero")
}

func TestLoadRefusesABadSet(t *testing.T) {
	t.Parallel()
	for name, file := range map[string]string{
		"id is not the file name":  `{"id": "other", "labels": {}}`,
		"not JSON":                 `{"id": `,
		"a label without a reason": `{"id": "a", "labels": {"greeting": {"complies": true, "why": " "}}}`,
	} {
		_, err := eval.Load(fstest.MapFS{"cases/dev/a.json": {Data: []byte(file)}}, eval.Dev)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "cases/dev/a.json", name)
	}
	cases, err := eval.Load(fstest.MapFS{"cases/dev/a.json": {Data: []byte(`{"id": "a", "kind": "chat", "format": "yaml"}`)}}, eval.Dev)
	require.NoError(t, err)
	_, err = cases[0].Transcript()
	require.EqualError(t, err, `kind "chat" with format "yaml": want a chat in text or json, or a call in segments`)
}
