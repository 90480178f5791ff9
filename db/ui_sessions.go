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
	var userID string
	err := q.QueryRow(ctx, `SELECT s.user_id, s.expires_at FROM ui_sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_sha256 = $1 AND s.expires_at > now() AND u.active`, sum[:]).Scan(&userID, &expires)
	if err = one(err, "no such session"); err != nil {
		return User{}, time.Time{}, err
	}
	u, err := UserGet(ctx, q, userID)
	return u, expires, err
}

// UISessionsEnd ends every browser session of user userID (sign-out), and
// deletes expired sessions of anyone.
func UISessionsEnd(ctx context.Context, q DBTX, userID string) error {
	_, err := q.Exec(ctx, `DELETE FROM ui_sessions WHERE user_id = $1 OR expires_at <= now()`, userID)
	return err
}
