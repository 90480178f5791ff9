package db

import (
	"context"
)

// UserSyncRequestAdd records that user userID waits for the outcome of the
// sync_users job jobID. Asking twice is the same as asking once; a user
// that does not exist is ignored (there is nobody to tell).
func UserSyncRequestAdd(ctx context.Context, q DBTX, jobID int64, userID string) error {
	_, err := q.Exec(ctx, `INSERT INTO user_sync_requests (job_id, user_id)
		SELECT $1, id FROM users WHERE id = $2
		ON CONFLICT DO NOTHING`, jobID, userID)
	return err
}

// UserSyncRequestStart marks the requests for job jobID as started and
// returns the users who had not yet been told it started.
func UserSyncRequestStart(ctx context.Context, q DBTX, jobID int64) ([]string, error) {
	return texts(q.Query(ctx, `UPDATE user_sync_requests SET started_at = now()
		WHERE job_id = $1 AND started_at IS NULL RETURNING user_id`, jobID))
}

// UserSyncRequestList returns the users waiting for job jobID.
func UserSyncRequestList(ctx context.Context, q DBTX, jobID int64) ([]string, error) {
	return texts(q.Query(ctx, `SELECT user_id FROM user_sync_requests WHERE job_id = $1 ORDER BY requested_at, user_id`, jobID))
}

// UserSyncRequestFinish deletes the requests for job jobID, which has ended,
// and returns the users who were waiting for it.
func UserSyncRequestFinish(ctx context.Context, q DBTX, jobID int64) ([]string, error) {
	return texts(q.Query(ctx, `DELETE FROM user_sync_requests WHERE job_id = $1 RETURNING user_id`, jobID))
}
