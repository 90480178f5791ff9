package eval_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/config"
	"github.com/auditd/auditd/eval"
	"github.com/auditd/auditd/scoring"
)

// floors are a little below what make eval measured, per split, so a
// change to the rules, the scorecard or the engine that makes the auditor
// agree less with the analysts fails the tests. The held-out split is the
// honest figure: the rules were never tuned on it.
var floors = map[string]struct {
	agreement, groupAgreement, confident, criticalFalse float64
	// ece is the most expected calibration error, review the most share of
	// interactions with a verdict to review in any language or kind.
	ece, review float64
}{
	// Measured at the default review threshold (0.79), confidences
	// cross-validated by writer batch (each batch's from a table fitted on
	// the others, its respect and empathy verdicts judged by tone models
	// trained without it), 2,462 cases with issue 38's tenth held-out set
	// among them: 97.5 % (lowest group English and English calls, 97.2),
	// confident 98.1 % (lowest language or kind 97.9, English), 26 of 942
	// critical failures passed (2.8 %), expected calibration error 0.006,
	// interactions to review 18.1 % (at most 19.6 % in a language or kind,
	// English and calls). The threshold is the highest within the review
	// budget (ReviewBudget), since dev cannot reach ConfidentTarget within
	// it. The rules were tuned on dev: see docs/engines.md.
	eval.Dev: {agreement: 0.97, groupAgreement: 0.965, confident: 0.978, criticalFalse: 0.032, ece: 0.01, review: 0.215},
	// The floors of the held-out set written for issue 38's eleventh
	// round (140 cases, ids 30101–30170 and 30201–30270, by two new writers
	// who read only FORMAT.md and CRITERIA.md), read once at the review
	// threshold 0.79: 97.4 % (lowest group Spanish chats, 97.1), confident
	// 98.2 % (Spanish 98.1, English 98.4, chats 98.1, calls 98.4), none of
	// 24 critical failures passed, expected calibration error 0.011,
	// interactions to review 15.7 % (Spanish 15.7, English 15.7, chats
	// 15.9, calls 15.5; at most 26.5 %, Spanish chats). Its floors are what
	// it measured, to keep from falling below.
	eval.Holdout: {agreement: 0.97, groupAgreement: 0.97, confident: 0.98, criticalFalse: 0, ece: 0.012, review: 0.27},
}

// minCases is the least the set may hold: fewer, and the figures say little.
const minCases = 1480

// TestAuditorAgreesWithTheAnalysts audits the development set as the
// audit job does and holds it, and each language and kind in it, to its
// floors.
func TestAuditorAgreesWithTheAnalysts(t *testing.T) {
	t.Parallel()
	holdSplit(t, eval.Dev)
}

// TestHeldOutFloors holds the held-out split to its floors. A held-out set
// is read once and then moved to dev with the fresh set that replaces it;
// an empty split fails.
func TestHeldOutFloors(t *testing.T) {
	t.Parallel()
	holdSplit(t, eval.Holdout)
}

// holdSplit audits split at the default review threshold and holds it, and
// each language and kind in it, to its floors. The development set's
// confidences are cross-validated (eval.CrossValidate), and the embedded
// calibration table must be the one fitted on it.
func holdSplit(t *testing.T, split string) {
	cases, err := eval.Load(os.DirFS("."), split)
	require.NoError(t, err)
	// A split without cases checks nothing: a held-out set read once moves
	// to dev with the fresh set that replaces it, in one landing.
	require.NotEmpty(t, cases, "no cases in eval/cases/%s", split)
	ctx, review := context.Background(), config.DefaultReviewConfidence
	var outcomes []eval.Outcome
	if split == eval.Dev {
		require.GreaterOrEqual(t, len(cases), minCases, "the development set is there")
		writers, err := eval.ReadWriters(os.DirFS(".."))
		require.NoError(t, err)
		tones, err := eval.TrainTones(cases, writers)
		require.NoError(t, err)
		samples, err := eval.Samples(scoring.DefaultScorecard, cases, tones)
		require.NoError(t, err)
		require.Equal(t, rules.Fitted(), eval.Fit(samples), "auditor/rules/calibration.json is fitted on dev: "+
			"run go run ./cmd/auditeval -fit after changing the rules or the set")
		outcomes, err = eval.CrossValidate(ctx, scoring.DefaultScorecard, cases, samples, tones, review)
		require.NoError(t, err)
		require.Equal(t, eval.ChooseThreshold(eval.Thresholds(outcomes)).Threshold, review,
			"AUDIT_REVIEW_CONFIDENCE's default is the threshold make eval chooses")
	} else {
		outcomes, err = eval.Run(ctx, &auditor.Rules{}, scoring.DefaultScorecard, cases, review)
		require.NoError(t, err)
	}
	s := eval.Summarise(outcomes)
	f := floors[split]
	tl := s.Groups[split]
	require.GreaterOrEqual(t, tl.Agreement(), f.agreement, "agreement of %s", split)
	require.GreaterOrEqual(t, tl.ConfidentAgreement(), f.confident, "confident agreement of %s", split)
	require.LessOrEqual(t, tl.CriticalFalseComplyRate(), f.criticalFalse, "critical false complies of %s", split)
	require.LessOrEqual(t, tl.ECE(), f.ece, "expected calibration error of %s", split)
	for _, key := range s.Order {
		if strings.HasPrefix(key, split+"/") && !strings.Contains(key, "criterion:") {
			require.GreaterOrEqual(t, s.Groups[key].Agreement(), f.groupAgreement, "agreement of %s", key)
			require.LessOrEqual(t, s.Groups[key].ReviewShare(), f.review, "interactions to review of %s", key)
		}
	}
}
