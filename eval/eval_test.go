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
	// Measured: 95.6 % (English 96.0, Spanish 95.3; lowest groups English
	// chats and the Spanish ones, 95.3), confident 97.5 %, 16 of 317
	// critical failures passed.
	eval.Dev: {agreement: 0.95, groupAgreement: 0.94, confident: 0.97, criticalFalse: 0.06},
	// Measured on 90 cases written for this split by three writers who
	// never saw the rules, as written: 92.1 % (es 90.6, en 93.7, chats
	// 92.3, calls 91.9; lowest group Spanish chats, 90.5), confident
	// 98.0 %, 12 of 41 critical failures passed (29 %; the goal, 10 %, is
	// not met by the rules alone).
	eval.Holdout: {agreement: 0.91, groupAgreement: 0.89, confident: 0.97, criticalFalse: 0.3},
}

// minCases is the least the set may hold: fewer, and the figures say little.
const minCases = 670

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
