package workers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/scoring"
)

// errChangedMeanwhile means the audit or the scorecard changed between
// judging the criteria that lacked a verdict and storing the revision;
// the next attempt starts again from what is current.
var errChangedMeanwhile = errors.New("the audit or the scorecard changed while it was being recomputed; trying again")

// engineVerdicts runs the auditor on task for the criteria of card listed
// in missing (those no revision or edit judges: after a scorecard change,
// the criteria the previous revision does not have) and returns its
// verdicts by criterion id, those whose confidence is below review, or
// that an unreliable transcript cannot carry (distrust), marked as needing
// an analyst's review, as the automatic audit marks its own;
// nil when nothing is missing, so the common case runs no engine at all.
// The verdicts kept from earlier revisions keep the marks they were given.
func engineVerdicts(ctx context.Context, pool *pgxpool.Pool, engine auditor.Engine, review float64, task db.Task, campaign db.Campaign,
	card db.Scorecard, missing []string) (map[string]scoring.Verdict, error) {
	if len(missing) == 0 {
		return nil, nil
	}
	tr, err := db.TranscriptGet(ctx, pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return nil, permanent(fmt.Errorf("the task has no transcript to judge %s", strings.Join(missing, ", ")))
	}
	if err != nil {
		return nil, err
	}
	sub := card
	sub.Scorecard = card.Subset(missing)
	verdicts, err := engine.Audit(ctx, sub.Scorecard, task.Kind, tr, auditLanguage(tr, task, campaign))
	if err != nil {
		return nil, engineError(ctx, err)
	}
	scoring.Review(verdicts, review)
	distrust(verdicts, tr.Quality)
	out := make(map[string]scoring.Verdict, len(verdicts))
	for _, v := range verdicts {
		out[v.CriterionID] = v
	}
	return out, nil
}

// revise appends rev (its Result set) as the next revision of task's audit
// after prev, with the diff from prev, and queues its audit.updated event in
// out. Call it in the transaction that locked the task. It returns the
// stored revision and the task as it is now.
func revise(ctx context.Context, tx pgx.Tx, task db.Task, prev db.AuditRevision, rev db.AuditRevision, out *outbox) (db.AuditRevision, db.Task, error) {
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

// outbox gathers what a transaction tells clients, to write last in it:
// writing an event takes a lock that is held until the transaction ends.
type outbox struct {
	audits []auditEvent
	notes  []db.NotificationNew
}

type auditEvent struct {
	task   db.Task
	rev    db.AuditRevision
	before float64
}

// notify queues a notification to user about task.
func (o *outbox) notify(user string, task db.Task, variant string, text l10n.Text) {
	o.notes = append(o.notes, lifecycle.Notice(user, task, variant, text))
}

// flush writes the audit events, then the notifications (with theirs).
func (o *outbox) flush(ctx context.Context, tx pgx.Tx) error {
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

// verdict describes a result for people: "85.00, passed (passing score
// 80.00)", or for a provisional one what is pending and the range it can
// still take: never a 0 or a fail that nobody decided.
func verdict(r scoring.Result) l10n.Text {
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

// RecomputeAuditWorker applies analysts' edits (recorded by POST
// /compute-audit-results): each becomes a revision scored against the
// campaign's current scorecard.
type RecomputeAuditWorker struct {
	river.WorkerDefaults[jobs.RecomputeAuditArgs]
	pool    *pgxpool.Pool
	auditor auditor.Engine
	cards   *scorecards
	review  float64
	backoff Backoff
}

// Timeout implements river.Worker.
func (w *RecomputeAuditWorker) Timeout(*river.Job[jobs.RecomputeAuditArgs]) time.Duration {
	return auditTimeout(w.auditor)
}

// Work implements river.Worker. It applies the task's pending edits up to
// its own, oldest first, so edits made one after the other become
// revisions in that order whichever job runs first. Each edit's verdicts
// replace the current revision's for the criteria it names; the others
// keep theirs; criteria of the current scorecard that the current revision
// lacks are judged by the auditor. An edit is applied once: its row
// records the revision it became, and a job whose edit is resolved
// already does nothing. An edit that can no longer apply (the task was
// validated, the revision it was based on is no longer current, the
// scorecard dropped a criterion it judges) is rejected with the reason;
// the editor is told either way.
func (w *RecomputeAuditWorker) Work(ctx context.Context, job *river.Job[jobs.RecomputeAuditArgs]) error {
	edit, err := db.AuditEditGet(ctx, w.pool, job.Args.EditID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("edit %d no longer exists", job.Args.EditID))
	}
	if err != nil {
		return err
	}
	if edit.Status != db.EditPending {
		return nil
	}
	if err := w.apply(ctx, edit); err != nil {
		return w.backoff.settle(ctx, w.pool, job.JobRow, err, func() error { return w.fail(ctx, edit, err) })
	}
	return nil
}

func (w *RecomputeAuditWorker) apply(ctx context.Context, edit db.AuditEdit) error {
	task, err := db.TaskGetByUUID(ctx, w.pool, edit.TaskUUID)
	if err != nil {
		return err
	}
	campaign, card, err := w.cards.current(ctx, w.pool, task)
	if err != nil {
		return err
	}
	current, err := db.AuditCurrent(ctx, w.pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return permanent(errors.New("the task has no audit to edit"))
	}
	if err != nil {
		return err
	}
	// The engine judges, before the transaction, what the current
	// revision and an edit to apply both lack.
	pending, err := db.AuditEditsPending(ctx, w.pool, task.UUID, edit.ID)
	if err != nil || len(pending) == 0 {
		return err // none: applied meanwhile by another job
	}
	var missing []string
	for _, e := range pending {
		edited, _, err := editCard(ctx, w.pool, campaign, card, current, e)
		if err != nil {
			return err
		}
		_, m := scoring.Merge(edited.Scorecard, task.Kind, editVerdicts(e, current), current.Result.Verdicts())
		missing = append(missing, m...)
	}
	slices.Sort(missing)
	engine, err := engineVerdicts(ctx, w.pool, w.auditor, w.review, task, campaign, card, slices.Compact(missing))
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		task, err := db.TaskLock(ctx, tx, task.UUID)
		if err != nil {
			return err
		}
		pending, err := db.AuditEditsPending(ctx, tx, task.UUID, edit.ID)
		if err != nil || len(pending) == 0 {
			return err
		}
		campaign, card, err := w.cards.current(ctx, tx, task)
		if err != nil {
			return err
		}
		current, err := db.AuditCurrent(ctx, tx, task.UUID)
		if err != nil {
			return err
		}
		var out outbox
		for _, e := range pending {
			card, passing, err := editCard(ctx, tx, campaign, card, current, e)
			if err != nil {
				return err
			}
			if reason := rejection(task, card, current, e); reason != "" {
				if err := db.AuditEditResolve(ctx, tx, e.ID, db.EditRejected, 0, reason); err != nil {
					return err
				}
				out.notify(e.AuthorID, task, "warning", l10n.T("Your edit of %s was not applied: %s", task.FileName, reason))
				continue
			}
			verdicts, missing := scoring.Merge(card.Scorecard, task.Kind, editVerdicts(e, current), current.Result.Verdicts(), engine)
			if len(missing) > 0 {
				return errChangedMeanwhile
			}
			result, err := scoring.Score(card.Scorecard.In(taskLanguage(task, campaign)), task.Kind, verdicts, passing)
			if err != nil {
				return permanent(err)
			}
			stored, updated, err := revise(ctx, tx, task, current, db.AuditRevision{Result: result,
				Source: db.AuditByAnalyst, AuthorID: e.AuthorID, AuthorName: e.AuthorName, CalibrationSessionID: e.CalibrationSessionID}, &out)
			if err != nil {
				return err
			}
			if err := db.AuditEditResolve(ctx, tx, e.ID, db.EditApplied, stored.Revision, ""); err != nil {
				return err
			}
			out.notify(e.AuthorID, task, "success", l10n.T("Your edit of %s is revision %d of its audit: %s, against scorecard version %d.",
				task.FileName, stored.Revision, verdict(result), result.ScorecardVersion))
			task, current = updated, stored
		}
		return out.flush(ctx, tx)
	})
}

// editCard is what edit e of current is scored against: the campaign's
// current scorecard (card) and passing score, or for an edit that resolves
// a dispute those of the revision it changes, so that only the disputed
// verdicts change.
func editCard(ctx context.Context, q db.DBTX, campaign db.Campaign, card db.Scorecard, current db.AuditRevision,
	e db.AuditEdit) (db.Scorecard, float64, error) {
	if e.DisputeID == "" {
		return card, campaign.PassingScore, nil
	}
	if v := current.Result.ScorecardVersion; v != card.Version {
		var err error
		if card, err = db.ScorecardGet(ctx, q, campaign.ID, v); err != nil {
			return db.Scorecard{}, 0, err
		}
	}
	return card, current.Result.PassingScore, nil
}

// rejection says why edit e cannot apply to task's current revision
// against card, or "" when it can.
func rejection(task db.Task, card db.Scorecard, current db.AuditRevision, e db.AuditEdit) string {
	refused := lifecycle.CheckEdit(task, current.Revision, e.BasedOn)
	if e.DisputeID != "" {
		refused = lifecycle.CheckResolution(task, current.Revision, e.BasedOn)
	}
	if refused != nil {
		return refused.Message
	}
	applies := map[string]bool{}
	for _, c := range card.Applicable(task.Kind) {
		applies[c.ID] = true
	}
	var gone []string
	for _, v := range e.Verdicts {
		if !applies[v.CriterionID] {
			gone = append(gone, v.CriterionID)
		}
	}
	if len(gone) > 0 {
		return fmt.Sprintf("scorecard version %d, published meanwhile, no longer has the criteria %s; review it and edit again",
			card.Version, strings.Join(gone, ", "))
	}
	return ""
}

// editVerdicts are e's verdicts by criterion id. An analyst sends no
// evidence: a verdict that keeps the current one's judgement keeps its
// quote, one that reverses it has none (the quote supported the opposite).
// It has no assessment either, whatever the engine's was: a person decided
// it, so it no longer needs review.
func editVerdicts(e db.AuditEdit, current db.AuditRevision) map[string]scoring.Verdict {
	prev := current.Result.Verdicts()
	out := make(map[string]scoring.Verdict, len(e.Verdicts))
	for _, v := range e.Verdicts {
		if p, ok := prev[v.CriterionID]; ok && p.Complies == v.Complies {
			v.Evidence = p.Evidence
		}
		out[v.CriterionID] = v
	}
	return out
}

// fail records that edit e could not be applied and tells its author.
func (w *RecomputeAuditWorker) fail(ctx context.Context, e db.AuditEdit, cause error) error {
	ctx = context.WithoutCancel(ctx)
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		task, err := db.TaskGetByUUID(ctx, tx, e.TaskUUID)
		if err != nil {
			return err
		}
		reason := truncate(cause.Error(), 1000)
		err = db.AuditEditResolve(ctx, tx, e.ID, db.EditFailed, 0, reason)
		if errcode.Is(err, errcode.NotFound) {
			return nil // resolved meanwhile
		}
		if err != nil {
			return err
		}
		var out outbox
		out.notify(e.AuthorID, task, "error", l10n.T("Your edit of %s could not be applied: %s", task.FileName, reason))
		return out.flush(ctx, tx)
	})
}
