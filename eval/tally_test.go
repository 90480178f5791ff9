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
	other := &eval.Case{ID: "y", Split: eval.Dev, Language: "es", Kind: scoring.Chat}
	outcome := func(c *eval.Case, cr scoring.Criterion, label, verdict, review bool, confidence float64) eval.Outcome {
		return eval.Outcome{Case: c, Criterion: cr, Label: eval.Label{Complies: label},
			Verdict: scoring.Item{CriterionID: cr.ID, Complies: verdict,
				Assessment: scoring.Assessment{Confidence: confidence, NeedsReview: review}}}
	}
	var tl eval.Tally
	for _, o := range []eval.Outcome{
		outcome(c, plain, true, true, false, 0.99),        // agrees, confident
		outcome(c, plain, false, true, true, 0.6),         // false complies, to review
		outcome(c, plain, true, false, false, 0.995),      // false fails, confident
		outcome(other, critical, false, true, false, 0.9), // critical false complies, confident
		outcome(other, critical, false, false, true, 0.6), // agrees, to review
	} {
		tl.Add(o)
	}
	require.Equal(t, []int{5, 2, 2, 1, 3, 1, 2, 1, 2, 2}, []int{tl.N, tl.Agree, tl.FalseComplies, tl.FalseFails, tl.Confident,
		tl.ConfidentAgree, tl.CriticalFails, tl.CriticalFalseComplies, tl.Interactions, tl.Reviewed})
	require.Equal(t, eval.Bin{N: 2, Agree: 1, Confidence: 1.2}, tl.Bins[2], "0.6 and 0.6")
	require.Equal(t, eval.Bin{N: 1, Agree: 0, Confidence: 0.9}, tl.Bins[5])
	require.Equal(t, []int{2, 1}, []int{tl.Bins[9].N, tl.Bins[9].Agree}, "0.99 and 0.995")
	require.InDelta(t, 0.9925, tl.Bins[9].MeanConfidence(), 1e-9)
	// |0.6 − 0.5| × 2/5 + |0.9 − 0| × 1/5 + |0.9925 − 0.5| × 2/5
	require.InDelta(t, 0.04+0.18+0.197, tl.ECE(), 1e-9)
	require.InDelta(t, 1, tl.ReviewShare(), 1e-9, "both interactions have a verdict to review")
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

// TestBatch checks that each writer batch is its own fold of the
// cross-validation, whatever the width of the ids its round gave it.
func TestBatch(t *testing.T) {
	for id, want := range map[string]string{
		"es-912-utilities-chat": "09",
		"en-1101-telecom-chat":  "11",
		"en-1199-banking-call":  "11",
		"es-2901-travel-call":   "29",
		"es-3001-telecom-call":  "3",
		"en-9070-health-chat":   "9",
		"es-30101-retail-chat":  "301",
		"en-30270-hotels-call":  "302",
	} {
		require.Equal(t, want, eval.Batch(&eval.Case{ID: id}), id)
	}
}
