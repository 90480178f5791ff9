// Package lifecycle is a task's life from upload to validation: the one
// table of the changes of status the business allows, and the notices
// about a task. Every change of a task's status goes through Move (or
// Finish, which stores the audit in the same write), which records it in
// the task's history and writes its task.updated event in the caller's
// transaction; api/ and workers/ name a Step and never a status to move
// from. It also says which audit may still change (CheckEdit,
// CheckResolution) and retries a failed task with the job that redoes its
// stage (RetryTask).
//
// A call is queued, transcribing, transcribed, auditing, audited, then
// validated; a chat starts transcribed. A call goes back to queued while
// no speech engine can take it (Wait). Any step before audited may fail; a
// failed task is retried from the start of the stage it failed in: a call
// whose transcription failed from queued, a task whose audit failed from
// transcribed.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/pipeline"
)

// Step is one change of status the business allows: from any of its
// statuses to its status. The steps are the package's variables; a Step
// made elsewhere is the zero Step, which Move refuses.
type Step struct {
	name string
	from []pipeline.Status
	to   pipeline.Status
}

// The steps of a task's life.
var (
	// Wait leaves a call queued, with why: no speech engine can take it.
	Wait = Step{"wait for a speech engine", []pipeline.Status{pipeline.Queued, pipeline.Transcribing}, pipeline.Queued}
	// Transcribe starts transcribing a queued call.
	Transcribe = Step{"start transcribing", []pipeline.Status{pipeline.Queued}, pipeline.Transcribing}
	// Transcribed stores a call's transcript; the audit comes next.
	Transcribed = Step{"finish transcribing", []pipeline.Status{pipeline.Transcribing}, pipeline.Transcribed}
	// Audit starts auditing a transcribed task.
	Audit = Step{"start auditing", []pipeline.Status{pipeline.Transcribed}, pipeline.Auditing}
	// Audited stores the automatic audit.
	Audited = Step{"finish auditing", []pipeline.Status{pipeline.Auditing}, pipeline.Audited}
	// Validate is an analyst's validation of an audited task.
	Validate = Step{"validate", []pipeline.Status{pipeline.Audited}, pipeline.Validated}
	// FailTranscription fails a call that could not be transcribed.
	FailTranscription = Step{"fail the transcription", []pipeline.Status{pipeline.Queued, pipeline.Transcribing}, pipeline.Failed}
	// FailAudit fails a task that could not be audited.
	FailAudit = Step{"fail the audit", []pipeline.Status{pipeline.Transcribed, pipeline.Auditing}, pipeline.Failed}
	// RetryTranscription queues a failed call to be transcribed again.
	RetryTranscription = Step{"retry the transcription", []pipeline.Status{pipeline.Failed}, pipeline.Queued}
	// RetryAudit takes a failed task back to transcribed, to be audited again.
	RetryAudit = Step{"retry the audit", []pipeline.Status{pipeline.Failed}, pipeline.Transcribed}
)

// Steps is the table: every change of status there is, in the order of a
// task's life.
func Steps() []Step {
	return []Step{Wait, Transcribe, Transcribed, Audit, Audited, Validate,
		FailTranscription, FailAudit, RetryTranscription, RetryAudit}
}

// Name says what the step does ("start transcribing").
func (s Step) Name() string { return s.name }

// From lists the statuses the step starts from.
func (s Step) From() []pipeline.Status { return slices.Clone(s.from) }

// To is the status the step ends in.
func (s Step) To() pipeline.Status { return s.to }

// Retry returns the step that retries a failed task of kind, which failed
// at the step that left status failedFrom ("" when its history does not
// say): a call that failed before its transcript existed is transcribed
// again, anything else audited again.
func Retry(kind string, failedFrom pipeline.Status) Step {
	if kind == db.TaskCall && (failedFrom == "" || failedFrom == pipeline.Queued || failedFrom == pipeline.Transcribing) {
		return RetryTranscription
	}
	return RetryAudit
}

// RetryOf returns the step that retries failed task, from its history:
// the status it left for failed says where it failed.
func RetryOf(ctx context.Context, q db.DBTX, task db.Task) (Step, error) {
	history, err := db.TaskHistory(ctx, q, task.UUID)
	if err != nil {
		return Step{}, err
	}
	var failedFrom pipeline.Status
	for _, c := range history {
		if c.To == pipeline.Failed {
			failedFrom = c.From
		}
	}
	return Retry(task.Kind, failedFrom), nil
}

// RetryTask sends failed task back to the step it failed at and queues the
// job that step needs (transcribe for a call that failed before its
// transcript, audit otherwise), through rc in tx: POST
// /tasks/{uuid}/retry, and a bulk retry for each of its tasks. A task that
// has not failed, or changed meanwhile, is a Conflict error. It returns
// the task as it then is.
func RetryTask(ctx context.Context, tx pgx.Tx, rc *river.Client[pgx.Tx], task db.Task) (db.Task, error) {
	if task.Status != pipeline.Failed {
		return db.Task{}, errcode.New(errcode.Conflict, "task %s is %s; only a failed task can be retried", task.UUID, task.Status)
	}
	retry, err := RetryOf(ctx, tx, task)
	if err != nil {
		return db.Task{}, err
	}
	next := river.JobArgs(jobs.AuditArgs{TaskUUID: task.UUID})
	if retry.To() == pipeline.Queued {
		next = jobs.TranscribeArgs{TaskUUID: task.UUID}
	}
	if _, err := rc.InsertTx(ctx, tx, next, nil); err != nil {
		return db.Task{}, err
	}
	changed, err := Move(ctx, tx, task.UUID, retry, With{})
	if errors.Is(err, db.ErrTaskStatus) {
		return db.Task{}, errcode.New(errcode.Conflict, "task %s changed meanwhile; only a failed task can be retried", task.UUID)
	}
	return changed, err
}

// With is what a change records besides the statuses.
type With struct {
	// Error is why the task failed, or why a call waits; "" clears it.
	Error string
	// Attempt is the attempt of the job making the change; zero keeps the
	// task's count.
	Attempt int
}

// Move takes task uuid through step s, in q (the caller's transaction). It
// returns the changed task, a NotFound error, or a Conflict error wrapping
// db.ErrTaskStatus when the task is not in a status s starts from.
func Move(ctx context.Context, q db.DBTX, uuid string, s Step, w With) (db.Task, error) {
	if s.to == "" {
		return db.Task{}, fmt.Errorf("lifecycle: not a step of the table")
	}
	return db.TaskTransition(ctx, q, uuid, s.change(w))
}

// Finish stores a's revision, the automatic audit, and takes its task
// through Audited, and through Audit first when it is still transcribed (a
// quick engine's audit never shows as auditing), in one write of the task
// in tx. It returns the task as it then is, or a Conflict error wrapping
// db.ErrTaskStatus when the task is neither transcribed nor auditing.
func Finish(ctx context.Context, tx pgx.Tx, a db.AuditRevision, w With) (db.Task, error) {
	return db.AuditAppendAndMove(ctx, tx, a, []db.TaskChange{Audit.change(w), Audited.change(w)})
}

func (s Step) change(w With) db.TaskChange {
	return db.TaskChange{From: s.from, To: s.to, Error: w.Error, Attempt: w.Attempt}
}

// Link is where the dashboard shows task uuid, under its own prefix; a
// notification's link and an e-mail's (after the dashboard's address).
func Link(uuid string) string { return "/tasks/" + uuid }

// Notice is a notification to user about task, linking to it. Variant is
// success, info, warning or error.
func Notice(user string, task db.Task, variant string, text l10n.Text) db.NotificationNew {
	return db.NotificationNew{UserID: user, Text: text, Variant: variant, Link: Link(task.UUID), TaskUUID: &task.UUID}
}

// CheckEdit says whether an edit based on revision base (zero: whichever
// is current) may apply to task's audit, whose current revision is current
// (zero: none yet): only an audited task's, and only its current revision.
// It is a Conflict error saying why not, whose details name the current
// revision when the edit was based on another. revision.Record asks when
// the edit is recorded, revision.Apply again when it applies it.
func CheckEdit(task db.Task, current, base int) error {
	switch {
	case task.Status == pipeline.Validated:
		return errcode.New(errcode.Conflict, "task %s is validated: its audit can no longer be edited", task.UUID)
	case current == 0:
		return errcode.New(errcode.Conflict, "task %s has no audit yet (it is %s); edit it once it is audited", task.UUID, task.Status)
	case task.Status != pipeline.Audited:
		return errcode.New(errcode.Conflict, "task %s is %s; only an audited task can be edited", task.UUID, task.Status)
	case base != 0 && base != current:
		return stale(errcode.New(errcode.Conflict, "the edit is based on revision %d of the audit, but revision %d is current: "+
			"review the current one and edit again", base, current), current)
	}
	return nil
}

// CheckResolution says whether the edit that resolves a dispute, based on
// revision base, may apply to task's audit, whose current revision is
// current. A dispute is of a validated audit, which stays validated: the
// edit applies to such an audit, on the revision current when the dispute
// was resolved. It is a Conflict error as CheckEdit's.
func CheckResolution(task db.Task, current, base int) error {
	switch {
	case task.Status != pipeline.Validated:
		return errcode.New(errcode.Conflict, "task %s is %s; a dispute's resolution changes a validated audit", task.UUID, task.Status)
	case base != current:
		return stale(errcode.New(errcode.Conflict, "the resolution is based on revision %d of the audit, but revision %d is current",
			base, current), current)
	}
	return nil
}

// stale is e, the refusal of an edit based on a revision that is no longer
// current, naming the current one for a program.
func stale(e *errcode.Error, current int) *errcode.Error {
	return e.With(map[string]any{"current_revision": current})
}
