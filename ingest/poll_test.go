package ingest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/storage"
)

type testBundle struct {
	pool   *pgxpool.Pool
	river  *river.Client[pgx.Tx]
	store  *storage.Store
	now    time.Time
	poller func() *Poller
}

func setup(t testing.TB) *testBundle {
	t.Helper()
	ctx := context.Background()
	pool, _ := dbtest.ForTasks(t)
	_, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "u-ana", Username: "ana"}, time.Now())
	require.NoError(t, err)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	store, err := storage.Open(ctx, "file://"+t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	b := &testBundle{pool: pool, river: rc, store: store, now: time.Now()}
	// Each call is a new process's poller: nothing is remembered but the
	// database.
	b.poller = func() *Poller {
		return &Poller{Intake: intake.Deps{Deps: db.Deps{Pool: pool, River: rc}, Store: store},
			Limits: intake.Limits{MaxFileBytes: 10 << 20, MaxFiles: 1}, Now: func() time.Time { return b.now }}
	}
	return b
}

// source stores a source of kind at location.
func (b *testBundle) source(t testing.TB, name, kind, location string, n db.IngestSourceNew) db.IngestSource {
	t.Helper()
	n.Name, n.Kind, n.Location, n.Enabled = name, kind, location, true
	n.PollSeconds = max(n.PollSeconds, 60)
	src, err := db.IngestSourceCreate(context.Background(), b.pool, n, "qa")
	require.NoError(t, err)
	return src
}

var (
	tonesOnce sync.Once
	tones     [][]byte
	tonesErr  error
)

// tone is the i-th of a few distinct one-second WAV recordings.
func tone(t testing.TB, i int) []byte {
	t.Helper()
	tonesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ingest-tones")
		if err != nil {
			tonesErr = err
			return
		}
		defer os.RemoveAll(dir)
		for f := range 10 {
			out := filepath.Join(dir, fmt.Sprintf("%d.wav", f))
			src := fmt.Sprintf("sine=frequency=%d:duration=1", 300+100*f)
			if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", src, "-ar", "8000", out).CombinedOutput(); err != nil {
				tonesErr = fmt.Errorf("%w: %s", err, b)
				return
			}
			data, err := os.ReadFile(out)
			if err != nil {
				tonesErr = err
				return
			}
			tones = append(tones, data)
		}
	})
	require.NoError(t, tonesErr)
	return tones[i]
}

// day writes a day's recordings with their sidecars through put, and the
// objects that go wrong: a copy of the first under another key, corrupt
// audio, a sidecar with a bad field, a sidecar naming a missing campaign.
func day(t testing.TB, put func(key string, b []byte)) {
	for i := range 6 {
		put(fmt.Sprintf("2024-05-02/call%02d.wav", i), tone(t, i))
		put(fmt.Sprintf("2024-05-02/call%02d.json", i), fmt.Appendf(nil, `{
			"agent": "ext-10%d", "campaign": "default", "language": "en", "direction": "inbound",
			"queue": "billing", "caller": "+34600000%03d", "called": "+34910000000", "call_id": "pbx-%d",
			"started_at": "2024-05-02T09:%02d:00Z", "metadata": {"ticket": "T-%d", "vip": true}, "wrapup": "paid"}`, i, i, i, i, i))
	}
	put("2024-05-02/copy-of-call00.wav", tone(t, 0))
	put("2024-05-02/corrupt.wav", append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), make([]byte, 200)...))
	put("2024-05-02/badside.wav", tone(t, 6))
	put("2024-05-02/badside.json", []byte(`{"agent": "ana", "started_at": "yesterday morning"}`))
	put("2024-05-02/nocampaign.wav", tone(t, 7))
	put("2024-05-02/nocampaign.json", []byte(`{"campaign": "nope"}`))
}

func TestIngestDirectoryDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	dir := t.TempDir()
	old := b.now.Add(-time.Hour)
	day(t, func(key string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
	})
	// Being written, or hidden: never read.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2024-05-02", ".call99.wav"), tone(t, 1), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2024-05-02", "call98.wav.part"), tone(t, 1), 0o644))
	src := b.source(t, "pbx folder", db.IngestDirectory, dir, db.IngestSourceNew{
		SidecarWaitSeconds: 120, Agents: map[string]string{"ext-100": "ana", "ext-101": "u-ana"}})

	first := b.poller()
	first.Parallel = 1 // which of two copies is taken is then the first by key
	res, err := first.Poll(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, Result{Listed: 18, Taken: 6, Skipped: 1, Failed: 3}, res)

	objects := b.objects(t, src.ID)
	for i := range 6 {
		o := objects[fmt.Sprintf("2024-05-02/call%02d.wav", i)]
		require.Equal(t, db.IngestTaken, o.Status, o.Reason)
		require.Equal(t, fmt.Sprintf("2024-05-02/call%02d.json", i), o.Sidecar)
		require.Equal(t, "sidecar of "+fmt.Sprintf("call%02d.wav", i), objects[o.Sidecar].Reason)
		task, err := db.TaskGetByUUID(ctx, b.pool, o.TaskUUID)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("call%02d.wav", i), task.FileName)
		require.Equal(t, "inbound", task.Direction)
		require.Equal(t, "en", task.Language)
		require.Equal(t, fmt.Sprintf("pbx-%d", i), task.CallID)
		require.Equal(t, "billing", task.Queue)
		require.NotEmpty(t, task.Caller)
		require.Equal(t, map[string]any{"ticket": fmt.Sprintf("T-%d", i), "vip": true, "wrapup": "paid"}, task.Metadata,
			"the sidecar's custom fields, in metadata or at the top")
		require.Equal(t, time.Date(2024, 5, 2, 9, i, 0, 0, time.UTC), task.StartedAt.UTC())
		require.Equal(t, "qa", task.UploadedBy, "the source's creator")
		switch i {
		case 0, 1: // mapped, by username and by id
			require.Equal(t, "u-ana", task.OperatorID)
		default: // no user: kept as the platform gave it
			require.Equal(t, fmt.Sprintf("ext-10%d", i), task.OperatorID)
		}
	}
	dup := objects["2024-05-02/copy-of-call00.wav"]
	require.Equal(t, db.IngestSkipped, dup.Status)
	require.Equal(t, "duplicate of task "+objects["2024-05-02/call00.wav"].TaskUUID+" (call00.wav): the same content was taken before", dup.Reason)

	require.Equal(t, db.IngestFailed, objects["2024-05-02/corrupt.wav"].Status)
	require.Contains(t, objects["2024-05-02/corrupt.wav"].Reason, `"corrupt.wav" is neither a supported recording`)
	require.Equal(t, db.IngestFailed, objects["2024-05-02/badside.wav"].Status)
	require.Equal(t, `the sidecar badside.json: the field "started_at" must be an RFC 3339 time such as "2024-05-02T10:00:00Z", not "yesterday morning"`,
		objects["2024-05-02/badside.wav"].Reason)
	require.Equal(t, `the sidecar's field "campaign" names no campaign: "nope" does not exist`, objects["2024-05-02/nocampaign.wav"].Reason)
	require.NotContains(t, objects, "2024-05-02/.call99.wav")
	require.NotContains(t, objects, "2024-05-02/call98.wav.part")
	require.Equal(t, 6, b.tasks(t), "only the taken objects are tasks")

	// A restart: a new poller, a later poll, nothing read again, the
	// failures not retried.
	b.now = b.now.Add(10 * time.Minute)
	res, err = b.poller().Poll(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, Result{Listed: 18}, res)
	require.Equal(t, objects, b.objects(t, src.ID))
	require.Equal(t, 6, b.tasks(t))

	// A recording that arrives without its sidecar waits for it, a bounded
	// time; one whose sidecar arrives meanwhile is read with it.
	late := filepath.Join(dir, "2024-05-02", "late.wav")
	require.NoError(t, os.WriteFile(late, tone(t, 8), 0o644))
	lonely := filepath.Join(dir, "2024-05-02", "lonely.wav")
	require.NoError(t, os.WriteFile(lonely, tone(t, 9), 0o644))
	for _, p := range []string{late, lonely} {
		require.NoError(t, os.Chtimes(p, b.now, b.now))
	}
	res, err = b.poller().Poll(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, Result{Listed: 20, Waiting: 2}, res)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2024-05-02", "late.json"), []byte(`{"call_id": "pbx-late"}`), 0o644))
	b.now = b.now.Add(time.Minute)
	res, err = b.poller().Poll(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, Result{Listed: 21, Taken: 1, Waiting: 1}, res, "the late sidecar read its recording; the other still waits")
	b.now = b.now.Add(2 * time.Minute)
	res, err = b.poller().Poll(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, Result{Listed: 21, Taken: 1}, res, "past the wait, read without a sidecar")
	objects = b.objects(t, src.ID)
	require.Equal(t, "2024-05-02/late.json", objects["2024-05-02/late.wav"].Sidecar)
	require.Equal(t, "", objects["2024-05-02/lonely.wav"].Sidecar)
	require.Equal(t, 8, b.tasks(t))
}

func TestIngestS3ConcurrentPolls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("exports"))
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	location := "s3://exports/connect/recordings?region=eu-west-1&use_path_style=true&endpoint=" + url.QueryEscape(srv.URL)
	src := b.source(t, "amazon connect", db.IngestS3, location, db.IngestSourceNew{
		AccessKeyID: "AKIAEXAMPLE", SecretAccessKey: "secret-example"})
	bucket, prefix, err := open(ctx, src)
	require.NoError(t, err)
	require.Equal(t, "connect/recordings/", prefix)
	day(t, func(key string, data []byte) { require.NoError(t, bucket.WriteAll(ctx, prefix+key, data, nil)) })
	require.NoError(t, bucket.WriteAll(ctx, "connect/other/call.wav", tone(t, 3), nil), "outside the prefix")
	require.NoError(t, bucket.Close())

	// Two processes poll the same source at once (as River's rescue of a
	// stuck poll could): every object is read by one of them.
	b.now = b.now.Add(time.Hour)
	results := make([]Result, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			var err error
			results[i], err = b.poller().Poll(ctx, src.ID)
			require.NoError(t, err)
		})
	}
	wg.Wait()
	var total Result
	for _, r := range results {
		require.Equal(t, 18, r.Listed)
		total.Taken += r.Taken
		total.Skipped += r.Skipped
		total.Failed += r.Failed
	}
	require.Equal(t, Result{Taken: 6, Skipped: 1, Failed: 3}, total)
	require.Equal(t, 6, b.tasks(t))
	objects := b.objects(t, src.ID)
	require.Len(t, objects, 16, "10 objects read, 6 sidecars")
	require.Equal(t, db.IngestTaken, objects["connect/recordings/2024-05-02/call03.wav"].Status)

	// The same recordings in a directory source are duplicates by content.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "again.wav"), tone(t, 3), 0o644))
	other := b.source(t, "folder", db.IngestDirectory, dir, db.IngestSourceNew{})
	res, err := b.poller().Poll(ctx, other.ID)
	require.NoError(t, err)
	require.Equal(t, Result{Listed: 1, Skipped: 1}, res)
	require.Contains(t, b.objects(t, other.ID)["again.wav"].Reason,
		"duplicate of task "+objects["connect/recordings/2024-05-02/call03.wav"].TaskUUID)
}

func TestIngestUnreachableSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	src := b.source(t, "missing bucket", db.IngestS3,
		"s3://absent?region=eu-west-1&anonymous=true&use_path_style=true&endpoint="+url.QueryEscape(srv.URL), db.IngestSourceNew{})
	_, err := b.poller().Poll(ctx, src.ID)
	require.ErrorIs(t, err, ErrList)
	got, err := db.IngestSourceGet(ctx, b.pool, src.ID)
	require.NoError(t, err)
	require.Contains(t, got.PollError, "cannot list the source: ")
	require.Contains(t, got.PollError, "NoSuchBucket")
	require.NotNil(t, got.PolledAt)
}

// TestIngestPassingFailureGivesUp: an object that cannot be read is tried
// again by the next polls, MaxAttempts times, then recorded as failed.
func TestIngestPassingFailureGivesUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	dir := t.TempDir()
	src := b.source(t, "folder", db.IngestDirectory, dir, db.IngestSourceNew{})
	bucket, _, err := open(ctx, src)
	require.NoError(t, err)
	defer bucket.Close()
	gone := work{object: object{key: "gone.wav"}} // listed, then removed
	for attempt := 1; attempt <= MaxAttempts; attempt++ {
		status, err := b.poller().take(ctx, bucket, src, gone)
		require.NoError(t, err)
		o := b.objects(t, src.ID)["gone.wav"]
		require.Equal(t, attempt, o.Attempts)
		if attempt < MaxAttempts {
			require.Equal(t, db.IngestRetry, status)
			require.Contains(t, o.Reason, fmt.Sprintf("attempt %d of %d failed: reading it from the source", attempt, MaxAttempts))
		} else {
			require.Equal(t, db.IngestFailed, status)
			require.Contains(t, o.Reason, "gave up after 3 attempts")
		}
	}
	status, err := b.poller().take(ctx, bucket, src, gone)
	require.NoError(t, err)
	require.Equal(t, "", status, "failed for good: not claimed again")
}

func (b *testBundle) objects(t testing.TB, id string) map[string]db.IngestObject {
	t.Helper()
	items, total, err := db.IngestObjectList(context.Background(), b.pool, id, "", 0, 1000)
	require.NoError(t, err)
	require.Len(t, items, total)
	out := map[string]db.IngestObject{}
	for _, o := range items {
		o.UpdatedAt, o.ClaimedAt = time.Time{}, time.Time{}
		out[o.Key] = o
	}
	return out
}

func (b *testBundle) tasks(t testing.TB) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks`).Scan(&n))
	return n
}
