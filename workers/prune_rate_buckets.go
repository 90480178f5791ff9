package workers

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
)

// PruneRateBucketsWorker drops the idle rate-limit buckets.
type PruneRateBucketsWorker struct {
	river.WorkerDefaults[jobs.PruneRateBucketsArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker. Deleting is idempotent, so a retry is harmless.
func (w *PruneRateBucketsWorker) Work(ctx context.Context, job *river.Job[jobs.PruneRateBucketsArgs]) error {
	_, err := db.RateBucketsPrune(ctx, w.pool, time.Now())
	return err
}
