package db

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
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
	// SyncedAt is the last directory sync that listed the user; nil when
	// none did (the user was created by signing in).
	SyncedAt *time.Time
	// Locale is the language notifications are written in (BCP 47), ""
	// for English: the token's locale claim unless LocaleChosen, the
	// user's choice in the dashboard.
	Locale       string
	LocaleChosen bool
	// TimeZone is the IANA time zone the server writes the user's times
	// in, "" for the configured default: the token's zoneinfo claim unless
	// TimeZoneChosen, the user's choice in the dashboard.
	TimeZone       string
	TimeZoneChosen bool
	// RolesAt is when Roles were stated: the issue time of the token they
	// came from, or the directory sync that listed them; nil before either.
	RolesAt *time.Time
	// DeactivatedAt and DeactivatedBy record an admin's deactivation (nil
	// and "" otherwise, also when a directory sync deactivated the user).
	DeactivatedAt *time.Time
	DeactivatedBy string
}

// UserProfile is what a token (or a directory) says about a user.
type UserProfile struct {
	ID       string
	Username string
	Email    string
	Name     string
	Roles    []string
	// Locale is the token's locale claim; "" when it has none, which
	// keeps the one known.
	Locale string
	// TimeZone is the token's zoneinfo claim, an IANA time zone; "" when
	// it has none (or not one), which keeps the one known.
	TimeZone string
	// IssuedAt is the token's issue time (iat): its roles replace the
	// stored ones only if no later token or sync stated them. Zero counts
	// as the time of the request.
	IssuedAt time.Time
}

// lastSeenResolution bounds how often a user's last_seen_at is written.
const lastSeenResolution = 5 * time.Minute

const userColumns = `id, username, email, name, roles, active, created_at, updated_at, last_seen_at, synced_at, locale, locale_chosen, time_zone, time_zone_chosen, roles_at, deactivated_at, deactivated_by`

func scanUser(row interface{ Scan(...any) error }) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Username, &u.Email, &u.Name, &u.Roles, &u.Active, &u.CreatedAt, &u.UpdatedAt, &u.LastSeenAt, &u.SyncedAt, &u.Locale, &u.LocaleChosen, &u.TimeZone, &u.TimeZoneChosen, &u.RolesAt, &u.DeactivatedAt, &u.DeactivatedBy)
	return u, err
}

// UserGet returns the user with the given id, or a NotFound error.
func UserGet(ctx context.Context, q DBTX, id string) (User, error) {
	u, err := scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	return u, one(err, "no user %s", id)
}

// UserSeen records that the user of profile p made a request: it creates the
// user just in time, updates the profile when the token's claims changed (an
// empty e-mail or name keeps what a directory sync stored) and refreshes
// last_seen_at at most every few minutes. The roles are the newest stated:
// a token issued before the stored roles were (by an earlier token or a
// directory sync) leaves them as they are. A deactivated user is neither
// reactivated nor updated: roles, name and last_seen_at stay as they were.
// It returns the stored user.
func UserSeen(ctx context.Context, q DBTX, p UserProfile, now time.Time) (User, error) {
	if p.IssuedAt.IsZero() {
		p.IssuedAt = now
	}
	u, err := UserGet(ctx, q, p.ID)
	switch {
	case errcode.Is(err, errcode.NotFound):
	case err != nil:
		return User{}, err
	case !u.Active:
		return u, nil // a deactivated user is never updated from a token
	case u.matches(p) && u.LastSeenAt != nil && now.Sub(*u.LastSeenAt) < lastSeenResolution:
		return u, nil
	}
	seen, err := scanUser(q.QueryRow(ctx, `
		INSERT INTO users AS u (id, username, email, name, roles, last_seen_at, locale, roles_at, time_zone)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (id) DO UPDATE SET
			username = excluded.username,
			locale = CASE WHEN u.locale_chosen OR excluded.locale = '' THEN u.locale ELSE excluded.locale END,
			time_zone = CASE WHEN u.time_zone_chosen OR excluded.time_zone = '' THEN u.time_zone ELSE excluded.time_zone END,
			email = COALESCE(NULLIF(excluded.email, ''), u.email),
			name = COALESCE(NULLIF(excluded.name, ''), u.name),
			roles = CASE WHEN `+newerRoles+` THEN excluded.roles ELSE u.roles END,
			roles_at = CASE WHEN `+newerRoles+` THEN excluded.roles_at ELSE u.roles_at END,
			updated_at = CASE WHEN (u.username, u.email, u.name, u.roles) IS DISTINCT FROM
				(excluded.username, COALESCE(NULLIF(excluded.email, ''), u.email),
				 COALESCE(NULLIF(excluded.name, ''), u.name), CASE WHEN `+newerRoles+` THEN excluded.roles ELSE u.roles END)
				THEN $6 ELSE u.updated_at END,
			last_seen_at = $6
		WHERE u.active
		RETURNING `+userColumns,
		p.ID, p.Username, p.Email, p.Name, nonNil(p.Roles), now, p.Locale, p.IssuedAt, p.TimeZone))
	if errors.Is(err, pgx.ErrNoRows) {
		// Deactivated since it was read: left as it is.
		return UserGet(ctx, q, p.ID)
	}
	return seen, err
}

// newerRoles is the SQL condition, in UserSeen's upsert, under which the
// token's roles replace the stored ones: none were stated yet, or not
// after the token was issued.
const newerRoles = `(u.roles_at IS NULL OR excluded.roles_at >= u.roles_at)`

func (u User) matches(p UserProfile) bool {
	return u.Username == p.Username &&
		(p.Email == "" || u.Email == p.Email) &&
		(p.Name == "" || u.Name == p.Name) &&
		(p.Locale == "" || u.LocaleChosen || u.Locale == p.Locale) &&
		(p.TimeZone == "" || u.TimeZoneChosen || u.TimeZone == p.TimeZone) &&
		(slices.Equal(u.Roles, p.Roles) || u.RolesAt != nil && p.IssuedAt.Before(*u.RolesAt))
}

// userInactive is the condition that the user whose id is the SQL
// expression id is deactivated (by an admin, or by the directory): such a
// user is told nothing, e-mailed nothing and assigned nothing.
func userInactive(id string) string {
	return "EXISTS (SELECT 1 FROM users inactive WHERE inactive.id = " + id + " AND NOT inactive.active)"
}

// UsersInactiveEmails returns those of emails (ignoring case, lowered)
// that belong only to deactivated users: addresses nothing is sent to.
func UsersInactiveEmails(ctx context.Context, q DBTX, emails []string) ([]string, error) {
	return texts(q.Query(ctx, `SELECT lower(email) FROM users
		WHERE email <> '' AND lower(email) = ANY(SELECT lower(e) FROM unnest($1::text[]) e)
		GROUP BY lower(email) HAVING bool_and(NOT active) ORDER BY 1`, nonNil(emails)))
}

// DirectoryUser is a user as a directory lists it.
type DirectoryUser struct {
	UserProfile
	// Active is false when the directory disables the user.
	Active bool
}

// DirectoryUpsertResult counts what one UserUpsertFromDirectory call changed.
type DirectoryUpsertResult struct {
	// Created users did not exist before.
	Created int
	// Updated users existed and had a different profile, roles or active flag.
	Updated int
	// Disabled users were active and are now inactive because the directory disables them.
	Disabled int
}

// UserUpsertFromDirectory creates or updates users (keyed by ID, the
// subject their tokens carry) with what the directory says about them,
// active flag included, and marks them seen by the sync run that started at
// run. It never deletes anyone. IDs must be unique within users. Running it
// again with the same input changes nothing but synced_at, so a retried sync
// is harmless; synced_at never moves backwards, so an older run that
// overlaps a newer one cannot make the newer one's users look missing.
func UserUpsertFromDirectory(ctx context.Context, q DBTX, users []DirectoryUser, run time.Time) (DirectoryUpsertResult, error) {
	type row struct {
		ID       string   `json:"id"`
		Username string   `json:"username"`
		Email    string   `json:"email"`
		Name     string   `json:"name"`
		Roles    []string `json:"roles"`
		Active   bool     `json:"active"`
	}
	rows := make([]row, len(users))
	for i, u := range users {
		rows[i] = row{u.ID, u.Username, u.Email, u.Name, nonNil(u.Roles), u.Active}
	}
	var r DirectoryUpsertResult
	// old is read from the statement's snapshot, before the upsert, so the
	// counts compare each user's previous state with the new one.
	err := q.QueryRow(ctx, `
		WITH input AS (
			SELECT * FROM jsonb_to_recordset($1::jsonb)
				AS t(id text, username text, email text, name text, roles text[], active boolean)
		), old AS (
			SELECT u.id, u.username, u.email, u.name, u.roles, u.active FROM users u JOIN input USING (id)
		), up AS (
			INSERT INTO users AS u (id, username, email, name, roles, active, synced_at, roles_at)
			SELECT id, username, email, name, roles, active, $2, $2 FROM input
			ON CONFLICT (id) DO UPDATE SET
				username = excluded.username,
				email = excluded.email,
				name = excluded.name,
				roles = excluded.roles,
				roles_at = GREATEST(u.roles_at, excluded.roles_at),
				active = excluded.active AND u.deactivated_at IS NULL,
				updated_at = CASE WHEN (u.username, u.email, u.name, u.roles, u.active) IS DISTINCT FROM
					(excluded.username, excluded.email, excluded.name, excluded.roles, excluded.active)
					THEN now() ELSE u.updated_at END,
				synced_at = GREATEST(u.synced_at, excluded.synced_at)
			RETURNING u.id, u.username, u.email, u.name, u.roles, u.active
		)
		SELECT count(*) FILTER (WHERE old.id IS NULL),
			count(*) FILTER (WHERE old.id IS NOT NULL AND (old.username, old.email, old.name, old.roles, old.active)
				IS DISTINCT FROM (up.username, up.email, up.name, up.roles, up.active)),
			count(*) FILTER (WHERE old.active AND NOT up.active)
		FROM up LEFT JOIN old USING (id)`, rows, run).Scan(&r.Created, &r.Updated, &r.Disabled)
	return r, err
}

// UserDeactivate deactivates user id on behalf of admin by, at at, and
// ends their browser sessions: their tokens and sessions stop working from
// the next request. Deactivating a deactivated user changes nothing. It
// returns the user, or a NotFound error.
func UserDeactivate(ctx context.Context, q DBTX, id, by string, at time.Time) (User, error) {
	u, err := scanUser(q.QueryRow(ctx, `
		UPDATE users SET active = false, deactivated_at = COALESCE(deactivated_at, $3),
			deactivated_by = CASE WHEN deactivated_at IS NULL THEN $2 ELSE deactivated_by END,
			updated_at = CASE WHEN active THEN $3 ELSE updated_at END
		WHERE id = $1 RETURNING `+userColumns, id, by, at))
	if err != nil {
		return User{}, one(err, "no user %s", id)
	}
	return u, UISessionsEnd(ctx, q, id)
}

// UserReactivate lifts the deactivation of user id, whoever made it (an
// admin, or a directory sync). It returns the user, or a NotFound error.
func UserReactivate(ctx context.Context, q DBTX, id string, at time.Time) (User, error) {
	u, err := scanUser(q.QueryRow(ctx, `
		UPDATE users SET active = true, deactivated_at = NULL, deactivated_by = '',
			updated_at = CASE WHEN active THEN updated_at ELSE $2 END
		WHERE id = $1 RETURNING `+userColumns, id, at))
	return u, one(err, "no user %s", id)
}

// UserDeactivateUnsynced deactivates up to limit active users that an
// earlier directory sync listed but the sync run that started at run did
// not: they are gone upstream. Users no sync ever listed are left alone.
// Call it only after run listed the whole directory, and repeat it until
// it returns fewer than limit. It returns how many users it deactivated.
func UserDeactivateUnsynced(ctx context.Context, q DBTX, run time.Time, limit int) (int, error) {
	tag, err := q.Exec(ctx, `
		UPDATE users SET active = false, updated_at = now()
		WHERE id IN (SELECT id FROM users WHERE synced_at < $1 AND active ORDER BY id LIMIT $2)`, run, limit)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

// UsersInactive returns those of ids that are no longer active users
// (deactivated, or deleted): their open event streams must end.
func UsersInactive(ctx context.Context, q DBTX, ids []string) ([]string, error) {
	rows, err := q.Query(ctx, `
		SELECT id FROM unnest($1::text[]) AS s(id)
		WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.id AND u.active)`, ids)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// UserCountSyncedActive counts the active users some directory sync has listed.
func UserCountSyncedActive(ctx context.Context, q DBTX) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM users WHERE synced_at IS NOT NULL AND active`).Scan(&n)
	return n, err
}

// UserFilter selects users for UserList.
type UserFilter struct {
	// Role keeps the users whose roles include it ("" for all).
	Role string
	// Active keeps the active (true) or inactive (false) users (nil for all).
	Active *bool
	// Query keeps the users whose username, e-mail or name contains it,
	// ignoring case ("" for all).
	Query string
	// IDs keeps the users whose id is one of them (nil for all).
	IDs   []string
	Skip  int
	Limit int
}

// UserList returns one page of the users f selects, ordered by username,
// with the total count of the selection.
func UserList(ctx context.Context, q DBTX, f UserFilter) (items []User, total int, err error) {
	where := ` FROM users WHERE ($1 = '' OR $1 = ANY (roles)) AND ($2::boolean IS NULL OR active = $2)
		AND ($3 = '' OR username ILIKE $3 OR email ILIKE $3 OR name ILIKE $3) AND ($4::text[] IS NULL OR id = ANY ($4))`
	pattern := ""
	if f.Query != "" {
		pattern = "%" + likeEscaper.Replace(f.Query) + "%"
	}
	if err := q.QueryRow(ctx, `SELECT count(*)`+where, f.Role, f.Active, pattern, f.IDs).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.Query(ctx, `SELECT `+userColumns+where+` ORDER BY lower(username), id OFFSET $5 LIMIT $6`,
		f.Role, f.Active, pattern, f.IDs, f.Skip, f.Limit)
	if err != nil {
		return nil, 0, err
	}
	items, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (User, error) { return scanUser(row) })
	return items, total, err
}

// UserResolve returns the id of the user that ref names: the user whose id
// is ref, else the user whose username is exactly ref, else the one user
// whose username is ref ignoring case, else ref itself, for agents who
// have no user yet. Several users matching the same way (usernames that
// differ only in case, "ana" and "ANA") are an Invalid error listing
// their ids.
func UserResolve(ctx context.Context, q DBTX, ref string) (string, error) {
	rows, err := q.Query(ctx, `
		SELECT id, username FROM users WHERE id = $1 OR lower(username) = lower($1)
		ORDER BY id LIMIT 21`, ref) // enough to list the candidates
	if err != nil {
		return "", err
	}
	type candidate struct{ id, username string }
	found, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (candidate, error) {
		var c candidate
		return c, row.Scan(&c.id, &c.username)
	})
	if err != nil {
		return "", err
	}
	var exact, folded []string
	for _, c := range found {
		if c.id == ref {
			return c.id, nil
		}
		if c.username == ref {
			exact = append(exact, c.id)
		}
		folded = append(folded, c.id)
	}
	for _, ids := range [][]string{exact, folded} {
		switch len(ids) {
		case 0:
		case 1:
			return ids[0], nil
		default:
			return "", errcode.New(errcode.Invalid, "%q is the username of several users when case is ignored; give the user's id: one of %s",
				ref, strings.Join(ids, ", "))
		}
	}
	return ref, nil
}

// UserChoice is what a user chose of how the server writes to them; an
// empty field is left as it is.
type UserChoice struct {
	// Locale is a BCP 47 tag; tokens' locale claims no longer change it.
	Locale string
	// TimeZone is an IANA time zone (checked by the caller); tokens'
	// zoneinfo claims no longer change it.
	TimeZone string
}

// UserChoose records c as user id's choices. It returns the user, or a
// NotFound error.
func UserChoose(ctx context.Context, q DBTX, id string, c UserChoice) (User, error) {
	u, err := scanUser(q.QueryRow(ctx, `
		UPDATE users SET
			locale = CASE WHEN $2 = '' THEN locale ELSE $2 END,
			locale_chosen = locale_chosen OR $2 <> '',
			time_zone = CASE WHEN $3 = '' THEN time_zone ELSE $3 END,
			time_zone_chosen = time_zone_chosen OR $3 <> '',
			updated_at = now()
		WHERE id = $1
		RETURNING `+userColumns, id, c.Locale, c.TimeZone))
	return u, one(err, "no user %q", id)
}

// AnalystLoad is an analyst of a campaign's pool and their open
// assignments: tasks assigned to them that are still automatic.
type AnalystLoad struct {
	ID   string
	Open int
}

// UsersAnalystPool returns the active users among ids, or when ids is
// empty every active user whose highest role is quality, by id, with their
// open assignments.
func UsersAnalystPool(ctx context.Context, q DBTX, ids []string) ([]AnalystLoad, error) {
	rows, err := q.Query(ctx, `
		SELECT u.id, (SELECT count(*) FROM tasks t WHERE t.assignee_id = u.id AND `+openAssignment+`)
		FROM users u
		WHERE u.active AND CASE WHEN cardinality($1::text[]) > 0 THEN u.id = ANY($1)
			ELSE 'quality' = ANY(u.roles) AND NOT u.roles && ARRAY['supervisor', 'admin'] END
		ORDER BY u.id`, nonNil(ids))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AnalystLoad, error) {
		var a AnalystLoad
		return a, row.Scan(&a.ID, &a.Open)
	})
}

// UsersWithEmail returns the ids of the active users whose e-mail is one
// of emails (ignoring case) and whose roles include one of roles, by id:
// a campaign's supervisors among its supervisor e-mails.
func UsersWithEmail(ctx context.Context, q DBTX, emails, roles []string) ([]string, error) {
	if len(emails) == 0 {
		return nil, nil
	}
	return texts(q.Query(ctx, `SELECT id FROM users
		WHERE active AND lower(email) = ANY(SELECT lower(e) FROM unnest($1::text[]) e) AND roles && $2::text[]
		ORDER BY id`, emails, roles))
}

// UsersWithAnyRole returns the active users whose roles include any of
// roles, ordered by username: for example everyone who may analyse.
func UsersWithAnyRole(ctx context.Context, q DBTX, roles []string) ([]User, error) {
	rows, err := q.Query(ctx, `SELECT `+userColumns+` FROM users WHERE active AND roles && $1::text[]
		ORDER BY lower(username), id`, roles)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (User, error) { return scanUser(row) })
}

// UsersByEmail returns the active users whose e-mail is one of emails
// (ignoring case), keyed by the lowered address; of several sharing one,
// the first by id.
func UsersByEmail(ctx context.Context, q DBTX, emails []string) (map[string]User, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT ON (lower(email)) `+userColumns+` FROM users
		WHERE active AND email <> '' AND lower(email) = ANY(SELECT lower(e) FROM unnest($1::text[]) e)
		ORDER BY lower(email), id`, nonNil(emails))
	if err != nil {
		return nil, err
	}
	users, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (User, error) { return scanUser(row) })
	out := make(map[string]User, len(users))
	for _, u := range users {
		out[strings.ToLower(u.Email)] = u
	}
	return out, err
}
