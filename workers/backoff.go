package workers

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Backoff is how long a job waits before it runs again: after an error,
// River's backoff (attempt⁴ seconds, with jitter); after an engine asked to
// be left alone without saying for how long, 1 s doubling up to 5 min. Max,
// when set, caps both (JOB_RETRY_MAX_DELAY).
type Backoff struct {
	Max time.Duration
}

// NextRetry implements river.ClientRetryPolicy.
func (b Backoff) NextRetry(job *rivertype.JobRow) time.Time {
	next := (&river.DefaultClientRetryPolicy{}).NextRetry(job)
	if limit := time.Now().Add(b.Max); b.Max > 0 && next.After(limit) {
		return limit
	}
	return next
}

// engine is the wait after an engine's n-th request to back off.
func (b Backoff) engine(n int) time.Duration {
	d := min(time.Second<<min(n, 20), 5*time.Minute)
	if b.Max > 0 {
		d = min(d, b.Max)
	}
	return d
}
