// Package dispute is an agent's answer to a validated audit: they
// acknowledge it, or dispute chosen criteria with a comment each, within
// the campaign's window; a supervisor then accepts or rejects each
// disputed criterion. Each step is one transaction holding its record, its
// event and the notifications to the other party, and accepting criteria
// queues the audit edit that changes them (a new revision, through the
// recompute_audit job, as an analyst's edit is applied).
//
// Rules: only the task's agent acknowledges or disputes, and only once the
// task is validated; a task has one open dispute at a time; a criterion
// once decided is not disputed again; an acknowledged evaluation is not
// disputed; disputes open for the campaign's dispute_window_days after the
// validation (0 turns them off). The task stays validated when criteria
// are accepted: its validation names the revision it validated, and the
// new revision, scored against that revision's scorecard and passing
// score, is the current one.
package dispute

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/webhook"
)

// Claim is a criterion the agent disputes, with their comment.
type Claim struct {
	CriterionID string
	Comment     string
	// NotApplicable claims that the criterion does not apply, rather
	// than that its verdict is the reverse.
	NotApplicable bool
}

// Decision is a resolver's decision on a disputed criterion: accept
// (give the agent's claim, Reason its new explanation) or reject (Reason is
// the reply).
type Decision struct {
	CriterionID string
	Decision    string
	Reason      string
	// NotApplicable, with accept, makes the criterion not applicable
	// whatever the claim.
	NotApplicable bool
}

// item locates field of a request's i-th item, as the API locates body
// fields.
func item(i int, field string) string { return fmt.Sprintf("body.items[%d].%s", i, field) }

// Window says until when an audit of campaign c validated at validatedAt
// may be disputed; false when the campaign turns disputes off.
func Window(c db.Campaign, validatedAt time.Time) (time.Time, bool) {
	if c.DisputeWindowDays <= 0 {
		return time.Time{}, false
	}
	return validatedAt.AddDate(0, 0, c.DisputeWindowDays), true
}

// name is how notifications name user u.
func name(u db.User) string { return cmp.Or(u.Name, u.Username, u.ID) }

// agentTask locks task uuid if agentID is its agent. Any other task, or
// none, is the same NotFound error, so that ids cannot be probed.
func agentTask(ctx context.Context, tx pgx.Tx, uuid, agentID string) (db.Task, error) {
	task, err := db.TaskLock(ctx, tx, uuid)
	if errcode.Is(err, errcode.NotFound) || (err == nil && task.OperatorID != agentID) {
		return db.Task{}, errcode.New(errcode.NotFound, "you are the agent of no task %s", uuid)
	}
	if err != nil {
		return db.Task{}, err
	}
	if task.Status != pipeline.Validated {
		return db.Task{}, errcode.New(errcode.Conflict, "task %s is %s: its evaluation can be acknowledged or disputed once it is validated",
			uuid, task.Status)
	}
	return task, nil
}

// State is where a task's evaluation stands for its agent.
type State struct {
	Campaign        db.Campaign
	Validation      db.Validation
	Acknowledgement *db.Acknowledgement
	// Disputes are the task's, oldest first.
	Disputes []db.Dispute
	// Until is the end of the window; zero when disputes are off.
	Until time.Time
}

// StateOf reads where validated task stands.
func StateOf(ctx context.Context, q db.DBTX, task db.Task) (State, error) {
	var s State
	var err error
	if s.Campaign, err = db.CampaignGet(ctx, q, task.CampaignID); err != nil {
		return State{}, err
	}
	if s.Validation, err = db.ValidationGet(ctx, q, task.UUID); err != nil {
		return State{}, err
	}
	s.Until, _ = Window(s.Campaign, s.Validation.ValidatedAt)
	switch a, err := db.AcknowledgementGet(ctx, q, task.UUID); {
	case err == nil:
		s.Acknowledgement = &a
	case !errcode.Is(err, errcode.NotFound):
		return State{}, err
	}
	s.Disputes, err = db.DisputesOfTask(ctx, q, task.UUID)
	return s, err
}

// Open returns the task's open dispute, or nil.
func (s State) Open() *db.Dispute {
	for i := range s.Disputes {
		if s.Disputes[i].Status == db.DisputeOpen {
			return &s.Disputes[i]
		}
	}
	return nil
}

// Decided returns the criteria a dispute of the task decided already.
func (s State) Decided() map[string]bool {
	out := map[string]bool{}
	for _, d := range s.Disputes {
		for _, it := range d.Items {
			if it.Decision != "" {
				out[it.CriterionID] = true
			}
		}
	}
	return out
}

// Reason is why the agent may not take a step now: a code a client can
// translate and a message for a person.
type Reason struct {
	// Code is acknowledged, dispute_open, applying, no_disputes or
	// window_closed.
	Code    string
	Message string
}

// CanAcknowledge says why the agent may not acknowledge the evaluation
// now; nil when they may.
func (s State) CanAcknowledge() *Reason {
	switch {
	case s.Acknowledgement != nil:
		return &Reason{"acknowledged", fmt.Sprintf("you acknowledged this evaluation at %s",
			s.Acknowledgement.AcknowledgedAt.UTC().Format(time.RFC3339))}
	case s.Open() != nil:
		return &Reason{"dispute_open", fmt.Sprintf("your dispute %s is open: wait for its outcome", s.Open().ID)}
	}
	return nil
}

// CanDispute says why the agent may not dispute the evaluation at now;
// nil when they may.
func (s State) CanDispute(now time.Time) *Reason {
	if why := s.CanAcknowledge(); why != nil {
		return why
	}
	for _, d := range s.Disputes {
		if d.EditStatus == db.EditPending {
			return &Reason{"applying", fmt.Sprintf("the accepted criteria of your dispute %s are being applied; try again in a moment", d.ID)}
		}
	}
	switch {
	case s.Until.IsZero():
		return &Reason{"no_disputes", fmt.Sprintf("campaign %q does not take disputes (its dispute window is 0 days)", s.Campaign.Name)}
	case !now.Before(s.Until):
		return &Reason{"window_closed", fmt.Sprintf("the window to dispute this evaluation closed at %s, %d days after its validation",
			s.Until.UTC().Format(time.RFC3339), s.Campaign.DisputeWindowDays)}
	}
	return nil
}

// begin locks agentID's validated task uuid in tx and reads where it
// stands; refused says why the step may not be taken (a Conflict error).
func begin(ctx context.Context, tx pgx.Tx, uuid, agentID string, refused func(State) *Reason) (db.Task, State, error) {
	task, err := agentTask(ctx, tx, uuid, agentID)
	if err != nil {
		return db.Task{}, State{}, err
	}
	s, err := StateOf(ctx, tx, task)
	if err != nil {
		return db.Task{}, State{}, err
	}
	if why := refused(s); why != nil {
		return db.Task{}, State{}, errcode.New(errcode.Conflict, "%s", why.Message).With(map[string]any{"reason": why.Code})
	}
	return task, s, nil
}

// Acknowledge records that agent acknowledges their task uuid's
// evaluation, its event, and a notification to the validator. It is a
// NotFound error unless agent is the task's agent, and a Conflict error
// when the task is not validated, is acknowledged already or has an open
// dispute.
func Acknowledge(ctx context.Context, d db.Deps, uuid string, agent db.User) (db.Acknowledgement, error) {
	var ack db.Acknowledgement
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		task, s, err := begin(ctx, tx, uuid, agent.ID, State.CanAcknowledge)
		if err != nil {
			return err
		}
		if ack, err = db.AcknowledgementInsert(ctx, tx, task.UUID, agent.ID, *task.AuditRevision); err != nil {
			return err
		}
		if err := db.AcknowledgementEventInsert(ctx, tx, ack); err != nil {
			return err
		}
		return notify(ctx, tx, task, "info", l10n.T("%s acknowledged the evaluation of %s.", name(agent), task.FileName),
			s.Validation.ValidatorID)
	})
	return ack, err
}

// Open opens agent's dispute of claims on their task uuid, with its event
// and notifications to the validator and the campaign's supervisors (the
// users of the supervisor role or above among its supervisor e-mails). It
// is a NotFound error unless agent is the task's agent; a Conflict error
// when the task is not validated, the window closed, the evaluation is
// acknowledged or a dispute is open; an Invalid error listing its
// problems when a claim names a criterion the current revision does not
// judge, names one twice, or one decided by an earlier dispute, or has a
// blank comment.
func Open(ctx context.Context, d db.Deps, uuid string, agent db.User, claims []Claim) (db.Dispute, error) {
	var opened db.Dispute
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		task, s, err := begin(ctx, tx, uuid, agent.ID, func(s State) *Reason { return s.CanDispute(d.Now()) })
		if err != nil {
			return err
		}
		current, err := db.AuditCurrent(ctx, tx, task.UUID)
		if err != nil {
			return err
		}
		items, err := claimed(current.Result, s.Decided(), claims)
		if err != nil {
			return err
		}
		opened, err = db.DisputeInsert(ctx, tx, db.DisputeNew{TaskUUID: task.UUID, AgentID: agent.ID,
			ValidatorID: s.Validation.ValidatorID, AuditRevision: current.Revision, Items: items})
		if err != nil {
			return err
		}
		if err := db.DisputeEventInsert(ctx, tx, db.EventDisputeOpened, opened); err != nil {
			return err
		}
		if err := webhook.Queue(ctx, tx, d.River, webhook.DisputeEvent(webhook.DisputeOpened, task, opened)); err != nil {
			return err
		}
		if err := notify(ctx, tx, task, "warning", l10n.T("%s disputes the evaluation of %s, which you validated (%d of its criteria).",
			name(agent), task.FileName, len(items)), s.Validation.ValidatorID); err != nil {
			return err
		}
		supervisors, err := db.UsersWithEmail(ctx, tx, s.Campaign.SupervisorEmails, []string{"supervisor", "admin"})
		if err != nil {
			return err
		}
		supervisors = slices.DeleteFunc(supervisors, func(id string) bool { return id == s.Validation.ValidatorID || id == agent.ID })
		return notify(ctx, tx, task, "warning", l10n.T("%s disputes the evaluation of %s (%d of its criteria); it awaits a supervisor's resolution.",
			name(agent), task.FileName, len(items)), supervisors...)
	})
	return opened, err
}

// claimed checks claims against result, the revision disputed, and
// returns the dispute's items.
func claimed(result scoring.Result, decided map[string]bool, claims []Claim) ([]db.DisputeItem, error) {
	byID := map[string]scoring.Item{}
	for _, it := range result.Items {
		byID[it.CriterionID] = it
	}
	var p errcode.Problems
	seen := map[string]int{}
	items := make([]db.DisputeItem, 0, len(claims))
	for i, c := range claims {
		it, found := byID[c.CriterionID]
		j, dup := seen[c.CriterionID]
		switch {
		case !found:
			p.Add(item(i, "criterion_id"), "is not a criterion of the evaluation (its items' criterion_id)", c.CriterionID)
		case dup:
			p.Add(item(i, "criterion_id"), fmt.Sprintf("repeats the criterion of items[%d]", j), c.CriterionID)
		case decided[c.CriterionID]:
			p.Add(item(i, "criterion_id"), "was decided by an earlier dispute; a criterion is disputed once", c.CriterionID)
		case c.NotApplicable && it.NotApplicable:
			p.Add(item(i, "not_applicable"), "the criterion is not applicable already: dispute it without not_applicable to claim it applies", true)
		}
		seen[c.CriterionID] = i
		comment := strings.TrimSpace(c.Comment)
		if comment == "" {
			p.Add(item(i, "comment"), "is blank: say why the verdict is wrong", nil)
		}
		items = append(items, db.DisputeItem{CriterionID: it.CriterionID, Category: it.Category, Question: it.Question,
			Complies: it.Complies, NotApplicable: it.NotApplicable, ClaimsNotApplicable: c.NotApplicable, Comment: comment})
	}
	return items, p.Err("the dispute")
}

// Resolution is a resolved dispute and, when criteria were accepted, the
// recompute_audit job making their revision.
type Resolution struct {
	Dispute db.Dispute
	// JobID is the recompute_audit job, 0 when nothing was accepted.
	JobID int64
}

// Resolve records resolver's decisions on open dispute id (named
// resolverName on the revision), with its event and notifications to the
// agent and to the validator. Accepted criteria become an audit edit,
// reversing their verdicts with the reason as explanation, applied by a
// recompute_audit job queued in the same transaction. It is a NotFound
// error for an unknown dispute; a Conflict error when it was resolved
// already (two resolutions at once: the second waits for the first, then
// gets this); an Invalid error listing its problems unless decisions
// decide every disputed criterion once, each with a reason.
func Resolve(ctx context.Context, d db.Deps, id string, resolver db.User, resolverName string, decisions []Decision) (Resolution, error) {
	var out Resolution
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		disp, err := db.DisputeLock(ctx, tx, id)
		if err != nil {
			return err
		}
		if disp.AgentID == resolver.ID {
			// Nobody judges their own case (a supervisor audited as an agent).
			return errcode.New(errcode.Forbidden, "you opened this dispute about your own evaluation: another supervisor resolves it")
		}
		if disp.Status != db.DisputeOpen {
			return errcode.New(errcode.Conflict, "dispute %s was %s already, by %s at %s", id, disp.Status,
				cmp.Or(disp.ResolverName, disp.ResolvedBy), disp.ResolvedAt.UTC().Format(time.RFC3339))
		}
		items, accepted, err := decided(disp.Items, decisions)
		if err != nil {
			return err
		}
		task, err := db.TaskLock(ctx, tx, disp.TaskUUID)
		if err != nil {
			return err
		}
		status := db.DisputeRejected
		var editID int64
		if len(accepted) > 0 {
			status = db.DisputeAccepted
			if editID, out.JobID, err = edit(ctx, tx, d, task, disp.ID, resolver.ID, resolverName, accepted); err != nil {
				return err
			}
		}
		if out.Dispute, err = db.DisputeResolve(ctx, tx, disp.ID, status, items, resolver.ID, resolverName, editID); err != nil {
			return err
		}
		event, toAgent, toValidator := db.EventDisputeRejected,
			l10n.T("Your dispute of %s was rejected by %s; the task shows the replies.", task.FileName, resolverName),
			l10n.T("%s rejected the dispute of %s.", resolverName, task.FileName)
		if status == db.DisputeAccepted {
			event = db.EventDisputeAccepted
			toAgent = l10n.T("Your dispute of %s was accepted by %s for %d of its %d criteria; the audit gets a new revision.",
				task.FileName, resolverName, len(accepted), len(items))
			toValidator = l10n.T("%s accepted the dispute of %s for %d of its %d criteria; the audit gets a new revision.",
				resolverName, task.FileName, len(accepted), len(items))
		}
		if err := db.DisputeEventInsert(ctx, tx, event, out.Dispute); err != nil {
			return err
		}
		if err := webhook.Queue(ctx, tx, d.River, webhook.DisputeEvent(webhook.DisputeResolved, task, out.Dispute)); err != nil {
			return err
		}
		if err := notify(ctx, tx, task, "info", toAgent, disp.AgentID); err != nil {
			return err
		}
		if disp.ValidatorID == resolver.ID {
			return nil
		}
		return notify(ctx, tx, task, "info", toValidator, disp.ValidatorID)
	})
	return out, err
}

// decided checks decisions against a dispute's items and returns the items
// with their decisions and the accepted ones.
func decided(items []db.DisputeItem, decisions []Decision) ([]db.DisputeItem, []db.DisputeItem, error) {
	index := map[string]int{}
	for i, it := range items {
		index[it.CriterionID] = i
	}
	out := slices.Clone(items)
	var p errcode.Problems
	seen := map[string]int{}
	for i, dec := range decisions {
		k, found := index[dec.CriterionID]
		j, dup := seen[dec.CriterionID]
		switch {
		case !found:
			p.Add(item(i, "criterion_id"), "is not a criterion of the dispute", dec.CriterionID)
			continue
		case dup:
			p.Add(item(i, "criterion_id"), fmt.Sprintf("repeats the criterion of items[%d]", j), dec.CriterionID)
			continue
		}
		seen[dec.CriterionID] = i
		reason := strings.TrimSpace(dec.Reason)
		if reason == "" {
			p.Add(item(i, "reason"), "is blank: give the agent the reason", nil)
		}
		if dec.NotApplicable && dec.Decision != db.DecisionAccept {
			p.Add(item(i, "not_applicable"), "only an accepted criterion becomes not applicable", true)
		}
		out[k].Decision, out[k].Reason = dec.Decision, reason
		out[k].AcceptedNotApplicable = dec.Decision == db.DecisionAccept && (dec.NotApplicable || out[k].ClaimsNotApplicable)
	}
	var accepted []db.DisputeItem
	for k, it := range out {
		if _, ok := seen[it.CriterionID]; !ok {
			p.Add("body.items", fmt.Sprintf("decide the disputed criterion %q too", it.CriterionID), it.CriterionID)
			continue
		}
		if it.Decision == db.DecisionAccept {
			accepted = append(accepted, out[k])
		}
	}
	return out, accepted, p.Err("the resolution")
}

// edit records (revision.Record) the edit of the accepted criteria of
// dispute id on task's current revision (each not applicable when accepted
// so, otherwise its verdict reversed, a verdict not applicable becoming
// met; the reason its explanation) with its recompute_audit job. It
// returns the edit and the job; an Invalid error when the edit would leave
// no criterion applicable.
func edit(ctx context.Context, tx pgx.Tx, d db.Deps, task db.Task, id, authorID, authorName string, accepted []db.DisputeItem) (int64, int64, error) {
	current, err := db.AuditCurrent(ctx, tx, task.UUID)
	if err != nil {
		return 0, 0, err
	}
	verdicts := current.Result.Verdicts()
	changes := make([]scoring.Verdict, 0, len(accepted))
	for _, it := range accepted {
		v := verdicts[it.CriterionID]
		changes = append(changes, scoring.Verdict{CriterionID: it.CriterionID, Complies: !v.Complies || v.NotApplicable || it.AcceptedNotApplicable,
			NotApplicable: it.AcceptedNotApplicable, Explanation: it.Reason})
	}
	card, err := db.ScorecardGet(ctx, tx, task.CampaignID, current.Result.ScorecardVersion)
	if err != nil {
		return 0, 0, err
	}
	if err := revision.Applicable(current.Result, card.Scorecard, task.Kind, changes); err != nil {
		return 0, 0, err
	}
	e, jobID, err := revision.Record(ctx, tx, d.River, db.AuditEdit{TaskUUID: task.UUID, BasedOn: current.Revision, Verdicts: changes,
		AuthorID: authorID, AuthorName: authorName, DisputeID: id})
	if err != nil {
		return 0, 0, err
	}
	return e.ID, jobID, nil
}

// notify tells users (but not "") text about task.
func notify(ctx context.Context, tx pgx.Tx, task db.Task, variant string, text l10n.Text, users ...string) error {
	for _, u := range users {
		if u == "" {
			continue
		}
		if _, err := db.NotificationCreate(ctx, tx, lifecycle.Notice(u, task, variant, text)); err != nil {
			return err
		}
	}
	return nil
}
