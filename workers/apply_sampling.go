package workers

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/sampling"
)

// ApplySamplingWorker applies sampling rules (package sampling). Each rule
// decides on a task once, so a run again, after a crash or a retry, picks
// nothing twice.
type ApplySamplingWorker struct {
	river.WorkerDefaults[jobs.ApplySamplingArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker.
func (w *ApplySamplingWorker) Work(ctx context.Context, job *river.Job[jobs.ApplySamplingArgs]) error {
	_, err := sampling.Run(ctx, w.pool, job.Args.CampaignID, time.Now())
	return err
}
