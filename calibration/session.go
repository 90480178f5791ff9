package calibration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/webhook"
)

// Caller is who takes a step: a supervisor (or above) reads and steers
// every session, an analyst only the sessions they are in.
type Caller struct {
	User db.User
	Role role.Role
}

func (c Caller) supervisor() bool { return c.Role >= role.Supervisor }

// errNotYours is the NotFound error of a session the caller may not see,
// the same as of a session that does not exist.
func errNotYours() error {
	return errcode.New(errcode.NotFound, "no calibration session of yours has this id")
}

// analystRoles are the roles of the users who may be analysts.
var analystRoles = []string{role.Quality.String(), role.Supervisor.String(), role.Admin.String()}

// Analysts returns the active users who may be analysts of a session.
func Analysts(ctx context.Context, q db.DBTX) ([]db.User, error) {
	return db.UsersWithAnyRole(ctx, q, analystRoles)
}

// List returns a page of the sessions f selects that c may see: every one
// for a supervisor, the sessions they are in for an analyst.
func List(ctx context.Context, q db.DBTX, c Caller, f db.CalibrationSessionFilter) ([]db.CalibrationSession, int, error) {
	if !c.supervisor() {
		f.Analyst = c.User.ID
	}
	return db.CalibrationSessionList(ctx, q, f)
}

// New is a session to start.
type New struct {
	Name string
	// TaskUUIDs are the interactions: distinct audited tasks.
	TaskUUIDs []string
	// Analysts are ids or usernames of distinct active users with the
	// quality role or above.
	Analysts []string
	// DueAt, when set, must be in the future.
	DueAt *time.Time
}

// Create starts session n by c, with a notification to each analyst and
// its event, and returns its id. Each interaction is answered against the
// scorecard version of its current audit revision, whose criteria and
// automatic verdicts the session keeps. It is an Invalid error listing
// every problem (located as the API locates body fields,
// "body.task_uuids[2]") when the name is blank or holds a control
// character, the due date is not in the future, a task is unknown,
// repeated or not audited, or an analyst is unknown, ambiguous, repeated,
// deactivated or below quality; nothing is stored then.
func Create(ctx context.Context, d db.Deps, c Caller, n New) (string, error) {
	var bad errcode.Problems
	name := strings.TrimSpace(n.Name)
	switch {
	case name == "":
		bad.Add("body.name", "blank once trimmed", nil)
	case strings.ContainsFunc(name, unicode.IsControl):
		bad.Add("body.name", "holds a control character (a tab, a line break…)", nil)
	}
	if n.DueAt != nil && !n.DueAt.After(d.Now()) {
		bad.Add("body.due_at", "is not in the future", n.DueAt.Format(time.RFC3339))
	}
	tasks, err := sessionTasks(ctx, d.Pool, n.TaskUUIDs, &bad)
	if err != nil {
		return "", err
	}
	analysts, err := sessionAnalysts(ctx, d.Pool, n.Analysts, &bad)
	if err != nil {
		return "", err
	}
	if err := bad.Err("the session"); err != nil {
		return "", err
	}
	var id string
	err = pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionCreate(ctx, tx, db.CalibrationSessionNew{Name: name, CreatedBy: c.User.ID, DueAt: n.DueAt,
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
	return id, err
}

// sessionTasks checks the tasks of a new session and returns them with
// the criteria and automatic verdicts of their current audit revisions.
func sessionTasks(ctx context.Context, q db.DBTX, uuids []string, bad *errcode.Problems) ([]db.CalibrationTaskNew, error) {
	seen := map[string]int{}
	var out []db.CalibrationTaskNew
	for i, id := range uuids {
		loc := fmt.Sprintf("body.task_uuids[%d]", i)
		key := strings.ToLower(id)
		if j, dup := seen[key]; dup {
			bad.Add(loc, fmt.Sprintf("repeats task_uuids[%d]", j), id)
			continue
		}
		seen[key] = i
		task, err := db.TaskGetByUUID(ctx, q, id)
		if errcode.Is(err, errcode.NotFound) {
			bad.Add(loc, "no such task", id)
			continue
		}
		if err != nil {
			return nil, err
		}
		if task.Status != pipeline.Audited || task.AuditRevision == nil {
			bad.Add(loc, fmt.Sprintf("the task is %s: only an audited task can be calibrated", task.Status), id)
			continue
		}
		t, err := sessionTask(ctx, q, task)
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
func sessionTask(ctx context.Context, q db.DBTX, task db.Task) (db.CalibrationTaskNew, error) {
	current, err := db.AuditCurrent(ctx, q, task.UUID)
	if err != nil {
		return db.CalibrationTaskNew{}, err
	}
	automatic := map[string]scoring.Item{}
	found := map[string]bool{}
	for n := current.Revision; n >= 1 && len(found) < len(current.Result.Items); n-- {
		rev := current
		if n != current.Revision {
			if rev, err = db.AuditRevisionGet(ctx, q, task.UUID, n); err != nil {
				return db.CalibrationTaskNew{}, err
			}
		}
		for _, it := range rev.Result.Items {
			if !found[it.CriterionID] && (it.Basis != "" || rev.Source == db.AuditByEngine) {
				found[it.CriterionID], automatic[it.CriterionID] = true, it
			}
		}
	}
	t := db.CalibrationTaskNew{TaskUUID: task.UUID, AuditRevision: current.Revision, ScorecardVersion: current.Result.ScorecardVersion}
	for _, it := range current.Result.Items {
		item := db.CalibrationItem{CriterionID: it.CriterionID, Category: it.Category, Question: it.Question, Critical: it.Critical}
		if v, ok := automatic[it.CriterionID]; ok {
			item.Automatic, item.AutomaticNotApplicable = &v.Complies, v.NotApplicable
		}
		t.Items = append(t.Items, item)
	}
	return t, nil
}

// sessionAnalysts checks the analysts of a new session (ids or usernames)
// and returns their ids.
func sessionAnalysts(ctx context.Context, q db.DBTX, refs []string, bad *errcode.Problems) ([]string, error) {
	seen := map[string]int{}
	var out []string
	for i, ref := range refs {
		loc := fmt.Sprintf("body.analysts[%d]", i)
		id, err := db.UserResolve(ctx, q, ref)
		if errcode.Is(err, errcode.Invalid) {
			bad.Add(loc, errcode.Message(err), ref)
			continue
		}
		if err != nil {
			return nil, err
		}
		user, err := db.UserGet(ctx, q, id)
		switch {
		case errcode.Is(err, errcode.NotFound):
			bad.Add(loc, "no such user", ref)
			continue
		case err != nil:
			return nil, err
		case !user.Active:
			bad.Add(loc, "the user is deactivated", ref)
			continue
		case role.Highest(user.Roles) < role.Quality:
			bad.Add(loc, "the user is not an analyst: an analyst has the quality role or above", ref)
			continue
		}
		if j, dup := seen[id]; dup {
			bad.Add(loc, fmt.Sprintf("names the same user as analysts[%d]", j), ref)
			continue
		}
		seen[id] = i
		out = append(out, id)
	}
	return out, nil
}

// Detail is a session as one caller may see it.
type Detail struct {
	Session db.CalibrationSession
	// Tasks are the interactions, in the order given.
	Tasks []db.CalibrationTask
	// Items are every criterion of every interaction; their automatic
	// verdicts are left out while the session is open.
	Items    []db.CalibrationItem
	Analysts []db.CalibrationAnalyst
	// Answers are the caller's own while the session is open, everyone's
	// once it is closed.
	Answers []db.CalibrationAnswer
	// Results are the agreement figures, once closed; nil while open.
	Results *Results
	// Analyst and Submitted say whether the caller is an analyst of the
	// session and has submitted.
	Analyst, Submitted bool
}

// visible returns session id with its analysts when c may see it (a
// supervisor, or one of its analysts), else the NotFound error of a session
// that does not exist.
func visible(ctx context.Context, q db.DBTX, c Caller, id string) (db.CalibrationSession, []db.CalibrationAnalyst, error) {
	s, err := db.CalibrationSessionGet(ctx, q, id)
	if err != nil {
		return s, nil, err
	}
	analysts, err := db.CalibrationAnalysts(ctx, q, id)
	if err != nil {
		return s, nil, err
	}
	if !c.supervisor() && !isAnalyst(analysts, c.User.ID) {
		return s, nil, errNotYours()
	}
	return s, analysts, nil
}

func isAnalyst(analysts []db.CalibrationAnalyst, user string) bool {
	return slices.ContainsFunc(analysts, func(a db.CalibrationAnalyst) bool { return a.UserID == user })
}

// Get returns session id as c may see it: blind while it is open (only
// c's own answers, no automatic verdicts, no results). It is a NotFound
// error for a session c may not see, as for one that does not exist.
func Get(ctx context.Context, q db.DBTX, c Caller, id string) (Detail, error) {
	if _, _, err := visible(ctx, q, c, id); err != nil {
		return Detail{}, err
	}
	return detail(ctx, q, c, id)
}

// detail is session id as c may see it, once c may.
func detail(ctx context.Context, q db.DBTX, c Caller, id string) (Detail, error) {
	var d Detail
	var err error
	if d.Session, err = db.CalibrationSessionGet(ctx, q, id); err != nil {
		return d, err
	}
	if d.Tasks, err = db.CalibrationTasks(ctx, q, id); err != nil {
		return d, err
	}
	if d.Items, err = db.CalibrationItems(ctx, q, id); err != nil {
		return d, err
	}
	if d.Analysts, err = db.CalibrationAnalysts(ctx, q, id); err != nil {
		return d, err
	}
	for _, a := range d.Analysts {
		if a.UserID == c.User.ID {
			d.Analyst, d.Submitted = true, a.SubmittedAt != nil
		}
	}
	if d.Session.Status == db.CalibrationOpen {
		for i := range d.Items {
			d.Items[i].Automatic = nil
		}
		d.Answers, err = db.CalibrationAnswers(ctx, q, id, c.User.ID)
		return d, err
	}
	if d.Answers, err = db.CalibrationAnswers(ctx, q, id, ""); err != nil {
		return d, err
	}
	res := results(d.Items, d.Answers, d.Analysts)
	d.Results = &res
	return d, nil
}

// results computes a session's figures from its items and answers.
func results(items []db.CalibrationItem, answers []db.CalibrationAnswer, analysts []db.CalibrationAnalyst) Results {
	type key struct{ task, criterion string }
	units := make([]Unit, len(items))
	index := map[key]int{}
	var criteria []string
	for i, it := range items {
		units[i] = Unit{TaskUUID: it.TaskUUID, CriterionID: it.CriterionID, Answers: map[string]string{}}
		if it.Automatic != nil {
			units[i].Automatic = Of(*it.Automatic, it.AutomaticNotApplicable)
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
	return Compute(units, criteria, ids)
}

// Answer is an answer to one criterion of one interaction: an analyst's,
// or a calibrated one.
type Answer struct {
	TaskUUID    string
	CriterionID string
	// Answer is Complies, DoesNotComply or NotApplicable.
	Answer  string
	Comment string
}

// checkAnswers checks answers against the session's items: each names an
// item once; with all, every item must have one. It returns them as the
// database takes them, or an Invalid error listing every problem.
func checkAnswers(items []db.CalibrationItem, in []Answer, all bool) ([]db.CalibrationAnswer, error) {
	type key struct{ task, criterion string }
	known := map[key]bool{}
	for _, it := range items {
		known[key{it.TaskUUID, it.CriterionID}] = true
	}
	var bad errcode.Problems
	seen := map[key]int{}
	out := make([]db.CalibrationAnswer, 0, len(in))
	for i, a := range in {
		loc := fmt.Sprintf("body.answers[%d]", i)
		k := key{strings.ToLower(a.TaskUUID), a.CriterionID}
		j, dup := seen[k]
		switch {
		case !known[k]:
			bad.Add(loc+".criterion_id", "is not a criterion of that interaction in this session (its scorecard version)", a.CriterionID)
			continue
		case dup:
			bad.Add(loc+".criterion_id", fmt.Sprintf("repeats answers[%d]", j), a.CriterionID)
			continue
		}
		if strings.ContainsFunc(a.Comment, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
			bad.Add(loc+".comment", "holds a control character", nil)
		}
		seen[k] = i
		out = append(out, db.CalibrationAnswer{TaskUUID: k.task, CriterionID: a.CriterionID, Answer: a.Answer, Comment: strings.TrimSpace(a.Comment)})
	}
	if all {
		for _, it := range items {
			if _, ok := seen[key{it.TaskUUID, it.CriterionID}]; !ok {
				bad.Add("body.answers", fmt.Sprintf("no answer for criterion %s of task %s", it.CriterionID, it.TaskUUID), nil)
			}
		}
	}
	return out, bad.Err("the answers")
}

// Submit records c's answers to open session id, one for every criterion
// of every interaction, with its event; the last analyst's submission
// closes the session (Close). It returns the session as c then sees it. It
// is a NotFound error unless c is an analyst of the session; a Conflict
// error when the session is closed or c submitted already; an Invalid
// error listing every problem when an answer is missing, repeated or
// unknown.
func Submit(ctx context.Context, d db.Deps, c Caller, id string, answers []Answer) (Detail, error) {
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		if _, err := db.CalibrationSessionLock(ctx, tx, id); err != nil {
			return err
		}
		s, analysts, err := visible(ctx, tx, c, id)
		if err != nil {
			return err
		}
		if !isAnalyst(analysts, c.User.ID) {
			return errNotYours() // a supervisor who is not one of its analysts
		}
		if s.Status != db.CalibrationOpen {
			return errcode.New(errcode.Conflict, "the calibration session is closed: answers can no longer be submitted")
		}
		items, err := db.CalibrationItems(ctx, tx, id)
		if err != nil {
			return err
		}
		checked, err := checkAnswers(items, answers, true)
		if err != nil {
			return err
		}
		if err := db.CalibrationAnalystSubmit(ctx, tx, id, c.User.ID); err != nil {
			return err
		}
		if err := db.CalibrationAnswersInsert(ctx, tx, id, c.User.ID, checked); err != nil {
			return err
		}
		if s, err = db.CalibrationSessionGet(ctx, tx, id); err != nil {
			return err
		}
		if s.Submitted == s.Analysts {
			return closeSession(ctx, tx, d.River, s, "")
		}
		return db.CalibrationEventInsert(ctx, tx, s, "submitted", analysts)
	})
	return after(ctx, d.Pool, c, id, err)
}

// after is session id as c sees it after a step that ended with err
// (returned instead when not nil).
func after(ctx context.Context, q db.DBTX, c Caller, id string, err error) (Detail, error) {
	if err != nil {
		return Detail{}, err
	}
	return detail(ctx, q, c, id)
}

// closeSession closes open session s (by, "" when the last submission
// does), keeping its overall figures, tells its analysts and its creator,
// and writes its event and its webhooks' deliveries (queued with client).
// Call it in the transaction that locked s.
func closeSession(ctx context.Context, tx pgx.Tx, client *river.Client[pgx.Tx], s db.CalibrationSession, by string) error {
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
	text := closedText(s, overall)
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
	if err := db.CalibrationEventInsert(ctx, tx, s, "closed", analysts); err != nil {
		return err
	}
	campaigns, err := db.CalibrationCampaigns(ctx, tx, s.ID)
	if err != nil {
		return err
	}
	return webhook.Queue(ctx, tx, client, webhook.CalibrationEvent(s, campaigns))
}

// closedText tells that session s closed with overall figures.
func closedText(s db.CalibrationSession, overall Agreement) l10n.Text {
	text := l10n.T("Calibration session “%s” is closed (%d of %d analysts submitted): ", s.Name, s.Submitted, s.Analysts)
	if overall.PercentAgreement != nil {
		text = text.And("the analysts agree on %.1f%% of their answers", 100**overall.PercentAgreement)
	} else {
		text = text.And("too few answers to measure agreement")
	}
	if overall.Alpha != nil {
		return text.And(", Krippendorff's alpha %.2f.", *overall.Alpha)
	}
	return text.And(".")
}

// Close closes open session id before every analyst has submitted, by c:
// its results count the answers submitted so far; its analysts and its
// creator are told. It returns the session as c then sees it; a NotFound
// error for an unknown session, a Conflict error for a closed one.
func Close(ctx context.Context, d db.Deps, c Caller, id string) (Detail, error) {
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionLock(ctx, tx, id)
		if err != nil {
			return err
		}
		if s.Status != db.CalibrationOpen {
			return errcode.New(errcode.Conflict, "the calibration session is closed already")
		}
		return closeSession(ctx, tx, d.River, s, c.User.ID)
	})
	return after(ctx, d.Pool, c, id, err)
}

// Calibrate records c's calibrated (agreed) answers to closed session id,
// replacing those recorded for the same criteria, with its event. It
// returns the session as c then sees it; a NotFound error for an unknown
// session, a Conflict error for an open one, an Invalid error listing
// every problem when an answer is unknown or repeated.
func Calibrate(ctx context.Context, d db.Deps, c Caller, id string, answers []Answer) (Detail, error) {
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionLock(ctx, tx, id)
		if err != nil {
			return err
		}
		if s.Status == db.CalibrationOpen {
			return errcode.New(errcode.Conflict, "the calibration session is still open: close it, or wait for every analyst to submit, before calibrating")
		}
		items, err := db.CalibrationItems(ctx, tx, id)
		if err != nil {
			return err
		}
		checked, err := checkAnswers(items, answers, false)
		if err != nil {
			return err
		}
		if err := db.CalibrationItemsCalibrate(ctx, tx, id, c.User.ID, checked); err != nil {
			return err
		}
		analysts, err := db.CalibrationAnalysts(ctx, tx, id)
		if err != nil {
			return err
		}
		return db.CalibrationEventInsert(ctx, tx, s, "calibrated", analysts)
	})
	return after(ctx, d.Pool, c, id, err)
}

// Applied is the edit that applying an interaction's calibrated answers
// made, and the recompute_audit job that applies it.
type Applied struct {
	Task  db.Task
	Edit  db.AuditEdit
	JobID int64
}

// Apply makes the calibrated answers complies and does_not_comply of
// interaction taskUUID of closed session id an edit of its audit by c
// (revision.Record), its revision naming the session, with the session's
// event; a criterion calibrated not_applicable becomes not applicable. It
// is a NotFound error for an unknown session or
// an interaction it does not hold; a Conflict error when the session is
// open, the interaction has no calibrated answer to apply or was applied
// already (its edit pending or applied), or its audit can no longer be
// edited.
func Apply(ctx context.Context, d db.Deps, c Caller, id, taskUUID string) (Applied, error) {
	var out Applied
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		s, err := db.CalibrationSessionLock(ctx, tx, id)
		if err != nil {
			return err
		}
		task, err := appliable(ctx, tx, s, taskUUID)
		if err != nil {
			return err
		}
		verdicts, err := calibratedVerdicts(ctx, tx, s, task)
		if err != nil {
			return err
		}
		if out.Task, err = db.TaskGetByUUID(ctx, tx, task.TaskUUID); err != nil {
			return err
		}
		if out.Edit, out.JobID, err = revision.Record(ctx, tx, d.River, db.AuditEdit{TaskUUID: out.Task.UUID, Verdicts: verdicts,
			AuthorID: c.User.ID, AuthorName: c.User.Username, CalibrationSessionID: s.ID}); err != nil {
			return err
		}
		if err := db.CalibrationTaskApplied(ctx, tx, s.ID, out.Task.UUID, out.Edit.ID); err != nil {
			return err
		}
		analysts, err := db.CalibrationAnalysts(ctx, tx, id)
		if err != nil {
			return err
		}
		return db.CalibrationEventInsert(ctx, tx, s, "applied", analysts)
	})
	return out, err
}

// appliable returns interaction taskUUID of locked session s when its
// calibrated answers may be applied.
func appliable(ctx context.Context, tx pgx.Tx, s db.CalibrationSession, taskUUID string) (db.CalibrationTask, error) {
	tasks, err := db.CalibrationTasks(ctx, tx, s.ID)
	if err != nil {
		return db.CalibrationTask{}, err
	}
	i := slices.IndexFunc(tasks, func(t db.CalibrationTask) bool { return strings.EqualFold(t.TaskUUID, taskUUID) })
	switch {
	case i < 0:
		return db.CalibrationTask{}, errcode.New(errcode.NotFound, "the calibration session has no interaction %s", taskUUID)
	case s.Status == db.CalibrationOpen:
		return db.CalibrationTask{}, errcode.New(errcode.Conflict, "the calibration session is still open: close it and record the calibrated answers first")
	case tasks[i].AppliedEditID != nil:
		prev, err := db.AuditEditGet(ctx, tx, *tasks[i].AppliedEditID)
		if err != nil {
			return db.CalibrationTask{}, err
		}
		if prev.Status == db.EditPending || prev.Status == db.EditApplied {
			return db.CalibrationTask{}, errcode.New(errcode.Conflict, "the calibrated answers of task %s were applied already (edit %d)", taskUUID, prev.ID)
		}
	}
	return tasks[i], nil
}

// calibratedVerdicts are the verdicts the calibrated answers of task in
// session s make, or a Conflict error when there are none.
func calibratedVerdicts(ctx context.Context, tx pgx.Tx, s db.CalibrationSession, task db.CalibrationTask) ([]scoring.Verdict, error) {
	items, err := db.CalibrationItems(ctx, tx, s.ID)
	if err != nil {
		return nil, err
	}
	var verdicts []scoring.Verdict
	for _, it := range items {
		if it.TaskUUID != task.TaskUUID || it.Calibrated == "" {
			continue
		}
		why := it.CalibratedComment
		if why == "" {
			why = "Calibrated in session “" + s.Name + "”."
		}
		verdicts = append(verdicts, Verdict(it.CriterionID, it.Calibrated, why))
	}
	if len(verdicts) == 0 {
		return nil, errcode.New(errcode.Conflict, "task %s has no calibrated answer: record them first", task.TaskUUID)
	}
	return verdicts, nil
}

// Remind reminds, once each, the analysts of open sessions due within
// lead who have still to submit, in one transaction: they are marked
// reminded with their notifications, whatever runs at the same time.
func Remind(ctx context.Context, pool *pgxpool.Pool, lead time.Duration) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		due, err := db.CalibrationRemind(ctx, tx, lead)
		if err != nil {
			return err
		}
		for _, r := range due {
			text := l10n.T("Calibration session “%s” is due on %s (UTC) and your answers are still to send.",
				r.Session.Name, r.DueAt.UTC().Format("2006-01-02 15:04"))
			if _, err := db.NotificationCreate(ctx, tx, db.CalibrationNotice(r.UserID, r.Session.ID, "warning", text)); err != nil {
				return err
			}
		}
		return nil
	})
}
