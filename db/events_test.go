package db_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/role"
)

func mustInt(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

func TestEventInsertNotifiesAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.URL(t)
	pool := dbtest.PoolFor(t, url)

	listener, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer listener.Close(ctx)
	_, err = listener.Exec(ctx, "LISTEN "+db.EventChannel)
	require.NoError(t, err)

	quality := role.Quality
	require.NoError(t, db.EventInsert(ctx, pool, "a", db.Audience{UserID: "ana"}, map[string]int{"n": 1}))
	require.NoError(t, db.EventInsert(ctx, pool, "b", db.Everyone(), map[string]int{"n": 2}))
	// Several in one statement keep their order.
	require.NoError(t, db.EventsInsert(ctx, pool,
		db.EventNew{Type: "c", Audience: db.Audience{UserID: "op", MinRole: &quality}, Data: map[string]int{"n": 3}},
		db.EventNew{Type: "d", Audience: db.Audience{UserID: "ana"}, Data: "four"}))

	all, err := db.EventsAfter(ctx, pool, 0, 10)
	require.NoError(t, err)
	require.Len(t, all, 4)
	var types []string
	for i, e := range all {
		types = append(types, e.Type)
		if i > 0 {
			require.Less(t, all[i-1].ID, e.ID)
		}
	}
	require.Equal(t, []string{"a", "b", "c", "d"}, types)
	require.JSONEq(t, `{"n":3}`, string(all[2].Data))
	require.JSONEq(t, `"four"`, string(all[3].Data))
	id3 := all[2].ID

	// A notification at each commit, with its last event's id.
	for _, want := range []int64{all[0].ID, all[1].ID, all[3].ID} {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		n, err := listener.WaitForNotification(wctx)
		cancel()
		require.NoError(t, err)
		require.Equal(t, want, mustInt(t, n.Payload))
	}
	var pending int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM event_outbox`).Scan(&pending))
	require.Zero(t, pending, "every event left the outbox at its commit")

	visible := func(user string, r role.Role) []string {
		evs, err := db.EventsAfterFor(ctx, pool, 0, id3, user, r, 10)
		require.NoError(t, err)
		var types []string
		for _, e := range evs {
			require.True(t, e.VisibleTo(user, r))
			types = append(types, e.Type)
		}
		return types
	}
	require.Equal(t, []string{"a", "b"}, visible("ana", role.Operator))
	require.Equal(t, []string{"b", "c"}, visible("op", role.Operator))
	require.Equal(t, []string{"b", "c"}, visible("qa", role.Quality))
	require.Equal(t, []string{"b"}, visible("nobody", role.None))
}

// Ids commit in order: an event takes its id when its transaction commits,
// so a transaction that wrote an event first but commits last has the
// larger id, and a reader that has seen id N never misses one that commits
// later with a smaller id. Writers do not wait for each other.
func TestEventIdsCommitInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	require.NoError(t, db.EventInsert(ctx, tx, "first written", db.Everyone(), nil))
	require.NoError(t, db.EventInsert(ctx, tx, "first written, again", db.Everyone(), nil))
	// Not held back by the open transaction.
	require.NoError(t, db.EventInsert(ctx, pool, "second written", db.Everyone(), nil))
	seen, err := db.EventsAfter(ctx, pool, 0, 10)
	require.NoError(t, err)
	require.Len(t, seen, 1)
	require.Equal(t, "second written", seen[0].Type)

	require.NoError(t, tx.Commit(ctx))
	later, err := db.EventsAfter(ctx, pool, seen[0].ID, 10)
	require.NoError(t, err)
	require.Len(t, later, 2, "resuming after the id seen misses nothing")
	require.Equal(t, "first written", later[0].Type)
	require.Equal(t, "first written, again", later[1].Type)

	// A transaction that rolls back leaves nothing behind.
	tx, err = pool.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, db.EventInsert(ctx, tx, "rolled back", db.Everyone(), nil))
	require.NoError(t, tx.Rollback(ctx))
	require.NoError(t, db.EventInsert(ctx, pool, "after", db.Everyone(), nil))
	all, err := db.EventsAfter(ctx, pool, 0, 10)
	require.NoError(t, err)
	require.Len(t, all, 4)
	require.Equal(t, "after", all[3].Type)
}
