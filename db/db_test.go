package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
)

func TestMigrateConcurrentlyThenNoop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbtest.EmptyURL(t))
	require.NoError(t, err)
	defer pool.Close()

	pending, err := db.MigrationsPending(ctx, pool)
	require.NoError(t, err)
	require.True(t, pending)

	// Several processes starting at once all succeed.
	var g errgroup.Group
	for range 3 {
		g.Go(func() error { return db.Migrate(ctx, pool) })
	}
	require.NoError(t, g.Wait())
	pending, err = db.MigrationsPending(ctx, pool)
	require.NoError(t, err)
	require.False(t, pending)

	var rows int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM goose_db_version").Scan(&rows))
	require.NoError(t, db.Migrate(ctx, pool))
	var after int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM goose_db_version").Scan(&after))
	require.Equal(t, rows, after)
}

func TestUserSeen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	now := time.Now().UTC().Truncate(time.Microsecond)

	_, err := db.UserGet(ctx, pool, "u1")
	require.Equal(t, errcode.NotFound, errcode.Of(err))

	u, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "u1", Username: "ana", Email: "ana@x.test", Name: "Ana", Roles: []string{"quality"}}, now)
	require.NoError(t, err)
	require.True(t, u.Active)
	require.Equal(t, []string{"quality"}, u.Roles)
	require.WithinDuration(t, now, *u.LastSeenAt, time.Millisecond)

	// Same claims a minute later: nothing is written.
	again, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "u1", Username: "ana", Email: "ana@x.test", Name: "Ana", Roles: []string{"quality"}}, now.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, u.UpdatedAt, again.UpdatedAt)
	require.Equal(t, *u.LastSeenAt, *again.LastSeenAt)

	// A token without e-mail or name keeps what is stored; new roles are taken.
	changed, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "u1", Username: "ana", Roles: []string{"admin"}}, now.Add(2*time.Minute))
	require.NoError(t, err)
	require.Equal(t, "ana@x.test", changed.Email)
	require.Equal(t, "Ana", changed.Name)
	require.Equal(t, []string{"admin"}, changed.Roles)
	require.True(t, changed.UpdatedAt.After(u.UpdatedAt))

	// Seeing a deactivated user never reactivates it, nor changes it.
	_, err = pool.Exec(ctx, "UPDATE users SET active = false WHERE id = 'u1'")
	require.NoError(t, err)
	before, err := db.UserGet(ctx, pool, "u1")
	require.NoError(t, err)
	off, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "u1", Username: "ana2", Name: "Mallory", Roles: []string{"quality", "admin"}}, now.Add(time.Hour))
	require.NoError(t, err)
	require.False(t, off.Active)
	require.Equal(t, before, off)
	after, err := db.UserGet(ctx, pool, "u1")
	require.NoError(t, err)
	require.Equal(t, before, after, "the token wrote nothing")
}

func TestDevSigningKeyEnsureConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	got := make([]string, 4)
	var g errgroup.Group
	for i := range got {
		g.Go(func() (err error) {
			got[i], err = db.DevSigningKeyEnsure(ctx, pool, "k", string(rune('a'+i)))
			return err
		})
	}
	require.NoError(t, g.Wait())
	for _, k := range got {
		require.Equal(t, got[0], k)
	}
}
