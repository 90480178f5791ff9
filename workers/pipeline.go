package workers

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
)

// failTask marks a task failed at step (while in status from) with err and
// tells its uploader, in one transaction.
func failTask(ctx context.Context, pool *pgxpool.Pool, task db.Task, from, step string, cause error, attempt int) error {
	// Recorded even when the job's own context has ended.
	ctx = context.WithoutCancel(ctx)
	reason := truncate(cause.Error(), 1000)
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := db.NotificationCreate(ctx, tx, db.NotificationNew{
			UserID:   task.UploadedBy,
			Text:     fmt.Sprintf("%s failed at %s: %s", task.FileName, step, reason),
			Variant:  "error",
			Link:     "/tasks/" + task.UUID,
			TaskUUID: &task.UUID,
		})
		if err != nil {
			return err
		}
		_, err = db.TaskTransition(ctx, tx, task.UUID, db.TaskChange{
			From: []string{from}, To: db.TaskFailed, Error: step + ": " + reason, Attempt: attempt})
		return err
	})
}
