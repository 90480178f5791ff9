package workers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers/asr"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

type transcribeBundle struct {
	pool  *pgxpool.Pool
	store *storage.Store
	// uploader uploads every call.
	uploader string
	campaign db.Campaign
}

func setupTranscribe(t testing.TB) *transcribeBundle {
	t.Helper()
	ctx := context.Background()
	b := &transcribeBundle{pool: dbtest.Pool(t), uploader: "qa-ana"}
	var err error
	b.store, err = storage.Open(ctx, "file://"+t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { b.store.Close() })
	_, err = db.UserSeen(ctx, b.pool, db.UserProfile{ID: b.uploader, Username: "ana", Roles: []string{"quality"}}, time.Now())
	require.NoError(t, err)
	b.campaign, err = db.CampaignGetByName(ctx, b.pool, db.DefaultCampaign)
	require.NoError(t, err)
	return b
}

// newCampaign creates a campaign whose stereo calls carry the agent on
// agentChannel.
func (b *transcribeBundle) newCampaign(t testing.TB, name, language, agentChannel string) db.Campaign {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), `INSERT INTO campaigns (name, language, agent_channel) VALUES ($1, $2, $3)`,
		name, language, agentChannel)
	require.NoError(t, err)
	c, err := db.CampaignGetByName(context.Background(), b.pool, name)
	require.NoError(t, err)
	return c
}

// call is a recording to upload.
type call struct {
	path     string
	campaign db.Campaign
	// language is the task's; empty leaves the campaign's to the worker.
	language string
	// status is the task's status at upload; queued unless set.
	status pipeline.Status
	// salt, when set, changes the content hash, so one recording can be
	// uploaded more than once.
	salt string
}

// upload stores c's recording and inserts its task with its transcribe job
// in one transaction, as the upload does, through client.
func (b *transcribeBundle) upload(t testing.TB, client *river.Client[pgx.Tx], c call) db.Task {
	t.Helper()
	ctx := context.Background()
	content, err := os.ReadFile(c.path)
	require.NoError(t, err)
	key := storage.NewKey(time.Now())
	w, err := b.store.Create(ctx, key)
	require.NoError(t, err)
	_, err = w.Write(content)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	sum := sha256.Sum256(append(content, c.salt...))
	if c.status == "" {
		c.status = pipeline.Queued
	}
	if c.campaign.ID == "" {
		c.campaign = b.campaign
	}
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	task, isNew, err := db.TaskInsert(ctx, tx, db.NewTask{
		UUID: uuid.NewString(), Kind: db.TaskCall, Status: c.status, FileName: filepath.Base(c.path), ContentType: "audio/wav",
		SizeBytes: int64(len(content)), SHA256: hex.EncodeToString(sum[:]), BlobKey: key, CampaignID: c.campaign.ID,
		Language: c.language, UploadedBy: b.uploader,
	})
	require.NoError(t, err)
	require.True(t, isNew)
	_, err = client.InsertTx(ctx, tx, jobs.TranscribeArgs{TaskUUID: task.UUID}, nil)
	require.NoError(t, err)
	require.NoError(t, db.TaskEventInsert(ctx, tx, db.EventTaskCreated, task))
	require.NoError(t, tx.Commit(ctx))
	return task
}

// workerClient is a River client working the media queue with a
// TranscribeWorker, and the events of its jobs.
type workerClient struct {
	*river.Client[pgx.Tx]
	events <-chan *river.Event
}

// start starts a client with slots transcriptions at once, stopped when t ends.
func (b *transcribeBundle) start(t testing.TB, cfg TranscribeConfig, slots int) *workerClient {
	t.Helper()
	ws := river.NewWorkers()
	river.AddWorker(ws, &TranscribeWorker{pool: b.pool, store: b.store, cfg: cfg})
	client, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{
		Workers: ws,
		Queues:  map[string]river.QueueConfig{jobs.QueueMedia: {MaxWorkers: slots}},
		// The audit job is someone else's.
		SkipUnknownJobCheck: true,
		Logger:              slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		TestOnly:            true,
	})
	require.NoError(t, err)
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled,
		river.EventKindJobFailed, river.EventKindJobSnoozed)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		cancel()
		ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
		defer stop()
		require.NoError(t, client.Stop(ctx))
	})
	return &workerClient{Client: client, events: events}
}

// next waits for the next event of a transcribe job.
func (c *workerClient) next(t testing.TB) *river.Event {
	t.Helper()
	for {
		select {
		case e := <-c.events:
			if e.Job.Kind == (jobs.TranscribeArgs{}).Kind() {
				return e
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("no transcribe job event within 2 minutes")
		}
	}
}

func (b *transcribeBundle) task(t testing.TB, id string) db.Task {
	t.Helper()
	task, err := db.TaskGetByUUID(context.Background(), b.pool, id)
	require.NoError(t, err)
	return task
}

// history returns the task's changes as "from>to" (with ": error" when
// there is one), oldest first.
func (b *transcribeBundle) history(t testing.TB, id string) []string {
	t.Helper()
	changes, err := db.TaskHistory(context.Background(), b.pool, id)
	require.NoError(t, err)
	var out []string
	for _, c := range changes {
		s := string(c.From + ">" + c.To)
		if c.Error != "" {
			s += ": " + c.Error
		}
		out = append(out, s)
	}
	return out
}

// notifications returns what the uploader was told, oldest first.
func (b *transcribeBundle) notifications(t testing.TB) []db.Notification {
	t.Helper()
	items, _, _, err := db.NotificationList(context.Background(), b.pool, db.NotificationFilter{UserID: b.uploader, Limit: 100})
	require.NoError(t, err)
	for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
		items[i], items[j] = items[j], items[i]
	}
	return items
}

// count runs a count(*) query.
func (b *transcribeBundle) count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// transcribeJob returns the one transcribe job.
func (b *transcribeBundle) transcribeJob(t testing.TB) *rivertype.JobRow {
	t.Helper()
	client, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{})
	require.NoError(t, err)
	list, err := client.JobList(context.Background(), river.NewJobListParams().Kinds("transcribe"))
	require.NoError(t, err)
	require.Len(t, list.Jobs, 1)
	return list.Jobs[0]
}

// requireTranscribedOnce checks that task is transcribed exactly once: one
// transcript, one change into transcribed, one audit job.
func (b *transcribeBundle) requireTranscribedOnce(t testing.TB, id string) {
	t.Helper()
	require.Equal(t, pipeline.Transcribed, b.task(t, id).Status)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM transcripts WHERE task_uuid = $1`, id))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM task_transitions WHERE task_uuid = $1 AND to_status = 'transcribed'`, id))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'audit' AND args->>'task_uuid' = $1`, id))
}

// spans are a transcript's segments without their texts.
func spans(tr transcript.Transcript) []string {
	var out []string
	for _, s := range tr.Segments {
		out = append(out, fmt.Sprintf("%s %.2f-%.2f", s.Speaker, *s.Start, *s.End))
	}
	return out
}

func TestTranscribeLibriVox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTranscribe(t)
	rec := mediatest.LibriVox(t)[0]
	client := b.start(t, TranscribeConfig{Engine: asr.PocketSphinx{}}, 1)
	lastEvent, err := db.EventLastID(ctx, b.pool)
	require.NoError(t, err)

	task := b.upload(t, client.Client, call{path: rec.Path, language: "en"})
	e := client.next(t)
	require.Equal(t, river.EventKindJobCompleted, e.Kind)

	task = b.task(t, task.UUID)
	require.Equal(t, pipeline.Transcribed, task.Status)
	require.Empty(t, task.Error)
	require.Equal(t, 1, task.Attempts)
	require.NotNil(t, task.DurationSeconds)
	require.InDelta(t, rec.Duration.Seconds(), *task.DurationSeconds, 0.01)
	require.Equal(t, []string{">queued", "queued>transcribing", "transcribing>transcribed"}, b.history(t, task.UUID))

	tr, err := db.TranscriptGet(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	require.Equal(t, "pocketsphinx", tr.Engine)
	require.Equal(t, "en", tr.Language)
	require.NotEmpty(t, tr.Segments)
	prev := 0.0
	for _, s := range tr.Segments {
		require.Equal(t, transcript.Unknown, s.Speaker, "a mono call")
		require.GreaterOrEqual(t, *s.Start, prev)
		require.LessOrEqual(t, *s.Start, *s.End)
		require.LessOrEqual(t, *s.End, rec.Duration.Seconds()+0.1)
		prev = *s.Start
	}
	// The recogniser heard most of what the reader said (the word error
	// rate is measured in package asr).
	heard := strings.Fields(tr.Text)
	found := 0
	for _, w := range strings.Fields(rec.Reference) {
		for _, h := range heard {
			if strings.EqualFold(h, w) {
				found++
				break
			}
		}
	}
	require.Greater(t, found*2, len(strings.Fields(rec.Reference)), "heard %q for %q", tr.Text, rec.Reference)

	// Every change of status wrote an event, for the task's audience.
	events, err := db.EventsAfter(ctx, b.pool, lastEvent, 100)
	require.NoError(t, err)
	var statuses []string
	for _, ev := range events {
		var s db.TaskSummary
		require.NoError(t, json.Unmarshal(ev.Data, &s))
		statuses = append(statuses, ev.Type+" "+string(s.Status))
	}
	require.Equal(t, []string{"task.created queued", "task.updated transcribing", "task.updated transcribed"}, statuses)

	// The audit job came in the transaction that stored the transcript and
	// made the task transcribed: their rows carry that transaction's id.
	audit := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.pool), &jobs.AuditArgs{}, &rivertest.RequireInsertedOpts{Queue: jobs.QueueDefault})
	require.Equal(t, task.UUID, audit.Args.TaskUUID)
	var xTranscript, xAudit, xTranscribed, xTranscribing string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT
		(SELECT xmin::text FROM transcripts WHERE task_uuid = $1),
		(SELECT xmin::text FROM river_job WHERE id = $2),
		(SELECT xmin::text FROM task_transitions WHERE task_uuid = $1 AND to_status = 'transcribed'),
		(SELECT xmin::text FROM task_transitions WHERE task_uuid = $1 AND to_status = 'transcribing')`,
		task.UUID, audit.ID).Scan(&xTranscript, &xAudit, &xTranscribed, &xTranscribing))
	require.Equal(t, xTranscript, xAudit)
	require.Equal(t, xTranscript, xTranscribed)
	require.NotEqual(t, xTranscript, xTranscribing, "the task shows transcribing while the engine runs")
	require.Empty(t, b.notifications(t), "success is not worth a notification")
}

func TestTranscribeStereo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTranscribe(t)
	recs := mediatest.LibriVox(t)
	client := b.start(t, TranscribeConfig{Engine: asr.PocketSphinx{}}, 2)
	dir := t.TempDir()

	// One speaker on each channel, the left one first, the right one after
	// a pause.
	stereo := func(name string, first, second mediatest.Recording) (string, float64) {
		path := filepath.Join(dir, name)
		gap := first.Duration + 500*time.Millisecond
		mediatest.Mix(t, path, gap+second.Duration+500*time.Millisecond,
			[]mediatest.Clip{{Path: first.Path}}, []mediatest.Clip{{Path: second.Path, At: gap}})
		return path, first.Duration.Seconds() + 0.25
	}
	leftAgent, turnA := stereo("left-agent.wav", recs[1], recs[2])
	rightAgent, turnB := stereo("right-agent.wav", recs[3], recs[4])
	right := b.newCampaign(t, "right-agent", "en", "right")

	// The default campaign's agent is on the left; the other campaign's on
	// the right, and its language (English) applies to a task without one.
	taskA := b.upload(t, client.Client, call{path: leftAgent, language: "en"})
	taskB := b.upload(t, client.Client, call{path: rightAgent, campaign: right})
	for range 2 {
		require.Equal(t, river.EventKindJobCompleted, client.next(t).Kind)
	}

	for _, tc := range []struct {
		task          db.Task
		first, second string
		turn          float64
	}{
		{taskA, transcript.Agent, transcript.Customer, turnA},
		{taskB, transcript.Customer, transcript.Agent, turnB},
	} {
		tr, err := db.TranscriptGet(ctx, b.pool, tc.task.UUID)
		require.NoError(t, err)
		require.Equal(t, "en", tr.Language)
		got := spans(tr)
		seen := map[string]bool{}
		prev := 0.0
		for _, s := range tr.Segments {
			require.GreaterOrEqual(t, *s.Start, prev, "in time order: %v", got)
			prev = *s.Start
			seen[s.Speaker] = true
			if *s.Start < tc.turn {
				require.Equal(t, tc.first, s.Speaker, "%v", got)
			} else {
				require.Equal(t, tc.second, s.Speaker, "%v", got)
			}
		}
		require.Equal(t, map[string]bool{transcript.Agent: true, transcript.Customer: true}, seen, "%v", got)

		// What the channels tell came with it, the campaign's agent channel
		// deciding the sides: the first speaker ends before the second starts.
		ch := tr.Channels
		require.NotNil(t, ch)
		require.True(t, ch.Stereo)
		sides := map[string][]transcript.Span{transcript.Agent: ch.AgentTalk, transcript.Customer: ch.CustomerTalk}
		first, second := sides[tc.first], sides[tc.second]
		require.NotEmpty(t, first)
		require.NotEmpty(t, second)
		require.Less(t, first[len(first)-1].End, tc.turn+0.3)
		require.Greater(t, second[0].Start, tc.turn-0.3)
		require.Empty(t, ch.Overtalk)
	}
}

func TestTranscribeSilence(t *testing.T) {
	t.Parallel()
	b := setupTranscribe(t)
	silent := filepath.Join(t.TempDir(), "silent.wav")
	mediatest.Tones(t, silent, 3*time.Second)
	client := b.start(t, TranscribeConfig{Engine: asr.PocketSphinx{}}, 1)

	task := b.upload(t, client.Client, call{path: silent, language: "en"})
	e := client.next(t)
	require.Equal(t, river.EventKindJobCancelled, e.Kind, "never retried: the same audio gives the same answer")

	task = b.task(t, task.UUID)
	require.Equal(t, pipeline.Failed, task.Status)
	require.Equal(t, "no speech found", task.Error)
	require.Equal(t, 1, task.Attempts)
	require.InDelta(t, 3.0, *task.DurationSeconds, 0.01)
	require.Equal(t, []string{">queued", "queued>transcribing", "transcribing>failed: no speech found"}, b.history(t, task.UUID))
	_, err := db.TranscriptGet(context.Background(), b.pool, task.UUID)
	require.Equal(t, errcode.NotFound, errcode.Of(err), "not an empty transcript")
	require.Zero(t, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'audit'`))
	// The channels need no words: their figures stay.
	ch, err := db.ChannelsGet(context.Background(), b.pool, task.UUID)
	require.NoError(t, err)
	require.False(t, ch.Stereo)
	require.Empty(t, ch.Talk)
	require.Equal(t, 1.0, ch.SilenceShare)

	told := b.notifications(t)
	require.Len(t, told, 1)
	require.Equal(t, "error", told[0].Variant)
	require.Equal(t, "Transcription of silent.wav failed: no speech found.", told[0].Text)
	require.Equal(t, "/tasks/"+task.UUID, told[0].Link)
	require.Equal(t, task.UUID, *told[0].TaskUUID)
}

// openAI is the openai engine talking to server.
func openAI(t testing.TB, server *asrtest.Server) TranscribeConfig {
	t.Helper()
	engine, err := asr.NewOpenAI(asr.OpenAIConfig{BaseURL: server.URL, APIKey: "sk-test", Model: "whisper-1"})
	require.NoError(t, err)
	return TranscribeConfig{Engine: engine, MaxChunk: 10 * time.Minute}
}

func TestTranscribeOpenAIRetryAfter(t *testing.T) {
	t.Parallel()
	b := setupTranscribe(t)
	rec := mediatest.LibriVox(t)[0]
	server := asrtest.NewServer(t, asrtest.Answer{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"},
		Body: `{"error":{"message":"Rate limit reached for whisper-1","type":"requests"}}`})
	client := b.start(t, openAI(t, server), 1)

	task := b.upload(t, client.Client, call{path: rec.Path, language: "en-US"})
	e := client.next(t)
	require.Equal(t, river.EventKindJobSnoozed, e.Kind)
	require.Equal(t, pipeline.Transcribing, b.task(t, task.UUID).Status, "waiting is not failing")
	e = client.next(t)
	require.Equal(t, river.EventKindJobCompleted, e.Kind)
	require.Equal(t, 1, e.Job.Attempt, "a snooze uses up no attempt")
	require.Equal(t, 1, snoozes(e.Job), "the snooze is counted in our key, which River keeps")
	require.GreaterOrEqual(t, e.Job.AttemptedAt.Sub(e.Job.CreatedAt), time.Second, "Retry-After was honoured")

	reqs := server.Requests()
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		require.Equal(t, "whisper-1", r["model"])
		require.Equal(t, "en", r["language"])
		require.Equal(t, "verbose_json", r["response_format"])
		require.Contains(t, r["file"], "audio.wav")
	}
	b.requireTranscribedOnce(t, task.UUID)
	tr, err := db.TranscriptGet(context.Background(), b.pool, task.UUID)
	require.NoError(t, err)
	require.Equal(t, "openai:whisper-1", tr.Engine)
	require.Equal(t, []string{"unknown 0.40-1.60", "unknown 2.00-3.90"}, spans(tr))
	require.Equal(t, "Good morning.\nHow can I help?", tr.Text)
	require.Empty(t, b.notifications(t))
}

func TestTranscribeOpenAIRejected(t *testing.T) {
	t.Parallel()
	b := setupTranscribe(t)
	rec := mediatest.LibriVox(t)[1]
	server := asrtest.NewServer(t, asrtest.Answer{Status: http.StatusBadRequest,
		Body: `{"error":{"message":"Invalid file format. Supported formats: ['flac', 'mp3', 'wav']","type":"invalid_request_error","param":"file"}}`})
	client := b.start(t, openAI(t, server), 1)

	task := b.upload(t, client.Client, call{path: rec.Path, language: "en"})
	e := client.next(t)
	require.Equal(t, river.EventKindJobCancelled, e.Kind)

	const reason = "openai transcription: 400 Bad Request: Invalid file format. Supported formats: ['flac', 'mp3', 'wav']"
	task = b.task(t, task.UUID)
	require.Equal(t, pipeline.Failed, task.Status)
	require.Equal(t, reason, task.Error)
	require.Equal(t, 1, task.Attempts)
	require.Equal(t, []string{">queued", "queued>transcribing", "transcribing>failed: " + reason}, b.history(t, task.UUID))
	told := b.notifications(t)
	require.Len(t, told, 1)
	require.Equal(t, "error", told[0].Variant)
	require.Equal(t, "Transcription of "+task.FileName+" failed: "+reason+".", told[0].Text)
	require.Equal(t, "/tasks/"+task.UUID, told[0].Link)

	job, err := client.JobGet(context.Background(), e.Job.ID)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateCancelled, job.State, "never retried")
	require.Len(t, server.Requests(), 1)
	require.Zero(t, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'audit'`))
}

// work runs one transcribe job of task with worker, through rivertest.
func (b *transcribeBundle) work(t *testing.T, worker *TranscribeWorker, taskUUID string, opts *river.InsertOpts) (*rivertest.WorkResult, error) {
	t.Helper()
	ctx := context.Background()
	w := rivertest.NewWorker(t, riverpgxv5.New(b.pool), &river.Config{SkipUnknownJobCheck: true}, worker)
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	return w.Work(ctx, t, tx, jobs.TranscribeArgs{TaskUUID: taskUUID}, opts)
}

func TestTranscribeFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := mediatest.LibriVox(t)[2]

	t.Run("retried until the last attempt", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		unavailable := asrtest.Answer{Status: http.StatusServiceUnavailable, Body: `{"error":{"message":"The server is overloaded"}}`}
		server := asrtest.NewServer(t, unavailable, unavailable)
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: openAI(t, server)}
		// Uploaded without a job: rivertest inserts it.
		task := b.upload(t, insertOnly(t), call{path: rec.Path, language: "en"})

		res, err := b.work(t, worker, task.UUID, &river.InsertOpts{MaxAttempts: 5})
		require.ErrorContains(t, err, "503 Service Unavailable: The server is overloaded")
		require.Equal(t, river.EventKindJobFailed, res.EventKind)
		require.NotEqual(t, rivertype.JobStateDiscarded, res.Job.State, "to be retried")
		require.Equal(t, pipeline.Transcribing, b.task(t, task.UUID).Status, "more attempts to come")
		require.Empty(t, b.notifications(t))
		// The retry state on the task, for analysts.
		retry := b.task(t, task.UUID).Retry
		require.NotNil(t, retry)
		require.Equal(t, db.TaskRetry{Attempt: 1, MaxAttempts: 5, Reason: db.RetryServerError, NextAt: retry.NextAt,
			Error: "the speech server answered 503 Service Unavailable: The server is overloaded"}, *retry)
		var analysed time.Time
		analysedAt := `SELECT analysed_at FROM call_channels WHERE task_uuid = $1`
		require.NoError(t, b.pool.QueryRow(ctx, analysedAt, task.UUID).Scan(&analysed))

		res, err = b.work(t, worker, task.UUID, &river.InsertOpts{MaxAttempts: 1})
		require.Error(t, err)
		require.Equal(t, rivertype.JobStateDiscarded, res.Job.State)
		task = b.task(t, task.UUID)
		require.Equal(t, pipeline.Failed, task.Status)
		require.Equal(t, "openai transcription: 503 Service Unavailable: The server is overloaded", task.Error)
		require.Nil(t, task.Retry, "failed: no longer retried")
		var again time.Time
		require.NoError(t, b.pool.QueryRow(ctx, analysedAt, task.UUID).Scan(&again))
		require.Equal(t, analysed, again, "the channels were analysed once, not again on the retry")
		told := b.notifications(t)
		require.Len(t, told, 1)
		require.Equal(t, "error", told[0].Variant)
		require.Contains(t, told[0].Text, "The server is overloaded")

		// The job run again by hand (River UI, the jobs API) retries the
		// task: it moves on.
		good := &TranscribeWorker{pool: b.pool, store: b.store, cfg: openAI(t, asrtest.NewServer(t))}
		_, err = b.work(t, good, task.UUID, nil)
		require.NoError(t, err)
		require.Equal(t, pipeline.Transcribed, b.task(t, task.UUID).Status)
	})

	t.Run("a server that is always busy", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		server := asrtest.NewServer(t, asrtest.Answer{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "30"},
			Body: `{"error":{"message":"You exceeded your current quota"}}`})
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: openAI(t, server)}
		task := b.upload(t, insertOnly(t), call{path: rec.Path, language: "en"})

		// After many snoozes, a Retry-After uses up an attempt like any
		// failure: a call cannot wait forever.
		res, err := b.work(t, worker, task.UUID, &river.InsertOpts{MaxAttempts: 1, Metadata: []byte(`{"auditd_snoozes": 20}`)})
		require.ErrorContains(t, err, "You exceeded your current quota")
		require.Equal(t, rivertype.JobStateDiscarded, res.Job.State)
		require.Equal(t, pipeline.Failed, b.task(t, task.UUID).Status)
	})

	t.Run("timed out", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		server := asrtest.NewServer(t, asrtest.Answer{Hold: true})
		cfg := openAI(t, server)
		cfg.TimeoutMax = time.Second
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: cfg}
		task := b.upload(t, insertOnly(t), call{path: rec.Path, language: "en"})

		res, err := b.work(t, worker, task.UUID, &river.InsertOpts{MaxAttempts: 1})
		require.Error(t, err)
		require.Equal(t, rivertype.JobStateDiscarded, res.Job.State)
		task = b.task(t, task.UUID)
		require.Equal(t, pipeline.Failed, task.Status)
		require.Equal(t, "transcription timed out after 1s", task.Error)
		require.Len(t, b.notifications(t), 1)
	})

	t.Run("not audio", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		junk := filepath.Join(t.TempDir(), "junk.wav")
		require.NoError(t, os.WriteFile(junk, []byte("RIFF but not really a recording"), 0o600))
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: TranscribeConfig{Engine: asr.PocketSphinx{}}}
		task := b.upload(t, insertOnly(t), call{path: junk, language: "en"})

		res, err := b.work(t, worker, task.UUID, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCancelled, res.EventKind)
		task = b.task(t, task.UUID)
		require.Equal(t, pipeline.Failed, task.Status)
		require.True(t, strings.HasPrefix(task.Error, "not an audio file: "), task.Error)
	})

	t.Run("recording gone from the store", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: TranscribeConfig{Engine: asr.PocketSphinx{}}}
		task := b.upload(t, insertOnly(t), call{path: rec.Path, language: "en"})
		require.NoError(t, b.store.Delete(ctx, task.BlobKey))

		res, err := b.work(t, worker, task.UUID, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCancelled, res.EventKind)
		task = b.task(t, task.UUID)
		require.Equal(t, pipeline.Failed, task.Status)
		require.Contains(t, task.Error, "blob not found")
	})

	t.Run("recording erased before its transcription", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: TranscribeConfig{Engine: asr.PocketSphinx{}}}
		task := b.upload(t, insertOnly(t), call{path: rec.Path, language: "en"})
		var gone db.Forgotten
		require.NoError(t, db.TasksForget(ctx, b.pool, db.ForgetRecording, []string{task.UUID}, &gone))
		require.Equal(t, []string{task.BlobKey}, gone.BlobKeys)

		res, err := b.work(t, worker, task.UUID, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCancelled, res.EventKind)
		task = b.task(t, task.UUID)
		require.Equal(t, pipeline.Failed, task.Status)
		require.Contains(t, task.Error, "the recording was deleted (retention or an erasure) before it was transcribed")
	})

	t.Run("language the engine lacks", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: TranscribeConfig{Engine: asr.PocketSphinx{}}}
		// The default campaign speaks Spanish.
		task := b.upload(t, insertOnly(t), call{path: rec.Path})

		res, err := b.work(t, worker, task.UUID, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCancelled, res.EventKind)
		task = b.task(t, task.UUID)
		require.Equal(t, pipeline.Failed, task.Status)
		require.Contains(t, task.Error, "language not supported by the speech engine")
	})

	t.Run("task gone", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		worker := &TranscribeWorker{pool: b.pool, store: b.store, cfg: TranscribeConfig{Engine: asr.PocketSphinx{}}}
		res, err := b.work(t, worker, uuid.NewString(), nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCancelled, res.EventKind)
	})
}

// insertOnly is a client that inserts jobs and works none.
func insertOnly(t testing.TB) *river.Client[pgx.Tx] {
	t.Helper()
	c, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	require.NoError(t, err)
	return c
}

func TestTranscribeCancelled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := mediatest.LibriVox(t)[3]

	t.Run("by an administrator", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		server := asrtest.NewServer(t, asrtest.Answer{Hold: true})
		client := b.start(t, openAI(t, server), 1)
		task := b.upload(t, client.Client, call{path: rec.Path, language: "en"})
		server.Arrived(t)
		job := b.transcribeJob(t)
		require.Equal(t, rivertype.JobStateRunning, job.State)
		_, err := client.JobCancel(ctx, job.ID)
		require.NoError(t, err)

		require.Equal(t, river.EventKindJobCancelled, client.next(t).Kind)
		task = b.task(t, task.UUID)
		require.Equal(t, pipeline.Failed, task.Status, "an admin can retry it")
		require.Equal(t, "transcription cancelled by an administrator", task.Error)
		require.Len(t, b.notifications(t), 1)
	})

	t.Run("by a shutdown", func(t *testing.T) {
		t.Parallel()
		b := setupTranscribe(t)
		server := asrtest.NewServer(t, asrtest.Answer{Hold: true})
		first := b.start(t, openAI(t, server), 1)
		task := b.upload(t, first.Client, call{path: rec.Path, language: "en"})
		server.Arrived(t)
		stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		require.NoError(t, first.StopAndCancel(stopCtx))

		// Handed back at once, without using up an attempt; another
		// worker finishes it.
		job := b.transcribeJob(t)
		require.Equal(t, rivertype.JobStateAvailable, job.State)
		require.Zero(t, job.Attempt)
		require.Equal(t, pipeline.Transcribing, b.task(t, task.UUID).Status)
		second := b.start(t, openAI(t, server), 1)
		require.Equal(t, river.EventKindJobCompleted, second.next(t).Kind)
		b.requireTranscribedOnce(t, task.UUID)
		require.Equal(t, []string{">queued", "queued>transcribing", "transcribing>transcribed"}, b.history(t, task.UUID))
	})
}

func TestTranscribeIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTranscribe(t)
	recs := mediatest.LibriVox(t)
	server := asrtest.NewServer(t)
	client := b.start(t, openAI(t, server), 1)

	// A second job for a task already transcribed changes nothing.
	task := b.upload(t, client.Client, call{path: recs[4].Path, language: "en"})
	require.Equal(t, river.EventKindJobCompleted, client.next(t).Kind)
	before, err := db.TranscriptGet(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	_, err = client.Insert(ctx, jobs.TranscribeArgs{TaskUUID: task.UUID}, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, client.next(t).Kind)
	b.requireTranscribedOnce(t, task.UUID)
	after, err := db.TranscriptGet(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Len(t, server.Requests(), 1, "the engine ran once")

	// A run that finds a transcript of an earlier one (left transcribing)
	// replaces it.
	task = b.upload(t, client.Client, call{path: recs[0].Path, language: "en", status: pipeline.Transcribing})
	require.NoError(t, db.TranscriptSave(ctx, b.pool, task.UUID, transcript.Transcript{Text: "stale", Engine: "earlier"}))
	require.Equal(t, river.EventKindJobCompleted, client.next(t).Kind)
	b.requireTranscribedOnce(t, task.UUID)
	tr, err := db.TranscriptGet(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	require.Equal(t, "openai:whisper-1", tr.Engine)
	require.Equal(t, "Good morning.\nHow can I help?", tr.Text)
}

func TestTranscribeNoEngine(t *testing.T) {
	t.Parallel()
	b := setupTranscribe(t)
	rec := mediatest.LibriVox(t)[1]
	none := &TranscribeWorker{pool: b.pool, store: b.store}
	task := b.upload(t, insertOnly(t), call{path: rec.Path, language: "en"})

	// The call waits, saying why, and its uploader is told once.
	for range 2 {
		res, err := b.work(t, none, task.UUID, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobSnoozed, res.EventKind)
		require.WithinDuration(t, time.Now().Add(noEngineSnooze), res.Job.ScheduledAt, time.Minute)
	}
	task = b.task(t, task.UUID)
	require.Equal(t, pipeline.Queued, task.Status)
	require.Equal(t, noEngine, task.Error)
	require.Equal(t, []string{">queued", "queued>queued: " + noEngine}, b.history(t, task.UUID))
	told := b.notifications(t)
	require.Len(t, told, 1)
	require.Equal(t, "warning", told[0].Variant)
	require.Contains(t, told[0].Text, "ASR_ENGINE=none")

	// Once a worker has an engine, the call goes on and the notice goes.
	res, err := b.work(t, &TranscribeWorker{pool: b.pool, store: b.store, cfg: openAI(t, asrtest.NewServer(t))}, task.UUID, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	task = b.task(t, task.UUID)
	require.Equal(t, pipeline.Transcribed, task.Status)
	require.Empty(t, task.Error)
}

func TestTranscribeTimeout(t *testing.T) {
	t.Parallel()
	b := setupTranscribe(t)
	w := &TranscribeWorker{pool: b.pool, store: b.store, cfg: TranscribeConfig{TimeoutMax: 2 * time.Hour}}
	rec := mediatest.LibriVox(t)[0]
	task := b.upload(t, insertOnly(t), call{path: rec.Path, language: "en"})
	timeout := func(id string) time.Duration {
		return w.Timeout(&river.Job[jobs.TranscribeArgs]{Args: jobs.TranscribeArgs{TaskUUID: id}})
	}
	setDuration := func(seconds float64) {
		require.NoError(t, db.TaskSetDuration(context.Background(), b.pool, task.UUID, seconds))
	}

	// Unknown duration: guessed from the size at 2 kB/s.
	_, err := b.pool.Exec(context.Background(), `UPDATE tasks SET duration_seconds = NULL, size_bytes = $2 WHERE uuid = $1`,
		task.UUID, 2000*20*60)
	require.NoError(t, err)
	require.Equal(t, 3*20*time.Minute+2*time.Minute, timeout(task.UUID))
	setDuration(30)
	require.Equal(t, 5*time.Minute, timeout(task.UUID), "at least five minutes")
	setDuration(10 * 60)
	require.Equal(t, 32*time.Minute, timeout(task.UUID), "three times the audio plus two minutes")
	setDuration(3 * 3600)
	require.Equal(t, 2*time.Hour, timeout(task.UUID), "bounded")
	_, err = b.pool.Exec(context.Background(), `UPDATE tasks SET duration_seconds = NULL, size_bytes = $2 WHERE uuid = $1`,
		task.UUID, int64(1)<<62)
	require.NoError(t, err)
	require.Equal(t, 2*time.Hour, timeout(task.UUID))
	require.Equal(t, 2*time.Hour, timeout(uuid.NewString()), "Work finds out what is wrong")
}
