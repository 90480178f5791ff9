package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
)

// auditsResource is the analysts' editing of audits.
type auditsResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	// wait bounds how long a request waits for the recompute_audit job.
	wait time.Duration
}

// AuditItemInput is one item of an edited audit, as POST
// /compute-audit-results takes it: the criterion named by its question.
type AuditItemInput struct {
	Category string `json:"category" maxLength:"200" doc:"The criterion's category, as the scorecard has it" example:"SKILLS"`
	Question string `json:"question" maxLength:"2000" doc:"The criterion's question in the campaign's current scorecard, in any of its languages (case and spacing are ignored)"`
	Complies bool   `json:"complies" doc:"Whether the criterion is met; true with not_applicable"`
	// NotApplicable: the analyst finds that the criterion does not apply.
	NotApplicable bool   `json:"not_applicable,omitempty" doc:"true when the criterion does not apply to this interaction: its weight then counts neither way in the score. complies must be true with it (met as not applicable)"`
	Explanation   string `json:"explanation" maxLength:"10000" doc:"Why, in the analyst's words"`
}

type computeAuditInput struct {
	Username string `header:"x-username" maxLength:"200" doc:"The acting user's name, recorded with the revision; the token's username when absent"`
	IfMatch  string `header:"If-Match" maxLength:"40" doc:"The audit revision the edit is based on (the revision of GET /tasks/{uuid}'s audit, plain or quoted like an ETag): when another revision is current by then, the edit is refused with 409 instead of applied"`
	Body     struct {
		TaskUUID string           `json:"task_uuid" format:"uuid" doc:"The task whose audit is edited"`
		FileName string           `json:"file_name" maxLength:"1000" doc:"The task's file name, as GET /tasks/{uuid} shows it"`
		IsCall   bool             `json:"isCall" doc:"true for a call, false for a chat: must match the task"`
		Audit    []AuditItemInput `json:"audit" minItems:"1" maxItems:"200" doc:"The edited items; criteria left out keep their current verdict"`
	}
}

// ComputedAudit is the revision an edit became, with its score breakdown.
type ComputedAudit struct {
	TaskUUID string `json:"task_uuid" format:"uuid"`
	scoring.Result
	Revision      int       `json:"revision" doc:"The revision the edit became"`
	UpdatedBy     string    `json:"updated_by" doc:"The editor's user id (the token subject)"`
	UpdatedByName string    `json:"updated_by_name,omitempty" doc:"The x-username sent (or the token's username)"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// EditAccepted answers an edit whose recomputation had not finished when
// the request stopped waiting.
type EditAccepted struct {
	TaskUUID string `json:"task_uuid" format:"uuid"`
	// JobID is the recompute_audit job (GET /admin/jobs/{id}).
	JobID int64 `json:"job_id"`
	// EditID identifies the edit in the job's arguments.
	EditID int64 `json:"edit_id"`
}

type computeAuditOutput struct {
	Status int
	Body   any
}

func (a *auditsResource) register(api huma.API) {
	op := operation(http.MethodPost, "/compute-audit-results", "compute-audit-results", "Edit an audit and recompute its score",
		role.Quality, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable)
	op.Description += " Stores the edited items as a new revision of the task's audit (append-only: who, from the token " +
		"subject and `x-username`, when, and the diff from the previous revision) and recomputes the score against the " +
		"campaign's **current** scorecard in a `recompute_audit` job. Items name criteria by their question; criteria " +
		"left out keep their current verdict. An item `not_applicable: true` (with `complies: true`) records that the " +
		"criterion does not apply: its weight leaves the score (a critical one cannot fail the audit); an edit that would " +
		"leave every criterion not applicable is a VALIDATION_ERROR, as is `not_applicable` with `complies: false`. The request waits for the job (up to JOB_WAIT_TIMEOUT): 200 with the new " +
		"revision's score breakdown, or 202 `ACCEPTED` with the job id when the wait ran out (the result then arrives as " +
		"an `audit.updated` event and a notification to the editor). Every problem of the request is a `details` entry " +
		"locating it (`body.audit[3].question`); nothing is stored then. A task that is not audited yet, or already " +
		"validated, is 409, and so is an edit based (`If-Match`) on a revision that is no longer current. Two edits made " +
		"at once both become revisions, in the order they were made. An analyst calibrating the task blind (an open " +
		"calibration session they have still to answer) is 409 until they submit."
	op.Tags = []string{"audits"}
	reg := api.OpenAPI().Components.Schemas
	op.Responses = map[string]*huma.Response{
		"200": {Description: "The edit is the current revision; its score breakdown",
			Content: map[string]*huma.MediaType{"application/json": {
				Schema: reg.Schema(reflect.TypeFor[Envelope[ComputedAudit]](), true, "")}}},
		"202": {Description: "The edit is recorded; its recomputation goes on in the background",
			Content: map[string]*huma.MediaType{"application/json": {
				Schema: reg.Schema(reflect.TypeFor[Envelope[EditAccepted]](), true, "")}}},
	}
	huma.Register(api, op, a.compute)

	op = operation(http.MethodPost, "/tasks/{uuid}/pending-verdicts", "decide-pending-verdicts",
		"Confirm or change an audit's pending verdicts", role.Quality,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable)
	op.Description += " A verdict routed to review (`needs_review`) is pending until an analyst decides it: it counts in no " +
		"figure and keeps the audit provisional. Each decision names a pending criterion (`criterion_id`); without `complies` " +
		"it confirms the engine's verdict, with it the verdict becomes that one (its explanation the one sent, or the " +
		"engine's when the verdict stays). `all: true` confirms every pending verdict not named. The decisions become a " +
		"revision of the audit by the caller exactly as an edit (POST /compute-audit-results) does, with its job, events and " +
		"answers (200 with the breakdown, or 202). A criterion that is not pending is a VALIDATION_ERROR detail; nothing " +
		"to decide, an audit not audited or validated, or another revision current than `If-Match` (by default the one the " +
		"request found) is 409, and so is an analyst calibrating the task blind, until they submit."
	op.Tags = []string{"audits"}
	op.Responses = map[string]*huma.Response{
		"200": {Description: "The decisions are the current revision; its score breakdown",
			Content: map[string]*huma.MediaType{"application/json": {
				Schema: reg.Schema(reflect.TypeFor[Envelope[ComputedAudit]](), true, "")}}},
		"202": {Description: "The decisions are recorded; the recomputation goes on in the background",
			Content: map[string]*huma.MediaType{"application/json": {
				Schema: reg.Schema(reflect.TypeFor[Envelope[EditAccepted]](), true, "")}}},
	}
	huma.Register(api, op, a.decide)
}

// PendingDecision is an analyst's decision on one pending verdict.
type PendingDecision struct {
	CriterionID string `json:"criterion_id" minLength:"1" maxLength:"200" doc:"The pending criterion (its id, as the audit's items and pending list name it)"`
	Complies    *bool  `json:"complies,omitempty" doc:"The analyst's verdict; absent (with no not_applicable) confirms the engine's"`
	// NotApplicable decides the criterion not applicable.
	NotApplicable bool   `json:"not_applicable,omitempty" doc:"true decides that the criterion does not apply (its weight then counts neither way); complies is then absent or true"`
	Explanation   string `json:"explanation,omitempty" maxLength:"10000" doc:"Why, in the analyst's words; absent keeps the engine's when the verdict stays, none when it changes"`
}

type decidePendingInput struct {
	UUID     string `path:"uuid" format:"uuid" doc:"The task"`
	Username string `header:"x-username" maxLength:"200" doc:"The acting user's name, recorded with the revision; the token's username when absent"`
	IfMatch  string `header:"If-Match" maxLength:"40" doc:"The audit revision the decisions are based on; by default the one current when the request arrives"`
	Body     struct {
		Decisions []PendingDecision `json:"decisions,omitempty" maxItems:"200" doc:"Decisions on pending verdicts, one per criterion"`
		All       bool              `json:"all,omitempty" doc:"Confirm every pending verdict the decisions do not name"`
	}
}

func (a *auditsResource) decide(ctx context.Context, in *decidePendingInput) (*computeAuditOutput, error) {
	base, err := basedOn(in.IfMatch)
	if err != nil {
		return nil, err
	}
	task, err := db.TaskGetByUUID(ctx, a.pool, in.UUID)
	if err != nil {
		return nil, err
	}
	if err := notBlind(ctx, a.pool, task.UUID); err != nil {
		return nil, err
	}
	current, err := db.AuditCurrent(ctx, a.pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return nil, revision.Check(task, base) // not audited yet: its CONFLICT
	}
	if err != nil {
		return nil, err
	}
	if base == 0 {
		base = current.Revision
	}
	if err := revision.Check(task, base); err != nil {
		return nil, err
	}
	verdicts, err := decidedVerdicts(current.Result, in.Body.Decisions, in.Body.All)
	if err != nil {
		return nil, err
	}
	card, err := db.ScorecardCurrent(ctx, a.pool, task.CampaignID)
	if err != nil {
		return nil, err
	}
	if err := revision.Applicable(current.Result, card.Scorecard, task.Kind, verdicts); err != nil {
		return nil, err
	}
	p := principal(ctx)
	var edit db.AuditEdit
	var jobID int64
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) (err error) {
		edit, jobID, err = revision.Record(ctx, tx, a.river, db.AuditEdit{TaskUUID: task.UUID, BasedOn: base, Verdicts: verdicts,
			AuthorID: p.User.ID, AuthorName: cmp.Or(strings.TrimSpace(in.Username), p.User.Username)})
		return err
	})
	if err != nil {
		return nil, err
	}
	return a.outcome(ctx, task, edit, jobID)
}

// decidedVerdicts are the analyst's verdicts that decisions (and, with all,
// the confirmation of every other pending verdict) make of r's pending
// ones. A decision on a criterion that is not pending, or twice on one, is
// a VALIDATION_ERROR detail; nothing to decide is CONFLICT.
func decidedVerdicts(r scoring.Result, decisions []PendingDecision, all bool) ([]scoring.Verdict, error) {
	pending := map[string]scoring.Verdict{}
	for id, v := range r.Verdicts() {
		if v.NeedsReview {
			pending[id] = v
		}
	}
	var details []*huma.ErrorDetail
	decided := map[string]scoring.Verdict{}
	for i, d := range decisions {
		v, ok := pending[d.CriterionID]
		_, twice := decided[d.CriterionID]
		switch {
		case !ok:
			details = append(details, &huma.ErrorDetail{Location: fmt.Sprintf("body.decisions[%d].criterion_id", i),
				Message: "is not a pending verdict of the current audit (pending: " + strings.Join(r.Pending, ", ") + ")", Value: d.CriterionID})
			continue
		case twice:
			details = append(details, &huma.ErrorDetail{Location: fmt.Sprintf("body.decisions[%d].criterion_id", i),
				Message: "is decided twice", Value: d.CriterionID})
			continue
		}
		if d.NotApplicable && d.Complies != nil && !*d.Complies {
			details = append(details, notApplicableFails(fmt.Sprintf("body.decisions[%d].complies", i)))
			continue
		}
		decision := scoring.Verdict{CriterionID: d.CriterionID, Complies: v.Complies, NotApplicable: v.NotApplicable, Explanation: v.Explanation}
		if d.Complies != nil || d.NotApplicable {
			decision.Complies, decision.NotApplicable = d.NotApplicable || *d.Complies, d.NotApplicable
		}
		if decision.Complies != v.Complies || decision.NotApplicable != v.NotApplicable || d.Explanation != "" {
			decision.Explanation = d.Explanation
		}
		decided[d.CriterionID] = decision
	}
	if len(details) > 0 {
		return nil, Errorf(CodeValidation, fmt.Sprintf("the decisions have %d problem(s); nothing was changed", len(details))).WithDetails(details)
	}
	var out []scoring.Verdict
	for _, id := range r.Pending {
		v, ok := decided[id]
		if !ok && all {
			p := pending[id]
			v, ok = scoring.Verdict{CriterionID: id, Complies: p.Complies, NotApplicable: p.NotApplicable, Explanation: p.Explanation}, true
		}
		if ok {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, Errorf(CodeConflict, "nothing to decide: name pending verdicts in decisions, or send all: true while any is pending").
			WithDetails(map[string]any{"pending": nonNilStrings(r.Pending)})
	}
	return out, nil
}

// basedOn reads If-Match: a revision number, plain or as an ETag ("3", W/"3").
func basedOn(h string) (int, error) {
	if h == "" {
		return 0, nil
	}
	v := strings.Trim(strings.TrimPrefix(strings.TrimSpace(h), "W/"), `"`)
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, Errorf(CodeValidation, "the If-Match header must be the number of the audit revision the edit is based on").
			WithDetail("header.If-Match", "is not a revision number", h)
	}
	return n, nil
}

func (a *auditsResource) compute(ctx context.Context, in *computeAuditInput) (*computeAuditOutput, error) {
	base, err := basedOn(in.IfMatch)
	if err != nil {
		return nil, err
	}
	b := in.Body
	task, err := db.TaskGetByUUID(ctx, a.pool, b.TaskUUID)
	if errcode.Is(err, errcode.NotFound) {
		return nil, translate(ctx, err).WithDetail("body.task_uuid", "no such task", b.TaskUUID)
	}
	if err != nil {
		return nil, err
	}
	if err := notBlind(ctx, a.pool, task.UUID); err != nil {
		return nil, err
	}
	card, err := db.ScorecardCurrent(ctx, a.pool, task.CampaignID)
	if err != nil {
		return nil, err
	}
	verdicts, err := editedVerdicts(task, card, b.FileName, b.IsCall, b.Audit)
	if err != nil {
		return nil, err
	}
	if err := revision.Check(task, base); err != nil {
		return nil, err
	}
	current, err := db.AuditCurrent(ctx, a.pool, task.UUID)
	if err != nil {
		return nil, err
	}
	if err := revision.Applicable(current.Result, card.Scorecard, task.Kind, verdicts); err != nil {
		return nil, err
	}

	p := principal(ctx)
	author := strings.TrimSpace(in.Username)
	if author == "" {
		author = p.User.Username
	}
	var edit db.AuditEdit
	var jobID int64
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) (err error) {
		edit, jobID, err = revision.Record(ctx, tx, a.river, db.AuditEdit{TaskUUID: task.UUID, BasedOn: base, Verdicts: verdicts,
			AuthorID: p.User.ID, AuthorName: author})
		return err
	})
	if err != nil {
		return nil, err
	}
	return a.outcome(ctx, task, edit, jobID)
}

// outcome waits (up to a.wait) for job jobID to apply edit of task and
// answers with the revision it became (200), or 202 when the wait ran out;
// a rejected edit is CONFLICT, a failed one SERVICE_UNAVAILABLE.
func (a *auditsResource) outcome(ctx context.Context, task db.Task, edit db.AuditEdit, jobID int64) (*computeAuditOutput, error) {
	_, err := waitForJob(ctx, a.river, jobID, a.wait)
	if errors.Is(err, errJobWaitExpired) {
		return &computeAuditOutput{Status: http.StatusAccepted,
			Body: accepted(EditAccepted{TaskUUID: task.UUID, JobID: jobID, EditID: edit.ID}).Body}, nil
	}
	if err != nil {
		return nil, err
	}
	if edit, err = db.AuditEditGet(ctx, a.pool, edit.ID); err != nil {
		return nil, err
	}
	switch edit.Status {
	case db.EditApplied:
	case db.EditRejected:
		return nil, Errorf(CodeConflict, "the edit was not applied: "+edit.Error).
			WithDetails(map[string]any{"job_id": jobID, "edit_id": edit.ID})
	default:
		msg := "the edit could not be applied"
		if edit.Error != "" {
			msg += ": " + edit.Error
		} else {
			msg += ": its recompute_audit job ended without applying it"
		}
		return nil, Errorf(CodeServiceUnavailable, msg).WithDetails(map[string]any{"job_id": jobID, "edit_id": edit.ID})
	}
	rev, err := db.AuditRevisionGet(ctx, a.pool, task.UUID, edit.Revision)
	if err != nil {
		return nil, err
	}
	return &computeAuditOutput{Status: http.StatusOK, Body: ok(ComputedAudit{
		TaskUUID: task.UUID, Result: rev.Result, Revision: rev.Revision,
		UpdatedBy: rev.AuthorID, UpdatedByName: rev.AuthorName, UpdatedAt: rev.CreatedAt,
	}).Body}, nil
}

// editedVerdicts checks an edit against its task and the campaign's
// current scorecard and returns the analyst's verdicts by criterion. Every
// problem is one VALIDATION_ERROR detail.
func editedVerdicts(task db.Task, card db.Scorecard, fileName string, isCall bool, items []AuditItemInput) ([]scoring.Verdict, error) {
	var details []*huma.ErrorDetail
	problem := func(loc, msg string, v any) {
		details = append(details, &huma.ErrorDetail{Location: loc, Message: msg, Value: v})
	}
	if isCall != (task.Kind == db.TaskCall) {
		problem("body.isCall", fmt.Sprintf("task %s is a %s: isCall must be %t", task.UUID, task.Kind, !isCall), isCall)
	}
	if fileName != task.FileName {
		problem("body.file_name", fmt.Sprintf("task %s is the file %q", task.UUID, task.FileName), fileName)
	}
	seen := map[string]int{}
	verdicts := make([]scoring.Verdict, 0, len(items))
	for i, it := range items {
		loc := fmt.Sprintf("body.audit[%d]", i)
		c, found := card.ByQuestion(it.Question)
		switch j, dup := seen[c.ID]; {
		case !found:
			problem(loc+".question", fmt.Sprintf("is not a question of the campaign's current scorecard (version %d)", card.Version), it.Question)
			continue
		case !c.Applies(task.Kind):
			problem(loc+".question", fmt.Sprintf("criterion %q applies to %s, not to a %s", c.ID, c.AppliesTo, task.Kind), it.Question)
			continue
		case dup:
			problem(loc+".question", fmt.Sprintf("repeats the question of audit[%d]", j), it.Question)
			continue
		}
		seen[c.ID] = i
		if !strings.EqualFold(strings.TrimSpace(it.Category), c.Category) {
			problem(loc+".category", fmt.Sprintf("the category of this question is %q", c.Category), it.Category)
		}
		if it.NotApplicable && !it.Complies {
			details = append(details, notApplicableFails(loc+".complies"))
			continue
		}
		verdicts = append(verdicts, scoring.Verdict{CriterionID: c.ID, Complies: it.Complies, NotApplicable: it.NotApplicable,
			Explanation: it.Explanation})
	}
	if len(details) > 0 {
		return nil, Errorf(CodeValidation, fmt.Sprintf("the edit has %d problem(s); nothing was changed", len(details))).WithDetails(details)
	}
	return verdicts, nil
}

// notApplicableFails is the detail, at loc, of a verdict both not
// applicable and not met: a criterion that does not apply is met as not
// applicable, so that a client reading complies alone never sees a failure.
func notApplicableFails(loc string) *huma.ErrorDetail {
	return &huma.ErrorDetail{Location: loc, Value: false,
		Message: "must be true with not_applicable: a criterion that does not apply is met as not applicable; " +
			"send complies false without not_applicable for a criterion not met"}
}
