package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
)

// failTask takes task through step (a lifecycle.Fail… step), if it is
// still where step starts, keeping reason, and tells its uploader text, in
// one transaction. The job may have run out of time, so this gets a little
// time of its own.
func failTask(ctx context.Context, pool *pgxpool.Pool, task db.Task, step lifecycle.Step, text l10n.Text, reason string, attempt int) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := db.NotificationCreate(ctx, tx, lifecycle.Notice(task.UploadedBy, task, "error", text)); err != nil {
			return err
		}
		_, err := lifecycle.Move(ctx, tx, task.UUID, step, lifecycle.With{Error: reason, Attempt: attempt})
		return err
	})
	if err != nil && !errors.Is(err, db.ErrTaskStatus) {
		return fmt.Errorf("failing the task: %w", err)
	}
	return nil
}

// snoozesKey is the key of a job's metadata where snooze counts the
// snoozes that bound it (a snooze uses no attempt). It is ours: River's own
// "snoozes" is for debugging and may change its meaning.
const snoozesKey = "auditd_snoozes"

// snoozes is how many times snooze snoozed job before this run.
func snoozes(job *rivertype.JobRow) int {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(job.Metadata, &m) // River's JSON object
	var n int
	_ = json.Unmarshal(m[snoozesKey], &n) // ours; absent is zero
	return n
}

// snooze counts one more snooze of job in its metadata (snoozesKey) and
// returns River's snooze for d: what a worker returns when a server asks
// it to wait, for as long as snoozes(job) is below the worker's bound.
func snooze(ctx context.Context, pool *pgxpool.Pool, job *rivertype.JobRow, d time.Duration) error {
	if _, err := db.JobMetadataCount(ctx, pool, job.ID, snoozesKey); err != nil {
		return err
	}
	return river.JobSnooze(d)
}

// reportable is an error whose text may be shown to users: a directory's
// or a speech server's own explanation, a tool's complaint, a rule of ours;
// never SQL.
type reportable struct{ err error }

func (e *reportable) Error() string { return e.err.Error() }
func (e *reportable) Unwrap() error { return e.err }

// describe is what users are told about err, short enough for a notification.
// Engines' permanent errors (a provider's refusal) are meant for users too.
func describe(err error, jobID int64) string {
	var r *reportable
	shown := err
	switch {
	case errors.As(err, &r):
		shown = r
	case !ErrPermanent(err):
		return fmt.Sprintf("an internal error (job %d; see the worker logs)", jobID)
	}
	// The notification ends the sentence itself.
	return truncate(strings.TrimRight(shown.Error(), ". "), maxDescription)
}

// maxDescription keeps a notification under its 2000 characters.
const maxDescription = 1500

// truncate cuts s to n characters, marking the cut.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
