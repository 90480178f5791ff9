//go:build faults

// Package faults injects faults into real auditd processes on a real
// Postgres (make test-faults): workers killed with SIGKILL, the database
// restarted, the mail server down, the speech and language servers slow,
// failing or talking nonsense, processes stopped under load. Each test ends
// by counting, in the database and at the fakes, that nothing was lost or
// done twice.
package faults

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/llm/llmtest"
	"github.com/auditd/auditd/cmd/auditd/proctest"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// bin is auditd, built once.
var bin string

func TestMain(m *testing.M) { proctest.Main(m, &bin) }

// stack is one deployment under test: a database, a blob store shared by
// its processes, and the settings every process gets.
type stack struct {
	t      *testing.T
	env    []string
	addr   string
	blobs  string
	pool   *pgxpool.Pool
	token  string
	client *http.Client
	// failed keeps the first error of the test's own goroutines (a load, an
	// analyst, a stream client), so that the next wait ends at once.
	failed atomic.Pointer[error]
}

// newStack prepares a deployment on the database at url (migrated) with
// settings added to the common ones. requestTimeout bounds every request
// of the test's client: a request that outlives it is a hang.
func newStack(t *testing.T, url string, requestTimeout time.Duration, settings ...string) *stack {
	t.Helper()
	s := &stack{t: t, blobs: t.TempDir(), client: &http.Client{Timeout: requestTimeout}}
	s.env = proctest.Env(t, "DATABASE_URL="+url, "AUTH_DEV=true", proctest.Listen, "BLOB_URL=file://"+s.blobs,
		"RATE_LIMIT_UPLOADS=1000000", "RATE_LIMIT_WRITES=1000000", "JOB_WAIT_TIMEOUT=1s",
		"VALIDATION_TO=qa@example.com", "MAIL_FROM=auditd@example.com")
	s.env = append(s.env, settings...)
	s.pool = dbtest.PoolFor(t, url)
	t.Cleanup(func() {
		if t.Failed() {
			s.dump()
		}
	})
	return s
}

// dump logs where tasks, validations and jobs stand, for a failed test.
func (s *stack) dump() {
	for _, q := range []string{
		`SELECT status || ' ' || coalesce(error, '') || ': ' || count(*) FROM tasks GROUP BY status, error`,
		`SELECT 'e-mail ' || email_status || ' ' || coalesce(email_error, '') || ': ' || count(*) FROM validations GROUP BY email_status, email_error`,
		`SELECT 'job ' || kind || ' ' || state || ' attempt ' || attempt || ': ' || count(*) FROM river_job GROUP BY kind, state, attempt`,
		`SELECT 'job ' || id || ' ' || kind || ' ' || state || ' ' || args::text || ' ' || coalesce(errors[array_length(errors, 1)]->>'error', '') FROM river_job WHERE state <> 'completed' LIMIT 20`,
	} {
		rows, err := s.pool.Query(context.Background(), q)
		if err != nil {
			s.t.Log("dump:", err)
			return
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			s.t.Log("dump:", err)
			return
		}
		for _, l := range lines {
			s.t.Log("state:", l)
		}
	}
}

// start runs an auditd process of the stack (serve, work or all) with
// extra settings, and waits until it is up. An API process takes any free
// port and the stack's requests go to the latest one; the first one's
// address is the stack's PUBLIC_URL (so its development tokens), which
// every later process is given.
func (s *stack) start(cmd string, extra ...string) *proctest.Proc {
	s.t.Helper()
	p := proctest.Start(s.t, bin, append(s.env[:len(s.env):len(s.env)], extra...), cmd)
	if cmd == "work" {
		p.WaitLog(s.t, `"msg":"workers started"`)
	} else {
		s.addr = p.Addr(s.t)
		if s.token == "" {
			s.env = append(s.env, "PUBLIC_URL=http://"+s.addr)
			s.token = proctest.Token(s.t, bin, s.env, "qa-admin", "admin")
		}
	}
	return p
}

// response is an API answer: its status and JSON body.
type response struct {
	Status int
	Body   map[string]any
}

// code is the error code of an error response.
func (r response) code() string {
	c, _ := r.Body["code"].(string)
	return c
}

func (s *stack) request(method, path, contentType string, body io.Reader) (response, error) {
	req, err := http.NewRequest(method, "http://"+s.addr+path, body)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	out := response{Status: res.StatusCode}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out.Body); err != nil {
		return out, fmt.Errorf("%s %s: %d answered with no JSON: %q", method, path, res.StatusCode, raw)
	}
	return out, nil
}

// upload sends one file to POST /tasks/upload.
func (s *stack) upload(name string, content []byte) (response, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("files", name)
	if err != nil {
		return response{}, err
	}
	_, _ = fw.Write(content)
	_ = mw.Close()
	return s.request(http.MethodPost, "/tasks/upload", mw.FormDataContentType(), &buf)
}

// uploaded returns the uuid of the one task an upload created.
func uploaded(t *testing.T, r response) string {
	t.Helper()
	require.Equal(t, http.StatusAccepted, r.Status, r.Body)
	tasks := r.Body["details"].(map[string]any)["tasks"].([]any)
	require.Len(t, tasks, 1)
	return tasks[0].(map[string]any)["uuid"].(string)
}

// validate sends POST /validate-audit for a task.
func (s *stack) validate(uuid string, isCall bool) (response, error) {
	body, _ := json.Marshal(map[string]any{"task_uuid": uuid, "notes": "Checked under faults.", "isCall": isCall})
	return s.request(http.MethodPost, "/validate-audit", "application/json", bytes.NewReader(body))
}

// count runs a counting query against the stack's database.
func (s *stack) count(query string, args ...any) int {
	s.t.Helper()
	var n int
	require.NoError(s.t, s.pool.QueryRow(context.Background(), query, args...).Scan(&n), query)
	return n
}

// blobFiles lists the keys of the files in the blob store.
func (s *stack) blobFiles() []string {
	s.t.Helper()
	var keys []string
	require.NoError(s.t, filepath.WalkDir(s.blobs, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			key, err := filepath.Rel(s.blobs, path)
			keys = append(keys, filepath.ToSlash(key))
			return err
		}
		return err
	}))
	return keys
}

// requireBlobs checks that every blob a row refers to is stored and that
// the sweeper deletes the rest. A request whose commit was cut off (the
// database gone mid-commit, the process killed) cannot know whether its
// rows were stored, so it leaves its blobs to the sweeper, which checks:
// here they are made older than storage.OrphanAge and a sweep is run.
func (s *stack) requireBlobs() {
	s.t.Helper()
	referenced := map[string]bool{}
	for _, q := range []string{`SELECT blob_key FROM tasks WHERE blob_key IS NOT NULL`,
		`SELECT a->>'blob_key' FROM validations, jsonb_array_elements(attachments) a`} {
		rows, err := s.pool.Query(context.Background(), q)
		require.NoError(s.t, err)
		keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(s.t, err)
		for _, k := range keys {
			referenced[k] = true
		}
	}
	var orphans []string
	stored := s.blobFiles()
	for _, k := range stored {
		if referenced[k] {
			delete(referenced, k)
		} else {
			orphans = append(orphans, k)
		}
	}
	require.Empty(s.t, referenced, "blobs rows refer to that are not stored")
	if len(orphans) == 0 {
		return
	}
	old := time.Now().Add(-storage.OrphanAge - time.Minute)
	for _, k := range orphans {
		require.NoError(s.t, os.Chtimes(filepath.Join(s.blobs, filepath.FromSlash(k)), old, old))
	}
	client, err := river.NewClient(riverpgxv5.New(s.pool), &river.Config{})
	require.NoError(s.t, err)
	_, err = client.Insert(context.Background(), jobs.SweepBlobsArgs{}, nil)
	require.NoError(s.t, err)
	s.await(time.Minute, func() bool { return len(s.blobFiles()) == len(stored)-len(orphans) }, "blobs no row took swept")
	s.t.Logf("REPORT blobs: %d left by commits of unknown outcome, deleted by the sweeper", len(orphans))
}

// requireNoLoss checks what every fault test ends with: each task the API
// accepted exists once, reached audited exactly once with one engine
// revision, holds a blob (what no row took, the sweeper deletes), and no job of the
// pipeline is left unfinished.
func (s *stack) requireNoLoss(uuids []string, finalStatus string) {
	s.t.Helper()
	require.Equal(s.t, len(uuids), s.count(`SELECT count(*) FROM tasks`), "tasks in the database against uploads accepted")
	require.Equal(s.t, len(uuids), s.count(`SELECT count(*) FROM tasks WHERE uuid = ANY($1::uuid[])`, uuids))
	require.Equal(s.t, 0, s.count(`SELECT count(*) FROM tasks WHERE status <> $1`, finalStatus), "tasks not %s", finalStatus)
	require.Equal(s.t, 0, s.count(`
		SELECT count(*) FROM tasks t WHERE (SELECT count(*) FROM task_transitions x
			WHERE x.task_uuid = t.uuid AND x.to_status = 'audited') <> 1`), "tasks audited other than once")
	require.Equal(s.t, 0, s.count(`
		SELECT count(*) FROM tasks t WHERE (SELECT count(*) FROM audit_revisions r
			WHERE r.task_uuid = t.uuid AND r.source = 'engine') <> 1`), "tasks with other than one engine audit")
	require.Equal(s.t, 0, s.count(`
		SELECT count(*) FROM tasks t WHERE t.kind = 'call' AND NOT EXISTS (
			SELECT 1 FROM transcripts x WHERE x.task_uuid = t.uuid
				AND x.text LIKE '%Good morning.%How can I help?%' AND x.text NOT LIKE '%Good morning.%Good morning.%')`),
		"calls without the engine's transcript, once")
	s.requireBlobs()
	// River records completions in the background: a job's end may follow
	// its task's by a moment (or by a rescue, when the database missed it).
	s.await(2*time.Minute, func() bool {
		return s.count(`SELECT count(*) FROM river_job
			WHERE kind IN ('transcribe', 'audit', 'send_validation_email') AND state <> 'completed'`) == 0
	}, "pipeline jobs completed")
}

// content makes files whose content differs for every n (the service
// takes a file uploaded twice for one task).
type content struct {
	wav []byte
}

func newContent(t *testing.T) content {
	out := filepath.Join(t.TempDir(), "call.wav")
	mediatest.Tones(t, out, 2*time.Second, mediatest.Tone{Start: 200 * time.Millisecond, Length: time.Second, Hz: 400})
	wav, err := os.ReadFile(out)
	require.NoError(t, err)
	return content{wav: wav}
}

// call is a two-second recording, its last sample made unique by n.
func (c content) call(n int) []byte {
	out := bytes.Clone(c.wav)
	binary.LittleEndian.PutUint16(out[len(out)-2:], uint16(n))
	return out
}

// chat is a short chat transcript, unique by n.
func (c content) chat(n int) []byte {
	return fmt.Appendf(nil, `Agente: Buenos dias, gracias por contactar, le atiende Marta.
Cliente: Hola, tengo una consulta sobre la factura %d.
Agente: Claro, lo reviso ahora mismo. Ya esta solucionado.
Agente: Gracias a usted, que tenga un buen dia.
`, n)
}

// reply is what fakeAI answers one request with. A zero status answers
// 200 with a valid transcription or audit.
type reply struct {
	status int
	header map[string]string
	body   string
	// delay holds the answer this long (or until the client leaves).
	delay time.Duration
}

// fakeAI is an OpenAI-compatible server on loopback for both engines:
// transcriptions ("asr") and chat completions ("llm"). Each request is
// announced on arrived before it is answered.
type fakeAI struct {
	*httptest.Server
	arrived chan string

	mu     sync.Mutex
	answer func(kind string, n int) reply
	counts map[string]int
}

func newFakeAI(t *testing.T, answer func(kind string, n int) reply) *fakeAI {
	f := &fakeAI{arrived: make(chan string, 10000), answer: answer, counts: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// setAnswer changes how the next requests are answered.
func (f *fakeAI) setAnswer(answer func(kind string, n int) reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = answer
}

// requests is how many requests of kind came in.
func (f *fakeAI) requests(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[kind]
}

func (f *fakeAI) serve(w http.ResponseWriter, r *http.Request) {
	kind := map[string]string{"/v1/audio/transcriptions": "asr", "/v1/chat/completions": "llm"}[r.URL.Path]
	if kind == "" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.counts[kind]++
	rep := f.answer(kind, f.counts[kind])
	f.mu.Unlock()
	select {
	case f.arrived <- kind:
	default:
	}
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case rep.status != 0:
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	case kind == "asr":
		_, _ = io.WriteString(w, asrtest.Transcript)
	default:
		_, _ = w.Write(llmtest.Verdicts(llmtest.Criteria(raw), true, "Cumple."))
	}
}

// engines are the settings that point a worker at fakeAI for both engines.
func engines(f *fakeAI) []string {
	return []string{"ASR_ENGINE=openai", "ASR_BASE_URL=" + f.URL, "ASR_MODEL=whisper-test",
		"AUDITOR_ENGINE=llm", "LLM_BASE_URL=" + f.URL, "LLM_MODEL=gpt-test"}
}

// background runs f beside the test; its error fails the test's next
// wait at once. The channel gets f's result.
func (s *stack) background(f func() error) <-chan error {
	done := make(chan error, 1)
	go func() {
		err := f()
		if err != nil {
			s.failed.CompareAndSwap(nil, &err)
		}
		done <- err
	}()
	return done
}

// await waits up to limit for cond, checking every 100 ms, unless a
// background goroutine fails first.
func (s *stack) await(limit time.Duration, cond func() bool, msg string) {
	s.t.Helper()
	require.Eventually(s.t, func() bool { return s.failed.Load() != nil || cond() }, limit, 100*time.Millisecond, msg)
	if err := s.failed.Load(); err != nil {
		s.t.Fatalf("%s: %v", msg, *err)
	}
}
