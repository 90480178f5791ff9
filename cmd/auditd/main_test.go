package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/cmd/auditd/proctest"
	"github.com/auditd/auditd/config"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/migrations"
)

// binary is auditd built once for the tests that run it as separate processes.
var binary string

func TestMain(m *testing.M) { proctest.Main(m, &binary) }

func postCanary(t *testing.T, addr, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/admin/canary", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	return res.StatusCode, body
}

// TestServeInsertsAndWorkCompletes runs API and worker processes apart, as
// they are deployed: serve inserts jobs and works none, work works them,
// a second API process behind the same PUBLIC_URL accepts the same
// tokens, and SIGTERM ends open event streams.
func TestServeInsertsAndWorkCompletes(t *testing.T) {
	t.Parallel()
	env := proctest.Env(t, "DATABASE_URL="+dbtest.URL(t), "AUTH_DEV=true", "JOB_WAIT_TIMEOUT=2s", "SHUTDOWN_TIMEOUT=10s")
	serve := proctest.Start(t, binary, append(env[:len(env):len(env)], proctest.Listen), "serve")
	addr := serve.Addr(t)
	env = append(env, "PUBLIC_URL=http://"+addr)
	token := proctest.Token(t, binary, env, "root", "admin")

	// serve inserts but never works jobs.
	status, body := postCanary(t, addr, token)
	require.Equal(t, http.StatusServiceUnavailable, status, body)

	// A separate work process completes them, and serves its job metrics
	// on METRICS_ADDR.
	work := proctest.Start(t, binary, append(env[:len(env):len(env)], "METRICS_ADDR=127.0.0.1:0"), "work")
	work.WaitLog(t, `"msg":"workers started"`)
	var metrics struct{ Addr string }
	require.NoError(t, json.Unmarshal([]byte(work.WaitLog(t, `"msg":"metrics listening"`)), &metrics))
	status, body = postCanary(t, addr, token)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "completed", body["details"].(map[string]any)["state"])
	res, err := http.Get("http://" + metrics.Addr + "/metrics")
	require.NoError(t, err)
	scraped, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(scraped), `auditd_jobs_total{kind="canary",outcome="completed"} 1`)

	// A second API process behind the same PUBLIC_URL accepts the same
	// development tokens (the issuer's key is shared through the database).
	serve2 := proctest.Start(t, binary, append(env[:len(env):len(env)], proctest.Listen), "serve")
	status, body = postCanary(t, serve2.Addr(t), token)
	require.Equal(t, http.StatusOK, status, body)

	// SIGTERM ends open event streams instead of waiting for them.
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/notifications/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	stream, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, stream.StatusCode)
	streamDone := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stream.Body); streamDone <- err }()

	serve.Stop(t)
	require.NoError(t, <-streamDone)
	serve2.Stop(t)
	work.Stop(t)
}

// environ is a getenv over settings ("KEY=value").
func environ(settings []string) func(string) string {
	vars := map[string]string{}
	for _, s := range settings {
		k, v, _ := strings.Cut(s, "=")
		vars[k] = v
	}
	return env(vars)
}

// openMain opens m in this process with settings as its environment; it is
// closed when t ends. With LISTEN_ADDR 127.0.0.1:0, m.Addr() is its address.
func openMain(t *testing.T, m *Main, settings ...string) *Main {
	t.Helper()
	cfg, err := config.FromEnv(environ(settings))
	require.NoError(t, err)
	m.Config, m.Stderr = cfg, t.Output()
	require.NoError(t, m.Open(t.Context()))
	t.Cleanup(func() { require.NoError(t, m.Close(context.Background())) })
	return m
}

// command runs an auditd command in this process with settings as its
// environment, and returns its stdout.
func command(t *testing.T, settings []string, args ...string) (string, error) {
	t.Helper()
	var stdout bytes.Buffer
	err := run(t.Context(), args, environ(settings), &stdout, t.Output())
	return stdout.String(), err
}

// devToken mints a development token of m's issuer for user with roles.
func devToken(t *testing.T, m *Main, user, roles string) string {
	t.Helper()
	out, err := command(t, []string{"DATABASE_URL=" + m.Config.DatabaseURL, "AUTH_DEV=true", "PUBLIC_URL=" + m.Config.PublicURL},
		"token", "--user", user, "--roles", roles)
	require.NoError(t, err)
	return strings.TrimSpace(out)
}

func TestAllMigratesAndServes(t *testing.T) {
	t.Parallel()
	m := openMain(t, &Main{Serve: true, Work: true, Migrate: true},
		"DATABASE_URL="+dbtest.EmptyURL(t), "AUTH_DEV=true", "LISTEN_ADDR=127.0.0.1:0")
	addr := m.Addr()
	require.Equal(t, "http://"+addr, m.Config.PublicURL, "a PUBLIC_URL left to default names the port taken")
	res, err := http.Get("http://" + addr + "/ready")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	status, body := postCanary(t, addr, devToken(t, m, "root", "admin"))
	require.Equal(t, http.StatusOK, status, body)

	// The dashboard is served beside the API (built or not, "/" is a page),
	// and told to use the development sign-in.
	res, err = http.Get("http://" + addr + "/app/profile")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")
	res, err = http.Get("http://" + addr + "/client-config")
	require.NoError(t, err)
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(raw), `"auth_dev":true`)
	require.Contains(t, string(raw), `"issuer":"http://`+addr+`/dev-oidc"`)

	// `auditd openapi` prints, with no database, the document the API serves.
	res, err = http.Get("http://" + addr + "/openapi.json")
	require.NoError(t, err)
	served, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	printed, err := command(t, nil, "openapi")
	require.NoError(t, err)
	require.JSONEq(t, string(served), printed)
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	url := dbtest.EmptyURL(t)
	settings := []string{"DATABASE_URL=" + url}
	versions := func() []int64 {
		conn, err := pgx.Connect(context.Background(), url)
		require.NoError(t, err)
		defer conn.Close(context.Background())
		rows, err := conn.Query(context.Background(), "SELECT version_id FROM goose_db_version ORDER BY id")
		require.NoError(t, err)
		v, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		require.NoError(t, err)
		return v
	}
	for range 2 {
		out, err := command(t, settings, "migrate")
		require.NoError(t, err)
		require.Contains(t, out, "migrations applied")
	}
	files, err := fs.Glob(migrations.FS, "*.sql")
	require.NoError(t, err)
	// Versions are the files' numeric prefixes; they need not be contiguous
	// (branches reserve numbers).
	want := []int64{0}
	for _, f := range files {
		n, err := strconv.ParseInt(f[:strings.IndexByte(f, '_')], 10, 64)
		require.NoError(t, err, f)
		want = append(want, n)
	}
	require.Equal(t, want, versions(), "goose's initial row plus one per migration, once each")
}

func TestBadConfigurationNamesTheVariable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  []string
		want string
	}{
		{[]string{}, "DATABASE_URL is required"},
		{[]string{"DATABASE_URL=postgres://x/y", "AUTH_DEV=true", "LISTEN_ADDR=0.0.0.0:8080"}, "AUTH_DEV"},
		{[]string{"DATABASE_URL=postgres://x/y", "LISTEN_ADDR=127.0.0.1:8080"}, "OIDC_ISSUER_URL is required"},
		{[]string{"DATABASE_URL=postgres://x/y", "WORKER_CONCURRENCY=lots"}, "WORKER_CONCURRENCY"},
		{[]string{"DATABASE_URL=postgres://x/y", "DIRECTORY_PROVIDER=keycloak", "DIRECTORY_URL=https://kc.example"}, "DIRECTORY_REALM is required"},
		{[]string{"DATABASE_URL=postgres://x/y", "ASR_ENGINE=openai", "ASR_MODEL=whisper-1"}, "ASR_BASE_URL is required"},
	}
	for _, tc := range cases {
		_, err := command(t, tc.env, "serve")
		require.Error(t, err)
		require.NotContains(t, err.Error(), "\n", "one line")
		require.Contains(t, err.Error(), tc.want)
	}
}

func TestJobsCommand(t *testing.T) {
	t.Parallel()
	m := openMain(t, &Main{Serve: true}, "DATABASE_URL="+dbtest.URL(t), "AUTH_DEV=true", "LISTEN_ADDR=127.0.0.1:0", "JOB_WAIT_TIMEOUT=1s")
	addr := m.Addr()
	token := devToken(t, m, "root", "admin")
	// No worker runs: the canary stays behind, cancelled.
	status, body := postCanary(t, addr, token)
	require.Equal(t, http.StatusServiceUnavailable, status)
	id := fmt.Sprint(int64(body["details"].(map[string]any)["job_id"].(float64)))

	cli := []string{"AUDITD_URL=http://" + addr, "AUDITD_TOKEN=" + token}
	out, err := command(t, cli, "jobs", "list", "--kind", "canary")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^`+id+` +canary +cancelled +default`, out)
	out, err = command(t, cli, "jobs", "retry", id)
	require.NoError(t, err)
	require.Contains(t, out, `"state": "available"`)
	out, err = command(t, cli, "jobs", "show", id)
	require.NoError(t, err)
	require.Contains(t, out, `"kind": "canary"`)
	_, err = command(t, cli, "jobs", "cancel", "999999")
	require.ErrorContains(t, err, "NOT_FOUND")
	_, err = command(t, cli[:1], "jobs", "list")
	require.ErrorContains(t, err, "access token")
}

// TestCommandHelp: -h of any command prints its flags and is no error
// ("auditd: flag: help requested" after the flags was).
func TestCommandHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"token", "upload", "tasks", "export", "serve"} {
		var stdout, stderr bytes.Buffer
		require.NoError(t, run(t.Context(), []string{cmd, "-h"}, func(string) string { return "" }, &stdout, &stderr), cmd)
		require.NotEmpty(t, stderr.String(), cmd) // its usage
		require.NotContains(t, stderr.String(), "help requested", cmd)
	}
	var stdout, stderr bytes.Buffer
	require.ErrorContains(t, run(t.Context(), []string{"token", "--bogus"}, func(string) string { return "" }, &stdout, &stderr),
		"flag provided but not defined")
}
