package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
)

// SavedView is a user's saved view of the task list: its filters and sort
// under a name.
type SavedView struct {
	ID     string
	UserID string
	Name   string
	// Query is the list's query string in canonical form.
	Query     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

const savedViewColumns = `id, user_id, name, query, created_at, updated_at`

func scanSavedView(row pgx.Row) (SavedView, error) {
	var v SavedView
	err := row.Scan(&v.ID, &v.UserID, &v.Name, &v.Query, &v.CreatedAt, &v.UpdatedAt)
	return v, err
}

// savedViewMissing is what a view that does not exist, or is another
// user's, is: the same NotFound, so that ids cannot be probed.
func savedViewMissing(err error) error { return one(err, "no saved view of yours has this id") }

// SavedViewList returns user userID's views by name.
func SavedViewList(ctx context.Context, q DBTX, userID string) ([]SavedView, error) {
	rows, err := q.Query(ctx, `SELECT `+savedViewColumns+` FROM saved_views WHERE user_id = $1
		ORDER BY lower(name), name, id`, userID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (SavedView, error) { return scanSavedView(row) })
}

// SavedViewGet returns user userID's view id, or a NotFound error when
// they have none with that id.
func SavedViewGet(ctx context.Context, q DBTX, userID, id string) (SavedView, error) {
	v, err := scanSavedView(q.QueryRow(ctx, `SELECT `+savedViewColumns+` FROM saved_views WHERE id = $1 AND user_id = $2`, id, userID))
	return v, savedViewMissing(err)
}

// SavedViewCreate saves a view named name of query for user userID, who
// may keep at most most views. It returns a Conflict error when they have
// most already or a view of that name (ignoring case). Concurrent creates
// of one user wait for each other on the user's row, so the limit holds.
func SavedViewCreate(ctx context.Context, tx pgx.Tx, userID, name, query string, most int) (SavedView, error) {
	// Counted after the lock, in a statement of its own: one statement
	// that waited for the lock would count what it saw before waiting.
	if _, err := tx.Exec(ctx, `SELECT FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID); err != nil {
		return SavedView{}, err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM saved_views WHERE user_id = $1`, userID).Scan(&n); err != nil {
		return SavedView{}, err
	}
	if n >= most {
		return SavedView{}, errcode.New(errcode.Conflict, "you have %d saved views, the most one may keep; delete or replace one to save another", n)
	}
	v, err := scanSavedView(tx.QueryRow(ctx, `INSERT INTO saved_views (user_id, name, query) VALUES ($1, $2, $3)
		RETURNING `+savedViewColumns, userID, name, query))
	return v, viewNameTaken(err, name)
}

// SavedViewUpdate renames user userID's view id (when name is not nil)
// and replaces its query (when query is not nil). It returns a NotFound
// error when they have no such view and a Conflict error when another of
// their views has the name.
func SavedViewUpdate(ctx context.Context, q DBTX, userID, id string, name, query *string) (SavedView, error) {
	v, err := scanSavedView(q.QueryRow(ctx, `UPDATE saved_views SET name = COALESCE($3, name), query = COALESCE($4, query),
		updated_at = now() WHERE id = $1 AND user_id = $2 RETURNING `+savedViewColumns, id, userID, name, query))
	if name != nil {
		err = viewNameTaken(err, *name)
	}
	return v, savedViewMissing(err)
}

// SavedViewDelete deletes user userID's view id and returns it as it was,
// or a NotFound error when they have no such view.
func SavedViewDelete(ctx context.Context, q DBTX, userID, id string) (SavedView, error) {
	v, err := scanSavedView(q.QueryRow(ctx, `DELETE FROM saved_views WHERE id = $1 AND user_id = $2
		RETURNING `+savedViewColumns, id, userID))
	return v, savedViewMissing(err)
}

// viewNameTaken turns the unique violation of a view's name into a
// Conflict error.
func viewNameTaken(err error, name string) error {
	return unique(err, fmt.Sprintf("you have a saved view called %q already; choose another name", name))
}
