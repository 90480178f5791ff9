package workers

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/coaching"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
)

// RemindCoachingWorker reminds an agent of a coaching item falling due
// (jobs.RemindCoachingArgs).
type RemindCoachingWorker struct {
	river.WorkerDefaults[jobs.RemindCoachingArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker: coaching.Remind marks the due date
// reminded and writes the notification in one transaction, so the agent
// is reminded of it once. An item deleted since needs no reminder.
func (w *RemindCoachingWorker) Work(ctx context.Context, job *river.Job[jobs.RemindCoachingArgs]) error {
	err := coaching.Remind(ctx, w.pool, job.Args.CoachingID, job.Args.DueAt)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(err)
	}
	return err
}
