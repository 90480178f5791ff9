package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/bulk"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// bulkResource is bulk actions: one action run on many tasks by a job.
type bulkResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	// filter reads a filter, the task list's query string, by the list's
	// own rules; without its order, which a bulk action does not keep.
	filter *taskQuery
}

func (b *bulkResource) register(api huma.API) {
	b.filter = newTaskQuery(api.OpenAPI().Components.Schemas, "a bulk action's filter", true, "sort", "order")
	op := operation(http.MethodPost, "/bulk-actions", "create-bulk-action", "Run one action on many tasks", role.Quality,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Records the action and queues its `bulk_action` job in one transaction, and answers 202 with the " +
		"action; the job does the work, a page of tasks at a time, and records a result per task (`succeeded`, " +
		"`skipped` with the reason when the action does not apply to the task as it is, or `failed`). The tasks are " +
		"either `task_uuids` (1 to 1,000, no repeats) or `filter`, the task list's query string (`status=failed&campaign=default`: " +
		"the filters of GET /tasks, checked by the same rules), resolved by the job: any number of tasks, those created " +
		"before the request. Actions: `reaudit` (a new engine revision against the campaign's current scorecard), " +
		"`retry` (as POST /tasks/{uuid}/retry), `assign` (to the analyst `assignee`; supervisor role or above), " +
		"`unassign` (assigned to no one, without a due date; supervisor role or above) and `validate` (with `notes`, as POST /validate-audit, e-mails included). `reaudit` and `validate` cannot be undone " +
		"and need `\"confirm\": true`. Progress: GET /bulk-actions/{id} and `bulk_action.updated` events (about once a " +
		"second, and at the end, when the requester is notified). Nothing is stored when the request is refused."
	op.DefaultStatus = http.StatusAccepted
	op.Tags = []string{"bulk actions"}
	huma.Register(api, op, b.create)

	op = operation(http.MethodGet, "/bulk-actions", "list-bulk-actions", "List bulk actions, newest first", role.Quality,
		http.StatusBadRequest)
	op.Description += " The caller's own bulk actions; supervisors and above list anyone's (`requested_by` narrows them " +
		"to one requester's). Filters: `status`, `action`. Pages with the `next` of the previous page as `cursor`. Each " +
		"action as GET /bulk-actions/{id} shows it, without its task ids."
	op.Tags = []string{"bulk actions"}
	huma.Register(api, op, b.list)

	op = operation(http.MethodGet, "/bulk-actions/{id}", "get-bulk-action", "Get a bulk action and its progress", role.Quality,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += " The requester's own bulk actions; supervisors and above read anyone's. Others are 404."
	op.Tags = []string{"bulk actions"}
	huma.Register(api, op, b.get)

	op = operation(http.MethodGet, "/bulk-actions/{id}/items", "list-bulk-action-items", "List a bulk action's results by task",
		role.Quality, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " The result of each task done so far, in task id order, of one `outcome` if given; pages with " +
		"the `next` of the previous page as `cursor`. Whoever may read the action may read its results. Each `message` is " +
		"written in the caller's language (their locale) from the result's `code` and `params`. The results of an action " +
		"that ended more than BULK_RESULTS_DAYS days ago are deleted: the list is then empty and `results_deleted_at` " +
		"says when they were."
	op.Tags = []string{"bulk actions"}
	huma.Register(api, op, b.items)

	op = operation(http.MethodPost, "/bulk-actions/{id}/cancel", "cancel-bulk-action", "Cancel a bulk action", role.Quality,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Stops a queued or running bulk action: the page being committed ends it, and no task gets a " +
		"result after the answer. What was done stays done. The requester, or a supervisor and above; an action that " +
		"has ended is 409."
	op.Tags = []string{"bulk actions"}
	huma.Register(api, op, b.cancel)
}

// BulkActionRequest is the body of POST /bulk-actions.
type BulkActionRequest struct {
	Action    string   `json:"action" enum:"reaudit,retry,assign,unassign,validate" doc:"What to do to every task"`
	TaskUUIDs []string `json:"task_uuids,omitempty" format:"uuid" minItems:"1" maxItems:"1000" doc:"The tasks, by id (1 to 1,000, no repeats in any case: a repeated id is refused with one detail per id); or give filter"`
	Filter    *string  `json:"filter,omitempty" maxLength:"4000" doc:"The tasks GET /tasks lists with this query string (its filters only: status=failed&campaign=default); empty for every task. Or give task_uuids" example:"status=failed&campaign=default"`
	Assignee  string   `json:"assignee,omitempty" maxLength:"200" doc:"assign: the analyst (user id or username) to assign the tasks to, a user of the quality role or above"`
	Notes     string   `json:"notes,omitempty" maxLength:"10000" doc:"validate: the validator's observations, sent in every e-mail"`
	Confirm   bool     `json:"confirm,omitempty" doc:"Must be true for reaudit and validate, which cannot be undone"`
}

type createBulkInput struct {
	Body BulkActionRequest
}

// BulkActionSummary is a bulk action as lists show it: what it does, to
// which tasks (by filter, or how many by id), and how far it has got.
type BulkActionSummary struct {
	BulkProgress
	AssigneeID       string     `json:"assignee_id,omitempty" doc:"assign: the analyst's user id"`
	Notes            string     `json:"notes,omitempty" doc:"validate: the notes"`
	Filter           *string    `json:"filter,omitempty" doc:"The task list's query string that selects the tasks, when given by filter (its parameters sorted, empty ones left out); tasks created after the request are not part of it"`
	JobID            int64      `json:"job_id,omitempty" doc:"The bulk_action job (GET /admin/jobs/{id})"`
	ResultsDeletedAt *time.Time `json:"results_deleted_at,omitempty" doc:"When its per-task results were deleted, BULK_RESULTS_DAYS days after it ended; the action and its counts stay"`
}

// BulkActionView is a bulk action: what it does, to which tasks, and how
// far it has got.
type BulkActionView struct {
	BulkActionSummary
	TaskUUIDs []string `json:"task_uuids,omitempty" doc:"The tasks, when given by id"`
}

// BulkProgress is how far a bulk action has got: what GET
// /bulk-actions/{id} shows of it; its bulk_action.updated events carry the
// same (db.BulkProgress).
type BulkProgress struct {
	ID          string `json:"id" format:"uuid"`
	Action      string `json:"action" enum:"reaudit,retry,assign,unassign,validate"`
	Status      string `json:"status" enum:"queued,running,done,failed,cancelled"`
	RequestedBy string `json:"requested_by" doc:"The user id of who asked for it"`
	// Matched is nil until the job has counted a filter's tasks.
	Matched   *int64 `json:"matched" doc:"The tasks selected: null until the job has counted a filter's; at the end, the tasks the job went through"`
	Done      int64  `json:"done" doc:"The tasks with a result so far: succeeded + skipped + failed"`
	Succeeded int64  `json:"succeeded"`
	Skipped   int64  `json:"skipped" doc:"Tasks the action does not apply to (their state), each with the reason"`
	Failed    int64  `json:"failed"`
	// Error says why a failed action stopped.
	Error       string     `json:"error,omitempty" doc:"Why the action stopped, when its status is failed"`
	CancelledBy string     `json:"cancelled_by,omitempty" doc:"The user id of who cancelled it"`
	CreatedAt   time.Time  `json:"created_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

func bulkSummary(a db.BulkAction) BulkActionSummary {
	v := BulkActionSummary{BulkProgress: BulkProgress(a.BulkProgress), AssigneeID: a.Params.AssigneeID, Notes: a.Params.Notes,
		JobID: a.JobID, ResultsDeletedAt: a.ResultsDeletedAt}
	if a.Filter != nil {
		v.Filter = &a.FilterQuery
	}
	return v
}

func bulkView(a db.BulkAction) BulkActionView {
	return BulkActionView{BulkActionSummary: bulkSummary(a), TaskUUIDs: a.TaskUUIDs}
}

func (b *bulkResource) create(ctx context.Context, in *createBulkInput) (*Output[BulkActionView], error) {
	r := in.Body
	p := principal(ctx)
	if least := bulk.LeastRole(r.Action); p.Role < least {
		return nil, Errorf(CodeForbidden, fmt.Sprintf("%s needs the %s role or above; you have %s", r.Action, least, p.Role)).
			WithDetail("body.action", "needs the "+least.String()+" role", r.Action)
	}
	n := db.NewBulkAction{Action: r.Action, RequestedBy: p.User.ID, Params: db.BulkParams{Notes: cleanNotes(r.Notes)}}
	if err := checkBulkRequest(r, n.Params.Notes); err != nil {
		return nil, err
	}
	var err error
	if r.TaskUUIDs != nil {
		if n.TaskUUIDs, err = b.taskUUIDs(ctx, r.TaskUUIDs); err != nil {
			return nil, err
		}
	} else {
		f, query, err := b.filter.canonical(ctx, b.pool, "body.filter", *r.Filter)
		if err != nil {
			return nil, err
		}
		// Which tasks a filter by the result acts on, and their results,
		// would tell a caller calibrating some blind their verdicts: the
		// filter keeps the caller's view as it is now.
		v, err := viewerOf(ctx, b.pool)
		if err != nil {
			return nil, err
		}
		f.Viewer = v
		n.Filter, n.FilterQuery = &f, query
	}
	if r.Action == bulk.Assign {
		if n.Params.AssigneeID, err = b.assignee(ctx, r.Assignee); err != nil {
			return nil, err
		}
	}
	var a db.BulkAction
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		if a, err = db.BulkActionInsert(ctx, tx, n); err != nil {
			return err
		}
		res, err := b.river.InsertTx(ctx, tx, jobs.BulkActionArgs{BulkID: a.ID}, nil)
		if err != nil {
			return err
		}
		a.JobID = res.Job.ID
		return db.BulkActionSetJob(ctx, tx, a.ID, a.JobID)
	})
	if err != nil {
		return nil, err
	}
	return accepted(bulkView(a)), nil
}

// checkBulkRequest checks what r's fields say without the database: one
// selection, the parameters its action takes and no others (notes as
// cleaned), and the confirmation of an irreversible action. Every problem
// is one detail.
func checkBulkRequest(r BulkActionRequest, notes string) error {
	var missing, wrong []*huma.ErrorDetail
	problem := func(list *[]*huma.ErrorDetail, field, msg string, value any) {
		*list = append(*list, &huma.ErrorDetail{Location: "body." + field, Message: msg, Value: value})
	}
	switch {
	case r.TaskUUIDs == nil && r.Filter == nil:
		problem(&missing, "task_uuids", "required: the tasks, as task_uuids or filter", nil)
		problem(&missing, "filter", "required: the tasks, as task_uuids or filter", nil)
	case r.TaskUUIDs != nil && r.Filter != nil:
		problem(&wrong, "filter", "give the tasks as task_uuids or as filter, not both", nil)
	}
	switch {
	case r.Action == bulk.Assign && r.Assignee == "":
		problem(&missing, "assignee", "required: assign needs the analyst to assign the tasks to", nil)
	case r.Action != bulk.Assign && r.Assignee != "":
		problem(&wrong, "assignee", "only assign takes an assignee", r.Assignee)
	}
	switch {
	case r.Action == bulk.Validate && notes == "":
		problem(&missing, "notes", "required: validate needs the validator's notes", nil)
	case r.Action != bulk.Validate && r.Notes != "":
		problem(&wrong, "notes", "only validate takes notes", nil)
	}
	if bulk.Irreversible(r.Action) && !r.Confirm {
		problem(&wrong, "confirm", fmt.Sprintf("%s cannot be undone: send \"confirm\": true to run it", r.Action), r.Confirm)
	}
	switch {
	case len(wrong) > 0:
		details := append(wrong, missing...)
		return Errorf(CodeValidation, fmt.Sprintf("the bulk action has %d problem(s): %s; nothing was done",
			len(details), details[0].Message)).WithDetails(details)
	case len(missing) > 0:
		names := make([]string, len(missing))
		for i, d := range missing {
			names[i] = strings.TrimPrefix(d.Location, "body.")
		}
		return Errorf(CodeMissingFields, "required fields are missing or empty: "+strings.Join(names, ", ")).WithDetails(missing)
	}
	return nil
}

// taskUUIDs returns ids in the notation the database writes, each a task:
// an id given twice in two cases (one detail per id, however often it is
// repeated), or one that is no task, is named.
func (b *bulkResource) taskUUIDs(ctx context.Context, ids []string) ([]string, error) {
	out := make([]string, len(ids))
	first, repeats := map[string]int{}, map[string]int{}
	var details []*huma.ErrorDetail
	for i, id := range ids {
		out[i] = strings.ToLower(id)
		j, dup := first[out[i]]
		if !dup {
			first[out[i]] = i
			continue
		}
		if repeats[out[i]] == 0 {
			details = append(details, &huma.ErrorDetail{Location: fmt.Sprintf("body.task_uuids[%d]", i),
				Message: fmt.Sprintf("repeats task_uuids[%d]", j), Value: id})
		}
		repeats[out[i]]++
	}
	for _, d := range details {
		if n := repeats[strings.ToLower(d.Value.(string))]; n > 1 {
			d.Message += fmt.Sprintf(" (and %d times more)", n-1)
		}
	}
	if len(details) > 0 {
		return nil, Errorf(CodeValidation, "a task is given twice in task_uuids; give each once").WithDetails(details)
	}
	exist, err := db.TasksExisting(ctx, b.pool, out)
	if err != nil {
		return nil, err
	}
	for i, id := range out {
		if !exist[id] {
			details = append(details, &huma.ErrorDetail{Location: fmt.Sprintf("body.task_uuids[%d]", i), Message: "no such task", Value: id})
		}
	}
	if len(details) > 0 {
		return nil, Errorf(CodeNotFound, fmt.Sprintf("%d of the tasks do not exist (the first: %s); nothing was done",
			len(details), details[0].Value)).WithDetails(details)
	}
	return out, nil
}

// assignee returns the user id of the analyst ref names (a user id or
// username): an active user of the quality role or above.
func (b *bulkResource) assignee(ctx context.Context, ref string) (string, error) {
	return analyst(ctx, b.pool, ref, "assignee")
}

// analyst resolves ref (a user id or username) to the id of an active user
// of the quality role or above: one who can be assigned tasks to review.
// What is wrong is a VALIDATION_ERROR of the body's field.
func analyst(ctx context.Context, pool *pgxpool.Pool, ref, field string) (string, error) {
	id, err := resolveOperator(ctx, pool, ref, "body."+field)
	if err != nil {
		return "", err
	}
	u, err := db.UserGet(ctx, pool, id)
	switch {
	case errcode.Is(err, errcode.NotFound):
		return "", invalidBody(field, "is no user: give an analyst's user id or username", ref)
	case err != nil:
		return "", err
	case !u.Active:
		return "", invalidBody(field, fmt.Sprintf("names %s, who is deactivated", u.ID), ref)
	case role.Highest(u.Roles) < role.Quality:
		return "", invalidBody(field, fmt.Sprintf("names %s, who is not an analyst: an assignee needs the quality role or above", u.ID), ref)
	}
	return u.ID, nil
}

type bulkInput struct {
	ID string `path:"id" format:"uuid" doc:"The bulk action's id"`
}

// visible returns bulk action id if the caller may read it: its requester,
// and supervisors and above. Others are NOT_FOUND, like unknown ids.
func (b *bulkResource) visible(ctx context.Context, id string) (db.BulkAction, error) {
	a, err := db.BulkActionGet(ctx, b.pool, id)
	p := principal(ctx)
	if errcode.Is(err, errcode.NotFound) || (err == nil && a.RequestedBy != p.User.ID && !p.Is(role.Supervisor)) {
		return db.BulkAction{}, Errorf(CodeNotFound, "no bulk action "+id)
	}
	return a, err
}

func (b *bulkResource) get(ctx context.Context, in *bulkInput) (*Output[BulkActionView], error) {
	a, err := b.visible(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(bulkView(a)), nil
}

type listBulkInput struct {
	Status      string `query:"status" enum:"queued,running,done,failed,cancelled" doc:"Only the actions in this status"`
	Action      string `query:"action" enum:"reaudit,retry,assign,unassign,validate" doc:"Only the actions of this kind"`
	RequestedBy string `query:"requested_by" maxLength:"200" doc:"Only the actions of this requester (user id or username); below supervisor, only the caller themselves"`
	Cursor      string `query:"cursor" format:"uuid" doc:"The next value of the previous page, to continue after it"`
	Limit       int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size"`
}

// BulkActionList is a page of bulk actions, newest first.
type BulkActionList struct {
	Items []BulkActionSummary `json:"items" doc:"Newest first"`
	// Next continues after this page; absent on the last page.
	Next  string `json:"next,omitempty" format:"uuid" doc:"Pass as cursor to get the next page; absent on the last page"`
	Limit int    `json:"limit"`
}

func (b *bulkResource) list(ctx context.Context, in *listBulkInput) (*Output[BulkActionList], error) {
	p := principal(ctx)
	lead := p.Is(role.Supervisor)
	f := db.BulkActionFilter{Status: in.Status, Action: in.Action}
	if !lead {
		f.RequestedBy = p.User.ID
	}
	if in.RequestedBy != "" {
		id, err := resolveOperator(ctx, b.pool, in.RequestedBy, "query.requested_by")
		if err != nil {
			return nil, err
		}
		if !lead && id != p.User.ID {
			return nil, Errorf(CodeForbidden, fmt.Sprintf("the bulk actions of others are listed to supervisors and above; you have %s", p.Role)).
				WithDetail("query.requested_by", "names someone else: give your own user id or leave it out", in.RequestedBy)
		}
		f.RequestedBy = id
	}
	if in.Cursor != "" {
		// A cursor is an action the caller may read: the page goes on
		// below it, whatever the filters.
		if _, err := b.visible(ctx, in.Cursor); err != nil {
			if e, isAPI := errors.AsType[*Error](err); isAPI && e.Code == CodeNotFound {
				return nil, badCursor()
			}
			return nil, err
		}
		f.Before = strings.ToLower(in.Cursor)
	}
	actions, err := db.BulkActionList(ctx, b.pool, f, in.Limit+1)
	if err != nil {
		return nil, err
	}
	summaries := make([]BulkActionSummary, len(actions))
	for i, a := range actions {
		summaries[i] = bulkSummary(a)
	}
	out := BulkActionList{Limit: in.Limit}
	out.Items, out.Next = cut(summaries, in.Limit, func(s BulkActionSummary) string { return s.ID })
	return ok(out), nil
}

type bulkItemsInput struct {
	ID      string `path:"id" format:"uuid" doc:"The bulk action's id"`
	Outcome string `query:"outcome" enum:"succeeded,skipped,failed" doc:"Only the results of this outcome"`
	Cursor  string `query:"cursor" format:"uuid" doc:"The next value of the previous page, to continue after it"`
	Limit   int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Page size"`
}

// BulkItemList is a page of a bulk action's results.
type BulkItemList struct {
	Items []BulkItem `json:"items"`
	// Next continues after this page; absent on the last page.
	Next  string `json:"next,omitempty" doc:"Pass as cursor to get the next page; absent on the last page"`
	Limit int    `json:"limit"`
	// ResultsDeletedAt says the results were deleted, and when.
	ResultsDeletedAt *time.Time `json:"results_deleted_at,omitempty" doc:"Set when the action's results were deleted (BULK_RESULTS_DAYS days after it ended): items is then empty, though its counts say how many there were"`
}

// BulkReason is what a bulk action's result on a task says, as a stable
// code and its parameters (db.BulkReason).
type BulkReason struct {
	Code   string           `json:"code,omitempty" doc:"What the message says, as a stable code (package bulk lists them: skipped and failed ones such as not_failed, not_assigned, requester_deactivated, refused; succeeded ones such as assigned, unassigned); absent on results recorded before codes were"`
	Params BulkReasonParams `json:"params,omitzero" doc:"The code's parameters"`
}

// BulkReasonParams are the parameters of a BulkReason, each set by the
// codes that take it (db.BulkReasonParams).
type BulkReasonParams struct {
	// Status is the task's status, when it is the reason.
	Status pipeline.Status `json:"status,omitempty" doc:"The task's status"`
	// Requester and Role name the requester and the role they lack.
	Requester string `json:"requester,omitempty" doc:"The requester's user id"`
	Role      string `json:"role,omitempty" doc:"The role the action needs"`
	// Action is the bulk action, when the reason names it.
	Action string `json:"action,omitempty" doc:"The action"`
	// AssigneeID is the analyst assigned, or unassigned.
	AssigneeID string `json:"assignee_id,omitempty" doc:"The analyst's user id"`
	// Revision, Score, Passed, PassingScore and ScorecardVersion are a
	// re-audit's new revision.
	Revision         int      `json:"revision,omitempty" doc:"The audit's new revision"`
	Score            *float64 `json:"score,omitempty" doc:"Its score"`
	Passed           *bool    `json:"passed,omitempty" doc:"Whether it passed"`
	PassingScore     *float64 `json:"passing_score,omitempty" doc:"The campaign's passing score"`
	ScorecardVersion int      `json:"scorecard_version,omitempty" doc:"The scorecard version it was judged against"`
	// Pending are the criteria whose verdicts await an analyst's
	// confirmation, when they are the reason (or a re-audit left them).
	Pending []string `json:"pending,omitempty" doc:"The criteria (ids) whose verdicts await an analyst's confirmation"`
	// Recipients are the addresses a validation's e-mail goes to.
	Recipients []string `json:"recipients,omitempty" doc:"The addresses of the validation's e-mail"`
	// Campaign is the task's campaign, by name.
	Campaign string `json:"campaign,omitempty" doc:"The task's campaign"`
	// Error is what refused the task, in English: a rule of the service or
	// the audit engine.
	Error string `json:"error,omitempty" doc:"What refused it, in English"`
}

// BulkItem is the result of a bulk action on one task (db.BulkItem).
type BulkItem struct {
	TaskUUID string `json:"task_uuid" format:"uuid"`
	FileName string `json:"file_name"`
	Outcome  string `json:"outcome" enum:"succeeded,skipped,failed"`
	BulkReason
	// Message is stored in English; the API writes it from the code in
	// the reader's language.
	Message string    `json:"message,omitempty" doc:"What was done, or why not, in the reader's language (their locale); in English on results recorded before codes were"`
	At      time.Time `json:"at"`
}

// bulkItemOf is i as the API shows it.
func bulkItemOf(i db.BulkItem) BulkItem {
	return BulkItem{TaskUUID: i.TaskUUID, FileName: i.FileName, Outcome: i.Outcome,
		BulkReason: BulkReason{Code: i.Code, Params: BulkReasonParams(i.Params)}, Message: i.Message, At: i.At}
}

func (b *bulkResource) items(ctx context.Context, in *bulkItemsInput) (*Output[BulkItemList], error) {
	a, err := b.visible(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out := BulkItemList{Items: []BulkItem{}, Limit: in.Limit, ResultsDeletedAt: a.ResultsDeletedAt}
	if a.ResultsDeletedAt != nil {
		return ok(out), nil
	}
	list, err := db.BulkItemList(ctx, b.pool, a.ID, in.Outcome, strings.ToLower(in.Cursor), in.Limit+1)
	if err != nil {
		return nil, err
	}
	// A re-audit's result would tell a reader calibrating the task blind
	// its score.
	v, err := viewerOf(ctx, b.pool)
	if err != nil {
		return nil, err
	}
	locale := principal(ctx).User.Locale
	for i := range list {
		if p := &list[i].Params; v.BlindTo(visibility.Row{UUID: list[i].TaskUUID}) && p.Score != nil {
			p.Score, p.Passed, p.PassingScore = nil, nil, nil
			list[i].Message = l10n.T("re-audited; its score is hidden from you until you submit your answers to the calibration session").In(locale)
			continue
		}
		if t, ok := bulk.Text(list[i].BulkReason); ok {
			list[i].Message = t.In(locale)
		}
	}
	out.Items, out.Next = cut(each(list, bulkItemOf), in.Limit, func(i BulkItem) string { return i.TaskUUID })
	return ok(out), nil
}

func (b *bulkResource) cancel(ctx context.Context, in *bulkInput) (*Output[BulkActionView], error) {
	a, err := b.visible(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		// Waits for the page the job is committing, if any.
		if _, err = db.BulkActionLock(ctx, tx, a.ID); err != nil {
			return err
		}
		if a, err = db.BulkActionCancel(ctx, tx, a.ID, principal(ctx).User.ID); err != nil {
			return err
		}
		_, err = db.NotificationCreate(ctx, tx, bulk.Notice(a))
		return err
	})
	if err != nil {
		return nil, err
	}
	return ok(bulkView(a)), nil
}
