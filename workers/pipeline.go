package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/db"
)

// failTask marks task failed, if it is still in one of the statuses from,
// keeping reason, and tells its uploader text, in one transaction. The job
// may have run out of time, so this gets a little time of its own.
func failTask(ctx context.Context, pool *pgxpool.Pool, task db.Task, from []string, text, reason string, attempt int) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := db.NotificationCreate(ctx, tx, taskNote(task.UploadedBy, task, "error", text)); err != nil {
			return err
		}
		_, err := db.TaskTransition(ctx, tx, task.UUID, db.TaskChange{From: from, To: db.TaskFailed, Error: reason, Attempt: attempt})
		return err
	})
	if err != nil && !errors.Is(err, db.ErrTaskStatus) {
		return fmt.Errorf("failing the task: %w", err)
	}
	return nil
}

// taskNote is a notification to user about task, linking to it.
func taskNote(user string, task db.Task, variant, text string) db.NotificationNew {
	return db.NotificationNew{UserID: user, Text: text, Variant: variant, Link: "/tasks/" + task.UUID, TaskUUID: &task.UUID}
}

// snoozes is how many times a job was snoozed, which River keeps in its
// metadata (snoozes use no attempt, so this bounds them).
func snoozes(job *rivertype.JobRow) int {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	_ = json.Unmarshal(job.Metadata, &m) // River's own JSON; absent is zero
	return m.Snoozes
}
