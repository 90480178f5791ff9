package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// users signs in alice (quality), bob (operator) and root (admin) so they exist.
func (b *testBundle) users(t *testing.T) (alice, bob, root string) {
	t.Helper()
	alice, bob, root = b.issuer.token(t, "alice", "quality"), b.issuer.token(t, "bob", "operator"), b.issuer.token(t, "root", "admin")
	for _, tok := range []string{alice, bob, root} {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", tok, nil).Status)
	}
	return alice, bob, root
}

// json sends body (none when nil) as JSON.
func (b *testBundle) json(t *testing.T, method, path, token string, body any, headers ...string) response {
	t.Helper()
	var raw []byte
	if body != nil {
		var err error
		raw, err = json.Marshal(body)
		require.NoError(t, err)
	}
	return b.do(t, method, path, token, strings.NewReader(string(raw)), append([]string{"Content-Type", "application/json"}, headers...)...)
}

func (b *testBundle) notify(t *testing.T, token string, body map[string]any) string {
	t.Helper()
	r := b.json(t, http.MethodPost, "/notifications", token, body)
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	return r.Body["details"].(map[string]any)["id"].(string)
}

func details(r response) map[string]any { return r.Body["details"].(map[string]any) }

func items(t *testing.T, r response) []map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	var out []map[string]any
	for _, it := range details(r)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func texts(list []map[string]any) []string { return column(list, "text") }

// column is the text field key of each item of list.
func column(list []map[string]any, key string) []string {
	var out []string
	for _, n := range list {
		out = append(out, n[key].(string))
	}
	return out
}

func TestNotificationsCreateAndAuthorize(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)

	own := b.notify(t, alice, map[string]any{"text": "note to self", "variant": "info", "user_id": "alice"})
	r := b.json(t, http.MethodPost, "/notifications", alice, map[string]any{"text": "hi bob", "variant": "info", "user_id": "bob"})
	requireError(t, r, http.StatusForbidden, CodeForbidden)
	r = b.json(t, http.MethodPost, "/notifications", alice, map[string]any{"text": "all", "variant": "info", "is_global": true})
	requireError(t, r, http.StatusForbidden, CodeForbidden)

	global := b.notify(t, root, map[string]any{"text": "maintenance tonight", "variant": "warning", "is_global": true})
	b.notify(t, root, map[string]any{"text": "for bob", "variant": "success", "user_id": "bob", "task_uuid": "0d7c52ad-1a4e-4a43-9c55-0b8c84a9a3f1", "link": "/tasks/0d7c52ad-1a4e-4a43-9c55-0b8c84a9a3f1"})

	bad := []struct {
		body map[string]any
		code string
		loc  string
	}{
		{map[string]any{"text": "x", "variant": "info"}, CodeMissingFields, "body.user_id"},
		{map[string]any{"variant": "info", "user_id": "root"}, CodeMissingFields, "body.text"},
		{map[string]any{"text": "", "variant": "info", "user_id": "root"}, CodeValidation, "body.text"},
		{map[string]any{"text": strings.Repeat("x", 2001), "variant": "info", "user_id": "root"}, CodeValidation, "body.text"},
		{map[string]any{"text": "x", "variant": "shout", "user_id": "root"}, CodeValidation, "body.variant"},
		{map[string]any{"text": "x", "variant": "info", "user_id": "nobody"}, CodeValidation, "body.user_id"},
		{map[string]any{"text": "x", "variant": "info", "user_id": "bob", "is_global": true}, CodeValidation, "body.user_id"},
		{map[string]any{"text": "x", "variant": "info", "user_id": "root", "task_uuid": "nope"}, CodeValidation, "body.task_uuid"},
	}
	for _, tc := range bad {
		r := b.json(t, http.MethodPost, "/notifications", root, tc.body)
		requireError(t, r, http.StatusBadRequest, tc.code)
		require.Contains(t, r.RawBody, tc.loc)
	}

	// Each sees their own plus the global ones, newest first.
	require.Equal(t, []string{"maintenance tonight", "note to self"}, texts(items(t, b.do(t, http.MethodGet, "/notifications", alice, nil))))
	bobs := items(t, b.do(t, http.MethodGet, "/notifications", bob, nil))
	require.Equal(t, []string{"for bob", "maintenance tonight"}, texts(bobs))
	require.Equal(t, "bob", bobs[0]["user_id"])
	require.Equal(t, "0d7c52ad-1a4e-4a43-9c55-0b8c84a9a3f1", bobs[0]["task_uuid"])
	require.Nil(t, bobs[1]["user_id"])
	require.Equal(t, true, bobs[1]["is_global"])

	// Another user's list needs admin.
	requireError(t, b.do(t, http.MethodGet, "/notifications?user_id=alice", bob, nil), http.StatusForbidden, CodeForbidden)
	require.Equal(t, []string{"maintenance tonight", "note to self"}, texts(items(t, b.do(t, http.MethodGet, "/notifications?user_id=alice", root, nil))))

	// Another user's notification is indistinguishable from a missing one.
	missing := "2b1f0c4e-3d5a-4b6c-8d7e-9f0a1b2c3d4e"
	for _, id := range []string{own, missing} {
		requireError(t, b.json(t, http.MethodPatch, "/notifications/"+id, bob, nil), http.StatusNotFound, CodeNotFound)
		requireError(t, b.do(t, http.MethodDelete, "/notifications/"+id, bob, nil), http.StatusNotFound, CodeNotFound)
	}
	requireError(t, b.do(t, http.MethodDelete, "/notifications/not-an-id", bob, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.json(t, http.MethodPatch, "/notifications/not-an-id", bob, nil), http.StatusBadRequest, CodeValidation)

	// Read state of a global notification is per user.
	r = b.json(t, http.MethodPatch, "/notifications/"+global, bob, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, true, details(r)["read"])
	require.NotEmpty(t, details(r)["read_at"])
	require.Equal(t, float64(1), details(b.do(t, http.MethodGet, "/users/me", bob, nil))["unread_notifications"])
	require.Equal(t, float64(2), details(b.do(t, http.MethodGet, "/users/me", alice, nil))["unread_notifications"])
	unread := items(t, b.do(t, http.MethodGet, "/notifications?unread=true", bob, nil))
	require.Equal(t, []string{"for bob"}, texts(unread))
	r = b.json(t, http.MethodPatch, "/notifications/"+global, bob, map[string]any{"read": false})
	require.Equal(t, false, details(r)["read"])
	require.Equal(t, float64(2), details(b.do(t, http.MethodGet, "/users/me", bob, nil))["unread_notifications"])

	// Deleting: a global one only as admin; another's as admin.
	requireError(t, b.do(t, http.MethodDelete, "/notifications/"+global, bob, nil), http.StatusForbidden, CodeForbidden)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodDelete, "/notifications/"+own, root, nil).Status)
	require.Equal(t, []string{"maintenance tonight"}, texts(items(t, b.do(t, http.MethodGet, "/notifications", alice, nil))))
	require.Equal(t, http.StatusOK, b.do(t, http.MethodDelete, "/notifications/"+global, root, nil).Status)
	requireError(t, b.do(t, http.MethodDelete, "/notifications/"+global, root, nil), http.StatusNotFound, CodeNotFound)
}

func TestNotificationsPaging(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	for _, text := range []string{"one", "two", "three", "four", "five"} {
		b.notify(t, alice, map[string]any{"text": text, "variant": "info", "user_id": "alice"})
	}
	r := b.do(t, http.MethodGet, "/notifications?skip=1&limit=2", alice, nil)
	require.Equal(t, []string{"four", "three"}, texts(items(t, r)))
	require.Equal(t, float64(5), details(r)["total"])
	require.Equal(t, float64(5), details(r)["unread"])
	require.Equal(t, float64(1), details(r)["skip"])
	require.Equal(t, float64(2), details(r)["limit"])
	require.Empty(t, items(t, b.do(t, http.MethodGet, "/notifications?skip=10", alice, nil)))
	require.Len(t, items(t, b.do(t, http.MethodGet, "/notifications", alice, nil)), 5)

	for _, q := range []string{"limit=0", "limit=501", "skip=-1", "limit=x", "unread=maybe"} {
		r := b.do(t, http.MethodGet, "/notifications?"+q, alice, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
	}
	require.Len(t, items(t, b.do(t, http.MethodGet, "/notifications?limit=500", alice, nil)), 5)
}

func TestNotificationsDeleteAll(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	for range 3 {
		b.notify(t, root, map[string]any{"text": "for bob", "variant": "info", "user_id": "bob"})
	}
	b.notify(t, alice, map[string]any{"text": "mine", "variant": "info", "user_id": "alice"})
	b.notify(t, root, map[string]any{"text": "everyone", "variant": "info", "is_global": true})

	requireError(t, b.do(t, http.MethodDelete, "/notifications?user_id=bob", alice, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodDelete, "/notifications", bob, nil), http.StatusBadRequest, CodeMissingFields)
	requireError(t, b.json(t, http.MethodDelete, "/notifications?user_id=bob", bob, map[string]any{"user_id": "alice"}), http.StatusBadRequest, CodeValidation)

	r := b.json(t, http.MethodDelete, "/notifications", bob, map[string]any{"user_id": "bob"})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, float64(3), details(r)["deleted"])
	require.Equal(t, []string{"everyone"}, texts(items(t, b.do(t, http.MethodGet, "/notifications", bob, nil))))

	r = b.do(t, http.MethodDelete, "/notifications?user_id=alice", root, nil)
	require.Equal(t, float64(1), details(r)["deleted"])
	require.Equal(t, []string{"everyone"}, texts(items(t, b.do(t, http.MethodGet, "/notifications", alice, nil))))
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM notifications").Scan(&n))
	require.Equal(t, 1, n)
}

// TestNotificationLinks: a link is a path of the dashboard or an http(s)
// address; javascript:, data:, //host and the like are refused, located,
// and nothing is created.
func TestNotificationLinks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, root := b.users(t)
	for _, link := range []string{"/tasks/42", "/app/tasks/42?tab=audit", "https://wiki.example.test/qa#x", "http://intranet.test/a"} {
		r := b.json(t, http.MethodPost, "/notifications", root, map[string]any{"text": "t", "variant": "info", "is_global": true, "link": link})
		require.Equal(t, http.StatusCreated, r.Status, "%s: %s", link, r.RawBody)
	}
	for _, link := range []string{"javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x", "//evil.test/x",
		"/\\evil.test", "vbscript:x", "ftp://files.test/a", "https://", "tasks/42", "/tasks/\u202e42", "https://a.test/\r\nx"} {
		r := b.json(t, http.MethodPost, "/notifications", root, map[string]any{"text": "bad", "variant": "info", "is_global": true, "link": link})
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, "body.link", r.Body["details"].([]any)[0].(map[string]any)["location"], link)
	}
	var n int
	require.NoError(t, b.pool.QueryRow(t.Context(), "SELECT count(*) FROM notifications WHERE text = 'bad'").Scan(&n))
	require.Zero(t, n)
}
