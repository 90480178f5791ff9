package workers

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
)

// FoldTaskStatsWorker folds the changes of tasks into the figures kept for
// the dashboard.
type FoldTaskStatsWorker struct {
	river.WorkerDefaults[jobs.FoldTaskStatsArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker. A change is folded once, whichever fold
// deletes it first, so a retry or a concurrent run is harmless. After a
// burst of changes (a bulk import, a re-audit of a campaign) it also gives
// the pending table's emptied pages back (db.TaskStatsCompact), which the
// dashboard and the task list's totals would otherwise keep reading.
func (w *FoldTaskStatsWorker) Work(ctx context.Context, job *river.Job[jobs.FoldTaskStatsArgs]) error {
	if _, err := db.TaskStatsFold(ctx, w.pool); err != nil {
		return err
	}
	_, err := db.TaskStatsCompact(ctx, w.pool)
	return err
}
