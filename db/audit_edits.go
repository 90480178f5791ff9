package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/scoring"
)

// Statuses of an analyst's edit.
const (
	EditPending  = "pending"
	EditApplied  = "applied"
	EditRejected = "rejected"
	EditFailed   = "failed"
)

// AuditEdit is an analyst's edit of a task's audit, recorded before the
// recompute_audit job applies it.
type AuditEdit struct {
	ID       int64
	TaskUUID string
	// BasedOn is the revision the analyst edited (If-Match); zero applies
	// the edit to whatever revision is current.
	BasedOn int
	// Verdicts are the analyst's, by criterion id, without evidence.
	Verdicts []scoring.Verdict
	// AuthorID and AuthorName are the token subject and x-username.
	AuthorID   string
	AuthorName string
	// CalibrationSessionID is the calibration session whose calibrated
	// answers the edit applies, if any: the reason of its revision.
	CalibrationSessionID string
	// Status is EditPending until the job resolves it.
	Status string
	// Revision is the revision the edit became, once EditApplied.
	Revision int
	// Error says why an edit was EditRejected or EditFailed.
	Error      string
	CreatedAt  time.Time
	ResolvedAt *time.Time
	// DisputeID is the dispute whose accepted criteria the edit changes,
	// "" for an analyst's edit. Such an edit changes a validated audit,
	// scored against the scorecard of the revision it changes.
	DisputeID string
}

const auditEditColumns = `id, task_uuid, COALESCE(based_on, 0), verdicts, author_id, COALESCE(author_name, ''),
	status, COALESCE(revision, 0), COALESCE(error, ''), created_at, resolved_at, COALESCE(dispute_id::text, ''),
	COALESCE(calibration_session_id::text, '')`

func scanAuditEdit(row pgx.Row) (AuditEdit, error) {
	var e AuditEdit
	var verdicts []byte
	err := row.Scan(&e.ID, &e.TaskUUID, &e.BasedOn, &verdicts, &e.AuthorID, &e.AuthorName,
		&e.Status, &e.Revision, &e.Error, &e.CreatedAt, &e.ResolvedAt, &e.DisputeID, &e.CalibrationSessionID)
	if err != nil {
		return AuditEdit{}, err
	}
	return e, json.Unmarshal(verdicts, &e.Verdicts)
}

// AuditEditInsert records a pending edit (ID, Status and times are
// assigned) and returns it. Insert its recompute_audit job in the same
// transaction.
func AuditEditInsert(ctx context.Context, tx pgx.Tx, e AuditEdit) (AuditEdit, error) {
	verdicts, err := json.Marshal(e.Verdicts)
	if err != nil {
		return AuditEdit{}, err
	}
	return scanAuditEdit(tx.QueryRow(ctx, `
		INSERT INTO audit_edits (task_uuid, based_on, verdicts, author_id, author_name, dispute_id, calibration_session_id)
		VALUES ($1, NULLIF($2, 0), $3, $4, NULLIF($5, ''), NULLIF($6, '')::uuid, NULLIF($7, '')::uuid)
		RETURNING `+auditEditColumns,
		e.TaskUUID, e.BasedOn, verdicts, e.AuthorID, e.AuthorName, e.DisputeID, e.CalibrationSessionID))
}

// AuditEditGet returns edit id, or a NotFound error.
func AuditEditGet(ctx context.Context, q DBTX, id int64) (AuditEdit, error) {
	e, err := scanAuditEdit(q.QueryRow(ctx, `SELECT `+auditEditColumns+` FROM audit_edits WHERE id = $1`, id))
	return e, one(err, "no audit edit %d", id)
}

// AuditEditsPending returns the pending edits of a task with an id up to
// upTo, oldest first: the edits to apply, in the order they were made,
// before edit upTo. In a transaction they stay locked until it ends.
func AuditEditsPending(ctx context.Context, q DBTX, taskUUID string, upTo int64) ([]AuditEdit, error) {
	rows, err := q.Query(ctx, `SELECT `+auditEditColumns+` FROM audit_edits
		WHERE task_uuid = $1 AND status = 'pending' AND id <= $2 ORDER BY id FOR UPDATE`, taskUUID, upTo)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditEdit, error) { return scanAuditEdit(row) })
}

// AuditEditResolve records the outcome of a pending edit: status (not
// EditPending), the revision it became when EditApplied, else why not. An
// edit already resolved is left as it is. It returns a NotFound error for
// an unknown or already resolved edit.
func AuditEditResolve(ctx context.Context, q DBTX, id int64, status string, revision int, reason string) error {
	var got int64
	return one(q.QueryRow(ctx, `
		UPDATE audit_edits SET status = $2, revision = NULLIF($3, 0), error = NULLIF($4, ''), resolved_at = now()
		WHERE id = $1 AND status = 'pending' RETURNING id`, id, status, revision, reason).Scan(&got),
		"no pending audit edit %d", id)
}
