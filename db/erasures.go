package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Erasure statuses.
const (
	ErasureQueued = "queued"
	ErasureDone   = "done"
)

// Erasure is an erasure of a person's data and what it deleted.
type Erasure struct {
	ID          string     `json:"id" format:"uuid"`
	RequestedBy string     `json:"requested_by" doc:"The user id of the admin who asked for it"`
	OperatorID  string     `json:"operator_id,omitempty" doc:"Tasks where this is the agent"`
	CustomerRef string     `json:"customer_ref,omitempty" doc:"Tasks with this customer reference (a task's customer_ref)"`
	Status      string     `json:"status" enum:"queued,done"`
	Tasks       int64      `json:"tasks" doc:"Tasks something was deleted from"`
	Held        int64      `json:"held" doc:"Tasks left untouched because they are on legal hold"`
	Recordings  int64      `json:"recordings"`
	Transcripts int64      `json:"transcripts"`
	Audits      int64      `json:"audits"`
	JobID       int64      `json:"job_id,omitempty" doc:"The erase_person job doing it"`
	CreatedAt   time.Time  `json:"created_at"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
}

const erasureColumns = `id, requested_by, COALESCE(operator_id, ''), COALESCE(customer_ref, ''), status, tasks, held,
	recordings, transcripts, audits, COALESCE(job_id, 0), created_at, finished_at`

func scanErasure(row pgx.Row) (Erasure, error) {
	var e Erasure
	err := row.Scan(&e.ID, &e.RequestedBy, &e.OperatorID, &e.CustomerRef, &e.Status, &e.Tasks, &e.Held,
		&e.Recordings, &e.Transcripts, &e.Audits, &e.JobID, &e.CreatedAt, &e.FinishedAt)
	return e, err
}

// ErasureCreate records an erasure of the tasks of operatorID or
// customerRef ("" for none; one at least), asked for by user by.
func ErasureCreate(ctx context.Context, q DBTX, by, operatorID, customerRef string) (Erasure, error) {
	return scanErasure(q.QueryRow(ctx, `INSERT INTO erasures (requested_by, operator_id, customer_ref)
		VALUES ($1, NULLIF($2, ''), NULLIF($3, '')) RETURNING `+erasureColumns, by, operatorID, customerRef))
}

// ErasureSetJob records the job that carries out erasure id.
func ErasureSetJob(ctx context.Context, q DBTX, id string, jobID int64) (Erasure, error) {
	e, err := scanErasure(q.QueryRow(ctx, `UPDATE erasures SET job_id = $2 WHERE id = $1 RETURNING `+erasureColumns, id, jobID))
	return e, one(err, "no erasure %s", id)
}

// ErasureGet returns erasure id, or a NotFound error.
func ErasureGet(ctx context.Context, q DBTX, id string) (Erasure, error) {
	e, err := scanErasure(q.QueryRow(ctx, `SELECT `+erasureColumns+` FROM erasures WHERE id = $1`, id))
	return e, one(err, "no erasure %s", id)
}

// ErasureProgress adds what a batch deleted to erasure id.
func ErasureProgress(ctx context.Context, q DBTX, id string, tasks int, f Forgotten) error {
	_, err := q.Exec(ctx, `UPDATE erasures SET tasks = tasks + $2, recordings = recordings + $3,
		transcripts = transcripts + $4, audits = audits + $5 WHERE id = $1`,
		id, tasks, f.Count(ForgetRecording), f.Count(ForgetTranscript), f.Count(ForgetAudit))
	return err
}

// ErasureFinish marks erasure id done, with held tasks left untouched,
// and returns it, or a NotFound error.
func ErasureFinish(ctx context.Context, q DBTX, id string, held int64) (Erasure, error) {
	e, err := scanErasure(q.QueryRow(ctx, `UPDATE erasures SET status = 'done', held = $2, finished_at = now()
		WHERE id = $1 RETURNING `+erasureColumns, id, held))
	return e, one(err, "no erasure %s", id)
}

// ErasureList returns up to limit erasures created before the erasure
// before ("" for the newest), newest first.
func ErasureList(ctx context.Context, q DBTX, before string, limit int) ([]Erasure, error) {
	rows, err := q.Query(ctx, `SELECT `+erasureColumns+` FROM erasures
		WHERE $1::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM erasures WHERE id = $1)
		ORDER BY created_at DESC, id DESC LIMIT $2`, nullIfEmpty(before), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Erasure, error) { return scanErasure(row) })
}
