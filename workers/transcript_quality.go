package workers

import (
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// distrust marks for an analyst's review the automatic verdicts that a
// doubtful transcript cannot carry: every one when the transcript as a
// whole is unreliable (q.Unreliable); those resting on absence when some
// of its segments are under the floor, since what the engine did not find
// may have been said there, heard wrong. It reports whether it marked any.
// An analyst's verdict (no basis) is never marked.
func distrust(verdicts []scoring.Verdict, q *transcript.Quality) bool {
	if q == nil || q.Unreliable == "" && q.DoubtfulSegments == 0 {
		return false
	}
	marked := false
	for i := range verdicts {
		v := &verdicts[i]
		if v.Basis == "" || v.NeedsReview || q.Unreliable == "" && v.Basis != scoring.BasisAbsence {
			continue
		}
		v.NeedsReview = true
		marked = true
	}
	return marked
}

// unreliable says, for a person, why a transcript is unreliable
// (transcript.Quality.Unreliable).
func unreliable(reason string) l10n.Text {
	if reason == transcript.TooFast {
		return l10n.T("it has more words a second than anyone says")
	}
	return l10n.T("the speech engine was unsure of its words")
}
