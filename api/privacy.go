package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/role"
)

// privacyResource is legal holds, the access record, what retention and
// erasure deleted, erasures and a person's data export.
type privacyResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
}

// originKey keys a request's origin in its context.
type originKey struct{}

// origin is where a request came from, as the access record keeps it.
type origin struct {
	clientIP, userAgent string
}

// withOrigin keeps each request's origin in its context for the access
// record: the address of the connection's peer (the service honours no
// forwarding header: behind a reverse proxy it is the proxy's, as for the
// rate limits) and the User-Agent, cut to 500 characters without control
// characters.
func withOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua := strings.Map(func(c rune) rune {
			if unicode.IsControl(c) {
				return -1
			}
			return c
		}, strings.ToValidUTF8(r.UserAgent(), ""))
		if len([]rune(ua)) > 500 {
			ua = string([]rune(ua)[:500])
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), originKey{}, origin{clientIP: clientAddress(r), userAgent: ua})))
	})
}

// recordAccess records that the caller read kind of content (of task, ""
// for none) before it is served, and returns the record's id. ctx is the
// operation's (it holds the caller), also in a streamed body. The read
// waits for the row: a record that cannot be written fails the read, so
// nothing is served unrecorded.
func recordAccess(ctx context.Context, q db.DBTX, kind, task string, detail map[string]any) (int64, error) {
	o, _ := ctx.Value(originKey{}).(origin)
	id, err := db.AccessRecordInsert(ctx, q, db.AccessRecord{UserID: principal(ctx).User.ID, Kind: kind, TaskUUID: task,
		Detail: detail, ClientIP: o.clientIP, UserAgent: o.userAgent})
	if err != nil {
		return 0, fmt.Errorf("recording a read of %s: %w", kind, err)
	}
	return id, nil
}

func (p *privacyResource) register(api huma.API) {
	tag := []string{"privacy"}
	tagged := func(op huma.Operation) huma.Operation {
		op.Tags = tag
		return op
	}

	op := operation(http.MethodPut, "/tasks/{uuid}/legal-hold", "place-legal-hold", "Place a task on legal hold", role.Admin,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += " A held task is never deleted, neither by its campaign's retention nor by an erasure, until the hold " +
		"is lifted. `reason` (1 to 500 characters) says why; placing it again replaces the reason. The task view shows it."
	huma.Register(api, tagged(op), p.placeHold)

	op = operation(http.MethodDelete, "/tasks/{uuid}/legal-hold", "lift-legal-hold", "Lift a task's legal hold", role.Admin,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Answers the hold as it was; a task not held is 404. Retention deletes what expired at its next run."
	huma.Register(api, tagged(op), p.liftHold)

	op = operation(http.MethodGet, "/tasks/{uuid}/access-records", "list-task-access-records", "Who opened a task",
		role.Operator, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " The access record of one task, newest first: who read its recording, transcript, audit revisions " +
		"or validation, when and from where. Quality and above see any task's. Operators see only the tasks where they are " +
		"the audited agent, and only when the task's campaign lets its agents (`agents_see_access`; 403 FORBIDDEN " +
		"otherwise), without the address and user agent."
	huma.Register(api, tagged(op), p.taskAccess)

	op = operation(http.MethodGet, "/admin/access-records", "list-access-records", "List the access record", role.Admin,
		http.StatusBadRequest)
	op.Description += " Every read of personal content by a user (a recording, a transcript, an audit revision, a " +
		"validation's e-mail content, an export of tasks with its query and rows, a person's data export), newest first, " +
		"filtered by user, task, kind and time; pages with the `next` cursor."
	huma.Register(api, tagged(op), p.listAccess)

	op = operation(http.MethodGet, "/admin/access-records/export", "export-access-records", "Export the access record as CSV",
		role.Admin, http.StatusBadRequest)
	op.Description += " The records the filters of `GET /admin/access-records` select, newest first, as CSV (UTF-8 with a " +
		"byte order mark), written as they are read."
	huma.Register(api, tagged(op), p.exportAccess)
	binaryResponse(api, "/admin/access-records/export", "200", "The CSV file, as an attachment", "text/csv; charset=utf-8")

	op = operation(http.MethodGet, "/admin/deletions", "list-privacy-deletions", "List what retention and erasures deleted",
		role.Admin, http.StatusBadRequest)
	op.Description += " One row per batch, kind of content and campaign: how many tasks lost their recording, transcript " +
		"or audit, when and why (`retention`, or `erasure` with its id). Counts only, never contents. Newest first."
	huma.Register(api, tagged(op), p.deletions)

	op = operation(http.MethodPost, "/admin/erasures", "create-erasure", "Erase a person's data", role.Admin,
		http.StatusBadRequest)
	op.Description += " Deletes the recordings, transcripts and audits of every task where `operator` is the agent " +
		"(a user id or username, as uploads name agents) or `customer_ref` is the customer reference (`external_id`, its former " +
		"name, is the same), or both; with their transcripts go the calls' caller and called numbers and metadata. Tasks on " +
		"legal hold are left untouched and counted. The tasks stay, with their score and history. An `erase_person` job " +
		"does the work in batches; the answer (202) is the erasure's record, which `GET /admin/erasures/{id}` follows."
	op.DefaultStatus = http.StatusAccepted
	huma.Register(api, tagged(op), p.erase)

	op = operation(http.MethodGet, "/admin/erasures", "list-erasures", "List erasures", role.Admin, http.StatusBadRequest)
	op.Description += " Who asked, when, the criteria and the counts, newest first."
	huma.Register(api, tagged(op), p.erasures)

	op = operation(http.MethodGet, "/admin/erasures/{id}", "get-erasure", "Get an erasure", role.Admin,
		http.StatusBadRequest, http.StatusNotFound)
	huma.Register(api, tagged(op), p.erasure)

	op = operation(http.MethodGet, "/admin/users/{id}/data", "export-user-data", "Export everything held about a user",
		role.Admin, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " A right of access request: one JSON document (a download) with the user's profile, their tasks as " +
		"agent (with transcript and current audit), the audit revisions they wrote, their validations, notifications and " +
		"saved views, the access records of their reads and of reads of their tasks (and of exports of their data), " +
		"their disputes and acknowledgements as agent and the disputes they resolved, and their calibration answers. " +
		"Written as it is read. The export " +
		"itself is recorded in the access record."
	huma.Register(api, tagged(op), p.subjectData)
	binaryResponse(api, "/admin/users/{id}/data", "200", "The JSON document, as an attachment", "application/json")
}

type holdInput struct {
	UUID string `path:"uuid" format:"uuid" doc:"The task's id"`
	Body struct {
		Reason string `json:"reason" minLength:"1" maxLength:"500" doc:"Why the task is held: a case, a claim" example:"Claim 2024-118"`
	}
}

// task returns task id, or NOT_FOUND.
func (p *privacyResource) task(ctx context.Context, id string) (db.Task, error) {
	return db.TaskGetByUUID(ctx, p.pool, id)
}

func (p *privacyResource) placeHold(ctx context.Context, in *holdInput) (*Output[LegalHold], error) {
	reason := strings.TrimSpace(in.Body.Reason)
	if reason == "" || strings.ContainsFunc(reason, unicode.IsControl) {
		return nil, Errorf(CodeValidation, "a legal hold's reason is one line of text, not blank").
			WithDetail("body.reason", "blank, or holds a control character", nil)
	}
	if _, err := p.task(ctx, in.UUID); err != nil {
		return nil, err
	}
	h, err := db.LegalHoldPlace(ctx, p.pool, in.UUID, reason, principal(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	return ok(legalHoldOf(h)), nil
}

func (p *privacyResource) liftHold(ctx context.Context, in *taskInput) (*Output[LegalHold], error) {
	if _, err := p.task(ctx, in.UUID); err != nil {
		return nil, err
	}
	h, err := db.LegalHoldLift(ctx, p.pool, in.UUID)
	if err != nil {
		return nil, err
	}
	return ok(legalHoldOf(h)), nil
}

// AccessRecordPage is a page of the access record.
type AccessRecordPage struct {
	Items []AccessRecord `json:"items" doc:"Newest first"`
	// Next continues after this page; absent on the last page.
	Next string `json:"next,omitempty" doc:"Pass as cursor to get the next page; absent on the last page"`
}

// PageInput places a page of a list newest first (exported, so that Huma
// reads the fields of the inputs that embed it).
type PageInput struct {
	Cursor string `query:"cursor" maxLength:"19" doc:"The next value of the previous page, to continue after it"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Page size"`
}

// before reads the cursor: the id the page continues below (0: the first page).
func (in PageInput) before() (int64, error) {
	if in.Cursor == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(in.Cursor, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != in.Cursor {
		return 0, badCursor()
	}
	return id, nil
}

// cut is a page of items, read one beyond limit to know whether more
// follow: its first limit items (never nil), and the cursor of the next
// page (its last item's, by cursor) or "" on the last page.
func cut[T any](items []T, limit int, cursor func(T) string) ([]T, string) {
	if len(items) > limit {
		return items[:limit], cursor(items[limit-1])
	}
	if items == nil {
		return []T{}, ""
	}
	return items, ""
}

// accessPage reads up to in.Limit records f selects into a page.
func (p *privacyResource) accessPage(ctx context.Context, f db.AccessFilter, in PageInput) (AccessRecordPage, error) {
	var err error
	if f.Before, err = in.before(); err != nil {
		return AccessRecordPage{}, err
	}
	items, err := db.AccessRecordList(ctx, p.pool, f, in.Limit+1)
	if err != nil {
		return AccessRecordPage{}, err
	}
	page := AccessRecordPage{}
	page.Items, page.Next = cut(each(items, accessRecordOf), in.Limit, func(a AccessRecord) string { return strconv.FormatInt(a.ID, 10) })
	return page, nil
}

type taskAccessInput struct {
	UUID string `path:"uuid" format:"uuid" doc:"The task's id"`
	PageInput
}

func (p *privacyResource) taskAccess(ctx context.Context, in *taskAccessInput) (*Output[AccessRecordPage], error) {
	task, err := p.task(ctx, in.UUID)
	caller := principal(ctx)
	agent := !caller.Is(role.Quality)
	if errcode.Is(err, errcode.NotFound) || (err == nil && agent && task.OperatorID != caller.User.ID) {
		return nil, Errorf(CodeNotFound, fmt.Sprintf("no task %s", in.UUID))
	}
	if err != nil {
		return nil, err
	}
	if agent {
		settings, err := db.CampaignPrivacyGet(ctx, p.pool, task.CampaignID)
		if err != nil {
			return nil, err
		}
		if !settings.AgentsSeeAccess {
			return nil, Errorf(CodeForbidden, fmt.Sprintf("the campaign %q does not let its agents see who opened their "+
				"interactions; a supervisor can allow it in the campaign's settings", task.CampaignName))
		}
	}
	page, err := p.accessPage(ctx, db.AccessFilter{TaskUUID: task.UUID}, in.PageInput)
	if err != nil {
		return nil, err
	}
	if agent {
		for i := range page.Items {
			page.Items[i].ClientIP, page.Items[i].UserAgent = "", ""
		}
	}
	return ok(page), nil
}

// AccessFilterInput selects access records (exported, as PageInput).
type AccessFilterInput struct {
	User string `query:"user" maxLength:"200" doc:"Reads by this user (user id or username)"`
	Task string `query:"task" format:"uuid" doc:"Reads of this task"`
	Kind string `query:"kind" enum:"recording,transcript,revision,validation,export,subject_export" doc:"Reads of this kind"`
	From string `query:"from" doc:"Reads at or after this time (RFC 3339, or a date: its UTC midnight)" example:"2024-05-01"`
	To   string `query:"to" doc:"Reads before this time (RFC 3339, or a date: its UTC midnight)" example:"2024-06-01"`
}

func (in AccessFilterInput) filter(ctx context.Context, pool *pgxpool.Pool) (db.AccessFilter, error) {
	f := db.AccessFilter{TaskUUID: strings.ToLower(in.Task), Kind: in.Kind}
	if in.User != "" {
		id, err := resolveOperator(ctx, pool, in.User, "query.user")
		if err != nil {
			return f, err
		}
		f.UserID = id
	}
	for _, b := range []struct {
		name, v string
		dst     **time.Time
	}{{"from", in.From, &f.From}, {"to", in.To, &f.To}} {
		t, err := parseTimeIn(b.name, b.v, time.UTC)
		if err != nil {
			return f, err
		}
		if !t.IsZero() {
			*b.dst = &t
		}
	}
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return f, invalidQuery("to", "must be after from", in.To)
	}
	return f, nil
}

type accessListInput struct {
	AccessFilterInput
	PageInput
}

func (p *privacyResource) listAccess(ctx context.Context, in *accessListInput) (*Output[AccessRecordPage], error) {
	f, err := in.filter(ctx, p.pool)
	if err != nil {
		return nil, err
	}
	page, err := p.accessPage(ctx, f, in.PageInput)
	if err != nil {
		return nil, err
	}
	return ok(page), nil
}

// accessColumns are the columns of the access record's CSV.
var accessColumns = []any{"id", "at", "user_id", "user_name", "kind", "task_uuid", "detail", "client_ip", "user_agent"}

func (p *privacyResource) exportAccess(ctx context.Context, in *AccessFilterInput) (*huma.StreamResponse, error) {
	f, err := in.filter(ctx, p.pool)
	if err != nil {
		return nil, err
	}
	name := "access-record-" + time.Now().UTC().Format("20060102-150405") + ".csv"
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w := unwrap(hctx)
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		sent := &countingWriter{w: w}
		out := newCSVSheet(sent)
		err := out.row(accessColumns)
		if err == nil {
			err = db.AccessRecordEach(r.Context(), p.pool, f, 0, func(a db.AccessRecord) error {
				detail := ""
				if len(a.Detail) > 0 {
					raw, err := json.Marshal(a.Detail)
					if err != nil {
						return err
					}
					detail = string(raw)
				}
				return out.row([]any{strconv.FormatInt(a.ID, 10), a.At, a.UserID, a.UserName, a.Kind, a.TaskUUID, detail, a.ClientIP, a.UserAgent})
			})
		}
		if err == nil {
			err = out.close()
		}
		endDownload(w, r, sent, err)
	}}, nil
}

// DeletionPage is a page of what retention and erasures deleted.
type DeletionPage struct {
	Items []PrivacyDeletion `json:"items" doc:"Newest first"`
	Next  string            `json:"next,omitempty" doc:"Pass as cursor to get the next page; absent on the last page"`
}

type deletionsInput struct {
	Cause string `query:"cause" enum:"retention,erasure" doc:"Only deletions of this cause"`
	PageInput
}

func (p *privacyResource) deletions(ctx context.Context, in *deletionsInput) (*Output[DeletionPage], error) {
	before, err := in.before()
	if err != nil {
		return nil, err
	}
	items, err := db.PrivacyDeletionList(ctx, p.pool, in.Cause, before, in.Limit+1)
	if err != nil {
		return nil, err
	}
	page := DeletionPage{}
	page.Items, page.Next = cut(each(items, privacyDeletionOf), in.Limit, func(d PrivacyDeletion) string { return strconv.FormatInt(d.ID, 10) })
	return ok(page), nil
}

type erasureInput struct {
	Body struct {
		Operator    string `json:"operator,omitempty" maxLength:"200" doc:"The agent whose tasks are erased: a user id or username"`
		CustomerRef string `json:"customer_ref,omitempty" maxLength:"200" doc:"The customer reference (a task's customer_ref) whose tasks are erased"`
		ExternalID  string `json:"external_id,omitempty" maxLength:"200" deprecated:"true" doc:"customer_ref's former name: the same"`
	}
}

func (p *privacyResource) erase(ctx context.Context, in *erasureInput) (*Output[Erasure], error) {
	operator, customer := strings.TrimSpace(in.Body.Operator), strings.TrimSpace(in.Body.CustomerRef)
	if old := strings.TrimSpace(in.Body.ExternalID); old != "" {
		if customer != "" && customer != old {
			return nil, Errorf(CodeValidation, "external_id is customer_ref's former name; give one of them").
				WithDetail("body.external_id", "differs from customer_ref", nil)
		}
		customer = old
	}
	if operator == "" && customer == "" {
		return nil, Errorf(CodeMissingFields, "say whose data to erase: operator, customer_ref or both").
			WithDetails([]*huma.ErrorDetail{{Location: "body.operator", Message: "operator or customer_ref is required"},
				{Location: "body.customer_ref", Message: "operator or customer_ref is required"}})
	}
	for loc, v := range map[string]string{"body.operator": operator, "body.customer_ref": customer} {
		if strings.ContainsFunc(v, unicode.IsControl) {
			return nil, Errorf(CodeValidation, "an erasure's criteria are one line of text").WithDetail(loc, "holds a control character", nil)
		}
	}
	if operator != "" {
		id, err := resolveOperator(ctx, p.pool, operator, "body.operator")
		if err != nil {
			return nil, err
		}
		operator = id
	}
	var e db.Erasure
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		created, err := db.ErasureCreate(ctx, tx, principal(ctx).User.ID, operator, customer)
		if err != nil {
			return err
		}
		res, err := p.river.InsertTx(ctx, tx, jobs.ErasePersonArgs{ErasureID: created.ID}, nil)
		if err != nil {
			return err
		}
		e, err = db.ErasureSetJob(ctx, tx, created.ID, res.Job.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return accepted(erasureOf(e)), nil
}

// ErasurePage is a page of erasures.
type ErasurePage struct {
	Items []Erasure `json:"items" doc:"Newest first"`
	Next  string    `json:"next,omitempty" format:"uuid" doc:"Pass as cursor to get the next page; absent on the last page"`
}

type erasureListInput struct {
	Cursor string `query:"cursor" format:"uuid" doc:"The next value of the previous page, to continue after it"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Page size"`
}

func (p *privacyResource) erasures(ctx context.Context, in *erasureListInput) (*Output[ErasurePage], error) {
	items, err := db.ErasureList(ctx, p.pool, strings.ToLower(in.Cursor), in.Limit+1)
	if err != nil {
		return nil, err
	}
	page := ErasurePage{}
	page.Items, page.Next = cut(each(items, erasureOf), in.Limit, func(e Erasure) string { return e.ID })
	return ok(page), nil
}

type erasureIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The erasure's id"`
}

func (p *privacyResource) erasure(ctx context.Context, in *erasureIDInput) (*Output[Erasure], error) {
	e, err := db.ErasureGet(ctx, p.pool, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(erasureOf(e)), nil
}

type subjectInput struct {
	ID string `path:"id" maxLength:"200" doc:"The user's id (the identity provider's subject)"`
}

func (p *privacyResource) subjectData(ctx context.Context, in *subjectInput) (*huma.StreamResponse, error) {
	if _, err := db.UserGet(ctx, p.pool, in.ID); err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w := unwrap(hctx)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "user-data.json"}))
		sent := &countingWriter{w: w}
		_, err := recordAccess(ctx, p.pool, db.AccessSubjectExport, "", map[string]any{"user_id": in.ID})
		if err == nil {
			err = writeSubject(r.Context(), p.pool, sent, in.ID)
		}
		endDownload(w, r, sent, err)
	}}, nil
}

// writeSubject writes what the service holds about user id as one JSON
// object: user_id, exported_at, then each of db.SubjectSections, the
// profile an object and the others arrays.
func writeSubject(ctx context.Context, pool *pgxpool.Pool, w io.Writer, id string) error {
	head, err := json.Marshal(map[string]any{"user_id": id, "exported_at": time.Now().UTC()})
	if err != nil {
		return err
	}
	if _, err := w.Write(head[:len(head)-1]); err != nil {
		return err
	}
	for i, s := range db.SubjectSections {
		open, close := "[", "]"
		if i == 0 { // the profile
			open, close = "", ""
		}
		if _, err := fmt.Fprintf(w, ",\n%q:%s", s.Name, open); err != nil {
			return err
		}
		n := 0
		err := db.SubjectEach(ctx, pool, s.Query, id, func(raw json.RawMessage) error {
			sep := ""
			if n > 0 {
				sep = ",\n"
			}
			n++
			_, err := fmt.Fprintf(w, "%s%s", sep, raw)
			return err
		})
		if err != nil {
			return err
		}
		if i == 0 && n == 0 {
			close = "null"
		}
		if _, err := io.WriteString(w, close); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "}\n")
	return err
}
