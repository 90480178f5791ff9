// Package revision is how a task's audit changes after the engine audited
// it: an edit (an analyst's, through the API; the confirmation or change of
// pending verdicts; a dispute's accepted criteria; a calibration session's
// calibrated answers) is recorded with the recompute_audit job that applies
// it, in the caller's transaction (Record), and that job makes it the next
// revision (Apply). Revisions are append-only; each is appended after the
// one its task shows as current, with the diff from it and its
// audit.updated event (Append).
//
// Rules: an analyst edits an audited task's current revision only (an
// edit based on an older revision, or of a task not audited or already
// validated, is refused); an edit resolving a dispute changes a validated
// audit, on the revision the dispute was resolved on, scored against that
// revision's scorecard and passing score; any other edit is scored against
// the campaign's current scorecard. Edits apply in the order they were
// made, each once. The review state a revision leaves its task in is the
// review package's rule.
package revision

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/scoring"
)

// Check says whether an analyst's edit based on revision base (zero:
// whichever is current) may apply to task's audit: a Conflict error, with
// the current revision in its details when base is not current,
// otherwise nil.
func Check(task db.Task, base int) error {
	current := 0
	if task.AuditRevision != nil {
		current = *task.AuditRevision
	}
	return lifecycle.CheckEdit(task, current, base)
}

// Record records edit e of a task's audit (its ID, status and times are
// assigned) with the recompute_audit job that applies it, in tx, after
// locking the task and checking that the edit may apply: an analyst's
// edit as Check says, an edit resolving a dispute (DisputeID set) on the
// validated audit's current revision. It returns the stored edit and the
// job's id; a Conflict error when the edit may not apply, a NotFound error
// for an unknown task.
func Record(ctx context.Context, tx pgx.Tx, client *river.Client[pgx.Tx], e db.AuditEdit) (db.AuditEdit, int64, error) {
	task, err := db.TaskLock(ctx, tx, e.TaskUUID)
	if err != nil {
		return db.AuditEdit{}, 0, err
	}
	// Checked on the locked row: it may have changed since the caller read it.
	if e.DisputeID != "" {
		err = lifecycle.CheckResolution(task, revisionOf(task), e.BasedOn)
	} else {
		err = Check(task, e.BasedOn)
	}
	if err != nil {
		return db.AuditEdit{}, 0, err
	}
	stored, err := db.AuditEditInsert(ctx, tx, e)
	if err != nil {
		return db.AuditEdit{}, 0, err
	}
	res, err := client.InsertTx(ctx, tx, jobs.RecomputeAuditArgs{EditID: stored.ID, TaskUUID: e.TaskUUID}, nil)
	if err != nil {
		return db.AuditEdit{}, 0, err
	}
	return stored, res.Job.ID, nil
}

// revisionOf is task's current revision, zero before its audit.
func revisionOf(task db.Task) int {
	if task.AuditRevision == nil {
		return 0
	}
	return *task.AuditRevision
}

// Append appends rev (its Result set) as the next revision of task's audit
// after prev, the current one, with the diff from prev, and queues its
// audit.updated event in out. Call it in the transaction that locked the
// task. It returns the stored revision and the task as it is now.
func Append(ctx context.Context, tx pgx.Tx, task db.Task, prev db.AuditRevision, rev db.AuditRevision, out *Outbox) (db.AuditRevision, db.Task, error) {
	rev.TaskUUID = task.UUID
	stored, err := db.AuditAppendAfter(ctx, tx, prev, rev)
	if err != nil {
		return db.AuditRevision{}, db.Task{}, err
	}
	updated, err := db.TaskGetByUUID(ctx, tx, task.UUID)
	if err != nil {
		return db.AuditRevision{}, db.Task{}, err
	}
	out.audits = append(out.audits, auditEvent{task: updated, rev: stored, before: prev.Result.Score})
	return stored, updated, nil
}

// Outbox gathers what a transaction tells clients, to write last in it:
// writing an event takes a lock that is held until the transaction ends.
type Outbox struct {
	audits []auditEvent
	notes  []db.NotificationNew
}

type auditEvent struct {
	task   db.Task
	rev    db.AuditRevision
	before float64
}

// Notify queues a notification to user about task.
func (o *Outbox) Notify(user string, task db.Task, variant string, text l10n.Text) {
	o.notes = append(o.notes, lifecycle.Notice(user, task, variant, text))
}

// Add queues what other gathered, after what o has: what a savepoint that
// committed wrote.
func (o *Outbox) Add(other Outbox) {
	o.audits = append(o.audits, other.audits...)
	o.notes = append(o.notes, other.notes...)
}

// Flush writes the audit events, then the notifications (with theirs).
func (o *Outbox) Flush(ctx context.Context, tx pgx.Tx) error {
	for _, e := range o.audits {
		if err := db.AuditEventInsert(ctx, tx, e.task, e.rev, &e.before); err != nil {
			return err
		}
	}
	for _, n := range o.notes {
		if _, err := db.NotificationCreate(ctx, tx, n); err != nil {
			return err
		}
	}
	return nil
}

// Describe describes a result for people: "85.00, passed (passing score
// 80.00)", or for a provisional one what is pending and the range it can
// still take: never a 0 or a fail that nobody decided.
func Describe(r scoring.Result) l10n.Text {
	if len(r.Pending) > 0 {
		var questions []string
		for _, it := range r.Items {
			if it.NeedsReview {
				questions = append(questions, strconv.Quote(it.Question))
			}
		}
		return l10n.T("pending review: %d verdict(s) to confirm (%s); the score can still be between %.2f and %.2f",
			len(r.Pending), strings.Join(questions, ", "), *r.ScoreMin, *r.ScoreMax)
	}
	if r.Passed {
		return l10n.T("%.2f, passed (passing score %.2f)", r.Score, r.PassingScore)
	}
	return l10n.T("%.2f, did not pass (passing score %.2f)", r.Score, r.PassingScore)
}
