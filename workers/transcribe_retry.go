package workers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"time"

	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/workers/asr"
)

// NextRetry implements river.Worker: when the failed attempt is retried,
// the time it recorded on the task as the next attempt's (retrying), so that
// what the task says is what River does; zero (the client's policy) when
// it recorded none.
func (w *TranscribeWorker) NextRetry(job *river.Job[jobs.TranscribeArgs]) time.Time {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	task, err := db.TaskGetByUUID(ctx, w.pool, job.Args.TaskUUID)
	if err != nil || task.Retry == nil || task.Retry.Attempt != job.Attempt {
		return time.Time{}
	}
	return task.Retry.NextAt
}

// retrying records on task that job's attempt did not finish, for err
// (the job's time limit, limit, when timedOut), and that the next is due
// at next, with the task.updated event that shows analysts. It does so
// even once the job's context has ended (a timeout). A task no longer
// transcribing is left as it is.
func (w *TranscribeWorker) retrying(ctx context.Context, job *river.Job[jobs.TranscribeArgs], task db.Task, err error,
	timedOut bool, limit time.Duration, next time.Time) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	reason, msg := retryReason(err, timedOut, limit, job.ID)
	_, err = db.TaskSetRetry(ctx, w.pool, task.UUID, db.TaskRetry{Attempt: job.Attempt, MaxAttempts: job.MaxAttempts,
		Reason: reason, Error: msg, NextAt: next.UTC().Truncate(time.Millisecond)})
	if err != nil && !errors.Is(err, db.ErrTaskStatus) {
		return fmt.Errorf("recording the retry: %w", err)
	}
	return nil
}

// retryReason says why an attempt that will be retried did not finish
// (db.TaskRetry's Reason and Error): in words of ours, with the speech
// server's own explanation where it gave one, never a library's text (a
// network error's names the server's address).
func retryReason(err error, timedOut bool, limit time.Duration, jobID int64) (reason, message string) {
	if timedOut {
		return db.RetryTimeout, fmt.Sprintf("the transcription took longer than its time limit (%s)", limit)
	}
	r, ok := errors.AsType[*asr.RetryableError](err)
	if !ok {
		return db.RetryInternal, fmt.Sprintf("an error of ours, not the speech server's (job %d; see the worker logs)", jobID)
	}
	status := fmt.Sprintf("%d %s", r.StatusCode, http.StatusText(r.StatusCode))
	switch {
	case r.StatusCode == http.StatusTooManyRequests:
		return db.RetryBusy, "the speech server is busy (" + status + ")" + serverSaid(r)
	case r.StatusCode == http.StatusRequestTimeout:
		return db.RetryTimeout, "the speech server gave up waiting for the recording (" + status + ")"
	case r.StatusCode >= 500:
		return db.RetryServerError, "the speech server answered " + status + serverSaid(r)
	case r.StatusCode != 0:
		return db.RetryBadAnswer, "the speech server's answer was not a transcript"
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
		return db.RetryTimeout, "the speech server did not answer within a request's time limit (ASR_TIMEOUT)"
	}
	return db.RetryUnreachable, "the speech server could not be reached"
}

// serverSaid is the explanation the server gave with its answer, as ":
// …", without addresses (which may carry credentials), or "" when it gave
// none beyond the status.
func serverSaid(r *asr.RetryableError) string {
	said := r.Err.Error()
	if said == "" || said == fmt.Sprintf("%d %s", r.StatusCode, http.StatusText(r.StatusCode)) {
		return ""
	}
	return ": " + truncate(address.ReplaceAllString(said, "(an address)"), 300)
}

// address matches a URL, or a host:port, in a server's message.
var address = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://\S+|\b[\w.-]+:\d{2,5}\b`)
