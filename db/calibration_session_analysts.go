package db

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
)

// CalibrationAnalyst is an analyst of a calibration session.
type CalibrationAnalyst struct {
	UserID      string
	Name        string
	Roles       []string
	Locale      string
	SubmittedAt *time.Time
}

// CalibrationAnalysts returns the analysts of session id by name.
func CalibrationAnalysts(ctx context.Context, q DBTX, id string) ([]CalibrationAnalyst, error) {
	rows, err := q.Query(ctx, `
		SELECT a.user_id, COALESCE(NULLIF(u.name, ''), NULLIF(u.username, ''), a.user_id), u.roles, u.locale, a.submitted_at
		FROM calibration_session_analysts a JOIN users u ON u.id = a.user_id
		WHERE a.session_id = $1 ORDER BY 2, 1`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (CalibrationAnalyst, error) {
		var a CalibrationAnalyst
		err := row.Scan(&a.UserID, &a.Name, &a.Roles, &a.Locale, &a.SubmittedAt)
		return a, err
	})
}

// CalibrationAnalystSubmit records that user submitted their answers to
// session id. It returns a Conflict error when they had already.
func CalibrationAnalystSubmit(ctx context.Context, tx pgx.Tx, id, user string) error {
	tag, err := tx.Exec(ctx, `UPDATE calibration_session_analysts SET submitted_at = now()
		WHERE session_id = $1 AND user_id = $2 AND submitted_at IS NULL`, id, user)
	if err == nil && tag.RowsAffected() == 0 {
		err = errcode.New(errcode.Conflict, "you have submitted your answers to this calibration session already; they cannot be changed")
	}
	return err
}

// CalibrationBlindFor returns the open calibration session that keeps the
// audit of task taskUUID hidden from user: one that holds the task and
// has the user as an analyst who has not submitted yet; nil when none does.
func CalibrationBlindFor(ctx context.Context, q DBTX, taskUUID, user string) (*CalibrationRef, error) {
	var ref CalibrationRef
	err := q.QueryRow(ctx, `
		SELECT s.id::text, s.name FROM calibration_session_tasks t
		JOIN calibration_sessions s ON s.id = t.session_id AND s.status = 'open'
		JOIN calibration_session_analysts a ON a.session_id = s.id AND a.user_id = $2 AND a.submitted_at IS NULL
		WHERE t.task_uuid = $1 ORDER BY s.created_at, s.id LIMIT 1`, taskUUID, user).Scan(&ref.ID, &ref.Name)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &ref, nil
}

// CalibrationReminder is an analyst to remind that a calibration session
// falls due with their answers still to send.
type CalibrationReminder struct {
	UserID  string
	Session CalibrationRef
	DueAt   time.Time
}

// CalibrationRemind marks as reminded, and returns, the analysts of the
// open sessions due before now plus lead (overdue ones too) who have
// still to submit and were not reminded yet: each is reminded once. A
// session created less than lead before it is due reminds nobody: its
// start told them the due time. Call it in the transaction that writes
// their reminders.
func CalibrationRemind(ctx context.Context, tx pgx.Tx, lead time.Duration) ([]CalibrationReminder, error) {
	rows, err := tx.Query(ctx, `
		UPDATE calibration_session_analysts a SET reminded_at = now()
		FROM calibration_sessions s
		WHERE s.id = a.session_id AND s.status = 'open' AND s.due_at < now() + $1::interval
			AND s.due_at - $1::interval > s.created_at AND a.submitted_at IS NULL AND a.reminded_at IS NULL
		RETURNING a.user_id, s.id::text, s.name, s.due_at`, lead)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (CalibrationReminder, error) {
		var r CalibrationReminder
		err := row.Scan(&r.UserID, &r.Session.ID, &r.Session.Name, &r.DueAt)
		return r, err
	})
}

// CalibrationNotice is a notification to user about calibration session
// id, linking to it.
func CalibrationNotice(user, id, variant string, text l10n.Text) NotificationNew {
	return NotificationNew{UserID: user, Text: text, Variant: variant, Link: "/calibration/" + id}
}
