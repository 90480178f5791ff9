package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/workers"
	"github.com/auditd/auditd/workers/directory/directorytest"
)

// waitJob waits until job id finishes and requires it completed.
func waitJob(t *testing.T, events <-chan *river.Event, id int64) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Job.ID == id {
				require.Equal(t, river.EventKindJobCompleted, e.Kind, "job errors: %v", e.Job.Errors)
				return
			}
		case <-timeout:
			t.Fatalf("job %d did not finish", id)
		}
	}
}

func (b *testBundle) startSync(t *testing.T, token string) (jobID int64, duplicate bool) {
	t.Helper()
	r := b.do(t, http.MethodPost, "/users/sync", token, nil)
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Equal(t, true, r.Body["success"])
	require.Equal(t, "ACCEPTED", r.Body["code"])
	d := details(r)
	require.Equal(t, "scim", d["provider"])
	return int64(d["job_id"].(float64)), d["duplicate"].(bool)
}

func TestUsersSyncAuthorization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, root := b.users(t)
	r := b.do(t, http.MethodPost, "/users/sync", root, nil)
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], "DIRECTORY_PROVIDER")
	requireError(t, b.do(t, http.MethodPost, "/users/sync", alice, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodPost, "/users/sync", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)

	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM river_job").Scan(&n))
	require.Zero(t, n)
}

func TestUsersSyncIsUnique(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{directory: "scim"})
	alice, _, root := b.users(t)
	requireError(t, b.do(t, http.MethodPost, "/users/sync", alice, nil), http.StatusForbidden, CodeForbidden)

	id, dup := b.startSync(t, root)
	require.False(t, dup)
	again, dup := b.startSync(t, root)
	require.True(t, dup)
	require.Equal(t, id, again)
	other := b.issuer.token(t, "root2", "admin")
	third, dup := b.startSync(t, other)
	require.True(t, dup)
	require.Equal(t, id, third)

	waiting, err := db.UserSyncRequestList(context.Background(), b.pool, id)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"root", "root2"}, waiting, "both admins will hear how it ended")
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM river_job WHERE kind = 'sync_users'").Scan(&n))
	require.Equal(t, 1, n)
}

func TestUsersSyncEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{directory: "scim"})
	scim := directorytest.NewSCIM(t)
	events := b.startWorkers(t, workers.Deps{Directory: scim.Provider(t), UserSyncInterval: time.Hour})
	root := b.issuer.token(t, "root", "admin")
	bob := b.issuer.token(t, "s-bob", "operator")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", root, nil).Status)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", bob, nil).Status)

	scim.SetUsers(
		directorytest.User{ID: "s-ana", UserName: "ana", Email: "ana@acme.test", Name: "Ana Pérez", Roles: []string{"quality"}, Active: true},
		directorytest.User{ID: "s-bob", UserName: "bob", Email: "bob@acme.test", Name: "Bob Stone", Roles: []string{"operator"}, Active: true},
	)
	id, _ := b.startSync(t, root)
	waitJob(t, events, id)

	// Ana never signed in, yet she can be addressed.
	r := b.json(t, http.MethodPost, "/notifications", root, map[string]any{"text": "welcome aboard", "variant": "info", "user_id": "s-ana"})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	list := items(t, b.do(t, http.MethodGet, "/users?q=ana", root, nil))
	require.Len(t, list, 1)
	require.Equal(t, "s-ana", list[0]["id"])
	require.Nil(t, list[0]["last_seen_at"])
	require.NotNil(t, list[0]["synced_at"])
	createdAt := list[0]["created_at"]

	// When she signs in, she is the same user, with her notification waiting.
	c := b.issuer.claims("s-ana")
	c["preferred_username"] = "ana"
	c["email"] = "ana@acme.test"
	c["name"] = "Ana Pérez"
	c["roles"] = []string{"quality"}
	ana := b.issuer.sign(t, c)
	r = b.do(t, http.MethodGet, "/users/me", ana, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	me := details(r)
	require.Equal(t, "s-ana", me["id"])
	require.Equal(t, createdAt, me["created_at"])
	require.Equal(t, float64(1), me["unread_notifications"])
	require.Equal(t, []string{"welcome aboard"}, texts(items(t, b.do(t, http.MethodGet, "/notifications", ana, nil))))
	require.Equal(t, 1, len(items(t, b.do(t, http.MethodGet, "/users?q=ana", root, nil))))

	// The admin was told it started and how it ended.
	require.Equal(t, []string{
		"User sync from scim finished: 2 users listed; 1 created, 1 updated (0 disabled upstream), 0 deactivated as gone upstream.",
		"User sync from scim started.",
	}, texts(items(t, b.do(t, http.MethodGet, "/notifications", root, nil))))

	// Bob is gone upstream: the next sync deactivates him and his token is refused.
	scim.SetUsers(directorytest.User{ID: "s-ana", UserName: "ana", Email: "ana@acme.test", Name: "Ana Pérez", Roles: []string{"quality"}, Active: true})
	id, _ = b.startSync(t, root)
	waitJob(t, events, id)
	r = b.do(t, http.MethodGet, "/users/me", bob, nil)
	requireError(t, r, http.StatusUnauthorized, CodeUnauthorized)
	require.Contains(t, r.Body["message"], "deactivated")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", ana, nil).Status)
	inactive := items(t, b.do(t, http.MethodGet, "/users?active=false", root, nil))
	require.Len(t, inactive, 1)
	require.Equal(t, "s-bob", inactive[0]["id"])
}

func TestUsersList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, root := b.users(t)
	ctx := context.Background()
	var synced []db.DirectoryUser
	for i, u := range []struct{ id, name, email, role string }{
		{"u-1", "Ana Pérez", "ana@acme.test", "quality"},
		{"u-2", "Bruno 100% Díaz", "bruno@acme.test", "operator"},
		{"u-3", "Carla Ruiz", "carla@acme.test", "operator"},
		{"u-4", "Dan_Lee", "dan@other.test", "supervisor"},
	} {
		synced = append(synced, db.DirectoryUser{Active: i != 2, UserProfile: db.UserProfile{
			ID: u.id, Username: fmt.Sprintf("user%d", i+1), Email: u.email, Name: u.name, Roles: []string{u.role}}})
	}
	_, err := db.UserUpsertFromDirectory(ctx, b.pool, synced, time.Now())
	require.NoError(t, err)

	ids := func(path string) []string {
		t.Helper()
		var out []string
		for _, u := range items(t, b.do(t, http.MethodGet, path, root, nil)) {
			out = append(out, u["id"].(string))
		}
		return out
	}
	// Ordered by username: alice, bob, root, user1..user4.
	r := b.do(t, http.MethodGet, "/users?limit=3&skip=2", root, nil)
	require.Equal(t, float64(7), details(r)["total"])
	require.Equal(t, float64(3), details(r)["limit"])
	require.Equal(t, float64(2), details(r)["skip"])
	require.Equal(t, []string{"root", "u-1", "u-2"}, ids("/users?limit=3&skip=2"))
	require.Equal(t, []string{"u-4"}, ids("/users?skip=6"))
	require.Empty(t, ids("/users?skip=50"))

	require.Equal(t, []string{"bob", "u-2", "u-3"}, ids("/users?role=operator"))
	require.Equal(t, []string{"u-2"}, ids("/users?role=operator&active=true&q=BRUNO"))
	require.Equal(t, []string{"u-3"}, ids("/users?active=false"))
	require.Equal(t, []string{"u-4"}, ids("/users?q="+url.QueryEscape("@other")))
	require.Equal(t, []string{"u-2"}, ids("/users?q="+url.QueryEscape("100%")), "% is a character, not a wildcard")
	require.Equal(t, []string{"u-4"}, ids("/users?q=_"), "_ is a character, not a wildcard")
	require.Equal(t, []string{"u-1"}, ids("/users?q="+url.QueryEscape("pérez")))
	list := items(t, b.do(t, http.MethodGet, "/users?role=supervisor", root, nil))
	require.Equal(t, "supervisor", list[0]["role"])
	require.Equal(t, []any{"supervisor"}, list[0]["roles"])
	require.Equal(t, true, list[0]["active"])

	for _, bad := range []string{"limit=0", "limit=501", "skip=-1", "active=maybe", "limit=x"} {
		requireError(t, b.do(t, http.MethodGet, "/users?"+bad, root, nil), http.StatusBadRequest, CodeValidation)
	}
	requireError(t, b.do(t, http.MethodGet, "/users", alice, nil), http.StatusForbidden, CodeForbidden)
}

// TestAdminDeactivatesAUser: an admin's deactivation stops the user's
// tokens and River UI session at once, shows in the user list with who
// and when, holds against a directory sync, and is lifted by DELETE.
func TestAdminDeactivatesAUser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := b.issuer.token(t, "root", "admin")
	ana := b.issuer.token(t, "ana", "admin")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", root, nil).Status)
	r := b.do(t, http.MethodPost, "/admin/riverui/session", ana, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	session := strings.SplitN(r.Header.Get("Set-Cookie"), ";", 2)[0]

	requireError(t, b.do(t, http.MethodPost, "/admin/users/ana/deactivation", b.issuer.token(t, "sue", "supervisor"), nil),
		http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodPost, "/admin/users/nobody/deactivation", root, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodPost, "/admin/users/root/deactivation", root, nil), http.StatusConflict, CodeConflict)

	r = b.do(t, http.MethodPost, "/admin/users/ana/deactivation", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, false, details(r)["active"])
	require.Equal(t, "root", details(r)["deactivated_by"])
	requireError(t, b.do(t, http.MethodGet, "/users/me", ana, nil), http.StatusUnauthorized, CodeUnauthorized)
	requireError(t, b.do(t, http.MethodGet, RiverUIPrefix+"/api/states", "", nil, "Cookie", session), http.StatusUnauthorized, CodeUnauthorized)
	list := b.do(t, http.MethodGet, "/users?active=false", root, nil)
	require.Len(t, details(list)["items"], 1, list.RawBody)
	require.Equal(t, "root", details(list)["items"].([]any)[0].(map[string]any)["deactivated_by"])

	// A directory listing the user as enabled does not undo an admin's deactivation.
	_, err := db.UserUpsertFromDirectory(t.Context(), b.pool, []db.DirectoryUser{{UserProfile: db.UserProfile{ID: "ana", Username: "ana"}, Active: true}}, time.Now())
	require.NoError(t, err)
	requireError(t, b.do(t, http.MethodGet, "/users/me", ana, nil), http.StatusUnauthorized, CodeUnauthorized)

	r = b.do(t, http.MethodDelete, "/admin/users/ana/deactivation", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, true, details(r)["active"])
	require.Nil(t, details(r)["deactivated_by"])
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", ana, nil).Status)
}

// TestDeactivatedUserGetsNothing: a deactivated user is not among a
// validation's recipients (as agent or as a campaign's supervisor), an
// admin's notification to them is refused, and whatever else would tell
// them something (db.NotificationCreate: reminders, disputes, audits)
// stores nothing.
func TestDeactivatedUserGetsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, root := b.users(t)
	b.agent(t, "sub-ana", "ana", "ana@example.test")
	c := b.issuer.claims("sue")
	c["email"], c["roles"] = "Sue@Example.test", []string{"supervisor"}
	sue := b.issuer.sign(t, c)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", sue, nil).Status)
	r := b.json(t, http.MethodPatch, "/campaigns/"+campaignID(t, b, alice), sue, map[string]any{"supervisor_emails": []string{"sue@example.test"}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	id := uploaded(t, b.upload(t, alice, file("c.txt", []byte(goodChat)), field("operator", "ana")))[0]["uuid"].(string)
	recipients := "/tasks/" + id + "/validation-recipients"
	require.Equal(t, []any{"ana@example.test", "sue@example.test"}, details(b.do(t, http.MethodGet, recipients, alice, nil))["sent_to"])

	for _, u := range []string{"sub-ana", "sue"} {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodPost, "/admin/users/"+u+"/deactivation", root, nil).Status)
	}
	r = b.do(t, http.MethodGet, recipients, alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, map[string]any{"sent_to": []any{"alice@example.test"}, "bcc": []any{}, "to_validator": true, "to_agent": false}, details(r),
		"the deactivated agent is not told")

	r = b.json(t, http.MethodPost, "/notifications", root, map[string]any{"text": "Hola", "variant": "info", "user_id": "sub-ana"})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, "who is deactivated")
	require.Contains(t, r.RawBody, "body.user_id")

	tx, err := b.pool.Begin(t.Context())
	require.NoError(t, err)
	defer tx.Rollback(context.Background())
	n, err := db.NotificationCreate(t.Context(), tx, db.CalibrationNotice("sue", uuid.NewString(), "warning", l10n.Plain("Recordatorio")))
	require.NoError(t, err)
	require.Empty(t, n.ID, "nothing stored for a deactivated user")
	n, err = db.NotificationCreate(t.Context(), tx, db.CalibrationNotice("alice", uuid.NewString(), "warning", l10n.Plain("Reminder")))
	require.NoError(t, err)
	require.NotEmpty(t, n.ID)
	var stored int
	require.NoError(t, tx.QueryRow(t.Context(), `SELECT count(*) FROM notifications WHERE user_id IN ('sue', 'alice')`).Scan(&stored))
	require.Equal(t, 1, stored)
}
