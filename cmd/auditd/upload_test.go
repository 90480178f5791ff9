package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/api"
	"github.com/auditd/auditd/cmd/auditd/proctest"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/storage"
)

type apiBundle struct {
	url  string
	pool *pgxpool.Pool
	dev  *api.DevIssuer
}

// setupAPI serves the real API on loopback with the development issuer;
// front, when given, stands before it, as a proxy would.
func setupAPI(t *testing.T, limits api.RateLimits, front ...func(http.Handler) http.Handler) *apiBundle {
	t.Helper()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	store, err := storage.Open(ctx, "file://"+t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	var handler http.Handler
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(hs.Close)
	issuer := hs.URL + "/dev-oidc"
	dev, err := api.NewDevIssuer(ctx, pool, issuer, "auditd")
	require.NoError(t, err)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	auth := api.NewAuthenticator(api.AuthConfig{IssuerURL: issuer, Audience: "auditd",
		SubjectClaim: "sub", UsernameClaim: "preferred_username", RolesClaim: "roles"}, pool)
	// The speech engine of a default install.
	handler = api.New(api.Options{Pool: pool, River: rc, Auth: auth, DevIssuer: dev, Store: store, RateLimit: limits,
		Client: api.ClientConfig{Speech: intake.Speech{Engine: "pocketsphinx", Languages: []string{"en"}}},
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	for _, f := range front {
		handler = f(handler)
	}
	return &apiBundle{url: hs.URL, pool: pool, dev: dev}
}

func (b *apiBundle) token(t *testing.T, user string, roles ...string) string {
	t.Helper()
	tok, err := b.dev.Mint(api.DevClaims{Subject: user, Username: user, Email: user + "@example.test", Name: user, Roles: roles, TTL: time.Hour})
	require.NoError(t, err)
	return tok
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func writeFile(t *testing.T, path string, content []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, content, 0o644))
}

var outcomeLine = regexp.MustCompile(`^(ok|duplicate|skipped|failed) +(\S+)`)

func TestUploadCommandEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupAPI(t, api.RateLimits{})
	quality := b.token(t, "qa", "quality")

	dir := t.TempDir()
	wav := filepath.Join(dir, "calls", "a.wav")
	require.NoError(t, os.MkdirAll(filepath.Dir(wav), 0o755))
	out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", wav).CombinedOutput()
	require.NoError(t, err, string(out))
	audio, err := os.ReadFile(wav)
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, "calls", "copy-of-a.wav"), audio)
	writeFile(t, filepath.Join(dir, "chats", "chat.json"), []byte(`[{"speaker":"Agente","text":"Hola"},{"speaker":"Cliente","text":"Buenas"}]`))
	writeFile(t, filepath.Join(dir, "chats", "chat.txt"), []byte("Agent: Hello\nCustomer: Hi\n"))
	writeFile(t, filepath.Join(dir, "bad.wav"), []byte("not audio, whatever the name says"))
	writeFile(t, filepath.Join(dir, ".hidden", "skipped.wav"), audio)
	writeFile(t, filepath.Join(dir, ".DS_Store"), []byte("junk"))

	var stdout, stderr bytes.Buffer
	err = run(ctx, []string{"upload", "--server", b.url, "--parallel", "2", "--progress", "always", "--operator", "olga", "--language", "en", dir},
		env(map[string]string{"AUDITD_TOKEN": quality}), &stdout, &stderr)
	require.ErrorContains(t, err, "1 of 5 files failed")

	outcomes := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		m := outcomeLine.FindStringSubmatch(line)
		require.NotNil(t, m, line)
		outcomes[m[1]] = append(outcomes[m[1]], line)
	}
	require.Len(t, outcomes["ok"], 3, stdout.String())
	// The copy of a.wav: sent at the same time (a duplicate), or after
	// a.wav's upload ended (skipped: the server had it).
	require.Len(t, append(outcomes["duplicate"], outcomes["skipped"]...), 1, stdout.String())
	require.Len(t, outcomes["failed"], 1, stdout.String())
	require.Contains(t, outcomes["failed"][0], "bad.wav")
	require.Contains(t, outcomes["failed"][0], "UNSUPPORTED_MEDIA_TYPE")
	require.Regexp(t, `5 files: 3 new, (1 duplicates, 1 failed, 0 skipped|0 duplicates, 1 failed, 1 skipped)`, stderr.String())
	require.Contains(t, stderr.String(), b.url+": calls are transcribed by pocketsphinx in English (en)\n")
	// Bars were drawn: one per file and the overall one, redrawn in place.
	require.Contains(t, stderr.String(), "100%")
	require.Contains(t, stderr.String(), "5 files")
	require.Contains(t, stderr.String(), "chat.json")
	require.Contains(t, stderr.String(), "\x1b[J")

	// The printed ids are the tasks, with the duplicate naming the first.
	var n int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM tasks WHERE operator_id = 'olga'").Scan(&n))
	require.Equal(t, 3, n)
	var language string
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT language FROM tasks WHERE kind = 'call'").Scan(&language))
	require.Equal(t, "en", language, "as asked: the default campaign is Spanish, which the engine does not transcribe")
	for _, line := range append(append(outcomes["ok"], outcomes["duplicate"]...), outcomes["skipped"]...) {
		id := outcomeLine.FindStringSubmatch(line)[2]
		require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM tasks WHERE uuid = $1", id).Scan(&n))
		require.Equal(t, 1, n, line)
	}

	// `auditd tasks` lists them, through AUDITD_URL.
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run(ctx, []string{"tasks", "--kind", "chat", "--sort", "file_name", "--order", "asc"},
		env(map[string]string{"AUDITD_TOKEN": quality, "AUDITD_URL": b.url}), &stdout, &stderr))
	rows := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, rows, 3, stdout.String())
	require.Regexp(t, `^UUID +KIND +STATUS +CAMPAIGN +OPERATOR +CREATED +FILE$`, rows[0])
	require.Regexp(t, `chat +transcribed +default +olga .* chat\.json$`, rows[1])
	require.Regexp(t, `chat +transcribed +default +olga .* chat\.txt$`, rows[2])
	require.Contains(t, stderr.String(), "2 of 2 tasks")

	// `auditd export` writes them as CSV, whole or not at all.
	exported := filepath.Join(dir, "export.csv")
	stderr.Reset()
	require.NoError(t, run(ctx, []string{"export", "--kind", "chat", "--output", exported},
		env(map[string]string{"AUDITD_TOKEN": quality, "AUDITD_URL": b.url}), &stdout, &stderr))
	csv, err := os.ReadFile(exported)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	require.Len(t, lines, 3, string(csv))
	require.True(t, strings.HasPrefix(lines[0], "\ufeffuuid,file_name,kind,status,campaign,operator_id"), lines[0])
	require.Contains(t, stderr.String(), "exported to "+exported)
	bad := filepath.Join(dir, "bad.xlsx")
	err = run(ctx, []string{"export", "--format", "pdf", "--output", bad},
		env(map[string]string{"AUDITD_TOKEN": quality, "AUDITD_URL": b.url}), &stdout, &stderr)
	require.ErrorContains(t, err, "VALIDATION_ERROR")
	require.NoFileExists(t, bad)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, strings.HasPrefix(e.Name(), ".bad.xlsx"), "no temporary file left: %s", e.Name())
	}

	// Uploading the good files again: every one skipped, and success.
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run(ctx, []string{"upload", "--server", b.url, "--token", quality, "--progress", "never",
		filepath.Join(dir, "calls"), filepath.Join(dir, "chats", "chat.txt")}, env(nil), &stdout, &stderr))
	require.Equal(t, 3, strings.Count(stdout.String(), "skipped "), stdout.String())
	require.Contains(t, stderr.String(), "3 files: 0 new, 0 duplicates, 0 failed, 3 skipped")
	require.NotContains(t, stderr.String(), "\x1b[", "no bars when asked not to draw them")

	// A new call in a language the engine does not transcribe is refused,
	// saying why and what to do.
	other := filepath.Join(dir, "other", "b.wav")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	out, err = exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=660:duration=2", other).CombinedOutput()
	require.NoError(t, err, string(out))
	stdout.Reset()
	err = run(ctx, []string{"upload", "--server", b.url, "--token", quality, "--progress", "never", "--language", "es-MX", other},
		env(nil), &stdout, &stderr)
	require.ErrorContains(t, err, "1 of 1 files failed")
	require.Contains(t, stdout.String(), "VALIDATION_ERROR")
	require.Contains(t, stdout.String(), `the call "b.wav" is in Spanish (es-MX), which the speech engine (pocketsphinx) does not transcribe`)
	require.Contains(t, stdout.String(), "ASR_ENGINE=openai")
}

func TestUploadCommandFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupAPI(t, api.RateLimits{})
	file := filepath.Join(t.TempDir(), "chat.txt")
	writeFile(t, file, []byte("Agent: Hello\n"))
	var stdout, stderr bytes.Buffer

	err := run(ctx, []string{"upload", "--server", b.url, file}, env(nil), &stdout, &stderr)
	require.ErrorContains(t, err, "AUDITD_TOKEN")

	err = run(ctx, []string{"upload", "--server", b.url, "--token", b.token(t, "op", "operator"), file}, env(nil), &stdout, &stderr)
	require.ErrorContains(t, err, "1 of 1 files failed")
	require.Contains(t, stdout.String(), "FORBIDDEN")

	err = run(ctx, []string{"upload", "--server", b.url, "--token", "x", filepath.Join(t.TempDir(), "missing.wav")}, env(nil), &stdout, &stderr)
	require.ErrorContains(t, err, "missing.wav")

	err = run(ctx, []string{"upload", "--server", b.url, "--token", "x", t.TempDir()}, env(nil), &stdout, &stderr)
	require.ErrorContains(t, err, "no files")

	err = run(ctx, []string{"upload", "--server", "ftp://x", "--token", "x", file}, env(nil), &stdout, &stderr)
	require.ErrorContains(t, err, "--server")

	err = run(ctx, []string{"tasks", "--server", b.url, "--token", b.token(t, "op", "operator"), "--limit", "0"}, env(nil), &stdout, &stderr)
	require.ErrorContains(t, err, "VALIDATION_ERROR")
}

// TestUploadCommandWaitsItsTurn uploads more files than the server's upload
// limit lets through in a minute, through a proxy that fails the first
// requests: every file gets in, the refused ones sent again when
// Retry-After says, the failed ones after a pause.
func TestUploadCommandWaitsItsTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var failed atomic.Int32
	flaky := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/tasks/upload" && failed.Add(1) <= 2 {
				_, _ = io.Copy(io.Discard, r.Body) // the file arrived; the answer is lost
				http.Error(w, "upstream connect error", http.StatusBadGateway)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	// 70 files against 40 a minute: the limit is met however slowly the
	// machine runs them (each upload also asks whether the server has it).
	b := setupAPI(t, api.RateLimits{Uploads: 40}, flaky)
	dir := t.TempDir()
	const files = 70
	for i := range files {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("chat-%02d.txt", i)), fmt.Appendf(nil, "Agent: Hello, this is chat %d\nCustomer: Hi\n", i))
	}
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"upload", "--server", b.url, "--parallel", "8", "--progress", "never", dir},
		env(map[string]string{"AUDITD_TOKEN": b.token(t, "qa", "quality")}), &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	require.Equal(t, files, strings.Count(stdout.String(), "ok         "), stdout.String())
	require.Contains(t, stderr.String(), fmt.Sprintf("%d files: %d new, 0 duplicates, 0 failed, 0 skipped", files, files))
	require.Contains(t, stderr.String(), "POST /tasks/upload in 1s: 429 Too Many Requests")
	require.Contains(t, stderr.String(), "502 Bad Gateway")
	var n int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM tasks`).Scan(&n))
	require.Equal(t, files, n)
}

// TestUploadCommandResumes: an upload interrupted half-way (the context
// cancelled, as Ctrl-C does) and run again sends nothing twice: each file
// the server has is skipped after asking for its content's SHA-256 (GET
// /files/{sha256}), never sent, and the rest are uploaded.
func TestUploadCommandResumes(t *testing.T) {
	t.Parallel()
	ctx, interrupt := context.WithCancel(context.Background())
	var sent atomic.Int32
	counting := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/tasks/upload" && sent.Add(1) == 5 {
				interrupt()
			}
			next.ServeHTTP(w, r)
		})
	}
	b := setupAPI(t, api.RateLimits{}, counting)
	dir := t.TempDir()
	const files = 20
	for i := range files {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("chat-%02d.txt", i)), fmt.Appendf(nil, "Agent: Hello, this is chat %d\nCustomer: Hi\n", i))
	}
	args := []string{"upload", "--server", b.url, "--parallel", "2", "--progress", "never", dir}
	token := env(map[string]string{"AUDITD_TOKEN": b.token(t, "qa", "quality")})
	var stdout, stderr bytes.Buffer
	require.ErrorIs(t, run(ctx, args, token, &stdout, &stderr), context.Canceled)
	var stored int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks`).Scan(&stored))
	require.Less(t, stored, files, "interrupted before the end")
	require.Positive(t, stored)

	sent.Store(100) // no more interruptions
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run(context.Background(), args, token, &stdout, &stderr), stderr.String())
	require.Equal(t, stored, strings.Count(stdout.String(), "skipped    "), stdout.String())
	require.Equal(t, files-stored, strings.Count(stdout.String(), "ok         "), stdout.String())
	require.Contains(t, stderr.String(), fmt.Sprintf("%d files: %d new, 0 duplicates, 0 failed, %d skipped", files, files-stored, stored))
	require.Equal(t, int32(100+files-stored), sent.Load(), "only the files the server did not have were sent")
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks`).Scan(&n))
	require.Equal(t, files, n)
}

func TestServeNeedsFFprobe(t *testing.T) {
	t.Parallel()
	// No PATH: no ffprobe to check uploaded audio with.
	env := []string{"DATABASE_URL=" + dbtest.URL(t), "AUTH_DEV=true", proctest.Listen}
	_, stderr, err := proctest.Run(t, binary, env, "serve")
	require.Error(t, err)
	require.Contains(t, stderr, "ffprobe")
}
