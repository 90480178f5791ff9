package workers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/storage"
)

func TestSweepBlobsDeletesOnlyOldOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	dir := t.TempDir()
	store, err := storage.Open(ctx, "file://"+dir)
	require.NoError(t, err)
	defer store.Close()

	now := time.Now()
	old := now.Add(-storage.OrphanAge - time.Minute)
	put := func(key string, mtime time.Time) string {
		w, err := store.Create(ctx, key)
		require.NoError(t, err)
		_, err = io.WriteString(w, key)
		require.NoError(t, err)
		require.NoError(t, w.Close())
		require.NoError(t, os.Chtimes(filepath.Join(dir, key), mtime, mtime))
		return key
	}
	referenced := put(storage.NewKey(now), old)
	orphan := put(storage.NewKey(now), old)
	orphanYesterday := put(storage.NewKey(now.AddDate(0, 0, -1)), old)
	fresh := put(storage.NewKey(now), now)
	ancient := put(storage.NewKey(now.AddDate(0, 0, -30)), old)
	other := put("exports/report.csv", old)

	_, err = db.UserSeen(ctx, pool, db.UserProfile{ID: "qa", Username: "qa"}, now)
	require.NoError(t, err)
	campaign, err := db.CampaignGetByName(ctx, pool, db.DefaultCampaign)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(referenced))
	_, _, err = db.TaskInsert(ctx, pool, db.NewTask{
		UUID: uuid.NewString(), Kind: db.TaskCall, Status: pipeline.Queued, FileName: "a.wav", ContentType: "audio/wav",
		SHA256: hex.EncodeToString(sum[:]), BlobKey: referenced, CampaignID: campaign.ID, Language: "es", UploadedBy: "qa",
	})
	require.NoError(t, err)

	// A validation's attachment is referenced too.
	attached := put(storage.NewKey(now), old)
	sum = sha256.Sum256([]byte("chat"))
	chat, _, err := db.TaskInsert(ctx, pool, db.NewTask{
		UUID: uuid.NewString(), Kind: db.TaskChat, Status: pipeline.Audited, FileName: "a.txt", ContentType: "text/plain",
		SHA256: hex.EncodeToString(sum[:]), BlobKey: "elsewhere", CampaignID: campaign.ID, Language: "es", UploadedBy: "qa",
	})
	require.NoError(t, err)
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: chat.UUID, Source: db.AuditByEngine,
			Result: scoring.Result{Score: 100, Passed: true, Items: []scoring.Item{{CriterionID: "greeting", Complies: true}}}}, 0); err != nil {
			return err
		}
		_, err := db.ValidationInsert(ctx, tx, db.NewValidation{TaskUUID: chat.UUID, Notes: "ok", ValidatorID: "qa", ValidatorName: "QA",
			SentTo: []string{"sup@example.test"}, RequestHash: hex.EncodeToString(sum[:]),
			Attachments: []db.ValidationAttachment{{Name: "a.pdf", ContentType: "application/pdf", Size: 1, SHA256: hex.EncodeToString(sum[:]), BlobKey: attached}}})
		return err
	}))

	w := rivertest.NewWorker(t, riverpgxv5.New(pool), &river.Config{}, &SweepBlobsWorker{pool: pool, store: store})
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	res, err := w.Work(ctx, t, tx, jobs.SweepBlobsArgs{}, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	var out SweepResult
	require.NoError(t, json.Unmarshal(res.Job.Output(), &out))
	require.Equal(t, SweepResult{Checked: 4, Deleted: 2}, out)

	for key, want := range map[string]bool{
		referenced: true, attached: true, orphan: false, orphanYesterday: false, fresh: true,
		ancient: true, // outside the days a sweep lists
		other:   true, // not an upload
	} {
		exists, err := store.Exists(ctx, key)
		require.NoError(t, err)
		require.Equal(t, want, exists, key)
	}
}

func TestRegisterAndPeriodicJobs(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	ws := river.NewWorkers()
	Register(ws, Deps{Pool: pool})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Workers: ws, PeriodicJobs: Periodic(Deps{Pool: pool}),
		Queues: map[string]river.QueueConfig{jobs.QueueDefault: {MaxWorkers: 1}},
	})
	require.NoError(t, err)
	// A client with workers refuses to insert a kind it has no worker for.
	for _, args := range []river.JobArgs{jobs.SweepBlobsArgs{}, jobs.CanaryArgs{}} {
		_, err = client.Insert(context.Background(), args, nil)
		require.NoError(t, err, args.Kind())
	}
}
