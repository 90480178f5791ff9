package workers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/transcript"
)

// privacyBundle is a database, a file blob store and the real workers
// (retention, erasure, blob deletion) working them with small batches.
type privacyBundle struct {
	pool   *pgxpool.Pool
	store  *storage.Store
	client *river.Client[pgx.Tx]
	events <-chan *river.Event
}

func setupPrivacy(t *testing.T) *privacyBundle {
	t.Helper()
	ctx := context.Background()
	b := &privacyBundle{pool: dbtest.Pool(t)}
	var err error
	b.store, err = storage.Open(ctx, "file://"+t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { b.store.Close() })
	_, err = db.UserSeen(ctx, b.pool, db.UserProfile{ID: "qa", Username: "qa"}, time.Now())
	require.NoError(t, err)
	ws := river.NewWorkers()
	Register(ws, Deps{Pool: b.pool, Store: b.store, ForgetBatch: 2})
	b.client, err = river.NewClient(riverpgxv5.New(b.pool), &river.Config{
		Workers: ws, Queues: map[string]river.QueueConfig{jobs.QueueDefault: {MaxWorkers: 2}},
		Logger:        slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		FetchCooldown: 10 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, TestOnly: true,
	})
	require.NoError(t, err)
	var cancel func()
	b.events, cancel = b.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	require.NoError(t, b.client.Start(ctx))
	t.Cleanup(func() {
		cancel()
		require.NoError(t, b.client.Stop(context.Background()))
	})
	return b
}

// seeded is a task as seeded, with its blob's key.
type seeded struct {
	db.Task
	key string
}

// seed stores a task of kind in campaign uploaded age ago, with its file in
// the blob store, a transcript and an audit.
func (b *privacyBundle) seed(t *testing.T, campaignID, kind string, age time.Duration, operator, external string) seeded {
	t.Helper()
	ctx := context.Background()
	key := storage.NewKey(time.Now())
	w, err := b.store.Create(ctx, key)
	require.NoError(t, err)
	_, err = io.WriteString(w, key)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	sum := sha256.Sum256([]byte(key))
	task, _, err := db.TaskInsert(ctx, b.pool, db.NewTask{UUID: uuid.NewString(), Kind: kind, Status: pipeline.Queued,
		FileName: "f", ContentType: "audio/wav", SHA256: hex.EncodeToString(sum[:]), BlobKey: key, CampaignID: campaignID,
		Language: "es", UploadedBy: "qa", OperatorID: operator, CustomerRef: external,
		Caller: "+34600112233", Called: "900100200", Metadata: map[string]any{"tier": "gold"}})
	require.NoError(t, err)
	require.NoError(t, db.TranscriptSave(ctx, b.pool, task.UUID, transcript.Transcript{Text: "hola",
		Segments: []transcript.Segment{{Speaker: "agent", Text: "hola"}}}))
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: task.UUID, Source: db.AuditByEngine,
			Result: scoring.Result{Score: 90, Passed: true, Items: []scoring.Item{{CriterionID: "greeting", Complies: true}}}}, 0)
		return err
	}))
	require.NoError(t, db.TaskSearchRefresh(ctx, b.pool, task.UUID))
	_, err = b.pool.Exec(ctx, `UPDATE tasks SET created_at = now() - $2::interval WHERE uuid = $1`, task.UUID, age)
	require.NoError(t, err)
	return seeded{Task: task, key: key}
}

// run works one job of args to its end, and every delete_blobs job it
// caused.
func (b *privacyBundle) run(t *testing.T, args river.JobArgs) {
	t.Helper()
	ctx := context.Background()
	res, err := b.client.Insert(ctx, args, nil)
	require.NoError(t, err)
	require.False(t, res.UniqueSkippedAsDuplicate)
	for {
		var pending int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river_job
			WHERE (id = $1 OR kind = 'delete_blobs') AND state <> 'completed'`, res.Job.ID).Scan(&pending))
		if pending == 0 {
			return
		}
		select {
		case e := <-b.events:
			require.Equal(t, river.EventKindJobCompleted, e.Kind, "%s: %v", e.Job.Kind, e.Job.Errors)
		case <-time.After(time.Minute):
			t.Fatal("the jobs did not end within a minute")
		}
	}
}

// state says what task id still holds: recording, transcript, audit,
// search document.
func (b *privacyBundle) state(t *testing.T, s seeded) [4]bool {
	t.Helper()
	var out [4]bool
	exists, err := b.store.Exists(context.Background(), s.key)
	require.NoError(t, err)
	var keyed bool
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT blob_key IS NOT NULL,
		EXISTS (SELECT 1 FROM transcripts WHERE task_uuid = $1), EXISTS (SELECT 1 FROM audit_revisions WHERE task_uuid = $1),
		EXISTS (SELECT 1 FROM task_search WHERE task_uuid = $1) FROM tasks WHERE uuid = $1`, s.UUID).
		Scan(&keyed, &out[1], &out[2], &out[3]))
	require.Equal(t, keyed, exists, "the blob is stored exactly while the task refers to it")
	out[0] = exists
	return out
}

// deleted sums the recorded deletions of cause per kind.
func (b *privacyBundle) deleted(t *testing.T, cause string) map[string]int {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT kind, sum(count)::int FROM privacy_deletions WHERE cause = $1 GROUP BY kind`, cause)
	require.NoError(t, err)
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		require.NoError(t, rows.Scan(&k, &n))
		out[k] = n
	}
	require.NoError(t, rows.Err())
	return out
}

func TestRetentionDeletesWhatExpiredExceptHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupPrivacy(t)
	var camp db.Campaign
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		camp, err = db.CampaignCreate(ctx, tx, "ventas", db.CampaignSettings{PassingScore: 85, Language: "es", AgentChannel: "left"}, nil, "qa")
		return err
	}))
	days := func(n int) *int { return &n }
	require.NoError(t, db.CampaignPrivacySet(ctx, b.pool, camp.ID, db.CampaignPrivacy{
		Retention: db.Retention{RecordingsDays: days(30), TranscriptsDays: days(60), AuditsDays: days(90)}}))
	def, err := db.CampaignGetByName(ctx, b.pool, db.DefaultCampaign)
	require.NoError(t, err)

	day := 24 * time.Hour
	var old []seeded
	for range 3 { // more than a batch (2)
		old = append(old, b.seed(t, camp.ID, db.TaskCall, 100*day, "", ""))
	}
	mid := b.seed(t, camp.ID, db.TaskCall, 45*day, "", "")
	chat := b.seed(t, camp.ID, db.TaskChat, 70*day, "", "")
	fresh := b.seed(t, camp.ID, db.TaskCall, day, "", "")
	held := b.seed(t, camp.ID, db.TaskCall, 100*day, "", "")
	_, err = db.LegalHoldPlace(ctx, b.pool, held.UUID, "claim 42", "qa")
	require.NoError(t, err)
	forever := b.seed(t, def.ID, db.TaskCall, 1000*day, "", "")

	b.run(t, jobs.ApplyRetentionArgs{})

	for _, s := range old {
		require.Equal(t, [4]bool{false, false, false, false}, b.state(t, s), "past every retention")
	}
	require.Equal(t, [4]bool{false, true, true, true}, b.state(t, mid), "only the recording expired")
	require.Equal(t, [4]bool{false, false, true, false}, b.state(t, chat), "a chat's file goes with its transcript")
	require.Equal(t, [4]bool{true, true, true, true}, b.state(t, fresh))
	require.Equal(t, [4]bool{true, true, true, true}, b.state(t, held), "held")
	require.Equal(t, [4]bool{true, true, true, true}, b.state(t, forever), "a campaign without retention")
	require.Equal(t, map[string]int{db.ForgetRecording: 5, db.ForgetTranscript: 4, db.ForgetAudit: 3}, b.deleted(t, db.CauseRetention))
	var updated int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(DISTINCT data->>'uuid') FROM events WHERE type = 'task.updated'`).Scan(&updated))
	require.Equal(t, 5, updated, "each task changed has its event, for the screens showing it")

	// What a task looks like after: its row, score and history stay.
	task, err := db.TaskGetByUUID(ctx, b.pool, old[0].UUID)
	require.NoError(t, err)
	require.Empty(t, task.BlobKey)
	require.Nil(t, task.AuditRevision)
	require.NotNil(t, task.Score)
	p, err := db.TaskPrivacyGet(ctx, b.pool, old[0].UUID)
	require.NoError(t, err)
	require.NotNil(t, p.RecordingDeletedAt)
	require.NotNil(t, p.TranscriptDeletedAt)
	require.NotNil(t, p.AuditDeletedAt)
	// The parties' data go with the transcript; a kept transcript keeps them.
	require.Equal(t, [3]any{"", "", map[string]any(nil)}, [3]any{task.Caller, task.Called, task.Metadata})
	kept, err := db.TaskGetByUUID(ctx, b.pool, mid.UUID)
	require.NoError(t, err)
	require.Equal(t, [3]any{"+34600112233", "900100200", map[string]any{"tier": "gold"}}, [3]any{kept.Caller, kept.Called, kept.Metadata})

	// Again: nothing more is deleted or recorded.
	var rows int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM privacy_deletions`).Scan(&rows))
	b.run(t, jobs.ApplyRetentionArgs{})
	var again int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM privacy_deletions`).Scan(&again))
	require.Equal(t, rows, again)

	// Once the hold is lifted, the next run deletes it.
	_, err = db.LegalHoldLift(ctx, b.pool, held.UUID)
	require.NoError(t, err)
	b.run(t, jobs.ApplyRetentionArgs{})
	require.Equal(t, [4]bool{false, false, false, false}, b.state(t, held))
}

func TestErasureDeletesOnlyThePersonsUnheldTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupPrivacy(t)
	def, err := db.CampaignGetByName(ctx, b.pool, db.DefaultCampaign)
	require.NoError(t, err)
	var ana []seeded
	for range 3 {
		ana = append(ana, b.seed(t, def.ID, db.TaskCall, time.Hour, "ana", ""))
	}
	customer := b.seed(t, def.ID, db.TaskChat, time.Hour, "luis", "CUST-7")
	anaHeld := b.seed(t, def.ID, db.TaskCall, time.Hour, "ana", "")
	_, err = db.LegalHoldPlace(ctx, b.pool, anaHeld.UUID, "litigation", "qa")
	require.NoError(t, err)
	other := b.seed(t, def.ID, db.TaskCall, time.Hour, "luis", "CUST-8")

	var e db.Erasure
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		e, err = db.ErasureCreate(ctx, tx, "qa", "ana", "CUST-7")
		return err
	}))
	b.run(t, jobs.ErasePersonArgs{ErasureID: e.ID})

	for _, s := range append(ana, customer) {
		require.Equal(t, [4]bool{false, false, false, false}, b.state(t, s))
	}
	require.Equal(t, [4]bool{true, true, true, true}, b.state(t, anaHeld), "held")
	require.Equal(t, [4]bool{true, true, true, true}, b.state(t, other), "someone else's")
	for _, s := range []seeded{customer, anaHeld, other} {
		task, err := db.TaskGetByUUID(ctx, b.pool, s.UUID)
		require.NoError(t, err)
		require.Equal(t, s.UUID != customer.UUID, task.Caller != "", "the erased customer's number goes with the transcript")
	}
	e, err = db.ErasureGet(ctx, b.pool, e.ID)
	require.NoError(t, err)
	require.Equal(t, db.ErasureDone, e.Status)
	require.NotNil(t, e.FinishedAt)
	require.Equal(t, [5]int64{4, 1, 4, 4, 4}, [5]int64{e.Tasks, e.Held, e.Recordings, e.Transcripts, e.Audits})
	require.Equal(t, map[string]int{db.ForgetRecording: 4, db.ForgetTranscript: 4, db.ForgetAudit: 4}, b.deleted(t, db.CauseErasure))
	var told string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT text FROM notifications WHERE user_id = 'qa'`).Scan(&told))
	require.Equal(t, "The erasure of ana, CUST-7 is done: 4 tasks lost their content (4 recordings, 4 transcripts, 4 audits); "+
		"1 tasks on legal hold were left untouched.", told, "the admin who asked is told")
}

// TestRetentionRunsWhenAWorkerStarts: apply_retention runs when a worker
// starts, even when it already ran in this hour (a worker restarted).
func TestRetentionRunsWhenAWorkerStarts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	insertOnly, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	earlier, err := insertOnly.Insert(ctx, jobs.ApplyRetentionArgs{}, nil)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, earlier.Job.ID)
	require.NoError(t, err)

	store, err := storage.Open(ctx, "file://"+t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	ws := river.NewWorkers()
	Register(ws, Deps{Pool: pool, Store: store})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Workers: ws, PeriodicJobs: Periodic(Deps{Pool: pool}), Queues: map[string]river.QueueConfig{jobs.QueueDefault: {MaxWorkers: 2}},
		Logger:        slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})),
		FetchCooldown: 10 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, TestOnly: true,
	})
	require.NoError(t, err)
	events, cancel := client.Subscribe(river.EventKindJobCompleted)
	defer cancel()
	require.NoError(t, client.Start(ctx))
	t.Cleanup(func() { require.NoError(t, client.Stop(context.Background())) })
	timeout := time.After(time.Minute)
	for {
		select {
		case e := <-events:
			if e.Job.Kind == (jobs.ApplyRetentionArgs{}).Kind() {
				require.NotEqual(t, earlier.Job.ID, e.Job.ID)
				return
			}
		case <-timeout:
			t.Fatal("apply_retention did not run within a minute of the worker's start")
		}
	}
}
