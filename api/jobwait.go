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
// (completed, cancelled or discarded) and returns it.
func waitForJob(ctx context.Context, client *river.Client[pgx.Tx], id int64, timeout time.Duration) (*rivertype.JobRow, error) {
	var job *rivertype.JobRow
	err := poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		var err error
		job, err = client.JobGet(ctx, id)
		return err == nil && job.FinalizedAt != nil, err
	})
	if err != nil {
		return nil, err
	}
	return job, nil
}

// poll calls done until it reports true or fails, for up to timeout; then
// it returns errJobWaitExpired. Jobs are worked by other processes, so a
// request waiting on one polls the database, backing off from 5 ms to
// 100 ms.
func poll(ctx context.Context, timeout time.Duration, done func(context.Context) (bool, error)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	interval := 5 * time.Millisecond
	for {
		ok, err := done(ctx)
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return errJobWaitExpired
		case <-time.After(interval):
		}
		interval = min(2*interval, 100*time.Millisecond)
	}
}
