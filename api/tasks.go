package api

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/transcript"
)

// tasksResource is intake (upload) and the reading of tasks.
type tasksResource struct {
	pool   *pgxpool.Pool
	river  *river.Client[pgx.Tx]
	store  *storage.Store
	limits UploadLimits
	speech intake.Speech
	// timeouts bound the time an upload's body takes to arrive.
	timeouts BodyTimeouts
	// fetchPrivate lets an upload by URL fetch from loopback and private
	// addresses (UPLOAD_URL_ALLOW_PRIVATE).
	fetchPrivate bool
}

func (t *tasksResource) register(api huma.API) {
	t.registerUpload(api)
	t.registerExport(api)

	op := operation(http.MethodGet, "/tasks", "list-tasks", "List tasks", role.Operator, http.StatusBadRequest)
	op.Description += " Operators see only the tasks where they are the audited agent. Pages either with the opaque " +
		"`next` cursor of the previous page (stable while tasks are added) or with `skip`; `total` counts every match " +
		"(estimated, and `total_estimated` true, when more than 1,000 tasks match filters on the agent, file name, " +
		"review, score or failed criterion)."
	op.Tags = []string{"tasks"}
	huma.Register(api, op, t.list)

	op = operation(http.MethodGet, "/tasks/{uuid}", "get-task", "Get a task with its transcript and history", role.Operator,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += " An operator may read only the tasks where they are the audited agent; others are 404 to them." +
		" An analyst of an open calibration session holding the task who has not submitted their answers yet gets it " +
		"blind: `calibration_blind` names the session, `audit` is null and `revisions` empty until they submit."
	op.Tags = []string{"tasks"}
	huma.Register(api, op, t.get)

	op = operation(http.MethodGet, "/files/{sha256}", "find-task-by-sha256", "Find the task of a file by its content",
		role.Operator, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " The task whose uploaded file has this SHA-256 (hex), as the list shows it, or 404 when there is none: " +
		"a client asks before sending a file, so that an upload run again after an interruption sends nothing twice " +
		"(`auditd upload` does). An upload of the same content would answer with that task, marked `duplicate`. " +
		"Operators find only the tasks where they are the audited agent; others are 404 to them, like unknown files."
	op.Tags = []string{"tasks"}
	huma.Register(api, op, t.bySHA256)

	op = operation(http.MethodGet, "/tasks/{uuid}/audit/revisions/{n}", "get-audit-revision", "Get one revision of a task's audit",
		role.Operator, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " The revision as it was stored (score breakdown, items, who made it and when) with its `diff` " +
		"from the previous revision: which items changed and how, the score and, after a new scorecard, the version. " +
		"Operators may read only the tasks where they are the audited agent. 409 to an analyst who has still to submit " +
		"their answers about the task to an open calibration session."
	op.Tags = []string{"tasks"}
	huma.Register(api, op, t.revision)

	op = operation(http.MethodGet, "/tasks/{uuid}/audio", "get-task-audio", "Stream a call's recording", role.Operator,
		http.StatusBadRequest, http.StatusNotFound, http.StatusPreconditionFailed, http.StatusRequestedRangeNotSatisfiable, http.StatusGone)
	op.Description += " Serves the stored file with its content type, honouring Range requests (206) so a player can seek: " +
		"a range outside the file is 416 `RANGE_NOT_SATISFIABLE`, a failed `If-Match` or `If-Unmodified-Since` 412 `PRECONDITION_FAILED`. " +
		"The recording is personal data: `Cache-Control: no-store`, like every answer; every read is in the access record. " +
		"A recording deleted by retention or an erasure is 410 `GONE`."
	op.Tags = []string{"tasks"}
	huma.Register(api, op, t.audio)
	binaryResponse(api, "/tasks/{uuid}/audio", "200", "The whole recording", "audio/*")
	binaryResponse(api, "/tasks/{uuid}/audio", "206", "The requested range of the recording", "audio/*")

	op = operation(http.MethodPost, "/tasks/{uuid}/retry", "retry-task", "Retry a failed task", role.Quality,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Sends a failed task back to the step it failed at. A task that has not failed is 409 CONFLICT."
	op.DefaultStatus = http.StatusAccepted
	op.Tags = []string{"tasks"}
	huma.Register(api, op, t.retry)
}

// TaskFilterInput is the filters of the task list, shared by its export
// (exported, so that Huma reads the fields it embeds).
type TaskFilterInput struct {
	Status               string `query:"status" enum:"queued,transcribing,transcribed,auditing,audited,validated,failed" doc:"Only tasks in this status"`
	Kind                 string `query:"kind" enum:"call,chat" doc:"Only calls or only chats"`
	Campaign             string `query:"campaign" maxLength:"200" doc:"Only tasks of the campaign with this name"`
	Operator             string `query:"operator" maxLength:"200" doc:"Only tasks of this agent (user id or username)"`
	ValidatedBy          string `query:"validated_by" maxLength:"200" doc:"Only tasks validated by this user (user id or username)"`
	Language             string `query:"language" maxLength:"35" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$" doc:"Only tasks in this language, a BCP 47 tag: es is every Spanish (es, es-MX…), es-MX only Mexican Spanish" example:"es"`
	From                 string `query:"from" doc:"Only tasks created at or after this time (RFC 3339, or a date: its UTC midnight)" example:"2024-05-01"`
	To                   string `query:"to" doc:"Only tasks created before this time (RFC 3339, or a date: its UTC midnight)" example:"2024-06-01T00:00:00Z"`
	Q                    string `query:"q" maxLength:"200" doc:"Only tasks where these words are found, in the transcript, the audit's explanations, the validation's notes or the file name, in the task's language and ignoring accents: every word must be found (reembolso finds reembolsó and reembolsos), \"a phrase\" in quotation marks word for word, a prefix with * (reembols*), OR between alternatives, -word leaves out tasks that have it" example:"\"tarjeta bloqueada\" reembols*"`
	FileName             string `query:"file_name" maxLength:"200" doc:"Only tasks whose file name contains this, ignoring case"`
	Passed               string `query:"passed" enum:"true,false" doc:"Only audited tasks that passed (true) or did not (false)"`
	NeedsReview          string `query:"needs_review" enum:"true,false" doc:"Only audited tasks whose current audit has items that need an analyst's review (true: automatic verdicts below AUDIT_REVIEW_CONFIDENCE), or has none (false)"`
	TranscriptUnreliable string `query:"transcript_unreliable" enum:"true,false" doc:"Only calls whose transcript is unreliable (true: the speech engine was unsure of its words, or gave more words a second than anyone says; every automatic verdict then needs review), or tasks whose transcript is not (false)"`
	MinScore             string `query:"min_score" pattern:"^[0-9]{1,3}(\\.[0-9]{1,2})?$" doc:"Only tasks whose audit scored at least this (0..100)"`
	MaxScore             string `query:"max_score" pattern:"^[0-9]{1,3}(\\.[0-9]{1,2})?$" doc:"Only tasks whose audit scored at most this (0..100)"`
	FailedCriterion      string `query:"failed_criterion" maxLength:"64" doc:"Only audited tasks whose current audit found this criterion (its id) not met"`
	Assignee             string `query:"assignee" maxLength:"200" doc:"Only tasks assigned to this analyst (user id or username)"`
	ReviewState          string `query:"review_state" enum:"automatic,reviewed,validated" doc:"Only tasks whose audit is in this review state: automatic (judged by the engine alone), reviewed (by an analyst) or validated"`
	CallFilterInput
}

// CallFilterInput is the task list's filters on what the platform said of
// a call or chat and on what a call's channels tell.
type CallFilterInput struct {
	CallID            string `query:"call_id" maxLength:"200" doc:"Only the task with this call id (the platform's id of the call or chat)"`
	Queue             string `query:"queue" maxLength:"200" doc:"Only tasks of this queue or skill"`
	Direction         string `query:"direction" enum:"inbound,outbound" doc:"Only inbound or only outbound interactions"`
	Caller            string `query:"caller" maxLength:"40" doc:"Only tasks with this calling phone number, however written (+34 600-11-22-33 is +34600112233). Quality and above; never finds a number a campaign redacts"`
	Called            string `query:"called" maxLength:"40" doc:"Only tasks with this called phone number, as caller"`
	StartedFrom       string `query:"started_from" doc:"Only interactions that started at or after this time (started_at; RFC 3339, or a date: its UTC midnight)" example:"2024-05-01"`
	StartedTo         string `query:"started_to" doc:"Only interactions that started before this time (started_at; RFC 3339, or a date: its UTC midnight)" example:"2024-05-02"`
	Metadata          string `query:"metadata" maxLength:"600" doc:"Only tasks whose metadata has this key with this value, written key=value: a text value equal to it, or a number or true/false it writes (attempt=2 finds 2 and \"2\"). Quality and above" example:"tier=gold"`
	MinAgentTalkRatio string `query:"min_agent_talk_ratio" pattern:"^(0(\\.[0-9]{1,3})?|1(\\.0{1,3})?)$" doc:"Only stereo calls where the agent's share of the talk is at least this (0..1)" example:"0.7"`
	MaxAgentTalkRatio string `query:"max_agent_talk_ratio" pattern:"^(0(\\.[0-9]{1,3})?|1(\\.0{1,3})?)$" doc:"Only stereo calls where the agent's share of the talk is at most this (0..1)" example:"0.3"`
	MinSilenceShare   string `query:"min_silence_share" pattern:"^(0(\\.[0-9]{1,3})?|1(\\.0{1,3})?)$" doc:"Only calls where nobody spoke for at least this share of the recording (0..1)"`
	MaxSilenceShare   string `query:"max_silence_share" pattern:"^(0(\\.[0-9]{1,3})?|1(\\.0{1,3})?)$" doc:"Only calls where nobody spoke for at most this share of the recording (0..1)"`
	MinLongestSilence string `query:"min_longest_silence" pattern:"^[0-9]{1,5}(\\.[0-9]{1,2})?$" doc:"Only calls whose longest silence lasts at least this many seconds" example:"30"`
	MinDeadAir        string `query:"min_dead_air" pattern:"^[0-9]{1,4}$" doc:"Only calls with at least this many silences of dead air (10 s or more)"`
	MinOvertalk       string `query:"min_overtalk" pattern:"^[0-9]{1,4}$" doc:"Only stereo calls with at least this many stretches of overtalk"`
	MinHolds          string `query:"min_holds" pattern:"^[0-9]{1,4}$" doc:"Only stereo calls with at least this many holds"`
}

// filter reads the call's filters into f.
func (in *CallFilterInput) filter(ctx context.Context, f *db.TaskFilter) error {
	f.CallID, f.Queue, f.Direction = in.CallID, in.Queue, in.Direction
	if !principal(ctx).Is(role.Quality) {
		for name, v := range map[string]string{"caller": in.Caller, "called": in.Called, "metadata": in.Metadata} {
			if v != "" {
				return Errorf(CodeForbidden, fmt.Sprintf("the query parameter %q filters on the customer's data, which the "+
					"quality role and above see; leave it out", name)).WithDetail("query."+name, "requires the quality role", nil)
			}
		}
	}
	for _, n := range []struct {
		name, v string
		to      *string
	}{{"caller", in.Caller, &f.Caller}, {"called", in.Called, &f.Called}} {
		if n.v == "" {
			continue
		}
		number, ok := intake.PhoneNumber(n.v)
		if !ok {
			return invalidQuery(n.name, "must be a phone number: digits with an optional leading + (spaces, dots, dashes and parentheses are left out)", n.v)
		}
		*n.to = number
	}
	if in.Metadata != "" {
		k, v, found := strings.Cut(in.Metadata, "=")
		if !found || strings.TrimSpace(k) == "" {
			return invalidQuery("metadata", "must be key=value, such as tier=gold", in.Metadata)
		}
		f.Metadata = &db.MetadataMatch{Key: k, Value: v}
	}
	var err error
	if f.StartedFrom, err = parseTimeIn("started_from", in.StartedFrom, time.UTC); err != nil {
		return err
	}
	if f.StartedTo, err = parseTimeIn("started_to", in.StartedTo, time.UTC); err != nil {
		return err
	}
	return in.channels(&f.Channels)
}

// channels reads the bounds on what a call's channels tell into b: the
// parameters' patterns have checked their form.
func (in *CallFilterInput) channels(b *db.ChannelBounds) error {
	for _, r := range []struct {
		name, v string
		to      **float64
	}{
		{"min_agent_talk_ratio", in.MinAgentTalkRatio, &b.MinAgentTalkRatio}, {"max_agent_talk_ratio", in.MaxAgentTalkRatio, &b.MaxAgentTalkRatio},
		{"min_silence_share", in.MinSilenceShare, &b.MinSilenceShare}, {"max_silence_share", in.MaxSilenceShare, &b.MaxSilenceShare},
		{"min_longest_silence", in.MinLongestSilence, &b.MinLongestSilence},
	} {
		if r.v == "" {
			continue
		}
		x, err := strconv.ParseFloat(r.v, 64)
		if err != nil {
			return invalidQuery(r.name, "must be a number", r.v)
		}
		*r.to = &x
	}
	for _, r := range []struct {
		name, v string
		to      **int
	}{{"min_dead_air", in.MinDeadAir, &b.MinDeadAir}, {"min_overtalk", in.MinOvertalk, &b.MinOvertalk}, {"min_holds", in.MinHolds, &b.MinHolds}} {
		if r.v == "" {
			continue
		}
		n, err := strconv.Atoi(r.v)
		if err != nil {
			return invalidQuery(r.name, "must be a whole number", r.v)
		}
		*r.to = &n
	}
	for _, p := range []struct {
		lo, hi *float64
		name   string
	}{{b.MinAgentTalkRatio, b.MaxAgentTalkRatio, "agent_talk_ratio"}, {b.MinSilenceShare, b.MaxSilenceShare, "silence_share"}} {
		if p.lo != nil && p.hi != nil && *p.lo > *p.hi {
			return invalidQuery("max_"+p.name, fmt.Sprintf("is below min_%s: no call can match", p.name), *p.hi)
		}
	}
	return nil
}

// binaryResponse documents that the GET of path answers status with a file
// of one of types.
func binaryResponse(api huma.API, path, status, description string, types ...string) {
	content := map[string]*huma.MediaType{}
	for _, t := range types {
		content[t] = &huma.MediaType{Schema: &huma.Schema{Type: "string", Format: "binary"}}
	}
	api.OpenAPI().Paths[path].Get.Responses[status] = &huma.Response{Description: description, Content: content}
}

type listTasksInput struct {
	TaskFilterInput
	Sort   string `query:"sort" enum:"created_at,file_name,score" default:"created_at" doc:"Sort key (tasks not audited yet sort below every score)"`
	Order  string `query:"order" enum:"asc,desc" default:"desc" doc:"Sort direction"`
	Cursor string `query:"cursor" maxLength:"2000" doc:"The next value of the previous page, to continue after it"`
	Skip   int    `query:"skip" minimum:"0" default:"0" doc:"Tasks to skip (after the cursor, if any)"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Page size"`
}

// TaskList is a page of tasks.
type TaskList struct {
	Tasks []TaskSummary `json:"tasks"`
	// Total counts every task matching the filters, on every page.
	Total int64 `json:"total"`
	// TotalEstimated says that Total is an estimate.
	TotalEstimated bool `json:"total_estimated,omitempty" doc:"total is an estimate: more than 1,000 tasks match"`
	// Next continues after this page; absent on the last page.
	Next  string `json:"next,omitempty" doc:"Pass as cursor to get the next page; absent on the last page"`
	Skip  int    `json:"skip"`
	Limit int    `json:"limit"`
}

// listCursor is what an opaque cursor holds: the ordering it belongs to and
// the position of the last task seen.
type listCursor struct {
	Sort  string `json:"s"`
	Order string `json:"o"`
	Value string `json:"v"`
	UUID  string `json:"u"`
}

func (c listCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeListCursor reads s strictly: only what encode writes (the same
// bytes once written again) holding a valid position.
func decodeListCursor(s string) (listCursor, bool) {
	var c listCursor
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.encode() != s {
		return listCursor{}, false
	}
	return c, c.valid()
}

// valid reports whether c holds a position its ordering could have given:
// a UUID as the service writes it and a value of the ordering's kind. A
// cursor is opaque but not secret; one forged with those is only a place
// in the list.
func (c listCursor) valid() bool {
	if !canonicalUUIDRe.MatchString(c.UUID) {
		return false
	}
	var err error
	switch c.Sort {
	case db.TaskSortFileName:
		return utf8.ValidString(c.Value) && !strings.ContainsRune(c.Value, 0)
	case db.TaskSortScore:
		_, err = strconv.ParseFloat(c.Value, 64)
	default:
		_, err = time.Parse(time.RFC3339Nano, c.Value)
	}
	return err == nil
}

// badCursor is the answer to a cursor this service did not return for the
// page asked: located, and quoting nothing of it (a cursor is opaque, and
// what one decodes to is the sender's).
func badCursor() *Error {
	const msg = "is not a cursor this service returned for this list; start again from the first page, then pass each page's next unchanged"
	return Errorf(CodeValidation, `the query parameter "cursor" `+msg).WithDetail("query.cursor", msg, nil)
}

func invalidQuery(name, msg string, value any) *Error {
	return Errorf(CodeValidation, fmt.Sprintf("the query parameter %q %s", name, msg)).
		WithDetail("query."+name, msg, value)
}

// parseScore reads an optional score bound (nil when absent).
func parseScore(name, v string) (*float64, error) {
	if v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0 && f <= 100) || strings.ContainsAny(v, "xXpPiInN_") {
		// NaN, infinities, hex and digit separators are numbers to
		// ParseFloat, not scores.
		return nil, invalidQuery(name, "must be a score from 0 to 100", v)
	}
	return &f, nil
}

// filter reads the filters as the database takes them. For a user below
// quality, who sees only their own tasks, it narrows them to those; mine is
// false when they asked for someone else's, which match nothing.
func (in *TaskFilterInput) filter(ctx context.Context, pool *pgxpool.Pool) (f db.TaskFilter, mine bool, err error) {
	f = db.TaskFilter{Status: pipeline.Status(in.Status), Kind: in.Kind, Campaign: in.Campaign, FileName: in.FileName,
		FailedCriterion: in.FailedCriterion, Language: in.Language, ReviewState: in.ReviewState}
	if in.Q != "" {
		if f.Text, err = db.SearchQuery(ctx, pool, in.Q); errcode.Is(err, errcode.Invalid) {
			return f, false, invalidQuery("q", errcode.Message(err), in.Q)
		} else if err != nil {
			return f, false, err
		}
	}
	if f.MinScore, err = parseScore("min_score", in.MinScore); err != nil {
		return f, false, err
	}
	if f.MaxScore, err = parseScore("max_score", in.MaxScore); err != nil {
		return f, false, err
	}
	if in.Passed != "" {
		passed := in.Passed == "true"
		f.Passed = &passed
	}
	if in.NeedsReview != "" {
		review := in.NeedsReview == "true"
		f.NeedsReview = &review
	}
	if in.TranscriptUnreliable != "" {
		unreliable := in.TranscriptUnreliable == "true"
		f.TranscriptUnreliable = &unreliable
	}
	// A date is its UTC midnight.
	if f.From, err = parseTimeIn("from", in.From, time.UTC); err != nil {
		return f, false, err
	}
	if f.To, err = parseTimeIn("to", in.To, time.UTC); err != nil {
		return f, false, err
	}
	if in.ValidatedBy != "" {
		if f.ValidatedBy, err = resolveOperator(ctx, pool, in.ValidatedBy, "query.validated_by"); err != nil {
			return f, false, err
		}
	}
	if in.Operator != "" {
		if f.OperatorID, err = resolveOperator(ctx, pool, in.Operator, "query.operator"); err != nil {
			return f, false, err
		}
	}
	if in.Assignee != "" {
		if f.AssigneeID, err = resolveOperator(ctx, pool, in.Assignee, "query.assignee"); err != nil {
			return f, false, err
		}
	}
	if err := in.CallFilterInput.filter(ctx, &f); err != nil {
		return f, false, err
	}
	if p := principal(ctx); !p.Is(role.Quality) {
		if f.OperatorID != "" && f.OperatorID != p.User.ID {
			return f, false, nil
		}
		f.OperatorID = p.User.ID
	}
	return f, true, nil
}

func (t *tasksResource) list(ctx context.Context, in *listTasksInput) (*Output[TaskList], error) {
	f, mine, err := in.filter(ctx, t.pool)
	if err != nil {
		return nil, err
	}
	v, err := viewerOf(ctx, t.pool)
	if err != nil {
		return nil, err
	}
	f.Viewer = v
	page := db.TaskPage{Sort: in.Sort, Desc: in.Order == "desc", Skip: in.Skip, Limit: in.Limit}
	if in.Sort == db.TaskSortScore {
		// An order by score would tell where a hidden audit's score
		// lies: an agent's sorts it as not audited yet, an analyst
		// calibrating blind is not listed the tasks concerned.
		if principal(ctx).Is(role.Quality) {
			f.ExcludeHidden = len(v.Blind) > 0
		} else {
			page.Sort = db.TaskSortAgentScore
		}
	}
	if in.Cursor != "" {
		c, ok := decodeListCursor(in.Cursor)
		if !ok || c.Sort != in.Sort || c.Order != in.Order {
			// One of another ordering is refused too, without saying
			// which: its sort and order are whatever the sender wrote.
			return nil, badCursor()
		}
		page.After = &db.TaskCursor{Value: c.Value, UUID: c.UUID}
	}
	out := TaskList{Tasks: []TaskSummary{}, Skip: in.Skip, Limit: in.Limit}
	if !mine {
		return ok(out), nil
	}
	// One more than asked tells whether another page follows.
	page.Limit++
	tasks, total, estimated, err := db.TaskListTotal(ctx, t.pool, f, page)
	if err != nil {
		return nil, err
	}
	out.Total, out.TotalEstimated = total, estimated
	if len(tasks) > in.Limit {
		tasks = tasks[:in.Limit]
		pos := tasks[len(tasks)-1].Cursor(page.Sort)
		out.Next = listCursor{Sort: in.Sort, Order: in.Order, Value: pos.Value, UUID: pos.UUID}.encode()
	}
	var snippets map[string][]db.SnippetPart
	if f.Text != "" && len(tasks) > 0 {
		uuids := make([]string, len(tasks))
		for i, task := range tasks {
			uuids[i] = task.UUID
		}
		if snippets, err = db.TaskSnippets(ctx, t.pool, v, f.Text, uuids); err != nil {
			return nil, err
		}
	}
	for _, task := range tasks {
		// A snippet may quote the transcript: recorded before it is served.
		if snippets[task.UUID] != nil {
			if _, err := recordAccess(ctx, t.pool, db.AccessTranscript, task.UUID, nil); err != nil {
				return nil, err
			}
		}
	}
	for _, task := range tasks {
		s := summaryFor(v, task)
		s.Snippet = snippetOf(snippets[task.UUID])
		out.Tasks = append(out.Tasks, s)
	}
	return ok(out), nil
}

type taskBySHA256Input struct {
	SHA256 string `path:"sha256" pattern:"^[0-9a-f]{64}$" doc:"The file's SHA-256, 64 lower-case hex digits"`
}

func (t *tasksResource) bySHA256(ctx context.Context, in *taskBySHA256Input) (*Output[TaskSummary], error) {
	task, err := db.TaskGetBySHA256(ctx, t.pool, in.SHA256)
	p := principal(ctx)
	if errcode.Is(err, errcode.NotFound) || (err == nil && !p.Is(role.Quality) && task.OperatorID != p.User.ID) {
		return nil, Errorf(CodeNotFound, "no task has a file with this content")
	}
	if err != nil {
		return nil, err
	}
	s, err := t.summary(ctx, task)
	if err != nil {
		return nil, err
	}
	return ok(s), nil
}

// summary is task's summary as the caller may see it (summaryFor).
func (t *tasksResource) summary(ctx context.Context, task db.Task) (TaskSummary, error) {
	v, err := viewerOf(ctx, t.pool)
	if err != nil {
		return TaskSummary{}, err
	}
	return summaryFor(v, task), nil
}

type taskInput struct {
	UUID string `path:"uuid" format:"uuid" doc:"The task's id"`
}

// TaskDetail is a task with everything known about it.
type TaskDetail struct {
	UUID        string          `json:"uuid" format:"uuid"`
	Kind        string          `json:"kind" enum:"call,chat"`
	Status      pipeline.Status `json:"status" enum:"queued,transcribing,transcribed,auditing,audited,validated,failed"`
	FileName    string          `json:"file_name"`
	ContentType string          `json:"content_type"`
	SizeBytes   int64           `json:"size_bytes"`
	SHA256      string          `json:"sha256" doc:"Hex SHA-256 of the file"`
	Campaign    string          `json:"campaign" doc:"The campaign's name"`
	OperatorID  string          `json:"operator_id,omitempty" doc:"The audited agent's user id"`
	Language    string          `json:"language"`
	Direction   string          `json:"direction,omitempty" enum:"inbound,outbound"`
	StartedAt   *time.Time      `json:"started_at,omitempty"`
	CallID      string          `json:"call_id,omitempty" doc:"The platform's id of the call or chat, unique in its campaign"`
	Queue       string          `json:"queue,omitempty" doc:"The platform's queue or skill"`
	// Caller, Called, CustomerRef and Metadata are personal data: left
	// out for a viewer below quality.
	Caller          string         `json:"caller,omitempty" doc:"The calling phone number (digits, leading +), or [PHONE] in a campaign that redacts phone numbers; absent once the transcript is deleted, and to agents"`
	Called          string         `json:"called,omitempty" doc:"The called phone number, as caller"`
	CustomerRef     string         `json:"customer_ref,omitempty" doc:"The customer's reference in another system, which an erasure finds the task by; absent to agents"`
	Metadata        map[string]any `json:"metadata,omitempty" doc:"What else the platform said of the interaction (string keys, scalar values), text values redacted as the transcript; absent once the transcript is deleted, and to agents"`
	UploadedBy      string         `json:"uploaded_by" doc:"The uploader's user id"`
	DurationSeconds *float64       `json:"duration_seconds,omitempty"`
	Error           string         `json:"error,omitempty" doc:"Why the task failed, or why a queued call waits"`
	Attempts        int            `json:"attempts"`
	// Retry is db.Task.Retry, left out below quality.
	Retry       *TaskRetry `json:"retry,omitempty" doc:"While a call's transcription is retried (a speech server answering 5xx or 429, unreachable, or not answering in time): the attempts so far, why the last did not finish, for a person, and when the next is due; a task.updated event carries each change. Shown to quality and above, never to agents"`
	ReviewItems *int       `json:"review_items,omitempty" minimum:"0" doc:"How many items of the current audit need an analyst's review (those with needs_review), once audited"`
	AssigneeID  string     `json:"assignee_id,omitempty" doc:"The user id of the analyst the task is assigned to"`
	AssignedAt  *time.Time `json:"assigned_at,omitempty" doc:"When the task was assigned to assignee_id"`
	DueAt       *time.Time `json:"due_at,omitempty" doc:"By when the assignee should review it"`
	ReviewState string     `json:"review_state,omitempty" enum:"automatic,reviewed,validated" doc:"automatic until an analyst reviews the audit, then reviewed, then validated; absent before any audit"`
	ReviewedAt  *time.Time `json:"reviewed_at,omitempty" doc:"When an analyst reviewed the current audit"`
	ReviewedBy  string     `json:"reviewed_by,omitempty" doc:"The user id of the analyst who reviewed it"`
	AuditHidden bool       `json:"audit_hidden,omitempty" doc:"True for an agent (operator) whose audit is automatic in a campaign that does not show those, or has verdicts pending an analyst's confirmation: audit, revisions and review_items are left out until an analyst reviews it"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	AudioURL    string     `json:"audio_url,omitempty" doc:"Where a call's recording streams from"`
	// TranscriptUnreliable is db.Task.TranscriptUnreliable; the figures
	// behind it are the transcript's quality.
	TranscriptUnreliable string `json:"transcript_unreliable,omitempty" enum:"low_quality,too_fast" doc:"Why the call's transcript is unreliable, when it is: low_quality (the speech engine was unsure of its words: transcript.quality.score under transcript.quality.floor) or too_fast (more words a second than anyone says); every automatic verdict of its audit then needs review"`
	// Transcript is null until the call is transcribed; a chat has it from intake.
	Transcript *transcript.Transcript `json:"transcript"`
	// Channels is null for a chat and a call not yet analysed.
	Channels *transcript.Channels `json:"channels" doc:"What the call's channels tell from its audio alone (voice activity per channel, measured when it is transcribed): talk time and ratio, silences, dead air, overtalk, holds, and the stretches for a timeline; words per minute once a transcript exists. Null for a chat and a call not analysed yet"`
	// Audit is null until the task is audited.
	Audit     *Audit              `json:"audit"`
	Revisions []AuditRevisionInfo `json:"revisions" doc:"Every revision of the audit, oldest first"`
	History   []TaskStateChange   `json:"history" doc:"Every change of status, oldest first"`
	// Validation is null until the task is validated.
	Validation *ValidationView `json:"validation" doc:"The validation and the delivery of its e-mail; null until validated"`
	// Feedback is null until the task is validated.
	Feedback *Feedback `json:"feedback" doc:"The agent's acknowledgement and disputes of the validated evaluation; null until validated"`
	// CalibrationBlind, when set, is the open calibration session the
	// caller has still to answer about this task: its audit, revisions
	// and review count are left out until they submit.
	CalibrationBlind *CalibrationRef `json:"calibration_blind,omitempty" doc:"The open calibration session you have still to submit your answers to about this task: until you do, its audit, revisions and review count are left out (null, empty)"`
	// Privacy is the task's legal hold and what retention or erasure deleted.
	Privacy TaskPrivacy `json:"privacy" doc:"The task's legal hold, and when retention or an erasure deleted its recording, transcript or audit"`
	// Redactions are where the transcript's placeholders are, never what
	// they replaced.
	Redactions []redact.Record `json:"redactions" doc:"Each placeholder redaction put in the transcript: its type, segment, characters, detector and, in a call, the seconds silenced"`
}

// Audit is the current revision of a task's audit.
type Audit struct {
	Revision int `json:"revision"`
	scoring.Result
	Source        string    `json:"source" enum:"engine,analyst,recompute"`
	Engine        string    `json:"engine,omitempty"`
	UpdatedBy     string    `json:"updated_by,omitempty" doc:"The token subject of the analyst who made this revision"`
	UpdatedByName string    `json:"updated_by_name,omitempty" doc:"The x-username the analyst sent"`
	UpdatedAt     time.Time `json:"updated_at"`
}

func auditView(a db.AuditRevision) *Audit {
	return &Audit{Revision: a.Revision, Result: a.Result, Source: a.Source, Engine: a.Engine,
		UpdatedBy: a.AuthorID, UpdatedByName: a.AuthorName, UpdatedAt: a.CreatedAt}
}

// visible is visibleTask on t's pool.
func (t *tasksResource) visible(ctx context.Context, id string) (db.Task, error) {
	return visibleTask(ctx, t.pool, id)
}

// visibleTask returns task id if the caller may see it: quality and above
// see every task, operators those where they are the agent. Others are
// NOT_FOUND, like unknown ids, so ids cannot be probed.
func visibleTask(ctx context.Context, q db.DBTX, id string) (db.Task, error) {
	task, err := db.TaskGetByUUID(ctx, q, id)
	p := principal(ctx)
	if errcode.Is(err, errcode.NotFound) || (err == nil && !p.Is(role.Quality) && task.OperatorID != p.User.ID) {
		return db.Task{}, Errorf(CodeNotFound, fmt.Sprintf("no task %s", id))
	}
	if err != nil {
		return db.Task{}, err
	}
	return task, nil
}

// channels returns what task's channels tell, with each side's speaking
// rate when tr (nil before the transcript) has words; nil when they were
// not analysed.
func (t *tasksResource) channels(ctx context.Context, task db.Task, tr *transcript.Transcript) (*transcript.Channels, error) {
	if tr != nil {
		if tr.Channels != nil {
			tr.Channels.SpeakingRates(tr.Segments)
		}
		return tr.Channels, nil
	}
	if task.Kind != db.TaskCall {
		return nil, nil
	}
	c, err := db.ChannelsGet(ctx, t.pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return nil, nil
	}
	return &c, err
}

func (t *tasksResource) get(ctx context.Context, in *taskInput) (*Output[TaskDetail], error) {
	task, err := t.visible(ctx, in.UUID)
	if err != nil {
		return nil, err
	}
	d := TaskDetail{
		UUID: task.UUID, Kind: task.Kind, Status: task.Status, FileName: task.FileName, ContentType: task.ContentType,
		SizeBytes: task.SizeBytes, SHA256: task.SHA256, Campaign: task.CampaignName, OperatorID: task.OperatorID,
		Language: task.Language, Direction: task.Direction, StartedAt: task.StartedAt, CallID: task.CallID, Queue: task.Queue,
		UploadedBy: task.UploadedBy, DurationSeconds: task.DurationSeconds, Error: task.Error, Attempts: task.Attempts,
		ReviewItems: task.ReviewItems, AssigneeID: task.AssigneeID, CreatedAt: task.CreatedAt, UpdatedAt: task.UpdatedAt,
		AssignedAt: task.AssignedAt, DueAt: task.DueAt, ReviewState: task.ReviewState(), ReviewedAt: task.ReviewedAt,
		ReviewedBy: task.ReviewedBy, Revisions: []AuditRevisionInfo{}, TranscriptUnreliable: task.TranscriptUnreliable,
	}
	viewer, err := viewerOf(ctx, t.pool)
	if err != nil {
		return nil, err
	}
	if principal(ctx).Is(role.Quality) {
		d.Caller, d.Called, d.CustomerRef, d.Metadata = task.Caller, task.Called, task.CustomerRef, task.Metadata
	}
	hidden := viewer.AgentHidden(task.Row())
	if !viewer.RetryHidden() {
		d.Retry = taskRetryOf(task.Retry)
	}
	if task.Kind == db.TaskCall && task.BlobKey != "" {
		d.AudioURL = "/tasks/" + task.UUID + "/audio"
	}
	privacy, err := db.TaskPrivacyGet(ctx, t.pool, task.UUID)
	if err != nil {
		return nil, err
	}
	d.Privacy = taskPrivacyOf(privacy)
	tr, err := db.TranscriptGet(ctx, t.pool, task.UUID)
	switch {
	case err == nil:
		d.Transcript = &tr
	case !errcode.Is(err, errcode.NotFound):
		return nil, err
	}
	if d.Channels, err = t.channels(ctx, task, d.Transcript); err != nil {
		return nil, err
	}
	if d.Redactions, err = db.RedactionsList(ctx, t.pool, task.UUID); err != nil {
		return nil, err
	}
	if d.Redactions == nil {
		d.Redactions = []redact.Record{}
	}
	if hidden {
		d.AuditHidden, d.ReviewItems = true, nil
	}
	if viewer.BlindTo(task.Row()) {
		// The session the caller answers blind, named.
		blind, err := db.CalibrationBlindFor(ctx, t.pool, task.UUID, principal(ctx).User.ID)
		if err != nil {
			return nil, err
		}
		d.CalibrationBlind = calibrationRefOf(blind)
		d.ReviewItems, d.Revisions = nil, []AuditRevisionInfo{}
	} else if task.AuditRevision != nil && !hidden {
		audit, err := db.AuditCurrent(ctx, t.pool, task.UUID)
		if err != nil {
			return nil, err
		}
		d.Audit = auditView(audit)
		if d.Transcript != nil {
			quotes := transcript.NewQuotes(*d.Transcript)
			for i, it := range d.Audit.Items {
				d.Audit.Items[i].EvidenceTurns = quotes.Turns(it.Evidence)
			}
		}
	}
	if !viewer.AuditHidden(task.Row()) {
		revisions, err := db.AuditRevisionList(ctx, t.pool, task.UUID)
		if err != nil {
			return nil, err
		}
		d.Revisions = each(revisions, auditRevisionInfoOf)
	}
	history, err := db.TaskHistory(ctx, t.pool, task.UUID)
	if err != nil {
		return nil, err
	}
	d.History = each(history, func(c db.TaskStateChange) TaskStateChange { return TaskStateChange(c) })
	// A validation's record (its notes judge the audit) is part of what
	// calibrating blind hides.
	if task.Status == pipeline.Validated && !viewer.BlindTo(task.Row()) {
		v, err := db.ValidationGet(ctx, t.pool, task.UUID)
		if err != nil {
			return nil, err
		}
		view := validationViewOf(v.View(principal(ctx).Is(role.Quality)))
		d.Validation = &view
		if d.Feedback, err = feedbackOf(ctx, t.pool, task, principal(ctx).User); err != nil {
			return nil, err
		}
	}
	// Recorded before anything is served: the transcript (with the
	// audit's quotes of it) and the validation's e-mail content.
	if d.Transcript != nil || d.Audit != nil {
		if _, err := recordAccess(ctx, t.pool, db.AccessTranscript, task.UUID, nil); err != nil {
			return nil, err
		}
	}
	if d.Validation != nil {
		if _, err := recordAccess(ctx, t.pool, db.AccessValidation, task.UUID, nil); err != nil {
			return nil, err
		}
	}
	return ok(d), nil
}

// AuditRevisionDetail is one revision of an audit with what changed in it.
type AuditRevisionDetail struct {
	Audit
	// Diff is null for the first revision.
	Diff *scoring.Diff `json:"diff" doc:"What changed from the previous revision; null for the first"`
}

type revisionInput struct {
	UUID string `path:"uuid" format:"uuid" doc:"The task's id"`
	N    int    `path:"n" minimum:"1" maximum:"2147483647" doc:"The revision number"`
}

func (t *tasksResource) revision(ctx context.Context, in *revisionInput) (*Output[AuditRevisionDetail], error) {
	task, err := t.visible(ctx, in.UUID)
	if err != nil {
		return nil, err
	}
	viewer, err := viewerOf(ctx, t.pool)
	if err != nil {
		return nil, err
	}
	if viewer.AgentHidden(task.Row()) {
		return nil, errAuditHidden(task)
	}
	if viewer.BlindTo(task.Row()) {
		if err := notBlind(ctx, t.pool, task.UUID); err != nil {
			return nil, err
		}
	}
	rev, err := db.AuditRevisionGet(ctx, t.pool, task.UUID, in.N)
	if err != nil {
		return nil, err
	}
	if _, err := recordAccess(ctx, t.pool, db.AccessRevision, task.UUID, map[string]any{"revision": in.N}); err != nil {
		return nil, err
	}
	d := AuditRevisionDetail{Audit: *auditView(rev)}
	if len(rev.Diff) > 0 {
		d.Diff = new(scoring.Diff)
		if err := json.Unmarshal(rev.Diff, d.Diff); err != nil {
			return nil, err
		}
	}
	return ok(d), nil
}

type audioInput struct {
	UUID  string `path:"uuid" format:"uuid" doc:"The task's id"`
	Range string `header:"Range" doc:"Byte ranges, such as bytes=0-1023"`
}

func (t *tasksResource) audio(ctx context.Context, in *audioInput) (*huma.StreamResponse, error) {
	task, err := t.visible(ctx, in.UUID)
	if err != nil {
		return nil, err
	}
	if task.Kind != db.TaskCall {
		return nil, Errorf(CodeNotFound, fmt.Sprintf("task %s is a chat: it has no recording; its transcript is in GET /tasks/%s", task.UUID, task.UUID))
	}
	if task.BlobKey == "" {
		p, err := db.TaskPrivacyGet(ctx, t.pool, task.UUID)
		if err != nil {
			return nil, err
		}
		when := ""
		if p.RecordingDeletedAt != nil {
			when = " on " + p.RecordingDeletedAt.UTC().Format(time.DateOnly)
		}
		return nil, Errorf(CodeGone, fmt.Sprintf("the recording of task %s was deleted%s, by its campaign's retention or an "+
			"erasure; its transcript and audit stay until their own retention, in GET /tasks/%s", task.UUID, when, task.UUID))
	}
	if _, err := recordAccess(ctx, t.pool, db.AccessRecording, task.UUID, nil); err != nil {
		return nil, err
	}
	rd, err := t.store.Open(ctx, task.BlobKey)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", task.UUID, err)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer rd.Close()
		r, w := unwrap(hctx)
		h := w.Header()
		// X-Content-Type-Options: nosniff is on every response (withRequest).
		ctype, disposition := servedAs(task.ContentType)
		h.Set("Content-Type", ctype)
		if cd := mime.FormatMediaType(disposition, map[string]string{"filename": servedName(task.FileName, ctype)}); cd != "" {
			h.Set("Content-Disposition", cd)
		}
		// The stored file's, not the upload's: a recording's redacted copy
		// replaces the upload under a key of its own, and a client must
		// not join ranges of both (If-Range).
		key := sha256.Sum256([]byte(task.BlobKey))
		etag := `"` + hex.EncodeToString(key[:16]) + `"`
		h.Set("ETag", etag)
		ew := &errorWriter{ResponseWriter: w}
		http.ServeContent(ew, r, "", task.UpdatedAt, rd)
		if ew.status != 0 {
			// http.ServeContent reports a bad range or precondition in
			// plain text; answer in the error model instead.
			h.Del("Content-Disposition")
			writeError(w, r, audioError(ctx, ew, task, in.Range, etag))
		}
	}}, nil
}

// audioError is the error model's answer for what http.ServeContent
// refused, in words of the request rather than the library's.
func audioError(ctx context.Context, ew *errorWriter, task db.Task, byteRange, etag string) *Error {
	switch ew.status {
	case http.StatusRequestedRangeNotSatisfiable:
		return Errorf(CodeRangeNotSatisfiable, fmt.Sprintf("the Range header %q asks for no byte of the recording's %d; ask within bytes=0-%d",
			byteRange, task.SizeBytes, max(task.SizeBytes-1, 0))).WithDetail("header.Range", "outside the recording", byteRange)
	case http.StatusPreconditionFailed:
		return Errorf(CodePreconditionFailed, fmt.Sprintf("the recording does not match the request's If-Match or If-Unmodified-Since; its ETag is %s", etag))
	default:
		return translate(ctx, fmt.Errorf("serving task %s's recording: %d %s", task.UUID, ew.status, strings.TrimSpace(ew.msg.String())))
	}
}

// servedAs is how a stored file is served: a recording (its type, found
// by its content at upload, is audio/*) inline under its type; anything
// else as an opaque download, so that a browser never renders it.
func servedAs(stored string) (contentType, disposition string) {
	if mt, _, err := mime.ParseMediaType(stored); err == nil && strings.HasPrefix(mt, "audio/") {
		return stored, "inline"
	}
	return "application/octet-stream", "attachment"
}

// audioExtensions are the file name extensions of the stored formats.
var audioExtensions = map[string][]string{
	"audio/flac": {".flac"}, "audio/wav": {".wav", ".wave"}, "audio/x-wav": {".wav", ".wave"}, "audio/mpeg": {".mp3"},
	"audio/ogg": {".ogg", ".opus", ".oga"}, "audio/mp4": {".m4a", ".mp4"}, "audio/webm": {".webm"},
}

// servedName is the name a recording is served under: the uploaded name,
// its extension that of the stored format (a redacted copy stored as FLAC
// is call.flac, not call.wav).
func servedName(name, contentType string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	exts, known := audioExtensions[mt]
	ext := path.Ext(name)
	if !known || slices.Contains(exts, strings.ToLower(ext)) {
		return name
	}
	return strings.TrimSuffix(name, ext) + exts[0]
}

// errorWriter passes a response through unless its status is an error,
// which it keeps (with the message) for the caller to answer instead.
type errorWriter struct {
	http.ResponseWriter
	status int
	msg    strings.Builder
}

func (e *errorWriter) WriteHeader(status int) {
	if status >= http.StatusBadRequest {
		e.status = status
		return
	}
	e.ResponseWriter.WriteHeader(status)
}

func (e *errorWriter) Write(b []byte) (int, error) {
	if e.status != 0 {
		return e.msg.Write(b)
	}
	return e.ResponseWriter.Write(b)
}

// ReadFrom keeps io.Copy on the underlying writer's fast path.
func (e *errorWriter) ReadFrom(r io.Reader) (int64, error) {
	if e.status != 0 {
		return io.Copy(&e.msg, r)
	}
	return io.Copy(e.ResponseWriter, r)
}

func (t *tasksResource) retry(ctx context.Context, in *taskInput) (*Output[TaskSummary], error) {
	var changed db.Task
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		task, err := db.TaskGetByUUID(ctx, tx, in.UUID)
		if err != nil {
			return err
		}
		changed, err = lifecycle.RetryTask(ctx, tx, t.river, task)
		return err
	})
	if err != nil {
		return nil, err
	}
	s, err := t.summary(ctx, changed)
	if err != nil {
		return nil, err
	}
	return accepted(s), nil
}

// errAuditHidden is the answer to an agent asking for an audit they are
// not shown yet.
func errAuditHidden(task db.Task) *Error {
	return Errorf(CodeForbidden, fmt.Sprintf("the audit of task %s is shown to its agent once an analyst reviews it; "+
		"campaign %s does not show automatic audits to agents", task.UUID, task.CampaignName))
}
