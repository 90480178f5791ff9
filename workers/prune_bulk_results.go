package workers

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
)

// defaultBulkResultsDays is how many days after a bulk action ends its
// per-task results are kept (Deps.BulkResultsDays).
const defaultBulkResultsDays = 90

// defaultBulkResultsBatch is how many per-task results one transaction
// deletes (Deps.BulkResultsBatch).
const defaultBulkResultsBatch = 1000

// PruneBulkResultsWorker deletes the per-task results of the bulk actions
// that ended more than days ago, those that ended first first, a batch per
// transaction; the transaction that deletes an action's last results
// marks the action, so a run cut short is finished by the next and
// nothing is looked at twice.
type PruneBulkResultsWorker struct {
	river.WorkerDefaults[jobs.PruneBulkResultsArgs]
	pool  *pgxpool.Pool
	days  int
	batch int
}

// Timeout implements river.Worker: a first run over years of actions takes a while.
func (w *PruneBulkResultsWorker) Timeout(*river.Job[jobs.PruneBulkResultsArgs]) time.Duration {
	return 30 * time.Minute
}

// Work implements river.Worker.
func (w *PruneBulkResultsWorker) Work(ctx context.Context, job *river.Job[jobs.PruneBulkResultsArgs]) error {
	for {
		ids, err := db.BulkResultsExpired(ctx, w.pool, w.days, 100)
		if err != nil || len(ids) == 0 {
			return err
		}
		for _, id := range ids {
			for end := false; !end; {
				err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) (err error) {
					end, err = db.BulkResultsDelete(ctx, tx, id, w.batch)
					return err
				})
				if err != nil {
					return err
				}
			}
		}
	}
}
