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
	ID          string
	RequestedBy string
	OperatorID  string
	CustomerRef string
	Status      string
	Tasks       int64
	Held        int64
	Recordings  int64
	Transcripts int64
	Audits      int64
	JobID       int64
	CreatedAt   time.Time
	FinishedAt  *time.Time
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
