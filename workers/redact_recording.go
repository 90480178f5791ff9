package workers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/storage"
)

// RedactRecordingWorker replaces a call's recording by its redacted copy,
// every redacted span silenced on every channel (media.Mute, over the
// times its redaction records estimated). The copy is written as a new
// blob, the task's blob key swapped in one transaction, and the original
// deleted only after that commit. A worker that dies half way loses
// nothing: before the swap the original stays and the copy is an orphan,
// after it the original is; the blob sweeper deletes orphans. A recording
// redacted already is left as it is.
type RedactRecordingWorker struct {
	river.WorkerDefaults[jobs.RedactRecordingArgs]
	pool    *pgxpool.Pool
	store   *storage.Store
	workDir string
	log     *slog.Logger
}

// Timeout implements river.Worker: ffmpeg decodes and encodes the whole
// recording, several times faster than it plays.
func (w *RedactRecordingWorker) Timeout(*river.Job[jobs.RedactRecordingArgs]) time.Duration {
	return 30 * time.Minute
}

// Work implements river.Worker. It cancels the job when the task or its
// recording is gone.
func (w *RedactRecordingWorker) Work(ctx context.Context, job *river.Job[jobs.RedactRecordingArgs]) error {
	uuid := job.Args.TaskUUID
	task, err := db.TaskGetByUUID(ctx, w.pool, uuid)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("task %s no longer exists", uuid))
	}
	if err != nil {
		return err
	}
	if task.Kind != db.TaskCall {
		return river.JobCancel(fmt.Errorf("task %s is a chat: its file is redacted at upload", uuid))
	}
	at, err := db.TaskBlobRedactedAt(ctx, w.pool, uuid)
	if err != nil || at != nil {
		return err
	}
	recs, err := db.RedactionsList(ctx, w.pool, uuid)
	if err != nil || len(recs) == 0 {
		return err
	}
	dir, err := os.MkdirTemp(w.workDir, "redact-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path, err := w.mute(ctx, task, recs, dir)
	if errors.Is(err, storage.ErrNotFound) {
		return river.JobCancel(err)
	}
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	key := storage.NewKey(time.Now())
	if err := w.put(ctx, key, f); err != nil {
		return err
	}
	var swapped bool
	err = pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) (err error) {
		swapped, err = db.TaskBlobSwap(ctx, tx, uuid, task.BlobKey, key, st.Size(), media.MutedContentType)
		return err
	})
	if err != nil {
		// The commit's outcome may be unknown: the sweeper deletes
		// whichever blob ends up unreferenced.
		return err
	}
	gone := task.BlobKey
	if !swapped {
		gone = key // another run swapped first
	}
	if err := w.store.Delete(ctx, gone); err != nil {
		w.log.WarnContext(ctx, "redact_recording: a blob no task refers to is left for the sweeper", "task", uuid, "key", gone, "error", err)
	}
	return nil
}

// mute fetches task's recording into dir and writes its copy with the
// spans of recs silenced.
func (w *RedactRecordingWorker) mute(ctx context.Context, task db.Task, recs []redact.Record, dir string) (string, error) {
	var spans []media.Span
	for _, r := range recs {
		if r.AudioStart != nil && r.AudioEnd != nil {
			spans = append(spans, media.Span{Start: seconds(*r.AudioStart), End: seconds(*r.AudioEnd)})
		}
	}
	path, err := fetchBlob(ctx, w.store, task.BlobKey, dir)
	if err != nil {
		return "", err
	}
	return media.Mute(ctx, path, dir, spans)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// put writes content as the blob key.
func (w *RedactRecordingWorker) put(ctx context.Context, key string, content io.Reader) error {
	bw, err := w.store.Create(ctx, key)
	if err != nil {
		return err
	}
	if _, err := io.Copy(bw, content); err != nil {
		_ = bw.Close()
		return err
	}
	return bw.Close()
}
