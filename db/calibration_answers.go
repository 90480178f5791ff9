package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// CalibrationAnswer is an answer to a criterion of an interaction of a
// calibration session: an analyst's, or the calibrated one.
type CalibrationAnswer struct {
	TaskUUID    string
	CriterionID string
	AnalystID   string
	Answer      string
	Comment     string
}

// CalibrationAnswersInsert stores analyst's answers to session id.
func CalibrationAnswersInsert(ctx context.Context, tx pgx.Tx, id, analyst string, answers []CalibrationAnswer) error {
	rows := make([][]any, len(answers))
	for i, a := range answers {
		rows[i] = []any{id, a.TaskUUID, a.CriterionID, analyst, a.Answer, a.Comment}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"calibration_answers"},
		[]string{"session_id", "task_uuid", "criterion_id", "analyst_id", "answer", "comment"}, pgx.CopyFromRows(rows))
	return err
}

// CalibrationAnswers returns the answers to session id: analyst's, or
// everyone's when analyst is "".
func CalibrationAnswers(ctx context.Context, q DBTX, id, analyst string) ([]CalibrationAnswer, error) {
	rows, err := q.Query(ctx, `SELECT task_uuid::text, criterion_id, analyst_id, answer, comment FROM calibration_answers
		WHERE session_id = $1 AND ($2 = '' OR analyst_id = $2) ORDER BY analyst_id, task_uuid, criterion_id`, id, analyst)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (CalibrationAnswer, error) {
		var a CalibrationAnswer
		err := row.Scan(&a.TaskUUID, &a.CriterionID, &a.AnalystID, &a.Answer, &a.Comment)
		return a, err
	})
}
