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
	// Measured: 96.6 % (English 96.7, Spanish 96.4; lowest group English
	// chats, 96.1), confident 98.6 %, 6 of 235 critical failures passed.
	eval.Dev: {agreement: 0.96, groupAgreement: 0.95, confident: 0.98, criticalFalse: 0.05},
	// Measured on 72 cases written for this split by three writers who
	// never saw the rules: 91.4 % (es 90.6, en 92.1, chats 89.8, calls
	// 93.3; lowest group Spanish chats, 88.4), confident 96.6 %, 7 of 38
	// critical failures passed (18.4 %; the goal, 10 %, is not met by the
	// rules alone).
	eval.Holdout: {agreement: 0.9, groupAgreement: 0.87, confident: 0.95, criticalFalse: 0.2},
}

// minCases is the least the set may hold: fewer, and the figures say little.
const minCases = 490

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
