package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/visibility"
)

// Evaluation is a validated task's evaluation as its agent follows it:
// its result, who validated it when, their acknowledgement and latest
// dispute.
type Evaluation struct {
	TaskUUID       string
	FileName       string
	Kind           string
	Campaign       string
	Score          *float64
	Passed         *bool
	ValidatedAt    time.Time
	ValidatorName  string
	AcknowledgedAt *time.Time
	// Disputes are its disputes, oldest first.
	Disputes []Dispute
}

// EvaluationList returns a page of the validated evaluations of v's own
// tasks (v.User is their agent), newest validation first, that v is shown
// (never a hidden audit), and how many there are.
func EvaluationList(ctx context.Context, q DBTX, v visibility.Viewer, skip, limit int) ([]Evaluation, int, error) {
	where := ` WHERE t.operator_id = $1 AND t.status = 'validated'`
	if v.HidesAny() {
		where += ` AND NOT ` + v.AuditHiddenSQL("t")
	}
	var total int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM tasks t`+where, v.User).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.Query(ctx, `SELECT t.uuid, t.file_name, t.kind, c.name, t.score::float8, t.passed, val.validated_at,
			val.validator_name, a.acknowledged_at
		FROM tasks t JOIN campaigns c ON c.id = t.campaign_id JOIN validations val ON val.task_uuid = t.uuid
		LEFT JOIN acknowledgements a ON a.task_uuid = t.uuid`+where+`
		ORDER BY val.validated_at DESC, t.uuid OFFSET $2 LIMIT $3`, v.User, skip, limit)
	if err != nil {
		return nil, 0, err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Evaluation, error) {
		var e Evaluation
		err := row.Scan(&e.TaskUUID, &e.FileName, &e.Kind, &e.Campaign, &e.Score, &e.Passed, &e.ValidatedAt,
			&e.ValidatorName, &e.AcknowledgedAt)
		return e, err
	})
	if err != nil || len(items) == 0 {
		return items, total, err
	}
	uuids := make([]string, len(items))
	at := make(map[string]int, len(items))
	for i, e := range items {
		uuids[i], at[e.TaskUUID] = e.TaskUUID, i
	}
	disputes, err := collectDisputes(q.Query(ctx, `SELECT `+disputeColumns+disputeFrom+
		` WHERE d.task_uuid = ANY($1::uuid[]) ORDER BY d.opened_at, d.id`, uuids))
	for _, d := range disputes {
		items[at[d.TaskUUID]].Disputes = append(items[at[d.TaskUUID]].Disputes, d)
	}
	return items, total, err
}
