package db

import (
	"context"
	"crypto/sha256"
	"time"
)

// UISessionCreate records a browser session of user userID whose cookie
// holds token, until expires.
func UISessionCreate(ctx context.Context, q DBTX, token, userID string, expires time.Time) error {
	sum := sha256.Sum256([]byte(token))
	_, err := q.Exec(ctx, `INSERT INTO ui_sessions (token_sha256, user_id, expires_at) VALUES ($1, $2, $3)`,
		sum[:], userID, expires)
	return err
}

// UISessionUser returns the user of the live session whose cookie holds
// token, and when the session ends; a NotFound error for an unknown or
// expired session, or one whose user is deactivated.
func UISessionUser(ctx context.Context, q DBTX, token string) (User, time.Time, error) {
	sum := sha256.Sum256([]byte(token))
	var expires time.Time
	// One round trip: River UI asks several times a second while open.
	u, err := scanUser(scanAlso{q.QueryRow(ctx, `
		WITH s AS (SELECT user_id, expires_at FROM ui_sessions WHERE token_sha256 = $1 AND expires_at > now())
		SELECT `+userColumns+`, s.expires_at FROM users JOIN s ON s.user_id = users.id WHERE users.active`, sum[:]),
		[]any{&expires}})
	return u, expires, one(err, "no such session")
}

// UISessionsEnd ends every browser session of user userID (sign-out), and
// deletes expired sessions of anyone.
func UISessionsEnd(ctx context.Context, q DBTX, userID string) error {
	_, err := q.Exec(ctx, `DELETE FROM ui_sessions WHERE user_id = $1 OR expires_at <= now()`, userID)
	return err
}
