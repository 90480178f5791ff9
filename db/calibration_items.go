package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// CalibrationItem is a criterion of an interaction of a calibration
// session, as the session's scorecard version has it, with the automatic
// verdict and the calibrated answer.
type CalibrationItem struct {
	TaskUUID    string
	CriterionID string
	Category    string
	Question    string
	Critical    bool
	// Automatic is the automatic audit's verdict, nil when it has none;
	// shown only once the session is closed.
	Automatic *bool
	// AutomaticNotApplicable: the automatic verdict is not applicable.
	AutomaticNotApplicable bool
	// Calibrated is the agreed answer, "" until the supervisor records it.
	Calibrated        string
	CalibratedComment string
	CalibratedBy      string
	CalibratedAt      *time.Time
}

func calibrationItemsInsert(ctx context.Context, tx pgx.Tx, sessionID, task string, items []CalibrationItem) error {
	for i, it := range items {
		if _, err := tx.Exec(ctx, `INSERT INTO calibration_items (session_id, task_uuid, criterion_id, position, category, question,
			critical, automatic, automatic_not_applicable) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			sessionID, task, it.CriterionID, i, it.Category, it.Question, it.Critical, it.Automatic, it.AutomaticNotApplicable); err != nil {
			return err
		}
	}
	return nil
}

// CalibrationItems returns the criteria of every interaction of session
// id, by interaction and criterion in their order.
func CalibrationItems(ctx context.Context, q DBTX, id string) ([]CalibrationItem, error) {
	rows, err := q.Query(ctx, `
		SELECT i.task_uuid::text, i.criterion_id, i.category, i.question, i.critical, i.automatic, i.automatic_not_applicable,
			COALESCE(i.calibrated, ''), i.calibrated_comment, COALESCE(i.calibrated_by, ''), i.calibrated_at
		FROM calibration_items i JOIN calibration_session_tasks t USING (session_id, task_uuid)
		WHERE i.session_id = $1 ORDER BY t.position, i.position`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (CalibrationItem, error) {
		var it CalibrationItem
		err := row.Scan(&it.TaskUUID, &it.CriterionID, &it.Category, &it.Question, &it.Critical, &it.Automatic, &it.AutomaticNotApplicable,
			&it.Calibrated, &it.CalibratedComment, &it.CalibratedBy, &it.CalibratedAt)
		return it, err
	})
}

// CalibrationItemsCalibrate records the calibrated answers (and comments)
// of session id, decided by user by.
func CalibrationItemsCalibrate(ctx context.Context, tx pgx.Tx, id, by string, answers []CalibrationAnswer) error {
	for _, a := range answers {
		if _, err := tx.Exec(ctx, `UPDATE calibration_items SET calibrated = $4, calibrated_comment = $5, calibrated_by = $6,
			calibrated_at = now() WHERE session_id = $1 AND task_uuid = $2 AND criterion_id = $3`,
			id, a.TaskUUID, a.CriterionID, a.Answer, a.Comment, by); err != nil {
			return err
		}
	}
	return nil
}
