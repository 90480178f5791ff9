package api

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// errJobWaitExpired means a job had not finished when the wait ran out.
var errJobWaitExpired = errors.New("job still running when the wait ran out")

// waitForJob waits up to timeout for job id to reach a final state
// (completed, cancelled or discarded) and returns it. Jobs are worked by
// other processes, so it polls, backing off from 5 ms to 100 ms.
func waitForJob(ctx context.Context, client *river.Client[pgx.Tx], id int64, timeout time.Duration) (*rivertype.JobRow, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	interval := 5 * time.Millisecond
	for {
		job, err := client.JobGet(ctx, id)
		if err != nil {
			return nil, err
		}
		if job.FinalizedAt != nil {
			return job, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, errJobWaitExpired
		case <-time.After(interval):
		}
		interval = min(2*interval, 100*time.Millisecond)
	}
}
