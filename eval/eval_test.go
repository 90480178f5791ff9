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
	// Measured: 97.0 % (Spanish and English 97.0; lowest group Spanish
	// calls, 96.6), confident 98.8 %, 1 of 410 critical failures passed
	// (the tone model is trained on dev: see its cross-validated figures in
	// docs/engines.md).
	eval.Dev: {agreement: 0.965, groupAgreement: 0.96, confident: 0.98, criticalFalse: 0.02},
	// Measured once, after the round's tuning, on 150 cases written for
	// this split by five writers who never saw the rules: 94.1 % (es 95.0,
	// en 93.1, chats 93.9, calls 94.6; lowest group English calls, 92.5),
	// confident 98.4 %, 3 of 63 critical failures passed (4.8 %: Spanish
	// 3.1, English 6.5, chats 6.5, calls 0).
	eval.Holdout: {agreement: 0.935, groupAgreement: 0.915, confident: 0.98, criticalFalse: 0.06},
}

// minCases is the least the set may hold: fewer, and the figures say little.
const minCases = 940

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
