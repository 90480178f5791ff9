package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

func TestUserSyncOverlappingRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	older := time.Now().UTC().Truncate(time.Microsecond)
	newer := older.Add(time.Minute)
	ana := db.DirectoryUser{Active: true, UserProfile: db.UserProfile{ID: "ana", Username: "ana", Roles: []string{"quality"}}}
	bob := db.DirectoryUser{Active: true, UserProfile: db.UserProfile{ID: "bob", Username: "bob"}}

	r, err := db.UserUpsertFromDirectory(ctx, pool, []db.DirectoryUser{ana, bob}, newer)
	require.NoError(t, err)
	require.Equal(t, db.DirectoryUpsertResult{Created: 2}, r)
	// A slower, older run lists ana after the newer one did: her synced_at
	// stays the newer run's, so the newer run does not take her for gone.
	r, err = db.UserUpsertFromDirectory(ctx, pool, []db.DirectoryUser{ana}, older)
	require.NoError(t, err)
	require.Equal(t, db.DirectoryUpsertResult{}, r, "nothing changed")
	u, err := db.UserGet(ctx, pool, "ana")
	require.NoError(t, err)
	require.Equal(t, newer, u.SyncedAt.UTC())

	n, err := db.UserDeactivateUnsynced(ctx, pool, newer, 10)
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = db.UserDeactivateUnsynced(ctx, pool, newer.Add(time.Minute), 1)
	require.NoError(t, err)
	require.Equal(t, 1, n, "limited to the batch")
	active, err := db.UserCountSyncedActive(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, 1, active)

	// Roles changed upstream and the user disabled there.
	ana.Roles, ana.Active = []string{"supervisor"}, false
	r, err = db.UserUpsertFromDirectory(ctx, pool, []db.DirectoryUser{ana}, newer.Add(2*time.Minute))
	require.NoError(t, err)
	require.Equal(t, 1, r.Updated)
	u, err = db.UserGet(ctx, pool, "ana")
	require.NoError(t, err)
	require.Equal(t, []string{"supervisor"}, u.Roles)
	require.False(t, u.Active)
}
