package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// What became of an object of an ingest source.
const (
	// IngestClaimed is an object being read by a poll.
	IngestClaimed = "claimed"
	// IngestRetry is an object whose last reading failed in passing (the
	// source or the database did not answer): the next poll tries again.
	IngestRetry = "retry"
	// IngestTaken is an object that became a task.
	IngestTaken = "taken"
	// IngestSkipped is an object not taken, and why: a duplicate, a
	// sidecar.
	IngestSkipped = "skipped"
	// IngestFailed is an object refused, and why; it is not tried again.
	IngestFailed = "failed"
)

// IngestObject is what became of one object of a source.
type IngestObject struct {
	Key       string
	Status    string
	Attempts  int
	TaskUUID  string
	SHA256    string
	SizeBytes int64
	// Sidecar is the key of the sidecar read with it ("" for none).
	Sidecar   string
	Reason    string
	ClaimedAt time.Time
	UpdatedAt time.Time
}

// IngestObjectsKnown returns those of keys that source id has recorded and
// will not read again: all but those waiting to be retried.
func IngestObjectsKnown(ctx context.Context, q DBTX, id string, keys []string) (map[string]bool, error) {
	rows, err := q.Query(ctx, `SELECT key FROM ingest_objects
		WHERE source_id = $1 AND key = ANY($2) AND status <> 'retry'`, id, keys)
	if err != nil {
		return nil, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	known := make(map[string]bool, len(found))
	for _, k := range found {
		known[k] = true
	}
	return known, err
}

// IngestObjectClaim claims key of source id for this poll and returns its
// attempt (1 the first time), or 0 when it is not to be read: recorded
// already, or claimed by another poll less than stale ago (a claim older
// than that was a process that died reading it).
func IngestObjectClaim(ctx context.Context, q DBTX, id, key string, stale time.Duration) (int, error) {
	var attempt int
	err := q.QueryRow(ctx, `
		INSERT INTO ingest_objects (source_id, key, status) VALUES ($1, $2, 'claimed')
		ON CONFLICT (source_id, key) DO UPDATE SET status = 'claimed', attempts = ingest_objects.attempts + 1,
			claimed_at = now(), updated_at = now()
		WHERE ingest_objects.status = 'retry'
			OR (ingest_objects.status = 'claimed' AND ingest_objects.claimed_at < now() - make_interval(secs => $3))
		RETURNING attempts`, id, key, stale.Seconds()).Scan(&attempt)
	if err == pgx.ErrNoRows {
		return 0, nil
	}
	return attempt, err
}

// IngestObjectRecord records what became of key of source id, claimed
// before: o's status, task, hash, size, sidecar and reason.
func IngestObjectRecord(ctx context.Context, q DBTX, id string, o IngestObject) error {
	_, err := q.Exec(ctx, `UPDATE ingest_objects SET status = $3, task_uuid = NULLIF($4, '')::uuid, sha256 = $5,
		size_bytes = $6, sidecar = $7, reason = $8, updated_at = now()
		WHERE source_id = $1 AND key = $2`,
		id, o.Key, o.Status, o.TaskUUID, o.SHA256, o.SizeBytes, o.Sidecar, o.Reason)
	return err
}

// IngestObjectSkip records key of source id as skipped for reason, unless
// it is recorded already.
func IngestObjectSkip(ctx context.Context, q DBTX, id, key, reason string) error {
	_, err := q.Exec(ctx, `INSERT INTO ingest_objects (source_id, key, status, reason) VALUES ($1, $2, 'skipped', $3)
		ON CONFLICT (source_id, key) DO NOTHING`, id, key, reason)
	return err
}

// IngestObjectList returns a page of what became of source id's objects,
// newest first, those of status only unless it is "", and how many there
// are.
func IngestObjectList(ctx context.Context, q DBTX, id, status string, skip, limit int) ([]IngestObject, int, error) {
	var total int
	err := q.QueryRow(ctx, `SELECT count(*) FROM ingest_objects WHERE source_id = $1 AND ($2 = '' OR status = $2)`,
		id, status).Scan(&total)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.Query(ctx, `SELECT key, status, attempts, COALESCE(task_uuid::text, ''), sha256, size_bytes,
			sidecar, reason, claimed_at, updated_at
		FROM ingest_objects WHERE source_id = $1 AND ($2 = '' OR status = $2)
		ORDER BY id DESC OFFSET $3 LIMIT $4`, id, status, skip, limit)
	if err != nil {
		return nil, 0, err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (IngestObject, error) {
		var o IngestObject
		err := row.Scan(&o.Key, &o.Status, &o.Attempts, &o.TaskUUID, &o.SHA256, &o.SizeBytes, &o.Sidecar,
			&o.Reason, &o.ClaimedAt, &o.UpdatedAt)
		return o, err
	})
	return items, total, err
}
