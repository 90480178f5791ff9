package workers

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/workers/directory"
	"github.com/auditd/auditd/workers/directory/directorytest"
)

type syncBundle struct {
	pool *pgxpool.Pool
	scim *directorytest.SCIM
	// admin signed in and asks for the syncs.
	admin string
}

func setupSync(t *testing.T) *syncBundle {
	t.Helper()
	b := &syncBundle{pool: dbtest.Pool(t), scim: directorytest.NewSCIM(t), admin: "root"}
	_, err := db.UserSeen(context.Background(), b.pool, db.UserProfile{ID: b.admin, Username: "root", Roles: []string{"admin"}}, time.Now())
	require.NoError(t, err)
	return b
}

// run works one sync_users job asked for by the admin, with opts.
func (b *syncBundle) run(t *testing.T, worker *SyncUsersWorker, opts *river.InsertOpts) (*rivertest.WorkResult, error) {
	t.Helper()
	ctx := context.Background()
	w := rivertest.NewWorker(t, riverpgxv5.New(b.pool), &river.Config{}, worker)
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	return w.Work(ctx, t, tx, jobs.SyncUsersArgs{RequestedBy: b.admin}, opts)
}

func (b *syncBundle) sync(t *testing.T) (*rivertest.WorkResult, error) {
	t.Helper()
	return b.run(t, &SyncUsersWorker{pool: b.pool, directory: b.scim.Provider(t)}, nil)
}

func (b *syncBundle) user(t *testing.T, id string) db.User {
	t.Helper()
	u, err := db.UserGet(context.Background(), b.pool, id)
	require.NoError(t, err)
	return u
}

// notifications returns the texts of what the admin was told, oldest first.
func (b *syncBundle) notifications(t *testing.T) []string {
	t.Helper()
	items, _, _, err := db.NotificationList(context.Background(), b.pool, db.NotificationFilter{UserID: b.admin, Limit: 100})
	require.NoError(t, err)
	var out []string
	for i := len(items) - 1; i >= 0; i-- {
		out = append(out, items[i].Variant+": "+items[i].Text)
	}
	return out
}

func TestSyncUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSync(t)
	// bob signed in before any sync; a token said less about him than the directory will.
	_, err := db.UserSeen(ctx, b.pool, db.UserProfile{ID: "s-bob", Username: "bob", Roles: []string{"operator"}}, time.Now())
	require.NoError(t, err)

	b.scim.SetUsers(
		directorytest.User{ID: "s-ana", UserName: "ana", Email: "ana@acme.test", Name: "Ana Pérez", Roles: []string{"quality"}, Active: true},
		directorytest.User{ID: "s-bob", UserName: "bob", Email: "bob@acme.test", Name: "Bob Stone", Roles: []string{"operator"}, Active: true},
		directorytest.User{ID: "s-carla", UserName: "carla", Email: "carla@acme.test", Active: false},
	)
	res, err := b.sync(t)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)

	ana := b.user(t, "s-ana")
	require.Equal(t, "ana", ana.Username)
	require.Equal(t, "ana@acme.test", ana.Email)
	require.Equal(t, "Ana Pérez", ana.Name)
	require.Equal(t, []string{"quality"}, ana.Roles)
	require.True(t, ana.Active)
	require.NotNil(t, ana.SyncedAt)
	require.Nil(t, ana.LastSeenAt, "synced, never signed in")
	bob := b.user(t, "s-bob")
	require.Equal(t, "bob@acme.test", bob.Email)
	require.Equal(t, "Bob Stone", bob.Name)
	require.NotNil(t, bob.LastSeenAt)
	require.False(t, b.user(t, "s-carla").Active, "disabled upstream: present but inactive")
	root := b.user(t, b.admin)
	require.Nil(t, root.SyncedAt)
	require.True(t, root.Active)
	require.Equal(t, []string{
		"info: User sync from scim started.",
		"success: User sync from scim finished: 3 users listed; 2 created, 1 updated (0 disabled upstream), 0 deactivated as gone upstream.",
	}, b.notifications(t))

	// A user who never signed in can be told things already.
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	_, err = db.NotificationCreate(ctx, tx, db.NotificationNew{UserID: "s-ana", Text: l10n.Plain("welcome"), Variant: "info"})
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))

	// Ana is disabled upstream, bob is gone; the admin, never listed, stays.
	b.scim.SetUsers(
		directorytest.User{ID: "s-ana", UserName: "ana", Email: "ana@acme.test", Name: "Ana Pérez", Roles: []string{"quality"}, Active: false},
		directorytest.User{ID: "s-carla", UserName: "carla", Email: "carla@acme.test", Active: false},
	)
	res, err = b.sync(t)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.False(t, b.user(t, "s-ana").Active)
	bob = b.user(t, "s-bob")
	require.False(t, bob.Active, "gone upstream: deactivated, not deleted")
	require.Equal(t, "bob@acme.test", bob.Email)
	require.True(t, b.user(t, b.admin).Active, "never listed by the directory: left alone")
	require.Contains(t, b.notifications(t),
		"success: User sync from scim finished: 2 users listed; 0 created, 1 updated (1 disabled upstream), 1 deactivated as gone upstream.")

	// The same listing again changes nothing; re-enabled upstream is active again.
	before := b.user(t, "s-carla").UpdatedAt
	res, err = b.sync(t)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.Contains(t, b.notifications(t)[len(b.notifications(t))-1], "0 created, 0 updated (0 disabled upstream), 0 deactivated")
	require.Equal(t, before, b.user(t, "s-carla").UpdatedAt)
	b.scim.SetUsers(directorytest.User{ID: "s-bob", UserName: "bob", Active: true})
	_, err = b.sync(t)
	require.NoError(t, err)
	require.True(t, b.user(t, "s-bob").Active)
	require.False(t, b.user(t, "s-ana").Active)
}

func TestSyncUsersBatches(t *testing.T) {
	t.Parallel()
	b := setupSync(t)
	all := make([]directorytest.User, 1203)
	for i := range all {
		all[i] = directorytest.User{ID: fmt.Sprintf("u-%04d", i), UserName: fmt.Sprintf("user%04d", i), Active: true}
	}
	// A page shift lists one user twice.
	all[700] = all[699]
	w := &SyncUsersWorker{pool: b.pool, directory: b.scim.Provider(t)}
	b.scim.SetUsers(all...)
	_, err := b.run(t, w, nil)
	require.NoError(t, err)
	require.Contains(t, b.notifications(t)[1], "1,203 users listed; 1,202 created, 0 updated")

	b.scim.SetUsers(all[:100]...)
	_, err = b.run(t, w, nil)
	require.NoError(t, err)
	require.Contains(t, b.notifications(t)[3], "100 users listed; 0 created, 0 updated (0 disabled upstream), 1,102 deactivated")
	var active int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM users WHERE active AND synced_at IS NOT NULL").Scan(&active))
	require.Equal(t, 100, active)
}

func TestSyncUsersThrottled(t *testing.T) {
	t.Parallel()
	b := setupSync(t)
	b.scim.SetUsers(directorytest.User{ID: "s-1", UserName: "one", Active: true}, directorytest.User{ID: "s-2", Active: true},
		directorytest.User{ID: "s-3", Active: true})
	b.scim.FailAfter(1, http.StatusTooManyRequests, "120", "slow down")
	res, err := b.sync(t)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobSnoozed, res.EventKind)
	require.Equal(t, rivertype.JobStateScheduled, res.Job.State)
	require.WithinDuration(t, time.Now().Add(120*time.Second), res.Job.ScheduledAt, 30*time.Second)
	require.Equal(t, []string{"info: User sync from scim started."}, b.notifications(t), "a snooze is not a failure")
}

func TestSyncUsersFailure(t *testing.T) {
	t.Parallel()
	b := setupSync(t)
	users := []directorytest.User{{ID: "s-1", Active: true}, {ID: "s-2", Active: true}, {ID: "s-3", Active: true}}
	b.scim.SetUsers(users...)
	_, err := b.sync(t)
	require.NoError(t, err)

	// s-3 is gone and s-4 new, but the second page fails: the first is
	// upserted, nobody is deactivated.
	b.scim.SetUsers(users[0], users[1], directorytest.User{ID: "s-4", Active: true})
	b.scim.FailAfter(1, http.StatusInternalServerError, "", "the user store is unavailable")
	res, err := b.sync(t)
	require.ErrorContains(t, err, "the user store is unavailable")
	require.Equal(t, river.EventKindJobFailed, res.EventKind)
	require.True(t, b.user(t, "s-3").Active)
	_, err = db.UserGet(context.Background(), b.pool, "s-4")
	require.Equal(t, errcode.NotFound, errcode.Of(err))
	got := b.notifications(t)
	require.Equal(t, "warning: User sync from scim failed on attempt 1 of 5 and will be retried: "+
		"scim: list users: HTTP 500: the user store is unavailable.", got[len(got)-1])

	// On its last attempt the admin hears it failed for good.
	b.scim.FailAfter(0, http.StatusUnauthorized, "", "token revoked")
	_, err = b.run(t, &SyncUsersWorker{pool: b.pool, directory: b.scim.Provider(t)}, &river.InsertOpts{MaxAttempts: 1})
	require.Error(t, err)
	got = b.notifications(t)
	require.Equal(t, "error: User sync from scim failed on its last attempt (1 of 1): "+
		"scim: list users: HTTP 401: token revoked (check DIRECTORY_TOKEN).", got[len(got)-1])
}

func TestSyncUsersRefusesAnEmptyDirectory(t *testing.T) {
	t.Parallel()
	b := setupSync(t)
	b.scim.SetUsers(directorytest.User{ID: "s-1", Active: true})
	_, err := b.sync(t)
	require.NoError(t, err)

	b.scim.SetUsers()
	_, err = b.sync(t)
	require.ErrorContains(t, err, "refusing to deactivate all 1 synced users")
	require.True(t, b.user(t, "s-1").Active)
	got := b.notifications(t)
	require.Contains(t, got[len(got)-1], "the directory listed no users")
}

func TestSyncUsersSkipsUsersWithoutASubject(t *testing.T) {
	t.Parallel()
	b := setupSync(t)
	b.scim.SetUsers(directorytest.User{ID: "s-1", UserName: "one", Active: true}, directorytest.User{ID: "s-2", Active: true})
	cfg := b.scim.Config()
	cfg.SubjectAttribute = "externalId" // which these users lack
	p, err := directory.New(cfg)
	require.NoError(t, err)
	_, err = b.run(t, &SyncUsersWorker{pool: b.pool, directory: p}, nil)
	require.NoError(t, err)
	got := b.notifications(t)
	require.Equal(t, "success: User sync from scim finished: 2 users listed; 0 created, 0 updated (0 disabled upstream), "+
		"0 deactivated as gone upstream; 2 skipped for lack of a subject.", got[len(got)-1])
	_, err = db.UserGet(context.Background(), b.pool, "s-1")
	require.Equal(t, errcode.NotFound, errcode.Of(err))
}

func TestSyncUsersWithoutDirectory(t *testing.T) {
	t.Parallel()
	b := setupSync(t)
	ctx := context.Background()
	require.NoError(t, db.UserSyncRequestAdd(ctx, b.pool, 1, b.admin))
	res, err := b.run(t, &SyncUsersWorker{pool: b.pool}, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCancelled, res.EventKind)
	require.Equal(t, []string{"error: User sync cannot run: no directory is configured on the worker: DIRECTORY_PROVIDER is not set."},
		b.notifications(t))
}

func TestSyncUsersIsUnique(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	var first, second, third *rivertype.JobInsertResult
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) (err error) {
		first, err = client.InsertTx(ctx, tx, jobs.SyncUsersArgs{RequestedBy: "root"}, nil)
		return err
	}))
	second, err = client.Insert(ctx, jobs.SyncUsersArgs{}, nil)
	require.NoError(t, err)
	require.True(t, second.UniqueSkippedAsDuplicate)
	require.Equal(t, first.Job.ID, second.Job.ID)

	_, err = client.JobCancel(ctx, first.Job.ID)
	require.NoError(t, err)
	third, err = client.Insert(ctx, jobs.SyncUsersArgs{}, nil)
	require.NoError(t, err)
	require.False(t, third.UniqueSkippedAsDuplicate, "once it has ended, a new sync may start")
}

func TestPeriodicSyncOnlyWithADirectory(t *testing.T) {
	t.Parallel()
	scim := directorytest.NewSCIM(t)
	without := len(Periodic(Deps{UserSyncInterval: time.Hour}))
	require.Len(t, Periodic(Deps{Directory: scim.Provider(t), UserSyncInterval: time.Hour}), without+1)
}
