package api

import (
	"context"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/calibration"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// calibrationResource is calibration sessions (package calibration): a
// supervisor has analysts score the same interactions blind and reads how
// much they agree.
type calibrationResource struct {
	pool *pgxpool.Pool
	// audits answers an applied session as an analyst's edit is answered.
	audits *auditsResource
	now    func() time.Time
}

func (c *calibrationResource) deps() db.Deps {
	return db.Deps{Pool: c.pool, River: c.audits.river, Clock: c.now}
}

// caller is the calibration workflow's view of the request's principal.
func caller(ctx context.Context) calibration.Caller {
	p := principal(ctx)
	return calibration.Caller{User: p.User, Role: p.Role}
}

func (c *calibrationResource) register(api huma.API) {
	tag := []string{"calibration"}
	yours := " A supervisor reads every session; an analyst only the sessions they are in: any other answers 404 exactly like a missing one."

	op := operation(http.MethodGet, "/calibration-analysts", "list-calibration-analysts",
		"List the users who may be analysts of a calibration session", role.Supervisor)
	op.Description += " The active users whose roles include quality or above, by username."
	op.Tags = tag
	huma.Register(api, op, c.analysts)

	op = operation(http.MethodGet, "/calibration-sessions", "list-calibration-sessions", "List calibration sessions", role.Quality,
		http.StatusBadRequest)
	op.Description += " Newest first, each with its counts and, once closed, its overall Krippendorff's alpha and percent " +
		"agreement (the history of agreement over time). Supervisors list every session, analysts the sessions they are in."
	op.Tags = tag
	huma.Register(api, op, c.list)

	op = operation(http.MethodPost, "/calibration-sessions", "create-calibration-session", "Start a calibration session",
		role.Supervisor, http.StatusBadRequest)
	op.Description += " `task_uuids`: 1 to 50 distinct audited tasks; each is answered against the scorecard version of its " +
		"current audit revision, whose criteria and automatic verdicts the session keeps. `analysts`: 2 to 20 distinct " +
		"active users (ids or usernames) whose roles include quality or above. `due_at`, optional, in the future. Every " +
		"problem is a `details` entry naming the field (`body.task_uuids[2]`); nothing is stored then. Each analyst is " +
		"notified, and a `calibration.updated` event (`change: started`) is sent."
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, c.create)

	op = operation(http.MethodGet, "/calibration-sessions/{id}", "get-calibration-session", "Get a calibration session",
		role.Quality, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Its interactions and their criteria. While it is open it is blind: `answers` holds only the caller's " +
		"own answers, the automatic verdicts are left out and there are no `results`. Once closed: everyone's answers, the " +
		"automatic verdicts, the calibrated answers and `results` (per criterion: percent agreement, Krippendorff's alpha, " +
		"agreement with the automatic verdict, the outliers)." + yours
	op.Tags = tag
	huma.Register(api, op, c.get)

	op = operation(http.MethodPost, "/calibration-sessions/{id}/submission", "submit-calibration-answers",
		"Submit your answers to a calibration session", role.Quality,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " One answer (`complies`, `does_not_comply` or `not_applicable`, an optional comment) for every " +
		"criterion of every interaction, all at once: a missing, repeated or unknown one is 400 naming it. Submitted answers " +
		"cannot change: submitting again, or to a closed session, is 409. The last analyst's submission closes the session. " +
		"Only the session's analysts may submit; anyone else gets 404."
	op.Tags = tag
	huma.Register(api, op, c.submit)

	op = operation(http.MethodPost, "/calibration-sessions/{id}/close", "close-calibration-session",
		"Close a calibration session before every analyst has submitted", role.Supervisor,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Its results count the answers submitted so far. A closed session is 409. Each analyst is notified."
	op.Tags = tag
	huma.Register(api, op, c.close)

	op = operation(http.MethodPut, "/calibration-sessions/{id}/calibrated", "calibrate-calibration-session",
		"Record the calibrated (agreed) answers of a closed calibration session", role.Supervisor,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Each answer names an interaction and a criterion of the session; answers sent replace the ones " +
		"recorded for those criteria, the others stay. An open session is 409."
	op.Tags = tag
	huma.Register(api, op, c.calibrate)

	op = operation(http.MethodPost, "/calibration-sessions/{id}/tasks/{uuid}/apply", "apply-calibration",
		"Apply an interaction's calibrated answers to its audit as a new revision", role.Supervisor,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable)
	op.Description += " The calibrated answers become an edit of the task's audit, recomputed " +
		"exactly as `POST /compute-audit-results` does (against the campaign's current scorecard), its revision naming the " +
		"session (`calibration` in the task's revisions); a criterion calibrated `not_applicable` becomes not applicable " +
		"(`not_applicable: true`, its weight out of the score). 200 with the revision, or 202 with the job when the wait ran out. An open session, an " +
		"interaction without calibrated answers, one applied already, or a task that can no longer be edited (validated) is 409."
	op.Tags = tag
	reg := api.OpenAPI().Components.Schemas
	op.Responses = map[string]*huma.Response{
		"200": {Description: "The calibrated answers are the current revision; its score breakdown",
			Content: map[string]*huma.MediaType{"application/json": {
				Schema: reg.Schema(reflect.TypeFor[Envelope[ComputedAudit]](), true, "")}}},
		"202": {Description: "The edit is recorded; its recomputation goes on in the background",
			Content: map[string]*huma.MediaType{"application/json": {
				Schema: reg.Schema(reflect.TypeFor[Envelope[EditAccepted]](), true, "")}}},
	}
	huma.Register(api, op, c.apply)
}

// CalibrationAnalystOption is a user who may be an analyst of a session.
type CalibrationAnalystOption struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
}

// CalibrationAnalystList is the users who may be analysts.
type CalibrationAnalystList struct {
	Items []CalibrationAnalystOption `json:"items"`
}

func (c *calibrationResource) analysts(ctx context.Context, _ *struct{}) (*Output[CalibrationAnalystList], error) {
	users, err := calibration.Analysts(ctx, c.pool)
	if err != nil {
		return nil, err
	}
	out := CalibrationAnalystList{Items: make([]CalibrationAnalystOption, len(users))}
	for i, u := range users {
		out.Items[i] = CalibrationAnalystOption{ID: u.ID, Username: u.Username, Name: u.Name}
	}
	return ok(out), nil
}

// CalibrationSessionPage is a page of calibration sessions.
type CalibrationSessionPage struct {
	Items []CalibrationSession `json:"items" doc:"Newest first"`
	Total int                  `json:"total"`
	Skip  int                  `json:"skip"`
	Limit int                  `json:"limit"`
}

type listCalibrationInput struct {
	Status string `query:"status" enum:"open,closed" doc:"Only the sessions in this status"`
	Skip   int    `query:"skip" minimum:"0" default:"0" doc:"Pagination offset"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Pagination limit"`
}

func (c *calibrationResource) list(ctx context.Context, in *listCalibrationInput) (*Output[CalibrationSessionPage], error) {
	items, total, err := calibration.List(ctx, c.pool, caller(ctx),
		db.CalibrationSessionFilter{Status: in.Status, Skip: in.Skip, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	sessions := each(items, func(s db.CalibrationSession) CalibrationSession { return CalibrationSession(s) })
	return ok(CalibrationSessionPage{Items: sessions, Total: total, Skip: in.Skip, Limit: in.Limit}), nil
}

type createCalibrationInput struct {
	Body struct {
		Name      string     `json:"name" minLength:"1" maxLength:"120" doc:"The session's name: trimmed, 1 to 120 characters, no control characters" example:"Week 48: refunds"`
		TaskUUIDs []string   `json:"task_uuids" format:"uuid" minItems:"1" maxItems:"50" doc:"The interactions: distinct audited tasks" example:"[\"6f1c2a3b-0000-4000-8000-000000000001\"]"`
		Analysts  []string   `json:"analysts" minItems:"2" maxItems:"20" doc:"The analysts: distinct active users (ids or usernames) with the quality role or above" example:"[\"maria\",\"jon\",\"lucia\"]"`
		DueAt     *time.Time `json:"due_at,omitempty" doc:"When the analysts should have submitted (RFC 3339, in the future); optional"`
	}
}

func (c *calibrationResource) create(ctx context.Context, in *createCalibrationInput) (*Output[CalibrationDetail], error) {
	b := in.Body
	id, err := calibration.Create(ctx, c.deps(), caller(ctx),
		calibration.New{Name: b.Name, TaskUUIDs: b.TaskUUIDs, Analysts: b.Analysts, DueAt: b.DueAt})
	if err != nil {
		return nil, err
	}
	return detailOf(calibration.Get(ctx, c.pool, caller(ctx), id))
}

// CalibrationYou is the caller's part in a session.
type CalibrationYou struct {
	Analyst   bool `json:"analyst" doc:"Whether the caller is an analyst of the session"`
	Submitted bool `json:"submitted" doc:"Whether the caller has submitted their answers"`
}

// CalibrationDetail is a calibration session as one user may see it.
type CalibrationDetail struct {
	Session  CalibrationSession   `json:"session"`
	Tasks    []CalibrationTask    `json:"tasks" doc:"The interactions, in the order given"`
	Items    []CalibrationItem    `json:"items" doc:"Every criterion of every interaction, by interaction and scorecard order"`
	Analysts []CalibrationAnalyst `json:"analysts"`
	// Answers are the caller's own while the session is open, everyone's
	// once it is closed.
	Answers []CalibrationAnswer  `json:"answers" doc:"The caller's own answers while the session is open; every analyst's once it is closed"`
	Results *calibration.Results `json:"results" doc:"The agreement figures, once closed; null while open"`
	You     CalibrationYou       `json:"you"`
}

// detailOf answers a session as the caller sees it, d, after a step that
// ended with err (returned instead when not nil).
func detailOf(d calibration.Detail, err error) (*Output[CalibrationDetail], error) {
	if err != nil {
		return nil, err
	}
	return ok(CalibrationDetail{Session: CalibrationSession(d.Session),
		Tasks:    each(d.Tasks, func(t db.CalibrationTask) CalibrationTask { return CalibrationTask(t) }),
		Items:    each(d.Items, func(i db.CalibrationItem) CalibrationItem { return CalibrationItem(i) }),
		Analysts: each(d.Analysts, calibrationAnalystOf),
		Answers:  each(d.Answers, func(a db.CalibrationAnswer) CalibrationAnswer { return CalibrationAnswer(a) }),
		Results:  d.Results, You: CalibrationYou{Analyst: d.Analyst, Submitted: d.Submitted}}), nil
}

type calibrationIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The session's id"`
}

func (c *calibrationResource) get(ctx context.Context, in *calibrationIDInput) (*Output[CalibrationDetail], error) {
	return detailOf(calibration.Get(ctx, c.pool, caller(ctx), in.ID))
}

// AnswerInput is an answer to one criterion of one interaction.
type AnswerInput struct {
	TaskUUID    string `json:"task_uuid" format:"uuid" doc:"The interaction"`
	CriterionID string `json:"criterion_id" maxLength:"64" doc:"The criterion's id in the session's scorecard version"`
	Answer      string `json:"answer" enum:"complies,does_not_comply,not_applicable"`
	Comment     string `json:"comment,omitempty" maxLength:"2000" doc:"Why, optional"`
}

type answersInput struct {
	ID   string `path:"id" format:"uuid" doc:"The session's id"`
	Body struct {
		Answers []AnswerInput `json:"answers" minItems:"1" maxItems:"5000" doc:"The answers"`
	}
}

// answers are in's answers as the calibration workflow takes them.
func (in *answersInput) answers() []calibration.Answer {
	out := make([]calibration.Answer, len(in.Body.Answers))
	for i, a := range in.Body.Answers {
		out[i] = calibration.Answer{TaskUUID: a.TaskUUID, CriterionID: a.CriterionID, Answer: a.Answer, Comment: a.Comment}
	}
	return out
}

func (c *calibrationResource) submit(ctx context.Context, in *answersInput) (*Output[CalibrationDetail], error) {
	return detailOf(calibration.Submit(ctx, c.deps(), caller(ctx), in.ID, in.answers()))
}

func (c *calibrationResource) close(ctx context.Context, in *calibrationIDInput) (*Output[CalibrationDetail], error) {
	return detailOf(calibration.Close(ctx, c.deps(), caller(ctx), in.ID))
}

func (c *calibrationResource) calibrate(ctx context.Context, in *answersInput) (*Output[CalibrationDetail], error) {
	return detailOf(calibration.Calibrate(ctx, c.deps(), caller(ctx), in.ID, in.answers()))
}

type applyCalibrationInput struct {
	ID       string `path:"id" format:"uuid" doc:"The session's id"`
	TaskUUID string `path:"uuid" format:"uuid" doc:"The interaction (task) of the session"`
}

func (c *calibrationResource) apply(ctx context.Context, in *applyCalibrationInput) (*computeAuditOutput, error) {
	applied, err := calibration.Apply(ctx, c.deps(), caller(ctx), in.ID, in.TaskUUID)
	if err != nil {
		return nil, err
	}
	return c.audits.outcome(ctx, applied.Task, applied.Edit, applied.JobID)
}
