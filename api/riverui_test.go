package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/jobs"
)

// TestRiverUI serves River UI to admins only: with their bearer token, or
// with the session cookie the dashboard exchanges it for, which ends on
// sign-out or when the user is deactivated; nobody else, and nothing from
// another site.
func TestRiverUI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, root := b.users(t)
	_, err := b.server.opts.River.Insert(t.Context(), jobs.CanaryArgs{RequestedBy: "root"}, nil)
	require.NoError(t, err)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, header http.Header) response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, b.http.URL+path, nil)
		require.NoError(t, err)
		req.Header = header
		return roundTripWith(t, noRedirect, req)
	}

	// An admin's bearer token: the page, under its own policy, and the API.
	r := get("/riverui/", bearer(root))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Contains(t, r.RawBody, "<title>River</title>")
	require.Contains(t, r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	require.Equal(t, "DENY", r.Header.Get("X-Frame-Options"))
	r = get("/riverui/api/jobs?state=available", bearer(root))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Contains(t, r.RawBody, `"kind":"canary"`)

	// No credentials: JSON for the API, the sign-in page for a browser.
	requireError(t, get("/riverui/api/jobs", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	r = get("/riverui/jobs/7?x=1", http.Header{"Accept": {"text/html"}})
	require.Equal(t, http.StatusSeeOther, r.Status, r.RawBody)
	require.Equal(t, "/app/admin/jobs?riverui=%2Friverui%2Fjobs%2F7%3Fx%3D1", r.Header.Get("Location"), "back to this page once signed in")
	// Below admin: refused.
	requireError(t, get("/riverui/api/jobs", bearer(alice)), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodPost, "/admin/riverui/session", alice, nil), http.StatusForbidden, CodeForbidden)
	// The bare prefix leads to the UI.
	r = get("/riverui", nil)
	require.Equal(t, http.StatusMovedPermanently, r.Status)
	require.Equal(t, "/riverui/", r.Header.Get("Location"))

	// The session: a strict, HttpOnly cookie for /riverui/ only.
	r = b.do(t, http.MethodPost, "/admin/riverui/session", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "/riverui/", r.Body["details"].(map[string]any)["url"])
	cookies := (&http.Response{Header: r.Header}).Cookies()
	require.Len(t, cookies, 1)
	c := cookies[0]
	require.Equal(t, riverUICookie, c.Name)
	require.Equal(t, "/riverui/", c.Path)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	withCookie := http.Header{"Cookie": {c.Name + "=" + c.Value}}
	r = get("/riverui/api/jobs?state=available", withCookie)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, http.StatusUnauthorized, get("/riverui/api/jobs", http.Header{"Cookie": {c.Name + "=forged"}}).Status)

	// A state-changing request from another site is refused before River
	// UI sees it; from the page itself it reaches River UI.
	post := func(site string) response {
		req, err := http.NewRequest(http.MethodPost, b.http.URL+"/riverui/api/jobs/retry", strings.NewReader(`{"ids":["1"]}`))
		require.NoError(t, err)
		req.Header = withCookie.Clone()
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", site)
		return roundTrip(t, req)
	}
	requireError(t, post("cross-site"), http.StatusForbidden, CodeForbidden)
	require.NotEqual(t, http.StatusForbidden, post("same-origin").Status)

	// Sign-out ends it; so does deactivation.
	r = b.do(t, http.MethodDelete, "/admin/riverui/session", root, nil)
	require.Equal(t, http.StatusNoContent, r.Status, r.RawBody)
	requireError(t, get("/riverui/api/jobs", withCookie), http.StatusUnauthorized, CodeUnauthorized)
	r = b.do(t, http.MethodPost, "/admin/riverui/session", root, nil)
	c = (&http.Response{Header: r.Header}).Cookies()[0]
	withCookie = http.Header{"Cookie": {c.Name + "=" + c.Value}}
	require.Equal(t, http.StatusOK, get("/riverui/api/jobs", withCookie).Status)
	_, err = b.pool.Exec(t.Context(), `UPDATE users SET active = false WHERE id = 'root'`)
	require.NoError(t, err)
	requireError(t, get("/riverui/api/jobs", withCookie), http.StatusUnauthorized, CodeUnauthorized)
}
