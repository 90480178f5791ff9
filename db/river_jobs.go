package db

import (
	"context"
)

// JobMetadataCount adds one to the count that River job id keeps in its
// metadata under key (zero when absent) and returns the new count. River
// merges what it writes into a job's metadata when a run ends (its own
// "snoozes" among them), so a key of ours stays across snoozes, retries
// and a retry by hand. It returns a NotFound error for an unknown job.
func JobMetadataCount(ctx context.Context, q DBTX, id int64, key string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `
		UPDATE river_job SET metadata = metadata || jsonb_build_object($2::text, COALESCE((metadata->>$2)::int, 0) + 1)
		WHERE id = $1 RETURNING (metadata->>$2)::int`, id, key).Scan(&n)
	return n, one(err, "no job %d", id)
}
