package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/talk"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers/asr"
)

// TranscribeConfig shapes the transcribe jobs of a worker process.
type TranscribeConfig struct {
	// Engine transcribes the calls; nil when none is configured
	// (ASR_ENGINE=none): calls then wait as queued.
	Engine asr.Engine
	// MaxChunk bounds the audio one engine call gets (ASR_MAX_CHUNK); zero
	// for no limit.
	MaxChunk time.Duration
	// TimeoutMax bounds a transcription's time limit
	// (TRANSCRIBE_TIMEOUT_MAX). Defaults to 2 hours.
	TimeoutMax time.Duration
	// WorkDir is where each job keeps its temporary files, in a directory
	// of its own removed when it ends. Defaults to os.TempDir().
	WorkDir string
	// QualityFloor is the quality under which a transcript, or one of its
	// segments, is not trusted (TRANSCRIPT_QUALITY_FLOOR; see
	// transcript.Assess). Zero trusts every transcript.
	QualityFloor float64
}

// A transcription's time limit is timeoutPerAudio times the recording's
// length plus timeoutBase, and at least timeoutMin: a stereo call is
// transcribed once per channel, PocketSphinx takes 0.6 s a second of audio
// on an idle core (more when transcriptions share cores), and fetching,
// converting and a server's queue take a while whatever the length.
const (
	timeoutPerAudio = 3
	timeoutBase     = 2 * time.Minute
	timeoutMin      = 5 * time.Minute
	// estimatedBytesPerSecond guesses a recording's length from its size
	// when its container did not say (Ogg, WebM streams): 16 kbit/s, the
	// low end of call recordings, so the guess errs long.
	estimatedBytesPerSecond = 2000
)

// Snoozes of a transcription.
const (
	// noEngineSnooze is how often a call waiting for a speech engine looks
	// again: a worker started with one takes it within that time.
	noEngineSnooze = 15 * time.Minute
	// maxRetryAfter caps how long a server's Retry-After is honoured.
	maxRetryAfter = time.Hour
	// maxSnoozes bounds the waits a server's Retry-After may impose; past
	// it, a throttled attempt counts as failed, so that a server that
	// always says "later" (an exhausted quota) cannot hold a call forever.
	maxSnoozes = 20
)

// noEngine is the notice a call carries while no speech engine is configured.
const noEngine = "waiting for a speech engine: the worker has none configured (ASR_ENGINE=none)"

// TranscribeWorker turns a call's recording into its transcript: it moves
// the task queued → transcribing, fetches the recording, stores its
// duration and what its channels tell (package talk), runs the engine (a stereo call split by channel into agent and
// customer, as the campaign says; a long one in chunks), and then, in one
// transaction, stores the transcript, inserts the audit job and moves the
// task to transcribed. A rerun (retry, rescue after a crash) replaces the
// transcript and never repeats a step already done. Failures that a retry
// cannot cure, and the last attempt's, fail the task and tell its uploader.
type TranscribeWorker struct {
	river.WorkerDefaults[jobs.TranscribeArgs]
	pool  *pgxpool.Pool
	store *storage.Store
	cfg   TranscribeConfig
	// backoff is River's client's policy, whose time the task records
	// when an attempt fails (retrying).
	backoff Backoff
}

// Timeout implements river.Worker: proportional to the recording's length,
// as stored on the task (measured at upload, or by an earlier attempt),
// else as estimated from its size. River asks before Work, so it reads the
// task itself; when it cannot, the bound applies and Work finds out why.
func (w *TranscribeWorker) Timeout(job *river.Job[jobs.TranscribeArgs]) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	task, err := db.TaskGetByUUID(ctx, w.pool, job.Args.TaskUUID)
	if err != nil {
		return w.timeoutMax()
	}
	return w.limit(task)
}

// limit is the time limit of a transcription of task's recording.
func (w *TranscribeWorker) limit(task db.Task) time.Duration {
	bound := w.timeoutMax()
	seconds := float64(task.SizeBytes / estimatedBytesPerSecond)
	if task.DurationSeconds != nil && *task.DurationSeconds > 0 {
		seconds = *task.DurationSeconds
	}
	// Compared before converting, which a guess from a huge size would overflow.
	if seconds >= bound.Seconds() {
		return bound
	}
	d := time.Duration(seconds * float64(time.Second))
	return min(max(timeoutPerAudio*d+timeoutBase, timeoutMin), bound)
}

func (w *TranscribeWorker) timeoutMax() time.Duration {
	return cmp.Or(w.cfg.TimeoutMax, 2*time.Hour)
}

// Work implements river.Worker. It cancels the job when the task is gone,
// snoozes it while no engine is configured or a server asks to wait
// (Retry-After), hands it back (a snooze of zero) when the worker stops,
// cancels it after failing the task for a permanent error or an admin's
// cancellation, and returns other errors for River to retry, failing the
// task on the last attempt.
func (w *TranscribeWorker) Work(ctx context.Context, job *river.Job[jobs.TranscribeArgs]) error {
	task, err := db.TaskGetByUUID(ctx, w.pool, job.Args.TaskUUID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("task %s no longer exists", job.Args.TaskUUID))
	}
	if err != nil {
		return err
	}
	if task.Status == pipeline.Failed {
		// The job that failed the task, retried by hand (River UI, the
		// jobs API): the task is retried too when it failed here.
		if task, err = retried(ctx, w.pool, task, lifecycle.RetryTranscription); err != nil {
			return err
		}
	}
	if task.Status != pipeline.Queued && task.Status != pipeline.Transcribing {
		// Transcribed by an earlier run, or failed at its audit: nothing
		// left to do here.
		return nil
	}
	if w.cfg.Engine == nil {
		return w.waitForEngine(ctx, task)
	}
	limit := w.limit(task)
	tr, err := w.transcribe(ctx, job, task)
	if err == nil {
		if err = w.finish(ctx, job, task, tr); err == nil {
			return nil
		}
	}

	throttled, isThrottled := errors.AsType[*asr.RetryableError](err)
	cause := context.Cause(ctx)
	timedOut := false
	switch {
	case errors.Is(cause, river.ErrJobCancelledRemotely):
		return river.JobCancel(errors.Join(err, w.fail(ctx, job, task,
			&reportable{errors.New("transcription cancelled by an administrator")})))
	case errors.Is(ctx.Err(), context.Canceled):
		// The worker is stopping: hand the job back at once, without
		// using up an attempt; the task stays transcribing meanwhile.
		return river.JobSnooze(0)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		timedOut, err = true, &reportable{fmt.Errorf("transcription timed out after %s", limit)}
	case asr.Permanent(err) || errors.Is(err, storage.ErrNotFound):
		return river.JobCancel(errors.Join(err, w.fail(ctx, job, task, err)))
	case isThrottled && throttled.RetryAfter > 0 && snoozes(job.JobRow) < maxSnoozes:
		// Not a failure: the server asked us to come back later. A snooze
		// does not use up an attempt.
		wait := min(throttled.RetryAfter, maxRetryAfter)
		if rerr := w.retrying(ctx, job, task, err, false, limit, time.Now().Add(wait)); rerr != nil {
			return rerr
		}
		return snooze(ctx, w.pool, job.JobRow, wait)
	}
	if job.Attempt >= job.MaxAttempts {
		return errors.Join(err, w.fail(ctx, job, task, err))
	}
	if rerr := w.retrying(ctx, job, task, err, timedOut, limit, w.backoff.NextRetry(job.JobRow)); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// transcribe moves task to transcribing, fetches its recording, stores
// its duration and what its channels tell, transcribes it and redacts the transcript as its campaign
// says. Errors of the recording, the tools and the engine are wrapped as
// reportable.
func (w *TranscribeWorker) transcribe(ctx context.Context, job *river.Job[jobs.TranscribeArgs], task db.Task) (transcribed, error) {
	if task.Status == pipeline.Queued {
		err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
			_, err := lifecycle.Move(ctx, tx, task.UUID, lifecycle.Transcribe, lifecycle.With{Attempt: job.Attempt})
			return err
		})
		if err != nil {
			return transcribed{}, err
		}
	}
	campaign, err := db.CampaignGetByName(ctx, w.pool, task.CampaignName)
	if err != nil {
		return transcribed{}, err
	}
	dir, err := os.MkdirTemp(w.cfg.WorkDir, "transcribe-")
	if err != nil {
		return transcribed{}, err
	}
	defer os.RemoveAll(dir)
	if task.BlobKey == "" {
		// Erased or expired before it was transcribed: nothing to hear, ever.
		return transcribed{}, &reportable{fmt.Errorf("the recording was deleted (retention or an erasure) before it was transcribed: %w",
			storage.ErrNotFound)}
	}
	path, err := fetchBlob(ctx, w.store, task.BlobKey, dir)
	if err != nil {
		return transcribed{}, &reportable{err}
	}
	info, err := media.Probe(ctx, path)
	if err != nil {
		return transcribed{}, &reportable{err}
	}
	if info.Duration > 0 {
		if err := db.TaskSetDuration(ctx, w.pool, task.UUID, info.Duration.Seconds()); err != nil {
			return transcribed{}, err
		}
	}
	if err := w.analyseChannels(ctx, task, campaign, path); err != nil {
		return transcribed{}, err
	}
	// A call uploaded without a language, in a campaign that lets the
	// server detect it, has none (intake.Speech): the server is sent none.
	lang, detect := cmp.Or(task.Language, campaign.Language), task.Language == "" && campaign.DetectLanguage
	if detect {
		lang = ""
	}
	tr, err := asr.Transcribe(ctx, w.cfg.Engine, path, asr.Options{
		Language:     lang,
		SplitStereo:  true,
		AgentChannel: asr.Channel(campaign.AgentChannel),
		MaxChunk:     w.cfg.MaxChunk,
		WorkDir:      dir,
		QualityFloor: w.cfg.QualityFloor,
	})
	if err != nil {
		return transcribed{}, &reportable{err}
	}
	redactor, err := redact.New(campaign.EffectiveRedaction())
	if err != nil {
		return transcribed{}, err
	}
	tr, recs := redactor.Transcript(tr)
	out := transcribed{transcript: tr, redactions: recs}
	if detect {
		// The language the server heard; the campaign's when it did not say.
		out.transcript.Language = cmp.Or(tr.Language, campaign.Language)
		out.detected = out.transcript.Language
	}
	return out, nil
}

// analyseChannels stores what the channels of task's recording, at path,
// tell (package talk), unless an earlier attempt did: the audio has not
// changed since, and a retry should not spend its time on it again.
func (w *TranscribeWorker) analyseChannels(ctx context.Context, task db.Task, campaign db.Campaign, path string) error {
	_, err := db.ChannelsGet(ctx, w.pool, task.UUID)
	if !errcode.Is(err, errcode.NotFound) {
		return err
	}
	channels, err := talk.Analyse(ctx, path, talk.Options{AgentChannel: campaign.AgentChannel})
	if err != nil {
		return &reportable{err}
	}
	// Stored at once: the figures need no words, so they stay when the
	// speech engine fails the call (a language it lacks, no speech found).
	return db.ChannelsSave(ctx, w.pool, task.UUID, channels)
}

// transcribed is a call's transcript, redacted, and its redactions.
type transcribed struct {
	transcript transcript.Transcript
	redactions []redact.Record
	// detected is the language the server detected, to record as the
	// task's; "" when it was sent one.
	detected string
}

// fetchBlob copies the blob key of store into dir and returns the copy's
// path. It returns an error wrapping storage.ErrNotFound when the blob is
// gone.
func fetchBlob(ctx context.Context, store *storage.Store, key, dir string) (string, error) {
	r, err := store.Open(ctx, key)
	if err != nil {
		return "", fmt.Errorf("fetching the recording: %w", err)
	}
	defer r.Close()
	path := filepath.Join(dir, "recording")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("fetching the recording: %w", err)
	}
	return path, nil
}

// finish stores tr's transcript and redactions, inserts the task's audit
// job (and, when something was redacted, the job that silences it in the
// recording) and moves it to transcribed, in one transaction. A task
// another run finished meanwhile is left as it is.
func (w *TranscribeWorker) finish(ctx context.Context, job *river.Job[jobs.TranscribeArgs], task db.Task, tr transcribed) error {
	client := river.ClientFromContext[pgx.Tx](ctx)
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if tr.detected != "" {
			// Before the transcript, whose words are indexed in it.
			if err := db.TaskSetLanguage(ctx, tx, task.UUID, tr.detected); err != nil {
				return err
			}
		}
		if err := db.TranscriptSave(ctx, tx, task.UUID, tr.transcript); err != nil {
			return err
		}
		if err := db.RedactionsSave(ctx, tx, task.UUID, tr.redactions); err != nil {
			return err
		}
		if len(tr.redactions) > 0 {
			if _, err := client.InsertTx(ctx, tx, jobs.RedactRecordingArgs{TaskUUID: task.UUID}, nil); err != nil {
				return err
			}
		}
		if _, err := client.InsertTx(ctx, tx, jobs.AuditArgs{TaskUUID: task.UUID}, nil); err != nil {
			return err
		}
		_, err := lifecycle.Move(ctx, tx, task.UUID, lifecycle.Transcribed, lifecycle.With{Attempt: job.Attempt})
		return err
	})
	if errors.Is(err, db.ErrTaskStatus) {
		return nil
	}
	return err
}

// fail marks the task failed with what cause says and tells its uploader.
// A task no longer queued or transcribing is left as it is.
func (w *TranscribeWorker) fail(ctx context.Context, job *river.Job[jobs.TranscribeArgs], task db.Task, cause error) error {
	reason := describe(cause, job.ID)
	text := l10n.T("Transcription of %s failed: %s.", task.FileName, reason)
	if job.Attempt > 1 {
		text = l10n.T("Transcription of %s failed after %d attempts: %s.", task.FileName, job.Attempt, reason)
	}
	return failTask(ctx, w.pool, task, lifecycle.FailTranscription, text, reason, job.Attempt)
}

// waitForEngine leaves the call queued, with a notice on the task and, the
// first time, a notification to its uploader; the job looks again later.
func (w *TranscribeWorker) waitForEngine(ctx context.Context, task db.Task) error {
	if task.Status == pipeline.Queued && task.Error == noEngine {
		return river.JobSnooze(noEngineSnooze)
	}
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if _, err := db.NotificationCreate(ctx, tx, lifecycle.Notice(task.UploadedBy, task, "warning", l10n.T(
			"%s is waiting to be transcribed: no speech engine is configured (ASR_ENGINE=none). "+
				"It will be once a worker has one.", task.FileName))); err != nil {
			return err
		}
		_, err := lifecycle.Move(ctx, tx, task.UUID, lifecycle.Wait, lifecycle.With{Error: noEngine})
		return err
	})
	if err != nil && !errors.Is(err, db.ErrTaskStatus) {
		return err
	}
	return river.JobSnooze(noEngineSnooze)
}
