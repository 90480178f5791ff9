package review_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/review"
)

// TestGoAndSQLAgree runs After and SetSQL on the same rows (every source,
// with and without an author, on an audit reviewed or not) and fails where
// they disagree.
func TestGoAndSQLAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	earlier := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	type row struct {
		source, author string
		before         review.State
	}
	var rows []row
	for _, source := range []string{review.ByEngine, review.ByAnalyst, review.ByRecompute} {
		for _, author := range []string{"", "maria"} {
			for _, before := range []review.State{{}, {At: &earlier, By: "jon"}} {
				rows = append(rows, row{source, author, before})
			}
		}
	}
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, `CREATE TEMP TABLE t (i int, source text, author text, reviewed_at timestamptz, reviewed_by text)`)
	require.NoError(t, err)
	for i, r := range rows {
		var by *string
		if r.before.By != "" {
			by = &r.before.By
		}
		_, err := tx.Exec(ctx, `INSERT INTO t VALUES ($1, $2, $3, $4, $5)`, i, r.source, r.author, r.before.At, by)
		require.NoError(t, err)
	}
	var now time.Time
	require.NoError(t, tx.QueryRow(ctx, `SELECT now()`).Scan(&now))
	_, err = tx.Exec(ctx, `UPDATE t SET `+review.SetSQL("t.source", "t.author"))
	require.NoError(t, err)
	got := map[int]review.State{}
	res, err := tx.Query(ctx, `SELECT i, reviewed_at, COALESCE(reviewed_by, '') FROM t`)
	require.NoError(t, err)
	var i int
	var s review.State
	_, err = pgx.ForEachRow(res, []any{&i, &s.At, &s.By}, func() error {
		got[i] = s
		s = review.State{}
		return nil
	})
	require.NoError(t, err)
	reviewed := 0
	for i, r := range rows {
		want := review.After(r.before, r.source, r.author, now)
		name := fmt.Sprintf("a revision by %s (author %q) of %+v", r.source, r.author, r.before)
		require.Equal(t, want.By, got[i].By, name)
		require.Equal(t, want.At == nil, got[i].At == nil, name)
		if want.At != nil {
			require.True(t, want.At.Equal(*got[i].At), "%s: at %s, not %s", name, got[i].At, want.At)
			reviewed++
		}
	}
	require.Equal(t, 5, reviewed, "an analyst with an author reviews; a recomputation, or an analyst's revision without author, keeps a review")
}
