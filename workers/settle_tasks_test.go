package workers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

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
)

// A task whose job ended cancelled or discarded, with nothing else to move
// it on, is failed with the reason and its uploader hears of it; a task
// with a job still to run, and one a worker already failed, are left as
// they are.
func TestSettleTasksFailsWhatJobsAbandoned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, campaign := dbtest.ForTasks(t)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)

	// newTask inserts a task in status with its job (args of its id), as
	// the upload does.
	newTask := func(name string, status pipeline.Status, args func(id string) river.JobArgs) (db.Task, int64) {
		id := uuid.NewString()
		sum := sha256.Sum256([]byte(id))
		var task db.Task
		var jobID int64
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var err error
			task, _, err = db.TaskInsert(ctx, tx, db.NewTask{UUID: id, Kind: db.TaskChat, Status: status, FileName: name,
				ContentType: "text/plain", SizeBytes: 1, SHA256: hex.EncodeToString(sum[:]), BlobKey: "uploads/test/" + id, CampaignID: campaign.ID,
				Language: "en", UploadedBy: "qa"})
			if err != nil {
				return err
			}
			res, err := client.InsertTx(ctx, tx, args(id), nil)
			if err != nil {
				return err
			}
			jobID = res.Job.ID
			return nil
		}))
		return task, jobID
	}
	audit := func(id string) river.JobArgs { return jobs.AuditArgs{TaskUUID: id} }
	cancelled, cancelledJob := newTask("cancelled.txt", pipeline.Transcribed, audit)
	_, err = client.JobCancel(ctx, cancelledJob) // as River UI's cancel does
	require.NoError(t, err)
	discarded, discardedJob := newTask("discarded.wav", pipeline.Transcribing,
		func(id string) river.JobArgs { return jobs.TranscribeArgs{TaskUUID: id} })
	// As River leaves a job whose last attempt failed.
	_, err = pool.Exec(ctx, `UPDATE river_job SET state = 'discarded', attempt = 5, finalized_at = now() WHERE id = $1`, discardedJob)
	require.NoError(t, err)
	waiting, _ := newTask("waiting.txt", pipeline.Transcribed, audit)
	// A retry after a cancellation: the old job ended, the new one waits.
	retried, retriedJob := newTask("retried.txt", pipeline.Transcribed, audit)
	_, err = client.JobCancel(ctx, retriedJob)
	require.NoError(t, err)
	_, err = client.Insert(ctx, jobs.AuditArgs{TaskUUID: retried.UUID}, nil)
	require.NoError(t, err)

	w := rivertest.NewWorker(t, riverpgxv5.New(pool), &river.Config{}, &SettleTasksWorker{pool: pool})
	for range 2 { // the second run changes nothing
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		res, err := w.Work(ctx, t, tx, jobs.SettleTasksArgs{}, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCompleted, res.EventKind)
		require.NoError(t, tx.Commit(ctx))
	}

	get := func(id string) db.Task {
		task, err := db.TaskGetByUUID(ctx, pool, id)
		require.NoError(t, err)
		return task
	}
	require.Equal(t, pipeline.Failed, get(cancelled.UUID).Status)
	require.Contains(t, get(cancelled.UUID).Error, "audit: its job (")
	require.Contains(t, get(cancelled.UUID).Error, "was cancelled")
	require.Equal(t, pipeline.Failed, get(discarded.UUID).Status)
	require.Contains(t, get(discarded.UUID).Error, "transcription: its job (")
	require.Contains(t, get(discarded.UUID).Error, "after 5 attempts")
	require.Equal(t, pipeline.Transcribed, get(waiting.UUID).Status)
	require.Equal(t, pipeline.Transcribed, get(retried.UUID).Status)

	notes, _, _, err := db.NotificationList(ctx, pool, db.NotificationFilter{UserID: "qa", Limit: 10})
	require.NoError(t, err)
	require.Len(t, notes, 2, "one notification per failed task")
	for _, n := range notes {
		require.Equal(t, "error", n.Variant)
		require.Contains(t, n.Text, "An administrator can retry it.")
	}
}
