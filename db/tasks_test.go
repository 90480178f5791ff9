package db_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

type taskBundle struct {
	pool     *pgxpool.Pool
	campaign db.Campaign
}

func setupTasks(t *testing.T) *taskBundle {
	t.Helper()
	pool, c := dbtest.ForTasks(t)
	return &taskBundle{pool: pool, campaign: c}
}

func (b *taskBundle) newTask(content string) db.NewTask {
	sum := sha256.Sum256([]byte(content))
	id := uuid.NewString()
	return db.NewTask{
		UUID: id, Kind: db.TaskCall, Status: pipeline.Queued, FileName: content + ".wav", ContentType: "audio/wav",
		SizeBytes: int64(len(content)), SHA256: hex.EncodeToString(sum[:]), BlobKey: "uploads/test/" + id,
		CampaignID: b.campaign.ID, OperatorID: "op-1", Language: "es", UploadedBy: "qa",
	}
}

// insertTask inserts a new task of content.
func (b *taskBundle) insertTask(t *testing.T, content string) db.NewTask {
	t.Helper()
	n := b.newTask(content)
	_, _, err := db.TaskInsert(context.Background(), b.pool, n)
	require.NoError(t, err)
	return n
}

func TestDefaultCampaign(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	require.Equal(t, "default", b.campaign.Name)
	require.Equal(t, 85.0, b.campaign.PassingScore)
	require.Equal(t, "es", b.campaign.Language)
	require.Equal(t, "left", b.campaign.AgentChannel)
	require.Empty(t, b.campaign.SupervisorEmails)
	_, err := db.CampaignGetByName(context.Background(), b.pool, "nope")
	require.Equal(t, errcode.NotFound, errcode.Of(err))
}

func TestTaskInsertOncePerContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	n := b.newTask("a")
	task, created, err := db.TaskInsert(ctx, b.pool, n)
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, n.UUID, task.UUID)
	require.Equal(t, "default", task.CampaignName)
	require.Equal(t, "op-1", task.OperatorID)
	require.Empty(t, task.Direction)
	require.Nil(t, task.StartedAt)

	again := b.newTask("a")
	dup, created, err := db.TaskInsert(ctx, b.pool, again)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, task, dup, "the existing task, untouched")

	history, err := db.TaskHistory(ctx, b.pool, n.UUID)
	require.NoError(t, err)
	require.Len(t, history, 1)
	require.Equal(t, db.TaskStateChange{To: pipeline.Queued, At: history[0].At}, history[0])

	got, err := db.TaskGetBySHA256(ctx, b.pool, n.SHA256)
	require.NoError(t, err)
	require.Equal(t, task, got)
	_, err = db.TaskGetByUUID(ctx, b.pool, uuid.NewString())
	require.Equal(t, errcode.NotFound, errcode.Of(err))
}

func TestTaskTransition(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	n := b.insertTask(t, "a")

	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	task, err := db.TaskTransition(ctx, tx, n.UUID, db.TaskChange{From: []pipeline.Status{pipeline.Queued}, To: pipeline.Transcribing, Attempt: 1})
	require.NoError(t, err)
	require.Equal(t, pipeline.Transcribing, task.Status)
	require.Equal(t, 1, task.Attempts)
	require.NoError(t, tx.Rollback(ctx))
	// Rolled back: neither the change, its history nor its event remain.
	task, err = db.TaskGetByUUID(ctx, b.pool, n.UUID)
	require.NoError(t, err)
	require.Equal(t, pipeline.Queued, task.Status)
	events, err := db.EventsAfter(ctx, b.pool, 0, 10)
	require.NoError(t, err)
	require.Empty(t, events)

	_, err = db.TaskTransition(ctx, b.pool, n.UUID, db.TaskChange{From: []pipeline.Status{pipeline.Transcribing}, To: pipeline.Transcribed})
	require.ErrorIs(t, err, db.ErrTaskStatus)
	require.ErrorContains(t, err, "is queued")
	_, err = db.TaskTransition(ctx, b.pool, uuid.NewString(), db.TaskChange{To: pipeline.Failed})
	require.Equal(t, errcode.NotFound, errcode.Of(err))

	task, err = db.TaskTransition(ctx, b.pool, n.UUID, db.TaskChange{To: pipeline.Failed, Error: "no engine", Attempt: 3})
	require.NoError(t, err)
	require.Equal(t, "no engine", task.Error)
	require.Equal(t, 3, task.Attempts)
	task, err = db.TaskTransition(ctx, b.pool, n.UUID, db.TaskChange{From: []pipeline.Status{pipeline.Failed}, To: pipeline.Queued})
	require.NoError(t, err)
	require.Empty(t, task.Error, "leaving failed clears the error")
	require.Equal(t, 3, task.Attempts)

	history, err := db.TaskHistory(ctx, b.pool, n.UUID)
	require.NoError(t, err)
	require.Len(t, history, 3)
	require.Equal(t, db.TaskStateChange{From: pipeline.Queued, To: pipeline.Failed, Error: "no engine", Attempt: 3, At: history[1].At}, history[1])
	require.Equal(t, pipeline.Failed, history[2].From)

	// Each change is an event for the agent and quality and above.
	events, err = db.EventsAfter(ctx, b.pool, 0, 10)
	require.NoError(t, err)
	require.Len(t, events, 2)
	for _, e := range events {
		require.Equal(t, db.EventTaskUpdated, e.Type)
		require.True(t, e.VisibleTo("op-1", role.Operator))
		require.True(t, e.VisibleTo("someone", role.Quality))
		require.False(t, e.VisibleTo("op-2", role.Operator))
	}
	var summary db.TaskSummary
	require.NoError(t, json.Unmarshal(events[0].Data, &summary))
	require.Equal(t, n.UUID, summary.UUID)
	require.Equal(t, pipeline.Failed, summary.Status)
	require.Equal(t, "no engine", summary.Error)
	require.Equal(t, "default", summary.Campaign)
}

func TestTranscriptSaveReplaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	n := b.insertTask(t, "a")
	_, err := db.TranscriptGet(ctx, b.pool, n.UUID)
	require.Equal(t, errcode.NotFound, errcode.Of(err))

	start := 1.5
	tr := transcript.Transcript{Text: "hola", Engine: "test", Language: "es",
		Segments: []transcript.Segment{{Start: &start, Speaker: transcript.Agent, Text: "hola"}}}
	require.NoError(t, db.TranscriptSave(ctx, b.pool, n.UUID, tr))
	tr.Text = "hola otra vez"
	require.NoError(t, db.TranscriptSave(ctx, b.pool, n.UUID, tr))
	got, err := db.TranscriptGet(ctx, b.pool, n.UUID)
	require.NoError(t, err)
	require.Equal(t, tr, got)
}

func TestUserResolve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	_, err := db.UserSeen(ctx, b.pool, db.UserProfile{ID: "sub-1", Username: "Ana"}, time.Now())
	require.NoError(t, err)
	_, err = db.UserSeen(ctx, b.pool, db.UserProfile{ID: "ana", Username: "someone-else"}, time.Now())
	require.NoError(t, err)
	for ref, want := range map[string]string{"sub-1": "sub-1", "ANA": "sub-1", "ana": "ana", "ghost": "ghost"} {
		got, err := db.UserResolve(ctx, b.pool, ref)
		require.NoError(t, err)
		require.Equal(t, want, got, ref)
	}
	// Another user whose username differs only in case: an exact username
	// still names one user, any other spelling names both.
	_, err = db.UserSeen(ctx, b.pool, db.UserProfile{ID: "sub-2", Username: "ANA"}, time.Now())
	require.NoError(t, err)
	for ref, want := range map[string]string{"Ana": "sub-1", "ANA": "sub-2", "ana": "ana"} {
		got, err := db.UserResolve(ctx, b.pool, ref)
		require.NoError(t, err)
		require.Equal(t, want, got, ref)
	}
	_, err = db.UserResolve(ctx, b.pool, "aNa")
	require.True(t, errcode.Is(err, errcode.Invalid), "%v", err)
	require.Contains(t, errcode.Message(err), "one of sub-1, sub-2")
}

func TestTaskBlobKeysAndSweepLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	n := b.insertTask(t, "a")
	ref, err := db.TaskBlobKeysReferenced(ctx, b.pool, []string{n.BlobKey, "uploads/other"})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{n.BlobKey: true}, ref)

	// Uploads share the lock; the sweeper waits for them.
	up1, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer up1.Rollback(ctx)
	up2, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer up2.Rollback(ctx)
	require.NoError(t, db.BlobSweepLockShared(ctx, up1))
	require.NoError(t, db.BlobSweepLockShared(ctx, up2))
	sweep, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer sweep.Rollback(ctx)
	_, err = sweep.Exec(ctx, "SET LOCAL lock_timeout = '100ms'")
	require.NoError(t, err)
	require.ErrorContains(t, db.BlobSweepLock(ctx, sweep), "lock timeout", "held by uploads")
}

// A scorecard at scoring.MaxIDBytes can be audited: the ids of every
// criterion, judged and not met, fit the dashboard's index with a
// 200-character operator id, whatever the ids' lengths (random, so
// nothing compresses).
func TestCriteriaAtTheLimitFitTheStatsIndex(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	ctx := context.Background()
	for _, length := range []int{1, 4, 16, 64} {
		var criteria []scoring.Criterion
		for {
			id := make([]byte, length)
			for i := range id {
				id[i] = "abcdefghijklmnopqrstuvwxyz0123456789_-"[rand.IntN(38)]
			}
			next := append(criteria, scoring.Criterion{ID: string(id)})
			if scoring.IDBytes(next) > scoring.MaxIDBytes {
				break
			}
			criteria = next
		}
		ids := make([]string, len(criteria))
		for i, c := range criteria {
			ids[i] = c.ID
		}
		task := b.insertTask(t, fmt.Sprintf("limit-%d", length))
		_, err := b.pool.Exec(ctx, `UPDATE tasks SET judged_criteria = $2, failed_criteria = $2, operator_id = $3 WHERE uuid = $1`,
			task.UUID, ids, strings.Repeat("o", 200))
		require.NoError(t, err, "%d ids of %d characters", len(ids), length)
	}
}
