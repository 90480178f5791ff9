package workers

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
)

// SettleTasksWorker fails every task a job abandoned (db.TasksAbandoned)
// and notifies its uploader, so that no task stays under way with nothing
// left to move it: the workers fail a task themselves on the failures they
// know, and this catches the rest (an error on the last attempt outside
// the engine, a job cancelled or discarded from River UI).
type SettleTasksWorker struct {
	river.WorkerDefaults[jobs.SettleTasksArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker. Failing a task is a guarded transition,
// so a retry or a concurrent run fails each task once.
func (w *SettleTasksWorker) Work(ctx context.Context, job *river.Job[jobs.SettleTasksArgs]) error {
	abandoned, err := db.TasksAbandoned(ctx, w.pool)
	if err != nil {
		return err
	}
	for _, a := range abandoned {
		job := strconv.FormatInt(a.JobID, 10)
		why := l10n.T("its job (%s) was cancelled", job)
		if a.JobState == string(rivertype.JobStateDiscarded) {
			why = l10n.T("its job (%s) gave up after %d attempts; see the worker logs or River UI", job, a.Attempt)
		}
		step, fail := "transcription", lifecycle.FailTranscription
		text := l10n.T("The transcription of %s stopped: %s. An administrator can retry it.", a.Task.FileName, why)
		if a.JobKind == (jobs.AuditArgs{}).Kind() {
			step, fail = "audit", lifecycle.FailAudit
			text = l10n.T("The audit of %s stopped: %s. An administrator can retry it.", a.Task.FileName, why)
		}
		if err := failTask(ctx, w.pool, a.Task, fail, text, step+": "+why.String(), a.Attempt); err != nil {
			return err
		}
	}
	return nil
}
