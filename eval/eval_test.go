package eval_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/eval"
	"github.com/auditd/auditd/scoring"
)

// floors are a little below what make eval measured, per split, so a
// change to the rules, the scorecard or the engine that makes the auditor
// agree less with the analysts fails the tests. The held-out split is the
// honest figure: the rules were never tuned on it.
var floors = map[string]struct {
	agreement, groupAgreement, confident, criticalFalse float64
}{
	// Measured: 96.8 % (Spanish 96.9, English 96.8; lowest group English
	// chats, 96.6), confident 98.7 %, none of 473 critical failures passed
	// (the tone model is trained on dev: see its cross-validated figures in
	// docs/engines.md).
	eval.Dev: {agreement: 0.965, groupAgreement: 0.96, confident: 0.98, criticalFalse: 0.02},
	// Measured once, after the round's tuning, on 120 cases written for
	// this split by four writers who never saw the rules: 94.8 % (es 96.1,
	// en 93.6, chats 94.1, calls 96.7; lowest group English chats, 92.7),
	// confident 98.1 %, 2 of 54 critical failures passed (3.7 %: Spanish
	// 7.1, English 0, chats 5.9, calls 0).
	eval.Holdout: {agreement: 0.94, groupAgreement: 0.92, confident: 0.975, criticalFalse: 0.05},
}

// minCases is the least the set may hold: fewer, and the figures say little.
const minCases = 1060

// TestAuditorAgreesWithTheAnalysts audits the evaluation set as the audit
// job does and holds every split present, and each language and kind in
// it, to the floors.
func TestAuditorAgreesWithTheAnalysts(t *testing.T) {
	t.Parallel()
	cases, err := eval.Load(os.DirFS("."), eval.Dev, eval.Holdout)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(cases), minCases, "the evaluation set is there")
	outcomes, err := eval.Run(context.Background(), &auditor.Rules{}, scoring.DefaultScorecard, cases, 0.8)
	require.NoError(t, err)
	s := eval.Summarise(outcomes)
	for split, f := range floors {
		tl, ok := s.Groups[split]
		require.True(t, ok, "the %s split is there", split)
		require.GreaterOrEqual(t, tl.Agreement(), f.agreement, "agreement of %s", split)
		require.GreaterOrEqual(t, tl.ConfidentAgreement(), f.confident, "confident agreement of %s", split)
		require.LessOrEqual(t, tl.CriticalFalseComplyRate(), f.criticalFalse, "critical false complies of %s", split)
		for _, key := range s.Order {
			if strings.HasPrefix(key, split+"/") && !strings.Contains(key, "criterion:") {
				require.GreaterOrEqual(t, s.Groups[key].Agreement(), f.groupAgreement, "agreement of %s", key)
			}
		}
	}
}
