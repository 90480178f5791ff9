package db

import (
	"context"
	"errors"
	"slices"
	"time"
)

// User is a person known to the service, keyed by the identity provider's subject.
type User struct {
	ID         string
	Username   string
	Email      string
	Name       string
	Roles      []string
	Active     bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
	LastSeenAt *time.Time
}

// UserProfile is what a token (or a directory) says about a user.
type UserProfile struct {
	ID       string
	Username string
	Email    string
	Name     string
	Roles    []string
}

// lastSeenResolution bounds how often a user's last_seen_at is written.
const lastSeenResolution = 5 * time.Minute

const userColumns = `id, username, email, name, roles, active, created_at, updated_at, last_seen_at`

func scanUser(row interface{ Scan(...any) error }) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Username, &u.Email, &u.Name, &u.Roles, &u.Active, &u.CreatedAt, &u.UpdatedAt, &u.LastSeenAt)
	return u, one(err)
}

// UserGet returns the user with the given id, or ErrNotFound.
func UserGet(ctx context.Context, q DBTX, id string) (User, error) {
	return scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
}

// UserSeen records that the user of profile p made a request: it creates the
// user just in time, updates the profile when the token's claims changed (an
// empty e-mail or name keeps what a directory sync stored) and refreshes
// last_seen_at at most every few minutes. It never reactivates a deactivated
// user. It returns the stored user.
func UserSeen(ctx context.Context, q DBTX, p UserProfile, now time.Time) (User, error) {
	u, err := UserGet(ctx, q, p.ID)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return User{}, err
	case u.matches(p) && u.LastSeenAt != nil && now.Sub(*u.LastSeenAt) < lastSeenResolution:
		return u, nil
	}
	if p.Roles == nil {
		p.Roles = []string{}
	}
	return scanUser(q.QueryRow(ctx, `
		INSERT INTO users (id, username, email, name, roles, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET
			username = excluded.username,
			email = COALESCE(NULLIF(excluded.email, ''), users.email),
			name = COALESCE(NULLIF(excluded.name, ''), users.name),
			roles = excluded.roles,
			updated_at = CASE WHEN (users.username, users.email, users.name, users.roles) IS DISTINCT FROM
				(excluded.username, COALESCE(NULLIF(excluded.email, ''), users.email),
				 COALESCE(NULLIF(excluded.name, ''), users.name), excluded.roles)
				THEN $6 ELSE users.updated_at END,
			last_seen_at = $6
		RETURNING `+userColumns,
		p.ID, p.Username, p.Email, p.Name, p.Roles, now))
}

func (u User) matches(p UserProfile) bool {
	return u.Username == p.Username &&
		(p.Email == "" || u.Email == p.Email) &&
		(p.Name == "" || u.Name == p.Name) &&
		slices.Equal(u.Roles, p.Roles)
}

// UserResolve returns the id of the user that ref names: the user whose id
// is ref, else the user whose username is ref (ignoring case; the active,
// most recently seen one if several), else ref itself, for agents who have
// no user yet.
func UserResolve(ctx context.Context, q DBTX, ref string) (string, error) {
	var id string
	err := q.QueryRow(ctx, `
		SELECT id FROM users WHERE id = $1 OR lower(username) = lower($1)
		ORDER BY id = $1 DESC, active DESC, last_seen_at DESC NULLS LAST, id
		LIMIT 1`, ref).Scan(&id)
	if errors.Is(one(err), ErrNotFound) {
		return ref, nil
	}
	return id, err
}
