package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/cmd/auditd/proctest"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// A worker process killed in the middle of a transcription loses nothing:
// River rescues the job, another worker runs it again, and the task ends
// transcribed exactly once.
func TestWorkerKilledMidTranscription(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.URL(t)
	pool := dbtest.PoolFor(t, url)
	blobs := t.TempDir()
	store, err := storage.Open(ctx, "file://"+blobs)
	require.NoError(t, err)
	defer store.Close()

	// The upload: the recording in the store, the task and its job in one transaction.
	content, err := os.ReadFile(mediatest.LibriVox(t)[0].Path)
	require.NoError(t, err)
	key := storage.NewKey(time.Now())
	w, err := store.Create(ctx, key)
	require.NoError(t, err)
	_, err = w.Write(content)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = db.UserSeen(ctx, pool, db.UserProfile{ID: "qa", Username: "qa"}, time.Now())
	require.NoError(t, err)
	campaign, err := db.CampaignGetByName(ctx, pool, db.DefaultCampaign)
	require.NoError(t, err)
	sum := sha256.Sum256(content)
	inserter, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	var task db.Task
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if task, _, err = db.TaskInsert(ctx, tx, db.NewTask{UUID: uuid.NewString(), Kind: db.TaskCall, Status: pipeline.Queued,
			FileName: "call.wav", ContentType: "audio/wav", SizeBytes: int64(len(content)), SHA256: hex.EncodeToString(sum[:]),
			BlobKey: key, CampaignID: campaign.ID, Language: "en", UploadedBy: "qa"}); err != nil {
			return err
		}
		_, err := inserter.InsertTx(ctx, tx, jobs.TranscribeArgs{TaskUUID: task.UUID}, nil)
		return err
	}))

	// The first worker's request is held until the worker is gone; the
	// next one is answered.
	server := asrtest.NewServer(t, asrtest.Answer{Hold: true})
	env := proctest.Env(t, "DATABASE_URL="+url, "BLOB_URL=file://"+blobs,
		"ASR_ENGINE=openai", "ASR_BASE_URL="+server.URL, "ASR_MODEL=whisper-1")
	first := proctest.Start(t, binary, env, "work")
	first.WaitLog(t, `"msg":"workers started"`)
	server.Arrived(t)
	first.Kill(t)
	require.Equal(t, pipeline.Transcribing, taskStatus(t, pool, task.UUID))

	// The second worker takes the running job for dead after 10 s (once
	// the dead worker's leadership has lapsed), and runs it again.
	second := proctest.Start(t, binary, append(env, "TRANSCRIBE_TIMEOUT_MAX=8s", "JOB_RESCUE_AFTER=10s"), "work")
	second.WaitLog(t, `"msg":"workers started"`)
	// (Once transcribed, the same worker audits it.)
	require.Eventually(t, func() bool {
		s := taskStatus(t, pool, task.UUID)
		return s == pipeline.Transcribed || s == pipeline.Auditing || s == pipeline.Audited
	}, 2*time.Minute, 100*time.Millisecond)
	second.Stop(t)

	count := func(query string) int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, query, task.UUID).Scan(&n))
		return n
	}
	require.Equal(t, 1, count(`SELECT count(*) FROM transcripts WHERE task_uuid = $1`))
	require.Equal(t, 1, count(`SELECT count(*) FROM task_transitions WHERE task_uuid = $1 AND to_status = 'transcribed'`))
	require.Equal(t, 1, count(`SELECT count(*) FROM task_transitions WHERE task_uuid = $1 AND to_status = 'transcribing'`))
	require.Equal(t, 1, count(`SELECT count(*) FROM river_job WHERE kind = 'audit' AND args->>'task_uuid' = $1`))
	require.Len(t, server.Requests(), 2)

	list, err := inserter.JobList(ctx, river.NewJobListParams().Kinds("transcribe"))
	require.NoError(t, err)
	require.Len(t, list.Jobs, 1)
	job := list.Jobs[0]
	require.Equal(t, rivertype.JobStateCompleted, job.State)
	require.Equal(t, 2, job.Attempt)
	require.Len(t, job.Errors, 1)
	require.Equal(t, "Stuck job rescued by JobRescuer", job.Errors[0].Error)
}

func taskStatus(t *testing.T, pool db.DBTX, id string) pipeline.Status {
	t.Helper()
	task, err := db.TaskGetByUUID(context.Background(), pool, id)
	require.NoError(t, err)
	return task.Status
}

// A worker refuses to start without the tools of its speech engine.
func TestWorkNeedsTheEnginesTools(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"ASR_ENGINE=pocketsphinx", "PATH=" + t.TempDir()}, "ASR_ENGINE=pocketsphinx: ffmpeg is needed"},
		{[]string{"ASR_ENGINE=pocketsphinx", "PATH=" + ffmpegOnly(t)}, "ASR_ENGINE=pocketsphinx: pocketsphinx_continuous is not installed"},
	} {
		_, stderr, err := proctest.Run(t, binary, append(tc.env, "DATABASE_URL="+url, "BLOB_URL=file://"+t.TempDir()), "work")
		require.Error(t, err)
		require.Contains(t, stderr, tc.want)
	}
}

// ffmpegOnly returns a PATH directory holding ffmpeg and ffprobe and nothing else.
func ffmpegOnly(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		path, err := exec.LookPath(tool)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(path, filepath.Join(dir, tool)))
	}
	return dir
}

// On a default install (no speech server, the offline engine on PATH, the
// default campaign in Spanish), a call uploaded with no language is refused
// (it would be the campaign's, Spanish, which the engine does not
// transcribe: never transcribed as English without being asked); an
// English call uploaded as English is transcribed and audited, and
// `auditd upload` says what the engine transcribes.
func TestDefaultInstallTranscribesAnEnglishCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := openMain(t, &Main{Serve: true, Work: true, Migrate: true}, "DATABASE_URL="+dbtest.EmptyURL(t), "AUTH_DEV=true",
		"LISTEN_ADDR=127.0.0.1:0", "PATH="+os.Getenv("PATH"), "BLOB_URL=file://"+dir, "MAIL_DIR="+dir)
	require.Equal(t, "pocketsphinx", m.Config.ASREngine)
	client := []string{"AUDITD_URL=http://" + m.Addr(), "AUDITD_TOKEN=" + devToken(t, m, "qa", "quality")}

	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"upload", "--progress", "never", mediatest.LibriVox(t)[0].Path}, environ(client), &stdout, &stderr)
	require.ErrorContains(t, err, "1 of 1 files failed")
	require.Contains(t, stdout.String(), `was uploaded with no language, so it takes its campaign's ("default"): Spanish (es), `+
		"which the speech engine (pocketsphinx) does not transcribe: it transcribes English (en). Upload it with the language "+
		"it is spoken in (language=en if it is in English (en))")
	var n int
	require.NoError(t, m.pool.QueryRow(t.Context(), "SELECT count(*) FROM tasks").Scan(&n))
	require.Zero(t, n)

	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run(t.Context(), []string{"upload", "--progress", "never", "--language", "en", mediatest.LibriVox(t)[0].Path},
		environ(client), &stdout, &stderr))
	require.Contains(t, stderr.String(), "calls are transcribed by pocketsphinx in English (en)")
	id := outcomeLine.FindStringSubmatch(strings.TrimSpace(stdout.String()))[2]

	c, err := newAPIClient("http://"+m.Addr(), strings.TrimPrefix(client[1], "AUDITD_TOKEN="))
	require.NoError(t, err)
	var task struct {
		Status, Language, Error string
		Transcript              struct{ Language, Text string }
		Audit                   *struct{ Score float64 }
	}
	require.Eventually(t, func() bool {
		require.NoError(t, c.call(t.Context(), http.MethodGet, "/tasks/"+id, &task))
		require.NotEqual(t, pipeline.Failed, task.Status, task.Error)
		return task.Status == "audited"
	}, 3*time.Minute, 250*time.Millisecond)
	require.Equal(t, "en", task.Language)
	require.Equal(t, "en", task.Transcript.Language)
	require.NotEmpty(t, strings.Fields(task.Transcript.Text))
	require.NotNil(t, task.Audit)
}
