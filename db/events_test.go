package db_test

import (
	"context"
	"strconv"
	"sync"
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
	id1, err := db.EventInsert(ctx, pool, "a", db.Audience{UserID: "ana"}, map[string]int{"n": 1})
	require.NoError(t, err)
	id2, err := db.EventInsert(ctx, pool, "b", db.Everyone(), map[string]int{"n": 2})
	require.NoError(t, err)
	id3, err := db.EventInsert(ctx, pool, "c", db.Audience{UserID: "op", MinRole: &quality}, map[string]int{"n": 3})
	require.NoError(t, err)
	require.Less(t, id1, id2)
	require.Less(t, id2, id3)

	for _, want := range []int64{id1, id2, id3} {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		n, err := listener.WaitForNotification(wctx)
		cancel()
		require.NoError(t, err)
		require.Equal(t, want, mustInt(t, n.Payload))
	}

	all, err := db.EventsAfter(ctx, pool, 0, 10)
	require.NoError(t, err)
	require.Len(t, all, 3)
	require.JSONEq(t, `{"n":3}`, string(all[2].Data))

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

// Ids commit in order: a transaction that took an id holds back every later
// writer, so a reader never sees id N+1 before N.
func TestEventIdsCommitInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	first, err := db.EventInsert(ctx, tx, "first", db.Everyone(), nil)
	require.NoError(t, err)

	var wg sync.WaitGroup
	var second int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		second, err = db.EventInsert(ctx, pool, "second", db.Everyone(), nil)
	}()
	// While the first transaction is open, no later event is visible.
	for range 20 {
		evs, qerr := db.EventsAfter(ctx, pool, 0, 10)
		require.NoError(t, qerr)
		require.Empty(t, evs)
	}
	require.NoError(t, tx.Commit(ctx))
	wg.Wait()
	require.NoError(t, err)
	require.Greater(t, second, first)
}
