package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// CalibrationTaskNew is an interaction of a new calibration session: the
// task, the audit revision it is taken from and that revision's criteria.
type CalibrationTaskNew struct {
	TaskUUID         string
	AuditRevision    int
	ScorecardVersion int
	Items            []CalibrationItem
}

// CalibrationTask is an interaction of a calibration session.
type CalibrationTask struct {
	TaskUUID         string
	FileName         string
	Kind             string
	OperatorID       string
	AuditRevision    int
	ScorecardVersion int
	AppliedEditID    *int64
	AppliedRevision  *int
	AppliedAt        *time.Time
}

func calibrationTasksInsert(ctx context.Context, tx pgx.Tx, sessionID string, tasks []CalibrationTaskNew) error {
	for i, t := range tasks {
		if _, err := tx.Exec(ctx, `INSERT INTO calibration_session_tasks (session_id, task_uuid, position, audit_revision, scorecard_version)
			VALUES ($1, $2, $3, $4, $5)`, sessionID, t.TaskUUID, i, t.AuditRevision, t.ScorecardVersion); err != nil {
			return err
		}
		if err := calibrationItemsInsert(ctx, tx, sessionID, t.TaskUUID, t.Items); err != nil {
			return err
		}
	}
	return nil
}

// CalibrationTasks returns the interactions of session id in their order.
func CalibrationTasks(ctx context.Context, q DBTX, id string) ([]CalibrationTask, error) {
	rows, err := q.Query(ctx, `
		SELECT c.task_uuid::text, t.file_name, t.kind, COALESCE(t.operator_id, ''), c.audit_revision, c.scorecard_version,
			c.applied_edit_id, e.revision, c.applied_at
		FROM calibration_session_tasks c JOIN tasks t ON t.uuid = c.task_uuid
		LEFT JOIN audit_edits e ON e.id = c.applied_edit_id
		WHERE c.session_id = $1 ORDER BY c.position`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (CalibrationTask, error) {
		var t CalibrationTask
		err := row.Scan(&t.TaskUUID, &t.FileName, &t.Kind, &t.OperatorID, &t.AuditRevision, &t.ScorecardVersion,
			&t.AppliedEditID, &t.AppliedRevision, &t.AppliedAt)
		return t, err
	})
}

// CalibrationTaskApplied records that task's calibrated answers in session
// id became edit editID.
func CalibrationTaskApplied(ctx context.Context, tx pgx.Tx, id, task string, editID int64) error {
	_, err := tx.Exec(ctx, `UPDATE calibration_session_tasks SET applied_edit_id = $3, applied_at = now()
		WHERE session_id = $1 AND task_uuid = $2`, id, task, editID)
	return err
}

// CalibrationCampaigns returns the ids of the campaigns of session id's
// interactions.
func CalibrationCampaigns(ctx context.Context, q DBTX, id string) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT t.campaign_id::text FROM calibration_session_tasks c
		JOIN tasks t ON t.uuid = c.task_uuid WHERE c.session_id = $1 ORDER BY 1`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
