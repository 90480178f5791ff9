package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/dispute"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/validation"
	"github.com/auditd/auditd/visibility"
)

// disputesResource is the agents' answer to their validated audits:
// acknowledgements and disputes, and the supervisors' resolutions.
type disputesResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	// wait bounds how long a resolution waits for the revision of its
	// accepted criteria.
	wait time.Duration
}

func (r *disputesResource) deps() db.Deps { return db.Deps{Pool: r.pool, River: r.river} }

func (r *disputesResource) register(api huma.API) {
	tag := []string{"disputes"}
	agentOnly := " Only the task's agent (its operator) may: for anyone else the task answers 404, exactly like one that does not exist."

	op := operation(http.MethodPost, "/tasks/{uuid}/acknowledgement", "acknowledge-audit", "Acknowledge the evaluation of your task",
		role.Operator, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " The agent acknowledges their validated task's evaluation (its current revision), once; it ends " +
		"disputes of it. 409 CONFLICT when the task is not validated, is acknowledged already or has an open dispute " +
		"(acknowledge after its outcome). The validator is notified." + agentOnly
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, r.acknowledge)

	op = operation(http.MethodPost, "/disputes", "open-dispute", "Dispute criteria of your task's evaluation", role.Operator,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " The agent disputes chosen criteria of their validated task's evaluation (by `criterion_id`, as " +
		"its audit's items name them), each with a comment, within the campaign's `dispute_window_days` after the " +
		"validation. A task has one open dispute at a time, and a criterion decided by an earlier dispute is not " +
		"disputed again. 409 CONFLICT when the task is not validated, the window closed (or the campaign takes no " +
		"disputes), the evaluation is acknowledged or a dispute is open; 400 VALIDATION_ERROR locating each item " +
		"naming an unknown, repeated or decided criterion. The validator and the campaign's supervisors are " +
		"notified." + agentOnly
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, r.open)

	op = operation(http.MethodGet, "/disputes", "list-disputes", "List disputes", role.Operator, http.StatusBadRequest)
	op.Description += " Operators see their own disputes; quality analysts those of the audits they validated; " +
		"supervisors and admins every dispute. Open disputes oldest first (a queue), the others newest first."
	op.Tags = tag
	huma.Register(api, op, r.list)

	op = operation(http.MethodGet, "/disputes/{id}", "get-dispute", "Get a dispute", role.Operator,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Operators read only their own disputes (another's is 404, like one that does not exist); quality " +
		"and above read every dispute, as they read every task, except one of a task they calibrate blind (409 until they " +
		"submit their answers: a dispute tells the audit's score and verdicts)."
	op.Tags = tag
	huma.Register(api, op, r.get)

	op = operation(http.MethodPost, "/disputes/{id}/resolution", "resolve-dispute", "Accept or reject each disputed criterion",
		role.Supervisor, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Decide every disputed criterion once: `accept` reverses its verdict with `reason` as the " +
		"explanation, `reject` keeps it with `reason` as the reply. Accepted criteria become a new revision of the " +
		"audit (an edit applied by a `recompute_audit` job, scored against the disputed revision's scorecard and " +
		"passing score; the task stays validated); the request waits for it (JOB_WAIT_TIMEOUT), and `edit_status` " +
		"says whether it is `applied` (with `revision` and `score_after`) or still `pending`. A dispute resolved " +
		"already is 409 CONFLICT: of two resolutions at once, one wins. The agent and the validator are notified."
	op.Tags = tag
	huma.Register(api, op, r.resolve)
	r.registerEvaluations(api)
}

// noItems is the VALIDATION_ERROR of a body without items (null or []).
func noItems(what string) *Error {
	return Errorf(CodeValidation, "items is empty: "+what).WithDetail("body.items", "expected at least one item", nil)
}

// Acknowledgement is an agent's acknowledgement of their task's
// evaluation; its audit.acknowledged event carries the same
// (db.Acknowledgement).
type Acknowledgement struct {
	TaskUUID       string    `json:"task_uuid" format:"uuid"`
	AgentID        string    `json:"agent_id"`
	AuditRevision  int       `json:"audit_revision" doc:"The revision of the audit the agent acknowledged"`
	AcknowledgedAt time.Time `json:"acknowledged_at"`
}

func (r *disputesResource) acknowledge(ctx context.Context, in *taskInput) (*Output[Acknowledgement], error) {
	ack, err := dispute.Acknowledge(ctx, r.deps(), in.UUID, principal(ctx).User)
	if err != nil {
		return nil, err
	}
	return ok(Acknowledgement(ack)), nil
}

// DisputeClaimInput is one criterion an agent disputes.
type DisputeClaimInput struct {
	CriterionID string `json:"criterion_id" minLength:"1" maxLength:"64" doc:"The criterion's id, as the audit's items name it" example:"greeting"`
	Comment     string `json:"comment" minLength:"1" maxLength:"2000" doc:"Why the verdict is wrong, in the agent's words" example:"I greeted the customer at 0:02."`
	// NotApplicable: the agent claims that the criterion does not apply.
	NotApplicable bool `json:"not_applicable,omitempty" doc:"true claims that the criterion does not apply to this interaction (accepted, it becomes not applicable, its weight out of the score) rather than that its verdict is reversed"`
}

type openDisputeInput struct {
	Body struct {
		TaskUUID string              `json:"task_uuid" format:"uuid" doc:"Your validated task"`
		Items    []DisputeClaimInput `json:"items" minItems:"1" maxItems:"50" doc:"The disputed criteria, each once"`
	}
}

func (r *disputesResource) open(ctx context.Context, in *openDisputeInput) (*Output[Dispute], error) {
	// JSON null passes the schema as an empty list.
	if len(in.Body.Items) == 0 {
		return nil, noItems("dispute at least one criterion")
	}
	claims := make([]dispute.Claim, len(in.Body.Items))
	for i, it := range in.Body.Items {
		claims[i] = dispute.Claim{CriterionID: it.CriterionID, Comment: cleanNotes(it.Comment), NotApplicable: it.NotApplicable}
	}
	d, err := dispute.Open(ctx, r.deps(), in.Body.TaskUUID, principal(ctx).User, claims)
	if errcode.Is(err, errcode.NotFound) {
		return nil, translate(ctx, err).WithDetail("body.task_uuid", "you are the agent of no such task", in.Body.TaskUUID)
	}
	if err != nil {
		return nil, err
	}
	return ok(disputeOf(d)), nil
}

type listDisputesInput struct {
	Status     string `query:"status" enum:"open,accepted,rejected,all" default:"open" doc:"Only disputes in this status; all for every one"`
	TaskUUID   string `query:"task_uuid" format:"uuid" doc:"Only the disputes of this task"`
	AgentID    string `query:"agent_id" maxLength:"200" doc:"Only this agent's (quality and above; an agent sees only their own)"`
	CampaignID string `query:"campaign_id" format:"uuid" doc:"Only the disputes of this campaign's tasks"`
	Skip       int    `query:"skip" minimum:"0" default:"0" doc:"Pagination offset"`
	Limit      int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Pagination limit"`
}

// DisputeList is a page of disputes.
type DisputeList struct {
	Items []Dispute `json:"items"`
	Total int       `json:"total" doc:"How many disputes the filters select, for the caller"`
	Skip  int       `json:"skip"`
	Limit int       `json:"limit"`
}

func (r *disputesResource) list(ctx context.Context, in *listDisputesInput) (*Output[DisputeList], error) {
	f := db.DisputeFilter{Status: in.Status, AgentID: in.AgentID, TaskUUID: in.TaskUUID, CampaignID: in.CampaignID,
		Skip: in.Skip, Limit: in.Limit}
	if f.Status == "all" {
		f.Status = ""
	}
	p := principal(ctx)
	switch {
	case p.Is(role.Supervisor):
	case p.Is(role.Quality):
		f.ValidatorID = p.User.ID
	case in.AgentID != "" && in.AgentID != p.User.ID:
		// An agent's list holds only their own disputes.
		return ok(DisputeList{Items: []Dispute{}, Skip: in.Skip, Limit: in.Limit}), nil
	default:
		f.AgentID = p.User.ID
	}
	v, err := viewerOf(ctx, r.pool)
	if err != nil {
		return nil, err
	}
	items, total, err := db.DisputeList(ctx, r.pool, v, f)
	if err != nil {
		return nil, err
	}
	return ok(DisputeList{Items: disputesOf(items), Total: total, Skip: in.Skip, Limit: in.Limit}), nil
}

type disputeIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The dispute's id"`
}

func (r *disputesResource) get(ctx context.Context, in *disputeIDInput) (*Output[Dispute], error) {
	d, err := db.DisputeGet(ctx, r.pool, in.ID)
	if err != nil {
		return nil, err
	}
	if p := principal(ctx); !p.Is(role.Quality) && d.AgentID != p.User.ID {
		return nil, Errorf(CodeNotFound, fmt.Sprintf("no dispute %s", in.ID))
	}
	// Its scores and verdicts are the audit's: none for a caller
	// calibrating the task blind (a dispute is of a validated audit, which
	// no agent has hidden).
	v, err := viewerOf(ctx, r.pool)
	if err != nil {
		return nil, err
	}
	if v.BlindTo(visibility.Row{UUID: d.TaskUUID}) {
		return nil, Errorf(CodeConflict, fmt.Sprintf("dispute %s is of an audit hidden from you until you submit your answers to "+
			"the calibration session of task %s", in.ID, d.TaskUUID))
	}
	return ok(disputeOf(d)), nil
}

// DisputeDecisionInput is a supervisor's decision on one disputed criterion.
type DisputeDecisionInput struct {
	CriterionID string `json:"criterion_id" minLength:"1" maxLength:"64" doc:"A disputed criterion"`
	Decision    string `json:"decision" enum:"accept,reject" doc:"accept gives the agent's claim (the verdict reversed, or not applicable when claimed so); reject keeps the verdict"`
	Reason      string `json:"reason" minLength:"1" maxLength:"2000" doc:"Accepted: the new verdict's explanation; rejected: the reply to the agent"`
	// NotApplicable accepts the criterion as not applicable.
	NotApplicable bool `json:"not_applicable,omitempty" doc:"With accept: the criterion becomes not applicable, whatever the agent claimed"`
}

type resolveDisputeInput struct {
	ID   string `path:"id" format:"uuid" doc:"The dispute's id"`
	Body struct {
		Items []DisputeDecisionInput `json:"items" minItems:"1" maxItems:"50" doc:"A decision for every disputed criterion, each once"`
	}
}

func (r *disputesResource) resolve(ctx context.Context, in *resolveDisputeInput) (*Output[Dispute], error) {
	if len(in.Body.Items) == 0 {
		return nil, noItems("decide every disputed criterion")
	}
	decisions := make([]dispute.Decision, len(in.Body.Items))
	for i, it := range in.Body.Items {
		decisions[i] = dispute.Decision{CriterionID: it.CriterionID, Decision: it.Decision, Reason: cleanNotes(it.Reason),
			NotApplicable: it.NotApplicable}
	}
	u := principal(ctx).User
	res, err := dispute.Resolve(ctx, r.deps(), in.ID, u, validation.ValidatorName(u), decisions)
	if err != nil {
		return nil, err
	}
	if res.JobID == 0 {
		return ok(disputeOf(res.Dispute)), nil
	}
	// The resolution is recorded either way; the wait only lets the
	// answer show the new revision.
	if _, err := waitForJob(ctx, r.river, res.JobID, r.wait); err != nil && !errors.Is(err, errJobWaitExpired) {
		logger(ctx).WarnContext(ctx, "cannot follow the dispute's revision", "dispute", in.ID, "error", err)
	}
	d, err := db.DisputeGet(ctx, r.pool, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(disputeOf(d)), nil
}

// Feedback is where a validated task's evaluation stands with its agent:
// acknowledged, disputed and how each dispute ended.
type Feedback struct {
	DisputeWindowDays int              `json:"dispute_window_days" doc:"The campaign's window, in days after the validation; 0: no disputes"`
	DisputeUntil      *time.Time       `json:"dispute_until,omitempty" doc:"Until when the evaluation may be disputed; absent when the campaign takes no disputes"`
	Acknowledgement   *Acknowledgement `json:"acknowledgement" doc:"null until the agent acknowledges the evaluation"`
	Disputes          []Dispute        `json:"disputes" doc:"The task's disputes, oldest first"`
	CanAcknowledge    bool             `json:"can_acknowledge" doc:"Whether the caller, the task's agent, may acknowledge it now"`
	CanDispute        bool             `json:"can_dispute" doc:"Whether the caller, the task's agent, may dispute it now"`
	// WhyNot says why the agent may not dispute now.
	WhyNot *WhyNot        `json:"why_not,omitempty" doc:"To the task's agent: why they may not dispute now"`
	Steps  []FeedbackStep `json:"steps" doc:"Its history, oldest first"`
}

// WhyNot is why the task's agent may not dispute its evaluation now.
type WhyNot struct {
	Code    string `json:"code" enum:"acknowledged,dispute_open,applying,no_disputes,window_closed" doc:"acknowledged: the agent acknowledged it; dispute_open: a dispute awaits its outcome; applying: accepted criteria are being applied; no_disputes: the campaign takes none; window_closed: the window is over"`
	Message string `json:"message"`
}

// FeedbackStep is one entry of a task's acknowledgement and disputes history.
type FeedbackStep struct {
	Step      string    `json:"step" enum:"acknowledged,opened,accepted,rejected"`
	At        time.Time `json:"at"`
	By        string    `json:"by" doc:"The user id of who took the step"`
	DisputeID string    `json:"dispute_id,omitempty" format:"uuid"`
}

// feedbackOf is validated task's Feedback, as caller sees it.
func feedbackOf(ctx context.Context, q db.DBTX, task db.Task, caller db.User) (*Feedback, error) {
	s, err := dispute.StateOf(ctx, q, task)
	if err != nil {
		return nil, err
	}
	f := &Feedback{DisputeWindowDays: s.Campaign.DisputeWindowDays, Disputes: disputesOf(s.Disputes), Steps: []FeedbackStep{}}
	if !s.Until.IsZero() {
		f.DisputeUntil = &s.Until
	}
	if caller.ID == task.OperatorID {
		f.CanAcknowledge = s.CanAcknowledge() == nil
		if why := s.CanDispute(time.Now()); why != nil {
			f.WhyNot = &WhyNot{Code: why.Code, Message: why.Message}
		}
		f.CanDispute = f.WhyNot == nil
	}
	for _, d := range s.Disputes {
		f.Steps = append(f.Steps, FeedbackStep{Step: "opened", At: d.OpenedAt, By: d.AgentID, DisputeID: d.ID})
		if d.ResolvedAt != nil {
			f.Steps = append(f.Steps, FeedbackStep{Step: d.Status, At: *d.ResolvedAt, By: d.ResolvedBy, DisputeID: d.ID})
		}
	}
	if a := s.Acknowledgement; a != nil {
		ack := Acknowledgement(*a)
		f.Acknowledgement = &ack
		f.Steps = append(f.Steps, FeedbackStep{Step: "acknowledged", At: a.AcknowledgedAt, By: a.AgentID})
	}
	slices.SortStableFunc(f.Steps, func(a, b FeedbackStep) int { return a.At.Compare(b.At) })
	return f, nil
}
