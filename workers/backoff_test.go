package workers

import (
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	// The fourth failure: River waits about 4⁴ = 256 s.
	job := &rivertype.JobRow{Attempt: 4, Errors: make([]rivertype.AttemptError, 3)}
	before := time.Now()
	uncapped := Backoff{}.NextRetry(job)
	capped := Backoff{Max: time.Minute}.NextRetry(job)
	// The first failure is under any sensible cap: left as River has it.
	first := Backoff{Max: time.Minute}.NextRetry(&rivertype.JobRow{Attempt: 1})
	after := time.Now()
	require.True(t, uncapped.After(before.Add(200*time.Second)), uncapped)
	require.False(t, capped.Before(before.Add(time.Minute)), capped)
	require.False(t, capped.After(after.Add(time.Minute)), capped)
	require.True(t, first.Before(before.Add(30*time.Second)), first)

	require.Equal(t, time.Second, Backoff{}.engine(0))
	require.Equal(t, 8*time.Second, Backoff{}.engine(3))
	require.Equal(t, 5*time.Minute, Backoff{}.engine(30))
	require.Equal(t, 2*time.Second, Backoff{Max: 2 * time.Second}.engine(3))
}
