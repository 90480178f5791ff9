package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/webhook"
)

// permanentError marks an error no retry can fix.
type permanentError struct{ error }

func (p permanentError) Unwrap() error { return p.error }

// permanent marks err as final, and as fit to show users.
func permanent(err error) error { return permanentError{&reportable{err}} }

// ErrPermanent reports whether err cannot succeed on retry: an error this
// package marked so, or one with a method Permanent() bool that says so
// (how engines in their own packages, such as auditor/llm, tell it).
func ErrPermanent(err error) bool {
	var p permanentError
	if errors.As(err, &p) {
		return true
	}
	var self interface{ Permanent() bool }
	return errors.As(err, &self) && self.Permanent()
}

// maxEngineSnoozes bounds how often a job waits for an engine that asked it to
// (a snooze uses no attempt); after that its errors count as attempts.
const maxEngineSnoozes = 10

// retryLater returns what a job that failed with a transient err returns
// to River. An engine error with a method RetryDelay() time.Duration (a
// server that answered 429 or 5xx, or could not be reached) snoozes the job
// for the delay the server asked for, or else for the engine backoff; any
// other error is returned as it is, and River retries it with its own
// backoff until the job's attempts run out.
func (b Backoff) retryLater(ctx context.Context, pool *pgxpool.Pool, job *rivertype.JobRow, err error) error {
	var wait interface{ RetryDelay() time.Duration }
	if !errors.As(err, &wait) {
		return err
	}
	n := snoozes(job)
	if n >= maxEngineSnoozes {
		return err
	}
	d := wait.RetryDelay()
	if d <= 0 {
		d = b.engine(n)
	}
	return snooze(ctx, pool, job, min(d, maxRetryAfter))
}

// settle returns what a job whose engine work failed with err returns to
// River: when err is permanent or the job is on its last attempt, fail
// records the failure and the job is cancelled; otherwise it runs again
// later (retryLater).
func (b Backoff) settle(ctx context.Context, pool *pgxpool.Pool, job *rivertype.JobRow, err error, fail func() error) error {
	if !ErrPermanent(err) && job.Attempt < job.MaxAttempts {
		return b.retryLater(ctx, pool, job, err)
	}
	if ferr := fail(); ferr != nil {
		return ferr
	}
	return river.JobCancel(err)
}

// auditTimeout bounds an audit (or recompute_audit) job of auditor a: the
// longest its engine may take (an LLM auditor's few requests, LLM_TIMEOUT
// each), plus time for the database. A worker killed mid-audit has its job
// run again only after this, so it is no longer than it must be.
func auditTimeout(a auditor.Engine) time.Duration {
	const margin = 30 * time.Second
	if bounded, ok := a.(interface{ MaxDuration() time.Duration }); ok {
		return bounded.MaxDuration() + margin
	}
	return margin
}

// AuditWorker audits a transcribed task against its campaign's current
// scorecard and stores revision 1 of its audit.
type AuditWorker struct {
	river.WorkerDefaults[jobs.AuditArgs]
	pool    *pgxpool.Pool
	auditor auditor.Engine
	cards   *scorecards
	review  float64
	backoff Backoff
}

// Timeout implements river.Worker.
func (w *AuditWorker) Timeout(*river.Job[jobs.AuditArgs]) time.Duration {
	return auditTimeout(w.auditor)
}

// Work implements river.Worker. It is idempotent: a task already audited
// is left as it is.
func (w *AuditWorker) Work(ctx context.Context, job *river.Job[jobs.AuditArgs]) error {
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
		if task, err = retried(ctx, w.pool, task, lifecycle.RetryAudit); err != nil {
			return err
		}
	}
	switch task.Status {
	case pipeline.Audited, pipeline.Validated:
		return nil
	case pipeline.Transcribed:
		// A slow engine's audit shows as auditing while it runs; a quick
		// one's goes to audited in the write that stores it (one commit
		// and two writes of the task fewer on the path every task takes).
		if slow, ok := w.auditor.(interface{ Slow() bool }); ok && slow.Slow() {
			err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
				_, err := lifecycle.Move(ctx, tx, task.UUID, lifecycle.Audit, lifecycle.With{Attempt: job.Attempt})
				return err
			})
			if err != nil {
				return err
			}
			task.Status = pipeline.Auditing
		}
	case pipeline.Auditing:
	default:
		return river.JobCancel(fmt.Errorf("task %s is %s: nothing to audit", task.UUID, task.Status))
	}

	result, err := w.audit(ctx, task)
	if err != nil {
		return w.backoff.settle(ctx, w.pool, job.JobRow, err, func() error {
			reason := describe(err, job.ID)
			return failTask(ctx, w.pool, task, lifecycle.FailAudit, l10n.T("The audit of %s failed: %s.", task.FileName, reason),
				"audit: "+reason, job.Attempt)
		})
	}
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		audited, err := lifecycle.Finish(ctx, tx, db.AuditRevision{TaskUUID: task.UUID, Result: result,
			Source: db.AuditByEngine, Engine: w.auditor.Name()}, lifecycle.With{Attempt: job.Attempt})
		if err != nil {
			return err
		}
		if err := webhook.Queue(ctx, tx, client, webhook.Audited(audited, result)...); err != nil {
			return err
		}
		return notifyAudited(ctx, tx, task, result)
	})
}

// errNoTranscript is an audit of a task without a transcript.
var errNoTranscript = errors.New("the task has no transcript")

// engineError marks what an auditor's engine reported (a server down or
// slow, a refusal, answers that make no sense) as meant for users too; the
// job's own end (its context) is not.
func engineError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	return &reportable{err}
}

// audit runs the engine and scores its verdicts.
func (w *AuditWorker) audit(ctx context.Context, task db.Task) (scoring.Result, error) {
	tr, err := db.TranscriptGet(ctx, w.pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return scoring.Result{}, permanent(errNoTranscript)
	}
	if err != nil {
		return scoring.Result{}, err
	}
	campaign, card, err := w.cards.current(ctx, w.pool, task)
	if err != nil {
		return scoring.Result{}, err
	}
	lang := auditLanguage(tr, task, campaign)
	result, err := auditor.Judge(ctx, w.auditor, card.Scorecard, task.Kind, tr, lang, campaign.PassingScore, w.review)
	if err != nil {
		return scoring.Result{}, engineError(ctx, err)
	}
	// What an unreliable transcript cannot carry needs review, and the
	// score counts it as such.
	if verdicts, _ := scoring.Merge(card.Scorecard, task.Kind, result.Verdicts()); distrust(verdicts, tr.Quality) {
		if result, err = scoring.Score(card.Scorecard.In(lang), task.Kind, verdicts, campaign.PassingScore); err != nil {
			return scoring.Result{}, permanent(err)
		}
	}
	return result, nil
}

// auditLanguage is the language an engine explains itself in: the
// transcript's, else the task's (taskLanguage).
func auditLanguage(tr transcript.Transcript, task db.Task, campaign db.Campaign) string {
	return cmp.Or(tr.Language, taskLanguage(task, campaign))
}

// taskLanguage is the language of task's interaction as its row says: its
// own, else its campaign's. A recomputed audit's items read their
// questions in it (scoring.Scorecard.In), as the audit's did.
func taskLanguage(task db.Task, campaign db.Campaign) string {
	return cmp.Or(task.Language, campaign.Language)
}

// notifyAudited tells task's uploader how its audit came out, and that
// its verdicts wait for an analyst when its transcript is unreliable.
func notifyAudited(ctx context.Context, tx pgx.Tx, task db.Task, r scoring.Result) error {
	variant := "success"
	switch {
	case len(r.Pending) > 0:
		variant = "info"
	case !r.Passed:
		variant = "warning"
	}
	text := l10n.T("%s was audited: %s.", task.FileName, revision.Describe(r))
	if task.TranscriptUnreliable != "" {
		variant = "warning"
		text = text.And(" Its transcript is unreliable (%s): every automatic verdict needs an analyst's review.",
			unreliable(task.TranscriptUnreliable))
	}
	_, err := db.NotificationCreate(ctx, tx, lifecycle.Notice(task.UploadedBy, task, variant, text))
	return err
}

// retried takes failed task through step, the retry of the work this job
// does, when that is where the task failed, and returns the task as it
// then is; a task that failed elsewhere is returned as it is.
func retried(ctx context.Context, pool *pgxpool.Pool, task db.Task, step lifecycle.Step) (db.Task, error) {
	retry, err := lifecycle.RetryOf(ctx, pool, task)
	if err != nil || retry.Name() != step.Name() {
		return task, err
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) (err error) {
		task, err = lifecycle.Move(ctx, tx, task.UUID, step, lifecycle.With{})
		return err
	})
	if errors.Is(err, db.ErrTaskStatus) {
		return db.TaskGetByUUID(ctx, pool, task.UUID) // retried meanwhile
	}
	return task, err
}
