package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/calibration"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
)

// calibrationResource is calibration sessions: a supervisor has analysts
// score the same interactions blind and reads how much they agree.
type calibrationResource struct {
	pool *pgxpool.Pool
	// audits answers an applied session as an analyst's edit is answered.
	audits *auditsResource
	now    func() time.Time
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
	op.Description += " The calibrated answers `complies` and `does_not_comply` become an edit of the task's audit, recomputed " +
		"exactly as `POST /compute-audit-results` does (against the campaign's current scorecard), its revision naming the " +
		"session (`calibration` in the task's revisions); a criterion calibrated `not_applicable` keeps its verdict (an audit " +
		"has no such verdict). 200 with the revision, or 202 with the job when the wait ran out. An open session, an " +
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

// analystRoles are the roles of the users who may be analysts.
var analystRoles = []string{role.Quality.String(), role.Supervisor.String(), role.Admin.String()}

func (c *calibrationResource) analysts(ctx context.Context, _ *struct{}) (*Output[CalibrationAnalystList], error) {
	users, err := db.UsersWithAnyRole(ctx, c.pool, analystRoles)
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
	Items []db.CalibrationSession `json:"items" doc:"Newest first"`
	Total int                     `json:"total"`
	Skip  int                     `json:"skip"`
	Limit int                     `json:"limit"`
}

type listCalibrationInput struct {
	Status string `query:"status" enum:"open,closed" doc:"Only the sessions in this status"`
	Skip   int    `query:"skip" minimum:"0" default:"0" doc:"Pagination offset"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Pagination limit"`
}

func (c *calibrationResource) list(ctx context.Context, in *listCalibrationInput) (*Output[CalibrationSessionPage], error) {
	f := db.CalibrationSessionFilter{Status: in.Status, Skip: in.Skip, Limit: in.Limit}
	if p := principal(ctx); !p.Is(role.Supervisor) {
		f.Analyst = p.User.ID
	}
	items, total, err := db.CalibrationSessionList(ctx, c.pool, f)
	if err != nil {
		return nil, err
	}
	return ok(CalibrationSessionPage{Items: items, Total: total, Skip: in.Skip, Limit: in.Limit}), nil
}

type createCalibrationInput struct {
	Body struct {
		Name      string     `json:"name" minLength:"1" maxLength:"120" doc:"The session's name: trimmed, 1 to 120 characters, no control characters" example:"Week 48: refunds"`
		TaskUUIDs []string   `json:"task_uuids" format:"uuid" minItems:"1" maxItems:"50" doc:"The interactions: distinct audited tasks" example:"[\"6f1c2a3b-0000-4000-8000-000000000001\"]"`
		Analysts  []string   `json:"analysts" minItems:"2" maxItems:"20" doc:"The analysts: distinct active users (ids or usernames) with the quality role or above" example:"[\"maria\",\"jon\",\"lucia\"]"`
		DueAt     *time.Time `json:"due_at,omitempty" doc:"When the analysts should have submitted (RFC 3339, in the future); optional"`
	}
}

// problems gathers the VALIDATION_ERROR details of a request.
type problems []*huma.ErrorDetail

func (p *problems) add(loc, msg string, v any) {
	*p = append(*p, &huma.ErrorDetail{Location: loc, Message: msg, Value: v})
}

// err is p as one VALIDATION_ERROR saying what, or nil when p is empty.
func (p problems) err(what string) error {
	if len(p) == 0 {
		return nil
	}
	return Errorf(CodeValidation, fmt.Sprintf("%s has %d problem(s); nothing was changed", what, len(p))).WithDetails([]*huma.ErrorDetail(p))
}

func (c *calibrationResource) create(ctx context.Context, in *createCalibrationInput) (*Output[CalibrationDetail], error) {
	b := in.Body
	var bad problems
	name := strings.TrimSpace(b.Name)
	switch {
	case name == "":
		bad.add("body.name", "blank once trimmed", nil)
	case strings.ContainsFunc(name, unicode.IsControl):
		bad.add("body.name", "holds a control character (a tab, a line break…)", nil)
	}
	if b.DueAt != nil && !b.DueAt.After(c.now()) {
		bad.add("body.due_at", "is not in the future", b.DueAt.Format(time.RFC3339))
	}
	tasks, err := c.sessionTasks(ctx, b.TaskUUIDs, &bad)
	if err != nil {
		return nil, err
	}
	analysts, err := c.sessionAnalysts(ctx, b.Analysts, &bad)
	if err != nil {
		return nil, err
	}
	if err := bad.err("the session"); err != nil {
		return nil, err
	}
	p := principal(ctx)
	var id string
	err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionCreate(ctx, tx, db.CalibrationSessionNew{Name: name, CreatedBy: p.User.ID, DueAt: b.DueAt,
			Tasks: tasks, Analysts: analysts})
		if err != nil {
			return err
		}
		id = s.ID
		members, err := db.CalibrationAnalysts(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		text := l10n.T("You are an analyst of calibration session “%s”: score its %d interactions blind and submit your answers.", s.Name, s.Tasks)
		if s.DueAt != nil {
			text = l10n.T("You are an analyst of calibration session “%s”: score its %d interactions blind and submit your answers by %s (UTC).",
				s.Name, s.Tasks, s.DueAt.UTC().Format("2006-01-02 15:04"))
		}
		for _, a := range members {
			if _, err := db.NotificationCreate(ctx, tx, db.CalibrationNotice(a.UserID, s.ID, "info", text)); err != nil {
				return err
			}
		}
		return db.CalibrationEventInsert(ctx, tx, s, "started", members)
	})
	return c.detailAfter(ctx, id, err)
}

// sessionTasks checks the tasks of a new session and returns them with
// the criteria and automatic verdicts of their current audit revisions.
func (c *calibrationResource) sessionTasks(ctx context.Context, uuids []string, bad *problems) ([]db.CalibrationTaskNew, error) {
	seen := map[string]int{}
	var out []db.CalibrationTaskNew
	for i, id := range uuids {
		loc := fmt.Sprintf("body.task_uuids[%d]", i)
		key := strings.ToLower(id)
		if j, dup := seen[key]; dup {
			bad.add(loc, fmt.Sprintf("repeats task_uuids[%d]", j), id)
			continue
		}
		seen[key] = i
		task, err := db.TaskGetByUUID(ctx, c.pool, id)
		if errcode.Is(err, errcode.NotFound) {
			bad.add(loc, "no such task", id)
			continue
		}
		if err != nil {
			return nil, err
		}
		if task.Status != db.TaskAudited || task.AuditRevision == nil {
			bad.add(loc, fmt.Sprintf("the task is %s: only an audited task can be calibrated", task.Status), id)
			continue
		}
		t, err := c.sessionTask(ctx, task)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// sessionTask is task's part of a new session: the criteria of its current
// revision and, for each, the automatic verdict: the latest verdict up to
// that revision that the engine gave (an item with the engine's
// assessment, or any item of an engine revision).
func (c *calibrationResource) sessionTask(ctx context.Context, task db.Task) (db.CalibrationTaskNew, error) {
	current, err := db.AuditCurrent(ctx, c.pool, task.UUID)
	if err != nil {
		return db.CalibrationTaskNew{}, err
	}
	automatic := map[string]bool{}
	found := map[string]bool{}
	for n := current.Revision; n >= 1 && len(found) < len(current.Result.Items); n-- {
		rev := current
		if n != current.Revision {
			if rev, err = db.AuditRevisionGet(ctx, c.pool, task.UUID, n); err != nil {
				return db.CalibrationTaskNew{}, err
			}
		}
		for _, it := range rev.Result.Items {
			if !found[it.CriterionID] && (it.Basis != "" || rev.Source == db.AuditByEngine) {
				found[it.CriterionID], automatic[it.CriterionID] = true, it.Complies
			}
		}
	}
	t := db.CalibrationTaskNew{TaskUUID: task.UUID, AuditRevision: current.Revision, ScorecardVersion: current.Result.ScorecardVersion}
	for _, it := range current.Result.Items {
		item := db.CalibrationItem{CriterionID: it.CriterionID, Category: it.Category, Question: it.Question, Critical: it.Critical}
		if v, ok := automatic[it.CriterionID]; ok {
			item.Automatic = &v
		}
		t.Items = append(t.Items, item)
	}
	return t, nil
}

// sessionAnalysts checks the analysts of a new session (ids or usernames)
// and returns their ids.
func (c *calibrationResource) sessionAnalysts(ctx context.Context, refs []string, bad *problems) ([]string, error) {
	seen := map[string]int{}
	var out []string
	for i, ref := range refs {
		loc := fmt.Sprintf("body.analysts[%d]", i)
		id, err := db.UserResolve(ctx, c.pool, ref)
		if ambiguous, isAmbiguous := errors.AsType[*db.AmbiguousUserError](err); isAmbiguous {
			bad.add(loc, ambiguous.Error(), ref)
			continue
		}
		if err != nil {
			return nil, err
		}
		user, err := db.UserGet(ctx, c.pool, id)
		switch {
		case errcode.Is(err, errcode.NotFound):
			bad.add(loc, "no such user", ref)
			continue
		case err != nil:
			return nil, err
		case !user.Active:
			bad.add(loc, "the user is deactivated", ref)
			continue
		case role.Highest(user.Roles) < role.Quality:
			bad.add(loc, "the user is not an analyst: an analyst has the quality role or above", ref)
			continue
		}
		if j, dup := seen[id]; dup {
			bad.add(loc, fmt.Sprintf("names the same user as analysts[%d]", j), ref)
			continue
		}
		seen[id] = i
		out = append(out, id)
	}
	return out, nil
}

// CalibrationYou is the caller's part in a session.
type CalibrationYou struct {
	Analyst   bool `json:"analyst" doc:"Whether the caller is an analyst of the session"`
	Submitted bool `json:"submitted" doc:"Whether the caller has submitted their answers"`
}

// CalibrationDetail is a calibration session as one user may see it.
type CalibrationDetail struct {
	Session  db.CalibrationSession   `json:"session"`
	Tasks    []db.CalibrationTask    `json:"tasks" doc:"The interactions, in the order given"`
	Items    []db.CalibrationItem    `json:"items" doc:"Every criterion of every interaction, by interaction and scorecard order"`
	Analysts []db.CalibrationAnalyst `json:"analysts"`
	// Answers are the caller's own while the session is open, everyone's
	// once it is closed.
	Answers []db.CalibrationAnswer `json:"answers" doc:"The caller's own answers while the session is open; every analyst's once it is closed"`
	Results *calibration.Results   `json:"results" doc:"The agreement figures, once closed; null while open"`
	You     CalibrationYou         `json:"you"`
}

// visible returns session id with its analysts when the caller may see it
// (a supervisor, or one of its analysts), else the NotFound error of a
// session that does not exist.
func (c *calibrationResource) visible(ctx context.Context, q db.DBTX, id string) (db.CalibrationSession, []db.CalibrationAnalyst, error) {
	s, err := db.CalibrationSessionGet(ctx, q, id)
	if err != nil {
		return s, nil, err
	}
	analysts, err := db.CalibrationAnalysts(ctx, q, id)
	if err != nil {
		return s, nil, err
	}
	p := principal(ctx)
	if !p.Is(role.Supervisor) && !slices.ContainsFunc(analysts, func(a db.CalibrationAnalyst) bool { return a.UserID == p.User.ID }) {
		return s, nil, errcode.New(errcode.NotFound, "no calibration session of yours has this id")
	}
	return s, analysts, nil
}

type calibrationIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The session's id"`
}

func (c *calibrationResource) get(ctx context.Context, in *calibrationIDInput) (*Output[CalibrationDetail], error) {
	_, _, err := c.visible(ctx, c.pool, in.ID)
	return c.detailAfter(ctx, in.ID, err)
}

// detailAfter answers session id as the caller may see it, after a step
// that ended with err (returned instead when not nil).
func (c *calibrationResource) detailAfter(ctx context.Context, id string, err error) (*Output[CalibrationDetail], error) {
	if err != nil {
		return nil, err
	}
	d, err := c.detail(ctx, id)
	if err != nil {
		return nil, err
	}
	return ok(d), nil
}

// detail is session id as the caller may see it: blind while it is open.
func (c *calibrationResource) detail(ctx context.Context, id string) (CalibrationDetail, error) {
	var d CalibrationDetail
	var err error
	if d.Session, err = db.CalibrationSessionGet(ctx, c.pool, id); err != nil {
		return d, err
	}
	if d.Tasks, err = db.CalibrationTasks(ctx, c.pool, id); err != nil {
		return d, err
	}
	if d.Items, err = db.CalibrationItems(ctx, c.pool, id); err != nil {
		return d, err
	}
	if d.Analysts, err = db.CalibrationAnalysts(ctx, c.pool, id); err != nil {
		return d, err
	}
	me := principal(ctx).User.ID
	for _, a := range d.Analysts {
		if a.UserID == me {
			d.You = CalibrationYou{Analyst: true, Submitted: a.SubmittedAt != nil}
		}
	}
	if d.Session.Status == db.CalibrationOpen {
		for i := range d.Items {
			d.Items[i].Automatic = nil
		}
		d.Answers, err = db.CalibrationAnswers(ctx, c.pool, id, me)
		return d, err
	}
	if d.Answers, err = db.CalibrationAnswers(ctx, c.pool, id, ""); err != nil {
		return d, err
	}
	res := results(d.Items, d.Answers, d.Analysts)
	d.Results = &res
	return d, nil
}

// results computes a session's figures from its items and answers.
func results(items []db.CalibrationItem, answers []db.CalibrationAnswer, analysts []db.CalibrationAnalyst) calibration.Results {
	type key struct{ task, criterion string }
	units := make([]calibration.Unit, len(items))
	index := map[key]int{}
	var criteria []string
	for i, it := range items {
		units[i] = calibration.Unit{TaskUUID: it.TaskUUID, CriterionID: it.CriterionID, Answers: map[string]string{}}
		if it.Automatic != nil {
			units[i].Automatic = calibration.Of(*it.Automatic)
		}
		index[key{it.TaskUUID, it.CriterionID}] = i
		if !slices.Contains(criteria, it.CriterionID) {
			criteria = append(criteria, it.CriterionID)
		}
	}
	for _, a := range answers {
		if i, ok := index[key{a.TaskUUID, a.CriterionID}]; ok {
			units[i].Answers[a.AnalystID] = a.Answer
		}
	}
	ids := make([]string, len(analysts))
	for i, a := range analysts {
		ids[i] = a.UserID
	}
	return calibration.Compute(units, criteria, ids)
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

// checkAnswers checks answers against the session's items: each names an
// item once; with all, every item must have one. It returns them as the
// database takes them.
func checkAnswers(items []db.CalibrationItem, in []AnswerInput, all bool) ([]db.CalibrationAnswer, error) {
	type key struct{ task, criterion string }
	known := map[key]bool{}
	for _, it := range items {
		known[key{it.TaskUUID, it.CriterionID}] = true
	}
	var bad problems
	seen := map[key]int{}
	out := make([]db.CalibrationAnswer, 0, len(in))
	for i, a := range in {
		loc := fmt.Sprintf("body.answers[%d]", i)
		k := key{strings.ToLower(a.TaskUUID), a.CriterionID}
		j, dup := seen[k]
		switch {
		case !known[k]:
			bad.add(loc+".criterion_id", "is not a criterion of that interaction in this session (its scorecard version)", a.CriterionID)
			continue
		case dup:
			bad.add(loc+".criterion_id", fmt.Sprintf("repeats answers[%d]", j), a.CriterionID)
			continue
		}
		if strings.ContainsFunc(a.Comment, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
			bad.add(loc+".comment", "holds a control character", nil)
		}
		seen[k] = i
		out = append(out, db.CalibrationAnswer{TaskUUID: k.task, CriterionID: a.CriterionID, Answer: a.Answer, Comment: strings.TrimSpace(a.Comment)})
	}
	if all {
		for _, it := range items {
			if _, ok := seen[key{it.TaskUUID, it.CriterionID}]; !ok {
				bad.add("body.answers", fmt.Sprintf("no answer for criterion %s of task %s", it.CriterionID, it.TaskUUID), nil)
			}
		}
	}
	return out, bad.err("the answers")
}

func (c *calibrationResource) submit(ctx context.Context, in *answersInput) (*Output[CalibrationDetail], error) {
	me := principal(ctx).User.ID
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := db.CalibrationSessionLock(ctx, tx, in.ID); err != nil {
			return err
		}
		s, analysts, err := c.visible(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(analysts, func(a db.CalibrationAnalyst) bool { return a.UserID == me }) {
			// A supervisor who is not one of its analysts.
			return errcode.New(errcode.NotFound, "no calibration session of yours has this id")
		}
		if s.Status != db.CalibrationOpen {
			return Errorf(CodeConflict, "the calibration session is closed: answers can no longer be submitted")
		}
		items, err := db.CalibrationItems(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		answers, err := checkAnswers(items, in.Body.Answers, true)
		if err != nil {
			return err
		}
		if err := db.CalibrationAnalystSubmit(ctx, tx, in.ID, me); err != nil {
			return err
		}
		if err := db.CalibrationAnswersInsert(ctx, tx, in.ID, me, answers); err != nil {
			return err
		}
		if s, err = db.CalibrationSessionGet(ctx, tx, in.ID); err != nil {
			return err
		}
		if s.Submitted == s.Analysts {
			return c.closeSession(ctx, tx, s, "")
		}
		return db.CalibrationEventInsert(ctx, tx, s, "submitted", analysts)
	})
	return c.detailAfter(ctx, in.ID, err)
}

// closeSession closes open session s (by, "" when the last submission
// does), keeping its overall figures, tells its analysts and its creator,
// and writes its event. Call it in the transaction that locked s.
func (c *calibrationResource) closeSession(ctx context.Context, tx pgx.Tx, s db.CalibrationSession, by string) error {
	items, err := db.CalibrationItems(ctx, tx, s.ID)
	if err != nil {
		return err
	}
	answers, err := db.CalibrationAnswers(ctx, tx, s.ID, "")
	if err != nil {
		return err
	}
	analysts, err := db.CalibrationAnalysts(ctx, tx, s.ID)
	if err != nil {
		return err
	}
	overall := results(items, answers, analysts).Overall
	if s, err = db.CalibrationSessionClose(ctx, tx, s.ID, by, overall.Alpha, overall.PercentAgreement); err != nil {
		return err
	}
	text := l10n.T("Calibration session “%s” is closed (%d of %d analysts submitted): ", s.Name, s.Submitted, s.Analysts)
	if overall.PercentAgreement != nil {
		text = text.And("the analysts agree on %.1f%% of their answers", 100**overall.PercentAgreement)
	} else {
		text = text.And("too few answers to measure agreement")
	}
	if overall.Alpha != nil {
		text = text.And(", Krippendorff's alpha %.2f.", *overall.Alpha)
	} else {
		text = text.And(".")
	}
	told := map[string]bool{}
	for _, a := range analysts {
		told[a.UserID] = true
		if _, err := db.NotificationCreate(ctx, tx, db.CalibrationNotice(a.UserID, s.ID, "success", text)); err != nil {
			return err
		}
	}
	if !told[s.CreatedBy] {
		if _, err := db.NotificationCreate(ctx, tx, db.CalibrationNotice(s.CreatedBy, s.ID, "success", text)); err != nil {
			return err
		}
	}
	return db.CalibrationEventInsert(ctx, tx, s, "closed", analysts)
}

func (c *calibrationResource) close(ctx context.Context, in *calibrationIDInput) (*Output[CalibrationDetail], error) {
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionLock(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		if s.Status != db.CalibrationOpen {
			return Errorf(CodeConflict, "the calibration session is closed already")
		}
		return c.closeSession(ctx, tx, s, principal(ctx).User.ID)
	})
	return c.detailAfter(ctx, in.ID, err)
}

func (c *calibrationResource) calibrate(ctx context.Context, in *answersInput) (*Output[CalibrationDetail], error) {
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionLock(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		if s.Status == db.CalibrationOpen {
			return Errorf(CodeConflict, "the calibration session is still open: close it, or wait for every analyst to submit, before calibrating")
		}
		items, err := db.CalibrationItems(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		answers, err := checkAnswers(items, in.Body.Answers, false)
		if err != nil {
			return err
		}
		if err := db.CalibrationItemsCalibrate(ctx, tx, in.ID, principal(ctx).User.ID, answers); err != nil {
			return err
		}
		analysts, err := db.CalibrationAnalysts(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		return db.CalibrationEventInsert(ctx, tx, s, "calibrated", analysts)
	})
	return c.detailAfter(ctx, in.ID, err)
}

type applyCalibrationInput struct {
	ID       string `path:"id" format:"uuid" doc:"The session's id"`
	TaskUUID string `path:"uuid" format:"uuid" doc:"The interaction (task) of the session"`
}

func (c *calibrationResource) apply(ctx context.Context, in *applyCalibrationInput) (*computeAuditOutput, error) {
	p := principal(ctx)
	var task db.Task
	var edit db.AuditEdit
	var jobID int64
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionLock(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		tasks, err := db.CalibrationTasks(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(tasks, func(t db.CalibrationTask) bool { return strings.EqualFold(t.TaskUUID, in.TaskUUID) })
		switch {
		case i < 0:
			return errcode.New(errcode.NotFound, "the calibration session has no interaction %s", in.TaskUUID)
		case s.Status == db.CalibrationOpen:
			return Errorf(CodeConflict, "the calibration session is still open: close it and record the calibrated answers first")
		case tasks[i].AppliedEditID != nil:
			if prev, err := db.AuditEditGet(ctx, tx, *tasks[i].AppliedEditID); err != nil {
				return err
			} else if prev.Status == db.EditPending || prev.Status == db.EditApplied {
				return Errorf(CodeConflict, fmt.Sprintf("the calibrated answers of task %s were applied already (edit %d)", in.TaskUUID, prev.ID))
			}
		}
		items, err := db.CalibrationItems(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		var verdicts []scoring.Verdict
		for _, it := range items {
			if it.TaskUUID != tasks[i].TaskUUID || it.Calibrated == "" || it.Calibrated == calibration.NotApplicable {
				continue
			}
			why := it.CalibratedComment
			if why == "" {
				why = "Calibrated in session “" + s.Name + "”."
			}
			verdicts = append(verdicts, scoring.Verdict{CriterionID: it.CriterionID, Complies: it.Calibrated == calibration.Complies, Explanation: why})
		}
		if len(verdicts) == 0 {
			return Errorf(CodeConflict, fmt.Sprintf("task %s has no calibrated answer that complies or does not comply: record them first", in.TaskUUID))
		}
		if task, err = db.TaskGetByUUID(ctx, tx, tasks[i].TaskUUID); err != nil {
			return err
		}
		if edit, jobID, err = revision.Record(ctx, tx, c.audits.river, db.AuditEdit{TaskUUID: task.UUID, Verdicts: verdicts,
			AuthorID: p.User.ID, AuthorName: p.User.Username, CalibrationSessionID: s.ID}); err != nil {
			return err
		}
		if err := db.CalibrationTaskApplied(ctx, tx, s.ID, task.UUID, edit.ID); err != nil {
			return err
		}
		analysts, err := db.CalibrationAnalysts(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		return db.CalibrationEventInsert(ctx, tx, s, "applied", analysts)
	})
	if err != nil {
		return nil, err
	}
	return c.audits.outcome(ctx, task, edit, jobID)
}
