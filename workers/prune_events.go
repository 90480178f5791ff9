package workers

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
)

// PruneEventsWorker deletes events older than the retention period.
type PruneEventsWorker struct {
	river.WorkerDefaults[jobs.PruneEventsArgs]
	pool      *pgxpool.Pool
	retention time.Duration
}

// Work implements river.Worker. Deleting is idempotent, so a retry is harmless.
func (w *PruneEventsWorker) Work(ctx context.Context, job *river.Job[jobs.PruneEventsArgs]) error {
	_, err := db.EventsPrune(ctx, w.pool, time.Now().Add(-w.retention))
	return err
}
