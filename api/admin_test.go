package api

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/metrics"
)

func TestAdminJobs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, bob, root := b.users(t)
	ctx := context.Background()
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{})
	require.NoError(t, err)
	var ids []int64
	for i := range 3 {
		res, err := rc.Insert(ctx, jobs.CanaryArgs{RequestedBy: fmt.Sprint("probe-", i)}, nil)
		require.NoError(t, err)
		ids = append(ids, res.Job.ID)
	}
	_, err = rc.Insert(ctx, jobs.PruneEventsArgs{}, nil)
	require.NoError(t, err)

	requireError(t, b.do(t, http.MethodGet, "/admin/jobs", bob, nil), http.StatusForbidden, CodeForbidden)

	list := func(query string) ([]any, string) {
		r := b.do(t, http.MethodGet, "/admin/jobs?"+query, root, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		next, _ := details(r)["next"].(string)
		return details(r)["items"].([]any), next
	}
	all, _ := list("")
	require.Len(t, all, 4)
	page1, next := list("kind=canary&limit=2")
	require.Len(t, page1, 2)
	require.NotEmpty(t, next)
	require.Equal(t, float64(ids[2]), page1[0].(map[string]any)["id"], "newest first")
	page2, _ := list("kind=canary&limit=2&cursor=" + url.QueryEscape(next))
	require.Len(t, page2, 1)
	require.Equal(t, float64(ids[0]), page2[0].(map[string]any)["id"])
	pruneOnly, _ := list("kind=prune_events&state=available,scheduled")
	require.Len(t, pruneOnly, 1)

	r := b.do(t, http.MethodGet, fmt.Sprintf("/admin/jobs/%d", ids[1]), root, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "canary", details(r)["kind"])
	require.Equal(t, "probe-1", details(r)["args"].(map[string]any)["requested_by"])

	r = b.do(t, http.MethodPost, fmt.Sprintf("/admin/jobs/%d/cancel", ids[1]), root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "cancelled", details(r)["state"])
	cancelled, _ := list("state=cancelled")
	require.Len(t, cancelled, 1)
	r = b.do(t, http.MethodPost, fmt.Sprintf("/admin/jobs/%d/retry", ids[1]), root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "available", details(r)["state"])

	requireError(t, b.do(t, http.MethodGet, "/admin/jobs/999999", root, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodPost, "/admin/jobs/999999/retry", root, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/admin/jobs/abc", root, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/admin/jobs?state=exploded", root, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/admin/jobs?cursor=garbage", root, nil), http.StatusBadRequest, CodeValidation)
}

// TestCursorsAreStrict: a cursor is only what a page returned. "null", {}
// or one written by hand is a located 400 that quotes nothing of it.
func TestCursorsAreStrict(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := b.issuer.token(t, "root", "admin")
	std := func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }
	for _, path := range []string{
		"/admin/jobs?cursor=" + std("null"),
		"/admin/jobs?cursor=" + std("{}"),
		"/admin/jobs?cursor=" + std(`{"id":0,"kind":"","queue":"","sort_field":"","time":"0001-01-01T00:00:00Z"}`),
		"/admin/jobs?cursor=" + std(`{"id":1,"kind":"<script>"}`),
		"/tasks?cursor=" + forged(`{"s":"<script>alert(1)</script>","o":"desc","v":"2026-01-02T03:04:05Z","u":"00000000-0000-4000-8000-000000000000"}`),
		"/tasks?cursor=" + forged(`{"s":"created_at","o":"desc","v":"2026-01-02T03:04:05Z","u":"00000000-0000-4000-8000-000000000000","x":"<script>"}`),
		"/tasks?cursor=" + forged(`null`),
		"/admin/access-records?cursor=%3Cscript%3E",
		"/bulk-actions?cursor=%3Cscript%3E",
	} {
		r := b.do(t, http.MethodGet, path, root, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.NotContains(t, r.RawBody, "script", path)
		require.NotContains(t, r.RawBody, "PHNjcmlwd", path)
		detail := r.Body["details"].([]any)[0].(map[string]any)
		require.Equal(t, "query.cursor", detail["location"], path)
		require.Nil(t, detail["value"], path)
	}
}

func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, bob, root := b.users(t)
	requireError(t, b.do(t, http.MethodGet, "/metrics", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodGet, "/metrics", bob, nil), http.StatusForbidden, CodeForbidden)
	r := b.do(t, http.MethodGet, "/metrics", root, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, r.RawBody, `auditd_http_requests_total{method="GET",route="/users/me",status="200"}`)
	require.Contains(t, r.RawBody, "auditd_http_request_duration_seconds_bucket")
	require.Contains(t, r.RawBody, "go_goroutines")

	// With METRICS_TOKEN, a scraper's static token is what counts.
	m := metrics.New()
	m.WatchQueues(b.pool, nil)
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{})
	require.NoError(t, err)
	_, err = rc.Insert(context.Background(), jobs.CanaryArgs{}, nil)
	require.NoError(t, err)
	s := New(Options{Pool: b.pool, River: rc, Auth: b.server.opts.Auth, Hub: b.hub, Metrics: m, MetricsToken: "s3cret"})
	get := func(token string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, "/metrics", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(body)
	}
	code, _ := get(root)
	require.Equal(t, http.StatusUnauthorized, code)
	code, body := get("s3cret")
	require.Equal(t, http.StatusOK, code)
	require.True(t, strings.Contains(body, `auditd_queue_jobs{queue="default",state="available"} 1`), body)
}
