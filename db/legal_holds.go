package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// LegalHold keeps a task from retention and erasure until an admin lifts it.
type LegalHold struct {
	TaskUUID string
	Reason   string
	PlacedBy string
	PlacedAt time.Time
}

const legalHoldColumns = `task_uuid, reason, placed_by, placed_at`

func scanLegalHold(row pgx.Row) (LegalHold, error) {
	var h LegalHold
	err := row.Scan(&h.TaskUUID, &h.Reason, &h.PlacedBy, &h.PlacedAt)
	return h, err
}

// LegalHoldGet returns the hold on task uuid, or a NotFound error when the
// task is not held.
func LegalHoldGet(ctx context.Context, q DBTX, uuid string) (LegalHold, error) {
	h, err := scanLegalHold(q.QueryRow(ctx, `SELECT `+legalHoldColumns+` FROM legal_holds WHERE task_uuid = $1`, uuid))
	return h, one(err, "task %s is not on legal hold", uuid)
}

// LegalHoldPlace holds task uuid for reason, placed by user by; a task
// held already keeps its hold with the new reason, by and time.
func LegalHoldPlace(ctx context.Context, q DBTX, uuid, reason, by string) (LegalHold, error) {
	return scanLegalHold(q.QueryRow(ctx, `
		INSERT INTO legal_holds (task_uuid, reason, placed_by) VALUES ($1, $2, $3)
		ON CONFLICT (task_uuid) DO UPDATE SET reason = excluded.reason, placed_by = excluded.placed_by, placed_at = now()
		RETURNING `+legalHoldColumns, uuid, reason, by))
}

// LegalHoldLift lifts the hold on task uuid and returns it as it was, or a
// NotFound error when the task is not held.
func LegalHoldLift(ctx context.Context, q DBTX, uuid string) (LegalHold, error) {
	h, err := scanLegalHold(q.QueryRow(ctx, `DELETE FROM legal_holds WHERE task_uuid = $1 RETURNING `+legalHoldColumns, uuid))
	return h, one(err, "task %s is not on legal hold", uuid)
}

// TaskPrivacy is what retention, erasure and holds have done to a task.
type TaskPrivacy struct {
	// LegalHold is nil when the task is not held.
	LegalHold           *LegalHold
	RecordingDeletedAt  *time.Time
	TranscriptDeletedAt *time.Time
	AuditDeletedAt      *time.Time
}

// TaskPrivacyGet returns task uuid's privacy state, or a NotFound error.
func TaskPrivacyGet(ctx context.Context, q DBTX, uuid string) (TaskPrivacy, error) {
	var p TaskPrivacy
	var h LegalHold
	var placedAt *time.Time
	var reason, by *string
	err := q.QueryRow(ctx, `
		SELECT t.recording_deleted_at, t.transcript_deleted_at, t.audit_deleted_at, h.reason, h.placed_by, h.placed_at
		FROM tasks t LEFT JOIN legal_holds h ON h.task_uuid = t.uuid WHERE t.uuid = $1`, uuid).
		Scan(&p.RecordingDeletedAt, &p.TranscriptDeletedAt, &p.AuditDeletedAt, &reason, &by, &placedAt)
	if placedAt != nil {
		h = LegalHold{TaskUUID: uuid, Reason: *reason, PlacedBy: *by, PlacedAt: *placedAt}
		p.LegalHold = &h
	}
	return p, one(err, "no task %s", uuid)
}
