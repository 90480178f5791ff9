package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/redact"
)

// RedactionsSave replaces the redaction records of task uuid with recs:
// written with its transcript, in the same transaction (a transcription
// that runs again replaces both).
func RedactionsSave(ctx context.Context, q DBTX, uuid string, recs []redact.Record) error {
	n := len(recs)
	segments, starts, ends := make([]int, n), make([]int, n), make([]int, n)
	types, detectors := make([]string, n), make([]string, n)
	audioStarts, audioEnds := make([]*float64, n), make([]*float64, n)
	for i, r := range recs {
		segments[i], starts[i], ends[i], types[i], detectors[i] = r.Segment, r.Start, r.End, r.Type, r.Detector
		audioStarts[i], audioEnds[i] = r.AudioStart, r.AudioEnd
	}
	// One statement: the old records go as the new ones come.
	_, err := q.Exec(ctx, `
		WITH gone AS (DELETE FROM redactions WHERE task_uuid = $1)
		INSERT INTO redactions (task_uuid, segment, start_char, end_char, type, detector, audio_start, audio_end)
		SELECT $1, * FROM unnest($2::int[], $3::int[], $4::int[], $5::text[], $6::text[], $7::float8[], $8::float8[])`,
		uuid, segments, starts, ends, types, detectors, audioStarts, audioEnds)
	return err
}

// RedactionsList returns the redaction records of task uuid in the order
// of the transcript.
func RedactionsList(ctx context.Context, q DBTX, uuid string) ([]redact.Record, error) {
	rows, err := q.Query(ctx, `SELECT type, segment, start_char, end_char, detector, audio_start, audio_end
		FROM redactions WHERE task_uuid = $1 ORDER BY segment, start_char`, uuid)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (redact.Record, error) {
		var r redact.Record
		err := row.Scan(&r.Type, &r.Segment, &r.Start, &r.End, &r.Detector, &r.AudioStart, &r.AudioEnd)
		return r, err
	})
}

// TaskBlobRedactedAt returns when the blob of task uuid became its
// redacted copy, nil while it is the original; a NotFound error when
// there is no such task.
func TaskBlobRedactedAt(ctx context.Context, q DBTX, uuid string) (*time.Time, error) {
	var at *time.Time
	err := q.QueryRow(ctx, `SELECT blob_redacted_at FROM tasks WHERE uuid = $1`, uuid).Scan(&at)
	return at, one(err, "no task %s", uuid)
}

// TaskBlobSwap makes newKey (size bytes of contentType) the blob of task
// uuid in place of oldKey, marked redacted. It reports false, changing
// nothing, when the task's blob is no longer oldKey or is redacted already
// (another run swapped it first).
func TaskBlobSwap(ctx context.Context, q DBTX, uuid, oldKey, newKey string, size int64, contentType string) (bool, error) {
	tag, err := q.Exec(ctx, `UPDATE tasks SET blob_key = $3, size_bytes = $4, content_type = $5,
		blob_redacted_at = now(), updated_at = now()
		WHERE uuid = $1 AND blob_key = $2 AND blob_redacted_at IS NULL`, uuid, oldKey, newKey, size, contentType)
	return tag.RowsAffected() == 1, err
}
