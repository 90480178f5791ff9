package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/web"
)

func TestClientConfigIsPublic(t *testing.T) {
	t.Parallel()
	cfg := ClientConfig{Issuer: "https://idp.example.test/realms/cc", ClientID: "auditd-dashboard",
		Audience: "auditd", Scopes: "openid profile email offline_access", Speech: intake.Speech{Engine: "openai"}}
	b := setup(t, setupOpts{client: cfg})
	r := b.do(t, http.MethodGet, "/client-config", "", nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, map[string]any{"auth_dev": false, "issuer": "https://idp.example.test/realms/cc",
		"client_id": "auditd-dashboard", "audience": "auditd", "scopes": "openid profile email offline_access", "river_ui": true,
		"speech": map[string]any{"engine": "openai", "languages": []any{}}},
		r.Body["details"])
	op := b.server.OpenAPI().Paths["/client-config"]
	require.NotNil(t, op)
	require.Equal(t, "get-client-config", op.Get.OperationID)
	require.True(t, isPublic(op.Get), "no token needed")
}

func TestDashboardIsMountedBesideTheAPI(t *testing.T) {
	t.Parallel()
	ui, err := web.New(fstest.MapFS{
		"index.html":           {Data: []byte("<!doctype html><title>auditd</title>")},
		"assets/index-a1b2.js": {Data: []byte("export {}")},
	}, web.Options{})
	require.NoError(t, err)
	b := setup(t, setupOpts{web: ui})

	for _, path := range []string{"/", "/app", "/app/admin/jobs", "/index.html"} {
		r := b.do(t, http.MethodGet, path, "", nil, "Accept", "text/html")
		require.Equal(t, http.StatusOK, r.Status, path)
		require.Equal(t, "<!doctype html><title>auditd</title>", r.RawBody, path)
		require.Contains(t, r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
		require.Contains(t, r.Header.Get("Content-Security-Policy"), "script-src 'self';")
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
		require.Equal(t, "DENY", r.Header.Get("X-Frame-Options"))
		require.Equal(t, "no-referrer", r.Header.Get("Referrer-Policy"))
		require.NotEmpty(t, r.Header.Get("X-Request-Id"))
	}
	r := b.do(t, http.MethodHead, "/app/profile", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	r = b.do(t, http.MethodGet, "/assets/index-a1b2.js", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "text/javascript; charset=utf-8", r.Header.Get("Content-Type"))

	// Everything else is still the API's, with its JSON errors, whatever
	// the browser accepts.
	requireError(t, b.do(t, http.MethodGet, "/assets/index-gone.js", "", nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/no-such-route", "", nil, "Accept", "text/html"), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/users/me", "", nil, "Accept", "text/html"), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodPost, "/", "", nil), http.StatusMethodNotAllowed, CodeMethodNotAllowed)
	requireError(t, b.do(t, http.MethodDelete, "/app/profile", "", nil), http.StatusMethodNotAllowed, CodeMethodNotAllowed)
}

// TestAPIPathsAreNotTheDashboards keeps every API route (present and
// future) out of the dashboard's paths: "/", its client routes and its
// assets.
func TestAPIPathsAreNotTheDashboards(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{devIssuer: true})
	var routes []string
	require.NoError(t, chi.Walk(b.server.mux, func(_ string, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routes = append(routes, route)
		return nil
	}))
	require.Contains(t, routes, "/users/me")
	require.Contains(t, routes, "/dev-oidc/token")
	for _, route := range routes {
		require.NotEqual(t, "/", route)
		require.False(t, route == web.AppPrefix || strings.HasPrefix(route, web.AppPrefix+"/"), route)
		require.False(t, strings.HasPrefix(route, "/assets/"), route)
	}
}

// TestEveryAnswerIsNoStore: whatever answers (an operation, an error, the
// event stream, /metrics, River UI, the docs, the dashboard's index.html),
// no cache may keep it; only the dashboard's content-hashed files are
// cached.
func TestEveryAnswerIsNoStore(t *testing.T) {
	t.Parallel()
	ui, err := web.New(fstest.MapFS{
		"index.html":           {Data: []byte("<!doctype html><title>auditd</title>")},
		"favicon.svg":          {Data: []byte("<svg/>")},
		"assets/index-a1b2.js": {Data: []byte("export {}")},
	}, web.Options{})
	require.NoError(t, err)
	b := setup(t, setupOpts{web: ui})
	admin := b.issuer.token(t, "root", "admin")
	for _, c := range []struct{ path, token string }{
		{"/", ""}, {"/index.html", ""}, {"/app/admin/jobs", ""}, {"/favicon.svg", ""},
		{"/riverui/", admin}, {"/riverui/", ""}, {"/riverui/api/states", admin}, {"/riverui/api/jobs?state=available", admin},
		{"/metrics", admin}, {"/metrics", ""}, {"/openapi.json", ""}, {"/docs", ""}, {"/redoc", ""},
		{"/docs/assets/swagger-ui.css", ""}, {"/no-such-path", ""}, {"/health", ""}, {"/users/me", admin},
	} {
		r := b.do(t, http.MethodGet, c.path, c.token, nil, "Accept", "text/html")
		require.Equal(t, "no-store", r.Header.Get("Cache-Control"), "%s (%d)", c.path, r.Status)
	}
	r := b.do(t, http.MethodGet, "/assets/index-a1b2.js", "", nil)
	require.Equal(t, "public, max-age=31536000, immutable", r.Header.Get("Cache-Control"), "a hashed file keeps its long cache")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.http.URL+"/notifications/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+admin)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"), "the event stream")
}
