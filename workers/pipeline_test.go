package workers

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/jobs"
)

// TestSnoozeCounter: snooze counts in our own metadata key, starting from
// zero whatever River's debugging "snoozes" says, and a retry by hand
// keeps it (TestTranscribeOpenAIRetryAfter sees River keep it at the end
// of a run).
func TestSnoozeCounter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	res, err := client.Insert(ctx, jobs.SweepBlobsArgs{}, &river.InsertOpts{Metadata: []byte(`{"snoozes": 30}`)})
	require.NoError(t, err)
	job := res.Job
	require.Zero(t, snoozes(job), "River's own count is not ours")

	for want := 1; want <= 3; want++ {
		err := snooze(ctx, pool, job, time.Minute)
		_, snoozed := err.(*rivertype.JobSnoozeError)
		require.True(t, snoozed, "a snooze: %v", err)
		job, err = client.JobGet(ctx, job.ID)
		require.NoError(t, err)
		require.Equal(t, want, snoozes(job))
	}

	_, err = client.JobRetry(ctx, job.ID)
	require.NoError(t, err)
	job, err = client.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, 3, snoozes(job), "a retry by hand keeps the count")

	err = snooze(ctx, pool, &rivertype.JobRow{ID: job.ID + 1000}, time.Minute)
	require.Error(t, err, "an unknown job is not snoozed")
}
