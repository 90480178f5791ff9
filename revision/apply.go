package revision

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/scoring"
)

// ErrChangedMeanwhile means the audit or the scorecard changed between
// judging the criteria that lacked a verdict and storing the revision;
// the next attempt starts again from what is current.
var ErrChangedMeanwhile = errors.New("the audit or the scorecard changed while it was being recomputed; trying again")

// Deps are what Apply reads and runs.
type Deps struct {
	db.Deps
	// Current returns task's campaign and its current scorecard, read
	// through q.
	Current func(ctx context.Context, q db.DBTX, task db.Task) (db.Campaign, db.Scorecard, error)
	// Judge returns the engine's verdicts, by criterion id, on the criteria
	// of card listed in missing (none of an edit or of the current
	// revision judges them), marked for review as the automatic audit
	// marks its own. It is not called when nothing is missing.
	Judge func(ctx context.Context, task db.Task, campaign db.Campaign, card db.Scorecard, missing []string) (map[string]scoring.Verdict, error)
	// Language is the language the questions of task's items are read in.
	Language func(task db.Task, campaign db.Campaign) string
}

// unapplicable is an error no retry can cure; it says so as engines' errors
// do (a method Permanent).
type unapplicable struct{ error }

// Permanent reports that the edit can never apply.
func (unapplicable) Permanent() bool { return true }

func (u unapplicable) Unwrap() error { return u.error }

// Apply makes edit, and the pending edits of its task made before it, the
// next revisions of the task's audit, oldest first, so edits made one after
// the other become revisions in that order whichever job runs first. Each
// edit's verdicts replace the current revision's for the criteria it
// names; the others keep theirs; criteria of the scorecard that the
// current revision lacks are judged by d.Judge, before the transaction. An
// edit is applied once: its row records the revision it became, and an
// edit resolved already is left alone. An edit that can no longer apply
// (the task was validated, the revision it was based on is no longer
// current, the scorecard dropped a criterion it judges) is rejected with
// the reason; the editor is told either way. It returns ErrChangedMeanwhile
// when the audit or the scorecard changed while the engine judged; an error
// with a method Permanent() reporting true when the edit can never apply.
func Apply(ctx context.Context, d Deps, edit db.AuditEdit) error {
	task, err := db.TaskGetByUUID(ctx, d.Pool, edit.TaskUUID)
	if err != nil {
		return err
	}
	engine, more, err := judge(ctx, d, task, edit.ID)
	if err != nil || !more {
		return err
	}
	return pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		task, err := db.TaskLock(ctx, tx, task.UUID)
		if err != nil {
			return err
		}
		pending, err := db.AuditEditsPending(ctx, tx, task.UUID, edit.ID)
		if err != nil || len(pending) == 0 {
			return err
		}
		campaign, card, err := d.Current(ctx, tx, task)
		if err != nil {
			return err
		}
		current, err := db.AuditCurrent(ctx, tx, task.UUID)
		if err != nil {
			return err
		}
		var out Outbox
		for _, e := range pending {
			if task, current, err = applyOne(ctx, tx, d, task, campaign, card, current, e, engine, &out); err != nil {
				return err
			}
		}
		return out.Flush(ctx, tx)
	})
}

// judge runs d.Judge, before any transaction, on what the current revision
// and the pending edits up to upTo of task all lack. more is false when no
// edit is left to apply: applied meanwhile by another job.
func judge(ctx context.Context, d Deps, task db.Task, upTo int64) (engine map[string]scoring.Verdict, more bool, err error) {
	campaign, card, err := d.Current(ctx, d.Pool, task)
	if err != nil {
		return nil, false, err
	}
	current, err := db.AuditCurrent(ctx, d.Pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return nil, false, unapplicable{errors.New("the task has no audit to edit")}
	}
	if err != nil {
		return nil, false, err
	}
	pending, err := db.AuditEditsPending(ctx, d.Pool, task.UUID, upTo)
	if err != nil || len(pending) == 0 {
		return nil, false, err
	}
	var missing []string
	for _, e := range pending {
		edited, _, err := editCard(ctx, d.Pool, campaign, card, current, e)
		if err != nil {
			return nil, false, err
		}
		_, m := scoring.Merge(edited.Scorecard, task.Kind, editVerdicts(e, current), current.Result.Verdicts())
		missing = append(missing, m...)
	}
	if len(missing) == 0 {
		return nil, true, nil // the common case runs no engine at all
	}
	slices.Sort(missing)
	engine, err = d.Judge(ctx, task, campaign, card, slices.Compact(missing))
	return engine, err == nil, err
}

// applyOne applies (or rejects) pending edit e of locked task, whose
// current revision is current, in tx, and returns the task and its current
// revision after it.
func applyOne(ctx context.Context, tx pgx.Tx, d Deps, task db.Task, campaign db.Campaign, card db.Scorecard, current db.AuditRevision,
	e db.AuditEdit, engine map[string]scoring.Verdict, out *Outbox) (db.Task, db.AuditRevision, error) {
	card, passing, err := editCard(ctx, tx, campaign, card, current, e)
	if err != nil {
		return task, current, err
	}
	reason := rejection(task, card, current, e)
	var result scoring.Result
	if reason == "" {
		verdicts, missing := scoring.Merge(card.Scorecard, task.Kind, editVerdicts(e, current), current.Result.Verdicts(), engine)
		if len(missing) > 0 {
			return task, current, ErrChangedMeanwhile
		}
		result, err = scoring.Score(card.Scorecard.In(d.Language(task, campaign)), task.Kind, verdicts, passing)
		switch {
		case errors.Is(err, scoring.ErrAllNotApplicable):
			// Edits made meanwhile left nothing applicable (Applicable
			// refuses an edit that does so by itself).
			reason = err.Error()
		case err != nil:
			return task, current, unapplicable{err}
		}
	}
	if reason != "" {
		if err := db.AuditEditResolve(ctx, tx, e.ID, db.EditRejected, 0, reason); err != nil {
			return task, current, err
		}
		out.Notify(e.AuthorID, task, "warning", l10n.T("Your edit of %s was not applied: %s", task.FileName, reason))
		return task, current, nil
	}
	stored, updated, err := Append(ctx, tx, task, current, db.AuditRevision{Result: result,
		Source: db.AuditByAnalyst, AuthorID: e.AuthorID, AuthorName: e.AuthorName, CalibrationSessionID: e.CalibrationSessionID}, out)
	if err != nil {
		return task, current, err
	}
	if err := db.AuditEditResolve(ctx, tx, e.ID, db.EditApplied, stored.Revision, ""); err != nil {
		return task, current, err
	}
	out.Notify(e.AuthorID, task, "success", l10n.T("Your edit of %s is revision %d of its audit: %s, against scorecard version %d.",
		task.FileName, stored.Revision, Describe(result), result.ScorecardVersion))
	return updated, stored, nil
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
		return errcode.Message(refused)
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

// Applicable checks that edit, verdicts changing current's for an
// interaction of kind scored against card, leaves at least one criterion
// applicable: an Invalid error wrapping scoring.ErrAllNotApplicable when
// every criterion would be not applicable (the audit would have no score),
// otherwise nil.
func Applicable(current scoring.Result, card scoring.Scorecard, kind string, edit []scoring.Verdict) error {
	byID := make(map[string]scoring.Verdict, len(edit))
	for _, v := range edit {
		byID[v.CriterionID] = v
	}
	merged, missing := scoring.Merge(card, kind, byID, current.Verdicts())
	if len(missing) == 0 && scoring.AllNotApplicable(merged) {
		return errcode.Wrap(errcode.Invalid, scoring.ErrAllNotApplicable,
			"the edit would leave every criterion not applicable, and an audit needs at least one that applies to have a score: "+
				"judge at least one as complies or does not comply")
	}
	return nil
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
		if p, ok := prev[v.CriterionID]; ok && p.Complies == v.Complies && p.NotApplicable == v.NotApplicable {
			v.Evidence = p.Evidence
		}
		out[v.CriterionID] = v
	}
	return out
}

// Fail records that edit e could not be applied, for reason, and tells its
// author; an edit resolved meanwhile is left as it is.
func Fail(ctx context.Context, pool *pgxpool.Pool, e db.AuditEdit, reason string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		task, err := db.TaskGetByUUID(ctx, tx, e.TaskUUID)
		if err != nil {
			return err
		}
		err = db.AuditEditResolve(ctx, tx, e.ID, db.EditFailed, 0, reason)
		if errcode.Is(err, errcode.NotFound) {
			return nil // resolved meanwhile
		}
		if err != nil {
			return err
		}
		var out Outbox
		out.Notify(e.AuthorID, task, "error", l10n.T("Your edit of %s could not be applied: %s", task.FileName, reason))
		return out.Flush(ctx, tx)
	})
}
