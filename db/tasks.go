package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// Task kinds.
const (
	TaskCall = "call"
	TaskChat = "chat"
)

// Event types of task changes; their data is the task's summary
// (Task.Summary) as each audience may see it: TaskEventInsert writes the
// agent's without an audit hidden from them.
const (
	EventTaskCreated = "task.created"
	EventTaskUpdated = "task.updated"
)

// ErrTaskStatus is the cause of the Conflict error (errcode) that
// TaskTransition and AuditAppendAndMove return, naming the current status,
// when the task is not in a status the change starts from.
var ErrTaskStatus = errors.New("the task's status does not allow this change")

// taskStatusError is the Conflict error wrapping ErrTaskStatus of task
// uuid, which is status.
func taskStatusError(uuid string, status pipeline.Status) error {
	return errcode.Wrap(errcode.Conflict, ErrTaskStatus, fmt.Sprintf("task %s is %s now; its status does not allow this change", uuid, status))
}

// Task is an uploaded call or chat on its way through the pipeline.
type Task struct {
	NewTask
	CampaignName string
	// Error is why the task failed, or why a queued call waits (no speech
	// engine); "" otherwise.
	Error    string
	Attempts int
	// Score and Passed are the current audit's, once audited and decided:
	// nil while verdicts are pending (Pending).
	Score  *float64
	Passed *bool
	// ScoreMin and ScoreMax are the range the score can still take while
	// verdicts are pending (scoring.Result), nil otherwise.
	ScoreMin, ScoreMax *float64
	// PendingCriteria are the criteria whose verdicts are pending, in
	// scorecard order (empty when none is).
	PendingCriteria []string
	// ReviewItems counts the current audit's items that need an analyst's
	// review, once audited.
	ReviewItems *int
	// AuditRevision is the current revision of the audit (nil before any).
	AuditRevision *int
	// AssigneeID is the user id of the analyst the task is assigned to, ""
	// for none.
	AssigneeID string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// ReviewedAt and ReviewedBy say when and by whom an analyst reviewed
	// the current audit (nil while it is automatic).
	ReviewedAt *time.Time
	ReviewedBy string
	// AssignedAt is when the task was assigned to AssigneeID; DueAt by
	// when the analyst should review it (nil: no due date).
	AssignedAt *time.Time
	DueAt      *time.Time
	// OperatorSeesAutomatic is the campaign's setting: whether the agent
	// sees an audit before an analyst reviewed it.
	OperatorSeesAutomatic bool
	// AuditDeleted says that retention or an erasure deleted the audit's
	// revisions (its score and result stay).
	AuditDeleted bool
	// TranscriptUnreliable is why the call's transcript is not to be
	// trusted (transcript.LowQuality, transcript.TooFast); "" when it is,
	// or before it is transcribed.
	TranscriptUnreliable string
	// Retry is the call's transcription between its attempts, while it is
	// retried; nil otherwise.
	Retry *TaskRetry
}

// Why an attempt at a call's transcription failed (TaskRetry.Reason).
const (
	RetryBusy        = "busy"
	RetryServerError = "server_error"
	RetryUnreachable = "unreachable"
	RetryTimeout     = "timeout"
	RetryBadAnswer   = "bad_answer"
	RetryInternal    = "internal"
)

// TaskRetry is a call's transcription between its attempts: which one
// failed, why (for a person: never a library's text, an address or a
// key), and when the next is due. Shown from quality up
// (visibility.Viewer.RetryHidden). Stored as JSON in the task's row and in
// its events (TaskSummary).
type TaskRetry struct {
	Attempt     int       `json:"attempt"`
	MaxAttempts int       `json:"max_attempts"`
	Reason      string    `json:"reason"`
	Error       string    `json:"error"`
	NextAt      time.Time `json:"next_attempt_at"`
}

// Row is what the visibility rules read of t.
func (t Task) Row() visibility.Row {
	return visibility.Row{UUID: t.UUID, CampaignID: t.CampaignID, Validated: t.Status == pipeline.Validated,
		Current: t.AuditRevision != nil, Reviewed: t.ReviewedAt != nil, AuditDeleted: t.AuditDeleted, Pending: t.Pending()}
}

// Review states of a task's audit (TaskSummary.ReviewState).
const (
	ReviewAutomatic = "automatic"
	ReviewReviewed  = "reviewed"
	ReviewValidated = "validated"
)

// ReviewState is the review state of t's audit: validated once validated,
// reviewed once an analyst reviewed its current audit, automatic while only
// the engine judged it, "" before any audit.
func (t Task) ReviewState() string {
	switch {
	case t.Status == pipeline.Validated:
		return ReviewValidated
	case t.AuditRevision == nil:
		return ""
	case t.ReviewedAt != nil:
		return ReviewReviewed
	}
	return ReviewAutomatic
}

// Pending reports whether t's audit has verdicts pending an analyst's
// confirmation: it is provisional, and counts in no figure as scored. A
// validated audit was decided by its validator. visibility.PendingWhere is
// the same in SQL.
func (t Task) Pending() bool {
	return t.Status != pipeline.Validated && len(t.PendingCriteria) > 0
}

// AuditHiddenFromOperator reports whether t's agent (an operator) is not
// shown its audit (visibility.Viewer.AgentHidden, as the agent's view):
// it is automatic and the campaign does not show those, or it has verdicts
// pending (Pending), which agents never see.
func (t Task) AuditHiddenFromOperator() bool {
	return visibility.Agent(t.OperatorID, t.CampaignID, !t.OperatorSeesAutomatic).AgentHidden(t.Row())
}

// TaskSummary is what a task's events carry of it (task.created,
// task.updated, audit.updated), stored as their JSON: the stream sends it
// as stored, so its encoding must not change. The API shows a task the
// same (api.TaskSummary).
type TaskSummary struct {
	UUID        string          `json:"uuid"`
	Kind        string          `json:"kind"`
	Status      pipeline.Status `json:"status"`
	FileName    string          `json:"file_name"`
	Campaign    string          `json:"campaign"`
	OperatorID  string          `json:"operator_id,omitempty"`
	Language    string          `json:"language"`
	CallID      string          `json:"call_id,omitempty"`
	Queue       string          `json:"queue,omitempty"`
	Direction   string          `json:"direction,omitempty"`
	StartedAt   *time.Time      `json:"started_at,omitempty"`
	Error       string          `json:"error,omitempty"`
	Score       *float64        `json:"score,omitempty"`
	Passed      *bool           `json:"passed,omitempty"`
	ScoreMin    *float64        `json:"score_min,omitempty"`
	ScoreMax    *float64        `json:"score_max,omitempty"`
	Pending     []string        `json:"pending,omitempty"`
	ReviewItems *int            `json:"review_items,omitempty"`
	AssigneeID  string          `json:"assignee_id,omitempty"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	ReviewState string          `json:"review_state,omitempty"`
	AssignedAt  *time.Time      `json:"assigned_at,omitempty"`
	DueAt       *time.Time      `json:"due_at,omitempty"`
	// TranscriptUnreliable is Task.TranscriptUnreliable.
	TranscriptUnreliable string `json:"transcript_unreliable,omitempty"`
	// Retry is Task.Retry, left out below quality.
	Retry *TaskRetry `json:"retry,omitempty"`
}

// Summary returns the summary of t.
func (t Task) Summary() TaskSummary {
	return TaskSummary{
		UUID: t.UUID, Kind: t.Kind, Status: t.Status, FileName: t.FileName, Campaign: t.CampaignName,
		OperatorID: t.OperatorID, Language: t.Language, CallID: t.CallID, Queue: t.Queue, Direction: t.Direction,
		StartedAt: t.StartedAt, Error: t.Error, Score: t.Score, Passed: t.Passed, ReviewItems: t.ReviewItems,
		ScoreMin: t.ScoreMin, ScoreMax: t.ScoreMax, Pending: t.PendingCriteria,
		AssigneeID: t.AssigneeID, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		ReviewState: t.ReviewState(), AssignedAt: t.AssignedAt, DueAt: t.DueAt, TranscriptUnreliable: t.TranscriptUnreliable,
		Retry: t.Retry,
	}
}

// SummaryFor returns the summary of t as v may see it: without its audit
// when v is not shown it (visibility.Viewer.AuditHidden), without its
// retry state below quality (visibility.Viewer.RetryHidden).
func (t Task) SummaryFor(v visibility.Viewer) TaskSummary {
	s := t.Summary()
	if v.AuditHidden(t.Row()) {
		s = s.WithoutAudit()
	}
	if v.RetryHidden() {
		s.Retry = nil
	}
	return s
}

// WithoutAudit is s without what an agent is not shown of an automatic
// audit (Task.AuditHiddenFromOperator): its score, result, review items and pending verdicts.
func (s TaskSummary) WithoutAudit() TaskSummary {
	s.Score, s.Passed, s.ReviewItems, s.ScoreMin, s.ScoreMax, s.Pending = nil, nil, nil, nil, nil, nil
	return s
}

// NewTask is a task to insert: what its upload says of it.
type NewTask struct {
	UUID        string
	Kind        string
	Status      pipeline.Status
	FileName    string
	ContentType string
	SizeBytes   int64
	// SHA256 is the hex SHA-256 of the file.
	SHA256     string
	BlobKey    string
	CampaignID string
	// OperatorID is the audited agent's user id ("" when not given).
	OperatorID string
	Language   string
	Direction  string
	StartedAt  *time.Time
	// What the platform said of the interaction, as intake.Settings has
	// it ("" or nil for nothing); CallID is unique in the campaign.
	CustomerRef, CallID, Queue, Caller, Called string
	Metadata                                   map[string]any
	UploadedBy                                 string
	DurationSeconds                            *float64
}

const taskColumns = `t.uuid, t.kind, t.status, t.file_name, t.content_type, t.size_bytes, t.sha256, COALESCE(t.blob_key, ''),
	t.campaign_id, c.name, COALESCE(t.operator_id, ''), t.language, COALESCE(t.direction, ''), t.started_at,
	COALESCE(t.customer_ref, ''), t.uploaded_by, t.duration_seconds, COALESCE(t.error, ''), t.attempts,
	t.score::float8, t.passed, t.review_items, t.audit_revision, COALESCE(t.assignee_id, ''), t.created_at, t.updated_at,
	t.reviewed_at, COALESCE(t.reviewed_by, ''), t.assigned_at, t.assignment_due_at, c.operator_sees_automatic,
	t.audit_deleted_at IS NOT NULL,
	COALESCE(t.transcript_unreliable, ''),
	t.score_min::float8, t.score_max::float8, COALESCE(t.pending_criteria, '{}'),
	COALESCE(t.call_id, ''), COALESCE(t.queue, ''), COALESCE(t.caller, ''), COALESCE(t.called, ''), t.metadata, t.retry`

func scanTask(row pgx.Row) (Task, error) {
	var t Task
	err := row.Scan(&t.UUID, &t.Kind, &t.Status, &t.FileName, &t.ContentType, &t.SizeBytes, &t.SHA256, &t.BlobKey,
		&t.CampaignID, &t.CampaignName, &t.OperatorID, &t.Language, &t.Direction, &t.StartedAt,
		&t.CustomerRef, &t.UploadedBy, &t.DurationSeconds, &t.Error, &t.Attempts,
		&t.Score, &t.Passed, &t.ReviewItems, &t.AuditRevision, &t.AssigneeID, &t.CreatedAt, &t.UpdatedAt,
		&t.ReviewedAt, &t.ReviewedBy, &t.AssignedAt, &t.DueAt, &t.OperatorSeesAutomatic, &t.AuditDeleted, &t.TranscriptUnreliable,
		&t.ScoreMin, &t.ScoreMax, &t.PendingCriteria, &t.CallID, &t.Queue, &t.Caller, &t.Called, &t.Metadata, &t.Retry)
	return t, err
}

// TaskInsert inserts n with the first entry of its history, unless a task
// with the same content (SHA-256) exists; then it returns that task and
// false. A concurrent insert of the same content waits for the other
// transaction and then sees its task. It writes no event: call
// TaskEventInsert once the transaction's other writes are done.
func TaskInsert(ctx context.Context, q DBTX, n NewTask) (Task, bool, error) {
	t, err := scanTask(q.QueryRow(ctx, `
		WITH t AS (
			INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key,
				campaign_id, operator_id, language, direction, started_at, customer_ref, uploaded_by, duration_seconds,
				call_id, queue, caller, called, metadata)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULLIF($10, ''), $11, NULLIF($12, ''), $13, NULLIF($14, ''), $15, $16,
				NULLIF($17, ''), NULLIF($18, ''), NULLIF($19, ''), NULLIF($20, ''), $21)
			ON CONFLICT (sha256) DO NOTHING
			RETURNING *
		), history AS (
			INSERT INTO task_transitions (task_uuid, to_status) SELECT uuid, status FROM t
		)
		SELECT `+taskColumns+` FROM t JOIN campaigns c ON c.id = t.campaign_id`,
		n.UUID, n.Kind, n.Status, n.FileName, n.ContentType, n.SizeBytes, n.SHA256, n.BlobKey,
		n.CampaignID, n.OperatorID, n.Language, n.Direction, n.StartedAt, n.CustomerRef, n.UploadedBy, n.DurationSeconds,
		n.CallID, n.Queue, n.Caller, n.Called, metadataArg(n.Metadata)))
	if errors.Is(err, pgx.ErrNoRows) {
		t, err = TaskGetBySHA256(ctx, q, n.SHA256)
		return t, false, err
	}
	// Only a call id can be taken otherwise: by a concurrent upload.
	return t, err == nil, unique(err, fmt.Sprintf("another upload took the call id %q in this campaign meanwhile", n.CallID))
}

// metadataArg is m as TaskInsert stores it: NULL for none.
func metadataArg(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// TaskGetByCallID returns the task of campaign whose call id is callID, or
// a NotFound error.
func TaskGetByCallID(ctx context.Context, q DBTX, campaignID, callID string) (Task, error) {
	t, err := scanTask(q.QueryRow(ctx, `SELECT `+taskColumns+taskFrom+` WHERE t.campaign_id = $1 AND t.call_id = $2`, campaignID, callID))
	return t, one(err, "no task with call id %s", callID)
}

// taskFrom is what taskColumns read from.
const taskFrom = ` FROM tasks t JOIN campaigns c ON c.id = t.campaign_id`

// taskWhere returns the task that cond (over taskFrom, with arg as $1)
// selects, or a NotFound error saying "no task <arg>".
func taskWhere(ctx context.Context, q DBTX, cond string, arg any) (Task, error) {
	t, err := scanTask(q.QueryRow(ctx, `SELECT `+taskColumns+taskFrom+` WHERE `+cond, arg))
	return t, one(err, "no task %v", arg)
}

// TaskGetByUUID returns the task with id uuid, or a NotFound error.
func TaskGetByUUID(ctx context.Context, q DBTX, uuid string) (Task, error) {
	return taskWhere(ctx, q, `t.uuid = $1`, uuid)
}

// TaskLock returns the task with id uuid, locked for the rest of tx, or a
// NotFound error. Changes of its audit lock it first, so they happen one
// after the other.
func TaskLock(ctx context.Context, tx pgx.Tx, uuid string) (Task, error) {
	return taskWhere(ctx, tx, `t.uuid = $1 FOR UPDATE OF t`, uuid)
}

// TasksGet returns the tasks of uuids (lower-case) that exist, in uuid
// order.
func TasksGet(ctx context.Context, q DBTX, uuids []string) ([]Task, error) {
	return collectTasks(q.Query(ctx, `SELECT `+taskColumns+taskFrom+` WHERE t.uuid = ANY($1::uuid[]) ORDER BY t.uuid`, uuids))
}

// TasksExisting returns the subset of uuids (lower-case) that are tasks.
func TasksExisting(ctx context.Context, q DBTX, uuids []string) (map[string]bool, error) {
	return keySet(q.Query(ctx, `SELECT uuid::text FROM tasks WHERE uuid = ANY($1::uuid[])`, uuids))
}

// TaskAssign assigns task uuid to the analyst whose user id is assignee,
// from now and due by due (nil: no due date), and writes its task.updated
// event, through q (the caller's transaction). It returns the task as it
// then is, or a NotFound error.
func TaskAssign(ctx context.Context, q DBTX, uuid, assignee string, due *time.Time) (Task, error) {
	return taskSetAssignee(ctx, q, uuid, &assignee, due)
}

// TaskUnassign leaves task uuid assigned to no one, without a due date,
// and writes its task.updated event, through q (the caller's
// transaction). It returns the task as it then is, or a NotFound error.
func TaskUnassign(ctx context.Context, q DBTX, uuid string) (Task, error) {
	return taskSetAssignee(ctx, q, uuid, nil, nil)
}

// taskSetAssignee assigns task uuid to assignee (nil: no one) from now,
// due by due, and writes its event.
func taskSetAssignee(ctx context.Context, q DBTX, uuid string, assignee *string, due *time.Time) (Task, error) {
	t, err := scanTask(q.QueryRow(ctx, `
		WITH t AS (
			UPDATE tasks SET assignee_id = $2, assigned_at = CASE WHEN $2::text IS NULL THEN NULL ELSE now() END,
				assignment_due_at = $3, updated_at = now()
			WHERE uuid = $1 RETURNING *
		)
		SELECT `+taskColumns+` FROM t JOIN campaigns c ON c.id = t.campaign_id`, uuid, assignee, due))
	if err != nil {
		return Task{}, one(err, "no task %s", uuid)
	}
	return t, TaskEventInsert(ctx, q, EventTaskUpdated, t)
}

// TaskGetBySHA256 returns the task whose file has the hex SHA-256 sum, or a
// NotFound error.
func TaskGetBySHA256(ctx context.Context, q DBTX, sum string) (Task, error) {
	return taskWhere(ctx, q, `t.sha256 = $1`, sum)
}

// TaskChange is a change of a task's status.
type TaskChange struct {
	// From lists the statuses the change may start from; empty allows any.
	From []pipeline.Status
	// To is the new status.
	To pipeline.Status
	// Error is kept on the task and in its history; a change with none
	// clears the task's error.
	Error string
	// Attempt is the attempt of the job making the change; zero keeps the
	// task's count.
	Attempt int
}

// TaskTransition changes the status of task uuid, appends the change to its
// history and writes a task.updated event, all through q (the caller's
// transaction). It returns the changed task, a NotFound error, or a
// Conflict error wrapping ErrTaskStatus when the task is not in one of c.From.
func TaskTransition(ctx context.Context, q DBTX, uuid string, c TaskChange) (Task, error) {
	var from pipeline.Status
	if err := q.QueryRow(ctx, `SELECT status FROM tasks WHERE uuid = $1 FOR UPDATE`, uuid).Scan(&from); err != nil {
		return Task{}, one(err, "no task %s", uuid)
	}
	if len(c.From) > 0 && !slices.Contains(c.From, from) {
		return Task{}, taskStatusError(uuid, from)
	}
	t, err := scanTask(q.QueryRow(ctx, `
		WITH t AS (
			UPDATE tasks SET status = $2, error = NULLIF($3, ''), retry = NULL,
				attempts = CASE WHEN $4 > 0 THEN $4 ELSE attempts END, updated_at = now()
			WHERE uuid = $1
			RETURNING *
		), history AS (
			INSERT INTO task_transitions (task_uuid, from_status, to_status, error, attempt)
			SELECT uuid, $5, status, error, attempts FROM t
		)
		SELECT `+taskColumns+` FROM t JOIN campaigns c ON c.id = t.campaign_id`,
		uuid, c.To, c.Error, c.Attempt, from))
	if err != nil {
		return Task{}, err
	}
	return t, TaskEventInsert(ctx, q, EventTaskUpdated, t)
}

// TaskSetDuration records how long the recording of task uuid lasts, as
// measured when it is transcribed. Duration is not part of the summary that
// events carry, so it writes none. It returns a NotFound error for an
// unknown task.
func TaskSetDuration(ctx context.Context, q DBTX, uuid string, seconds float64) error {
	tag, err := q.Exec(ctx, `UPDATE tasks SET duration_seconds = $2 WHERE uuid = $1`, uuid, seconds)
	if err == nil && tag.RowsAffected() == 0 {
		return errcode.New(errcode.NotFound, "no task %s", uuid)
	}
	return err
}

// TaskSetLanguage records lang as the language of task uuid, one the speech
// server detected. It writes no event: the change of status that follows
// in the caller's transaction carries it. It returns a NotFound error for
// an unknown task.
func TaskSetLanguage(ctx context.Context, q DBTX, uuid, lang string) error {
	tag, err := q.Exec(ctx, `UPDATE tasks SET language = $2 WHERE uuid = $1`, uuid, lang)
	if err == nil && tag.RowsAffected() == 0 {
		return errcode.New(errcode.NotFound, "no task %s", uuid)
	}
	return err
}

// TaskSetRetry records r, the state of task uuid's transcription between
// its attempts, and writes its task.updated event, through q. It returns
// the task as it then is, or an error wrapping ErrTaskStatus when the task
// is no longer transcribing (its status changed meanwhile).
func TaskSetRetry(ctx context.Context, q DBTX, uuid string, r TaskRetry) (Task, error) {
	t, err := scanTask(q.QueryRow(ctx, `
		WITH t AS (
			UPDATE tasks SET retry = $2, updated_at = now() WHERE uuid = $1 AND status = 'transcribing' RETURNING *
		)
		SELECT `+taskColumns+` FROM t JOIN campaigns c ON c.id = t.campaign_id`, uuid, r))
	if errors.Is(err, pgx.ErrNoRows) {
		return Task{}, fmt.Errorf("%w: task %s is not transcribing", ErrTaskStatus, uuid)
	}
	if err != nil {
		return Task{}, err
	}
	return t, TaskEventInsert(ctx, q, EventTaskUpdated, t)
}

// TaskEventInsert writes an event of type typ carrying t's summary, seen by
// the task's audience. When the agent is not shown all of it (the audit,
// Task.AuditHiddenFromOperator; the retry state), quality and above get the
// summary and the agent theirs (SummaryFor).
func TaskEventInsert(ctx context.Context, q DBTX, typ string, t Task) error {
	agent := visibility.Agent(t.OperatorID, t.CampaignID, !t.OperatorSeesAutomatic)
	if t.OperatorID == "" || !t.AuditHiddenFromOperator() && (t.Retry == nil || !agent.RetryHidden()) {
		return EventsInsert(ctx, q, TaskEvent(typ, t))
	}
	quality := role.Quality
	return EventsInsert(ctx, q, EventNew{Type: typ, Audience: Audience{MinRole: &quality}, Data: t.Summary()},
		EventNew{Type: typ, Audience: Audience{UserID: t.OperatorID}, Data: t.SummaryFor(agent)})
}

// TaskEvent is an event of type typ carrying t's summary, seen by the
// task's audience; without its retry state when its agent is in it.
func TaskEvent(typ string, t Task) EventNew {
	s := t.Summary()
	if t.OperatorID != "" {
		s.Retry = nil
	}
	return EventNew{Type: typ, Audience: t.audience(), Data: s}
}

// audience is who may see events about t: its operator and every user of
// the quality role or above.
func (t Task) audience() Audience {
	quality := role.Quality
	return Audience{UserID: t.OperatorID, MinRole: &quality}
}

// TaskStateChange is one entry of a task's history.
type TaskStateChange struct {
	From    pipeline.Status
	To      pipeline.Status
	Error   string
	Attempt int
	At      time.Time
}

// TaskHistory returns the status changes of task uuid, oldest first.
func TaskHistory(ctx context.Context, q DBTX, uuid string) ([]TaskStateChange, error) {
	rows, err := q.Query(ctx, `
		SELECT COALESCE(from_status, ''), to_status, COALESCE(error, ''), attempt, at
		FROM task_transitions WHERE task_uuid = $1 ORDER BY id`, uuid)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (TaskStateChange, error) {
		var c TaskStateChange
		err := row.Scan(&c.From, &c.To, &c.Error, &c.Attempt, &c.At)
		return c, err
	})
}

// TaskFilter selects tasks; zero fields select everything. Its JSON form
// is how a bulk action keeps the filter it was given, resolved.
type TaskFilter struct {
	Status   pipeline.Status `json:"status,omitempty"`
	Kind     string          `json:"kind,omitempty"`
	Campaign string          `json:"campaign,omitempty"` // the campaign's name
	// OperatorID is the audited agent's user id.
	OperatorID string `json:"operator_id,omitempty"`
	// AssigneeID is the user id of the analyst the tasks are assigned to.
	AssigneeID string `json:"assignee_id,omitempty"`
	// From and To bound created_at: From <= created_at < To.
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
	// FileName matches file names containing it, ignoring case.
	FileName string `json:"file_name,omitempty"`
	// Text, a tsquery from SearchQuery, keeps the tasks whose search
	// document (task_search) it matches.
	Text string `json:"text,omitempty"`
	// Passed, when set, keeps audited tasks that passed (or did not).
	Passed *bool `json:"passed,omitempty"`
	// NeedsReview, when set, keeps audited tasks whose current audit has
	// items that need review (or has none).
	NeedsReview *bool `json:"needs_review,omitempty"`
	// TranscriptUnreliable, when set, keeps the tasks whose transcript is
	// unreliable (Task.TranscriptUnreliable), or those whose is not.
	TranscriptUnreliable *bool `json:"transcript_unreliable,omitempty"`
	// MinScore and MaxScore, when set, bound the current audit's score.
	MinScore *float64 `json:"min_score,omitempty"`
	MaxScore *float64 `json:"max_score,omitempty"`
	// FailedCriterion keeps tasks whose current audit found that criterion
	// (its id) not met.
	FailedCriterion string `json:"failed_criterion,omitempty"`
	// ValidatedBy keeps the tasks this user (id) validated.
	ValidatedBy string `json:"validated_by,omitempty"`
	// Language keeps the tasks in this language or one of its regions: "es"
	// is es, es-MX…; "es-MX" only es-MX (ignoring case).
	Language string `json:"language,omitempty"`
	// ReviewState keeps the tasks in this review state (Task.ReviewState).
	ReviewState string `json:"review_state,omitempty"`
	// CallID, Queue, Direction, Caller and Called keep the tasks with that
	// value (phone numbers as intake stores them).
	CallID    string `json:"call_id,omitempty"`
	Queue     string `json:"queue,omitempty"`
	Direction string `json:"direction,omitempty"`
	Caller    string `json:"caller,omitempty"`
	Called    string `json:"called,omitempty"`
	// StartedFrom and StartedTo bound started_at: StartedFrom <= started_at
	// < StartedTo (tasks without it are left out when either is set).
	StartedFrom time.Time `json:"started_from,omitzero"`
	StartedTo   time.Time `json:"started_to,omitzero"`
	// Metadata keeps the tasks whose metadata has this key with this value
	// (a string, or a number or boolean written as text).
	Metadata *MetadataMatch `json:"metadata,omitempty"`
	// Channels bounds what a call's channels tell; a bound keeps only the
	// calls analysed that have the figure.
	Channels ChannelBounds `json:"channels,omitzero"`
	// Viewer is whose view the filter selects in: the filters on the
	// audit's result (passed, needs review, score, failed criterion) keep
	// only the audits the viewer is shown, and words match a task whose
	// audit is hidden from them only in its file name or transcript. The
	// zero Viewer, the service's own (a job's), hides nothing. A bulk
	// action keeps its requester's, as it was when they asked.
	Viewer visibility.Viewer `json:"viewer,omitzero"`
	// ExcludeHidden leaves out the tasks whose audit is hidden from Viewer
	// (an order by score would tell their verdicts).
	ExcludeHidden bool `json:"exclude_hidden,omitempty"`
	// found, when set, is Text already applied by the caller (the tasks
	// found by words, taskListSearch): the words a task whose audit is
	// hidden from Viewer must still match in what it shows.
	found string
	// scores, when set, bounds the score as the score sort orders it: a
	// span taskListSpans reads.
	scores scoreSpan
}

// scoreSpan bounds the score as the score sort orders it (tasks not
// audited yet at -1): lo <= score < hi, in hundredths, when set.
type scoreSpan struct {
	lo, hi int64
	set    bool
}

// scoreWhere adds f's conditions on the score of table alias (tasks t or
// their documents s) to conds, their values through add: the score range
// and the span, on scores as the score sort's indexes hold them (tasks not
// audited yet at -1), so that a range of scores is read from them. A span
// below 0 holds only the tasks not audited yet, as "score IS NULL", which
// the index of the documents not scored yet serves.
func (f TaskFilter) scoreWhere(alias string, add func(cond string, v any), conds *[]string) {
	score := "COALESCE(" + alias + ".score, -1)"
	if f.MinScore != nil {
		add(score+" >= $?", *f.MinScore)
	}
	if f.MaxScore != nil {
		add(score+" BETWEEN 0 AND $?", *f.MaxScore)
	}
	switch sp := f.scores; {
	case !sp.set:
	case sp.hi <= 0 && sp.lo <= -100:
		*conds = append(*conds, alias+".score IS NULL")
	case sp.hi <= 0:
		*conds = append(*conds, "false")
	default:
		add(score+" >= $?", float64(sp.lo)/100)
		add(score+" < $?", float64(sp.hi)/100)
	}
}

// Task orderings for TaskPage.Sort. Each is a keyset ordering completed by
// the uuid.
const (
	TaskSortCreatedAt = "created_at"
	TaskSortFileName  = "file_name"
	TaskSortScore     = "score"
	// TaskSortAgentScore is the score as an agent is shown it: an audit
	// hidden from them (Task.AuditHiddenFromOperator) sorts as not audited,
	// so that the order tells nothing of its score.
	TaskSortAgentScore = "agent_score"
)

// taskSorts maps a sort to the expression it orders by and the same
// expression over a cursor's value (a printf pattern for the parameter).
// File names sort ignoring case; tasks not audited yet sort below every
// score.
var taskSorts = map[string]taskSort{
	TaskSortCreatedAt: {"t.created_at", "%s::timestamptz"},
	TaskSortFileName:  {"lower(t.file_name)", "lower(%s::text)"},
	TaskSortScore:     {"COALESCE(t.score, -1)", "%s::numeric"},
	TaskSortAgentScore: {"CASE WHEN " + visibility.AgentHiddenWhere("t", "NOT c.operator_sees_automatic") + " THEN -1 " +
		"ELSE COALESCE(t.score, -1) END", "%s::numeric"},
}

// taskSort is an ordering of tasks: the expression it orders by, and a
// printf pattern of the same expression over a parameter.
type taskSort struct{ key, param string }

// TaskCursor is a position in an ordering: the sort value and uuid of the
// last task seen.
type TaskCursor struct {
	Value string
	UUID  string
}

// Cursor returns the position of t in the ordering sort.
func (t Task) Cursor(sort string) TaskCursor {
	switch sort {
	case TaskSortFileName:
		return TaskCursor{Value: t.FileName, UUID: t.UUID}
	case TaskSortScore, TaskSortAgentScore:
		score := -1.0
		if t.Score != nil && (sort == TaskSortScore || !t.AuditHiddenFromOperator()) {
			score = *t.Score
		}
		return TaskCursor{Value: strconv.FormatFloat(score, 'f', 2, 64), UUID: t.UUID}
	}
	return TaskCursor{Value: t.CreatedAt.Format(time.RFC3339Nano), UUID: t.UUID}
}

// TaskPage is one page of a listing.
type TaskPage struct {
	// Sort is a TaskSort* constant; Desc reverses it.
	Sort string
	Desc bool
	// After, when set, starts the page after that position.
	After *TaskCursor
	// Skip drops that many tasks first (after After).
	Skip  int
	Limit int
}

// where renders f as a WHERE clause, appending its arguments to args.
func (f TaskFilter) where(args *[]any) string {
	conds := []string{"true"}
	add := func(cond string, v any) {
		*args = append(*args, v)
		conds = append(conds, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(*args))))
	}
	if f.Status != "" {
		add("t.status = $?", f.Status)
	}
	if f.Kind != "" {
		add("t.kind = $?", f.Kind)
	}
	if f.Campaign != "" {
		add("c.name = $?", f.Campaign)
	}
	if f.OperatorID != "" {
		add("t.operator_id = $?", f.OperatorID)
	}
	if f.AssigneeID != "" {
		add("t.assignee_id = $?", f.AssigneeID)
	}
	if !f.From.IsZero() {
		add("t.created_at >= $?", f.From)
	}
	if !f.To.IsZero() {
		add("t.created_at < $?", f.To)
	}
	if f.Passed != nil {
		add("t.passed = $?", *f.Passed)
	}
	if f.NeedsReview != nil {
		// A literal, not a parameter, so that the planner can prove
		// that the partial index of the tasks to review holds them all.
		cond := "t.review_items = 0"
		if *f.NeedsReview {
			cond = "t.review_items > 0"
		}
		conds = append(conds, cond)
	}
	if f.TranscriptUnreliable != nil {
		// A literal, for the partial index of the unreliable ones.
		cond := "t.transcript_unreliable IS NULL"
		if *f.TranscriptUnreliable {
			cond = "t.transcript_unreliable IS NOT NULL"
		}
		conds = append(conds, cond)
	}
	f.scoreWhere("t", add, &conds)
	if f.FileName != "" {
		add("t.file_name ILIKE '%' || $? || '%'", likeEscaper.Replace(f.FileName))
	}
	if f.Text != "" {
		// The words and dates only: the other filters are on t already (so
		// that the planner does not count them twice).
		words := TaskFilter{Text: f.Text, From: f.From, To: f.To}
		conds = append(conds, "t.uuid IN (SELECT s.task_uuid FROM task_search s WHERE "+words.searchWhere(args)+")")
	}
	if f.ValidatedBy != "" {
		add("EXISTS (SELECT 1 FROM validations v WHERE v.task_uuid = t.uuid AND v.validator_id = $?)", f.ValidatedBy)
	}
	if f.Language != "" {
		add("(lower(t.language) = lower($?) OR lower(t.language) LIKE lower($?) || '-%')", f.Language)
	}
	if f.FailedCriterion != "" {
		// Containment, which the array's index serves (= ANY does not).
		add("t.failed_criteria @> ARRAY[$?::text]", f.FailedCriterion)
	}
	if f.ReviewState != "" {
		conds = append(conds, reviewStateConds[f.ReviewState])
	}
	conds = append(conds, f.callConds(args)...)
	if v := f.Viewer; v.HidesAny() {
		if f.ExcludeHidden || f.Passed != nil || f.NeedsReview != nil || f.MinScore != nil || f.MaxScore != nil {
			conds = append(conds, "NOT "+v.AuditHiddenSQL("t"))
		}
		if f.FailedCriterion != "" {
			conds = append(conds, "NOT "+v.VerdictsHiddenSQL("t"))
		}
		if words := cmp.Or(f.Text, f.found); words != "" {
			// Its audit's explanations and validation's notes are part
			// of a task's document: one whose audit is hidden matches in
			// its file name and transcript only.
			add(`(NOT `+v.AuditHiddenSQL("t")+` OR task_search_vector(task_search_config(t.language), t.file_name,
				COALESCE((SELECT tr.text FROM transcripts tr WHERE tr.task_uuid = t.uuid), '')) @@ $?::tsquery)`, words)
		}
	}
	return strings.Join(conds, " AND ")
}

// searchWhere is the condition on task_search s of a search by words
// (f.Text), with those of f's filters whose columns the search's documents
// carry (creation time, agent, status, score), so that Postgres combines
// the index of the words (which holds the status too) with that of the
// creation times or the agent, and the tasks found are those the filters
// select (searchCovers).
func (f TaskFilter) searchWhere(args *[]any) string {
	conds := []string{}
	add := func(cond string, v any) {
		*args = append(*args, v)
		conds = append(conds, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(*args))))
	}
	add("s.document @@ $?::tsquery", f.Text)
	if !f.From.IsZero() {
		add("s.created_at >= $?", f.From)
	}
	if !f.To.IsZero() {
		add("s.created_at < $?", f.To)
	}
	if f.OperatorID != "" {
		add("s.operator_id = $?", f.OperatorID)
	}
	if f.Status != "" {
		add("s.status = $?", f.Status)
	}
	f.scoreWhere("s", add, &conds)
	return strings.Join(conds, " AND ")
}

// searchCovers reports whether searchWhere holds every filter of f: then the
// tasks a search by words finds are the tasks f selects.
func (f TaskFilter) searchCovers() bool {
	if f.Viewer.HidesAny() {
		// A viewer who is not shown every audit: the tasks table knows
		// which they are shown.
		return false
	}
	g := f
	g.Text, g.OperatorID, g.Status, g.From, g.To, g.scores = "", "", "", time.Time{}, time.Time{}, scoreSpan{}
	g.MinScore, g.MaxScore, g.Viewer = nil, nil, visibility.Viewer{}
	return reflect.ValueOf(g).IsZero()
}

// searchSorts are the orderings the search's documents can be read in, as
// taskSorts' over task_search s.
var searchSorts = map[string]string{
	TaskSortCreatedAt: "s.created_at",
	TaskSortScore:     "COALESCE(s.score, -1)",
}

// reviewStateConds selects the tasks in each review state, as
// Task.ReviewState derives it.
var reviewStateConds = map[string]string{
	ReviewAutomatic: "(t.status <> 'validated' AND t.audit_revision IS NOT NULL AND t.reviewed_at IS NULL)",
	ReviewReviewed:  "(t.status <> 'validated' AND t.audit_revision IS NOT NULL AND t.reviewed_at IS NOT NULL)",
	ReviewValidated: "(t.status = 'validated')",
}

// TaskList returns the page p of the tasks f selects. It returns an error
// for an unknown p.Sort.
func TaskList(ctx context.Context, q DBTX, f TaskFilter, p TaskPage) ([]Task, error) {
	sort, dir, cmp, err := p.order()
	if err != nil {
		return nil, err
	}
	var args []any
	where := f.where(&args) + p.after(sort, cmp, &args)
	// The limit and offset are written into the statement, not passed: a
	// prepared statement's generic plan, which Postgres may switch to after
	// five runs, would otherwise assume a tenth of a million tasks wanted
	// and sort them all.
	return collectTasks(q.Query(ctx, fmt.Sprintf(`SELECT %s%s WHERE %s ORDER BY %s %s, t.uuid %s LIMIT %d OFFSET %d`,
		taskColumns, taskFrom, where, sort.key, dir, dir, p.Limit, p.Skip), args...))
}

// TaskListTotal returns the page p of the tasks f selects (TaskList) and
// their total (TaskCount). A first page that holds the whole list is its
// total, and then nothing is counted. A page of a search (by words, file
// name, failed criterion or validator), which no index reads in order, reads the
// matches from its position on at once and sorts them when there are no
// more than countExactly of them: walking the list in order to find a few
// matches would read most of it (and on a first page, they are the total).
// A search by words found in more tasks than that is read in creation
// order span by span (taskListSpans) when the words are not in most tasks,
// otherwise by walking the list, and its total is the planner's estimate.
func TaskListTotal(ctx context.Context, q DBTX, f TaskFilter, p TaskPage) (tasks []Task, total int64, estimated bool, err error) {
	if f.Text != "" {
		return taskListText(ctx, q, f, p)
	}
	if f.FileName != "" || f.FailedCriterion != "" || f.ValidatedBy != "" {
		few, err := taskListFew(ctx, q, f, p)
		if err != nil {
			return nil, 0, false, err
		}
		if len(few) <= countExactly {
			page := few[min(p.Skip, len(few)):]
			page = page[:min(len(page), p.Limit)]
			if p.After == nil {
				return page, int64(len(few)), false, nil
			}
			total, estimated, err = TaskCount(ctx, q, f)
			return page, total, estimated, err
		}
	}
	if tasks, err = TaskList(ctx, q, f, p); err != nil {
		return nil, 0, false, err
	}
	if wholeList(tasks, p) {
		return tasks, int64(p.Skip + len(tasks)), false, nil
	}
	total, estimated, err = TaskCount(ctx, q, f)
	return tasks, total, estimated, err
}

// wholeList reports whether tasks, the page p, are the whole list from its
// first page on: then they are its total.
func wholeList(tasks []Task, p TaskPage) bool {
	return p.After == nil && len(tasks) < p.Limit && (p.Skip == 0 || len(tasks) > 0)
}

// Searches by words read every task found, and count them exactly, when
// the planner expects no more than searchExactly of them (in creation
// order, searchSpans), and there are no more than twice as many.
var (
	searchExactly = 20_000
	searchSpans   = 2_000
)

// taskListText is TaskListTotal for a search by words (f.Text).
func taskListText(ctx context.Context, q DBTX, f TaskFilter, p TaskPage) (tasks []Task, total int64, estimated bool, err error) {
	// planned is the planner's estimate of the documents the search's
	// indexes find (the words with the status, the dates, the agent): what
	// reading them costs, whatever else the documents filter out as they
	// are read.
	var args []any
	indexed := TaskFilter{Text: f.Text, From: f.From, To: f.To, OperatorID: f.OperatorID, Status: f.Status}
	planned, err := taskCountPlanned(ctx, q, ` FROM task_search s`, indexed.searchWhere(&args), args)
	if err != nil {
		return nil, 0, false, err
	}
	// selected is the planner's estimate of the tasks f selects, asked
	// once: to choose how to read the page, and as its total.
	selected := int64(-1)
	plannedSelected := func() (int64, error) {
		if selected < 0 {
			var args []any
			n, err := taskCountPlanned(ctx, q, f.from(), f.where(&args), args)
			if err != nil {
				return 0, err
			}
			selected = n
		}
		return selected, nil
	}
	spans := (p.Sort == TaskSortCreatedAt || p.Sort == TaskSortScore) && planned <= 2*int64(searchExactly)
	if spans {
		if _, err := plannedSelected(); err != nil {
			return nil, 0, false, err
		}
		// The other filters keep too few of the tasks found for a span
		// to fill the page: all of them are read.
		spans = selected > int64(2*(p.Skip+p.Limit))
	}
	exactly := searchExactly
	if spans {
		exactly = searchSpans
	}
	if planned <= 2*int64(exactly) {
		tasks, total, ok, err := taskListSearch(ctx, q, f, p, 2*exactly)
		if ok || err != nil {
			return tasks, total, false, err
		}
	}
	if spans {
		tasks, err = taskListSpans(ctx, q, f, p, selected)
	} else {
		tasks, err = TaskList(ctx, q, f, p)
	}
	if err != nil || wholeList(tasks, p) {
		return tasks, int64(p.Skip + len(tasks)), false, err
	}
	// Too many tasks have the words to count them one by one.
	total, err = plannedSelected()
	return tasks, max(total, int64(p.Skip+len(tasks))), true, err
}

// taskListSearch returns the page p of the tasks f selects, f searching by
// words (Text), and their exact total, reading first every task the words
// are found in, when they are no more than most; ok is false when there
// are more. Walking the list in order and looking up each task's words
// would read a hundred tasks for every one found in 1 % of them; this
// reads each task found once.
func taskListSearch(ctx context.Context, q DBTX, f TaskFilter, p TaskPage, most int) (tasks []Task, total int64, ok bool, err error) {
	if key, sorted := searchSorts[p.Sort]; sorted && f.searchCovers() {
		return taskListFound(ctx, q, f, p, most, key)
	}
	args := []any{}
	where := f.searchWhere(&args)
	var found []string
	if err = q.QueryRow(ctx, `SELECT COALESCE(array_agg(task_uuid::text), '{}') FROM (SELECT task_uuid FROM task_search s
		WHERE `+where+` LIMIT `+strconv.Itoa(most+1)+`) s`, args...).Scan(&found); err != nil {
		return nil, 0, false, err
	}
	if len(found) > most {
		return nil, 0, false, nil
	}
	sort, dir, cmp, err := p.order()
	if err != nil {
		return nil, 0, false, err
	}
	// The tasks found, then the other filters: read from what was found,
	// whatever the order and the filters (walking an index in order and
	// looking each task up among those found is what this avoids).
	f.Text, f.found = "", f.Text
	args = []any{found}
	from := ` FROM unnest($1::uuid[]) AS found (uuid) JOIN tasks t ON t.uuid = found.uuid JOIN campaigns c ON c.id = t.campaign_id`
	where = f.where(&args)
	// The total, over what the filters select before the page's position,
	// is counted in the same read when the page has no cursor.
	count, after := "count(*) OVER ()", p.after(sort, cmp, &args)
	if after != "" {
		count = "0"
	}
	rows, err := q.Query(ctx, fmt.Sprintf(`SELECT %s, %s%s WHERE %s%s ORDER BY %s %s, t.uuid %s LIMIT %d OFFSET %d`,
		taskColumns, count, from, where, after, sort.key, dir, dir, p.Limit, p.Skip), args...)
	if err != nil {
		return nil, 0, false, err
	}
	tasks, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Task, error) { return scanTask(scanAlso{row, []any{&total}}) })
	if err != nil {
		return nil, 0, false, err
	}
	if after != "" || len(tasks) == 0 {
		args = args[:1]
		err = q.QueryRow(ctx, `SELECT count(*)`+from+` WHERE `+f.where(&args), args...).Scan(&total)
	}
	return tasks, total, true, err
}

// taskListFound is taskListSearch when the tasks found are the tasks f
// selects (searchCovers) and their documents carry p's sort key (key, of
// searchSorts): the page and the total are read from the documents, and
// only the page's tasks from tasks.
func taskListFound(ctx context.Context, q DBTX, f TaskFilter, p TaskPage, most int, key string) (tasks []Task, total int64, ok bool, err error) {
	sort, dir, cmp, err := p.order()
	if err != nil {
		return nil, 0, false, err
	}
	args := []any{}
	found := `SELECT s.task_uuid, ` + key + ` AS key FROM task_search s WHERE ` + f.searchWhere(&args) + ` LIMIT ` + strconv.Itoa(most+1)
	counted, after := len(args), ""
	if p.After != nil {
		args = append(args, p.After.Value, p.After.UUID)
		after = fmt.Sprintf(" WHERE (key, task_uuid) %s (%s, $%d::uuid)", cmp, fmt.Sprintf(sort.param, "$"+strconv.Itoa(len(args)-1)), len(args))
	}
	// The total, over every task found (before the page's position), is
	// counted in the same read.
	rows, err := q.Query(ctx, fmt.Sprintf(`SELECT task_uuid::text, total FROM (SELECT task_uuid, key, count(*) OVER () AS total FROM (%s) s) s%s
		ORDER BY key %s, task_uuid %s LIMIT %d OFFSET %d`, found, after, dir, dir, p.Limit, p.Skip), args...)
	if err != nil {
		return nil, 0, false, err
	}
	page, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		var uuid string
		return uuid, row.Scan(&uuid, &total)
	})
	if err != nil {
		return nil, 0, false, err
	}
	if len(page) == 0 {
		// A page past the end: the total is counted alone.
		if err = q.QueryRow(ctx, `SELECT count(*) FROM (`+found+`) s`, args[:counted]...).Scan(&total); err != nil {
			return nil, 0, false, err
		}
	}
	if total > int64(most) {
		return nil, 0, false, nil
	}
	if tasks, err = TasksGet(ctx, q, page); err != nil {
		return nil, 0, false, err
	}
	at := make(map[string]int, len(page))
	for i, uuid := range page {
		at[uuid] = i
	}
	slices.SortFunc(tasks, func(a, b Task) int { return at[a.UUID] - at[b.UUID] })
	return tasks, total, true, nil
}

// taskListSpans returns the page p, in creation or score order, of the
// tasks f selects, f searching by words in more tasks than are read at
// once: it reads every task found among those in a span of the order
// (of creation times or of scores) next to the page's position that
// should hold twice the page (from planned, the planner's estimate of the
// tasks f selects), then in spans twice as long, until the page is full
// or the list ends; a span that holds more tasks found than are read at
// once is halved. The search's documents carry each task's creation time
// and score, whose indexes Postgres combines with the words', so a span
// costs what it finds in it, however common the words.
func taskListSpans(ctx context.Context, q DBTX, f TaskFilter, p TaskPage, planned int64) ([]Task, error) {
	ax, ok, err := spanAxisOf(ctx, q, f, p.Sort)
	if err != nil || !ok {
		return nil, err
	}
	// The span of the list, narrowed by the page's position: [lo, hi).
	lo, hi := ax.lo, ax.hi
	if p.After != nil {
		if at, ok := ax.at(p.After.Value); ok {
			if p.Desc && at+1 < hi {
				hi = at + 1
			} else if !p.Desc && at > lo {
				lo = at
			}
		}
	}
	need := p.Skip + p.Limit
	span := max(int64(float64(ax.extent)*2*float64(need)/float64(max(planned, 1))), 1)
	page := TaskPage{Sort: p.Sort, Desc: p.Desc, After: p.After, Limit: need}
	var tasks []Task
	for len(tasks) < need && lo < hi {
		from, to := lo, hi
		if p.Desc && hi-lo > span {
			from = hi - span
		} else if !p.Desc && hi-lo > span {
			to = lo + span
		}
		if from < ax.split && ax.split < to {
			if p.Desc {
				from = ax.split
			} else {
				to = ax.split
			}
		}
		g := ax.within(f, from, to)
		got, _, ok, err := taskListSearch(ctx, q, g, page, searchSpans)
		if err == nil && !ok && (span <= 1 || to <= ax.split) {
			// As many tasks at the same point of the order: walked.
			got, ok = nil, true
			got, err = TaskList(ctx, q, g, page)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			span = max(span/2, 1)
			continue
		}
		tasks = append(tasks, got...)
		page.Limit = need - len(tasks)
		if p.Desc {
			hi = from
		} else {
			lo = to
		}
		span *= 2
	}
	return tasks[min(p.Skip, len(tasks)):], nil
}

// spanAxis is an order taskListSpans reads in spans, in whole units of it
// (microseconds of creation time, hundredths of a score).
type spanAxis struct {
	// lo and hi bound the list, narrowed by the filter: [lo, hi); extent
	// is the whole list's.
	lo, hi, extent int64
	// split is a point no span crosses: below it lies one point of the
	// order, read apart (the tasks not audited yet, by an index of their
	// own), and walked when it holds too many tasks found.
	split int64
	// at is the unit of a cursor's value.
	at func(value string) (int64, bool)
	// within narrows f to the span [lo, hi).
	within func(f TaskFilter, lo, hi int64) TaskFilter
}

// spanAxisOf returns the axis of the order sort (created_at or score) over
// the tasks f selects; ok is false when there are no tasks.
func spanAxisOf(ctx context.Context, q DBTX, f TaskFilter, sort string) (ax spanAxis, ok bool, err error) {
	if sort == TaskSortScore {
		var first, last *float64
		if err := q.QueryRow(ctx, `SELECT min(COALESCE(score, -1))::float8, max(COALESCE(score, -1))::float8 FROM tasks`).
			Scan(&first, &last); err != nil || first == nil {
			return ax, false, err
		}
		hundredths := func(v float64) int64 { return int64(math.Round(v * 100)) }
		ax = spanAxis{lo: hundredths(*first), hi: hundredths(*last) + 1, split: 0,
			at: func(value string) (int64, bool) {
				v, err := strconv.ParseFloat(value, 64)
				return hundredths(v), err == nil && v >= -1 && v <= 100 // a cursor's score, or none
			},
			within: func(f TaskFilter, lo, hi int64) TaskFilter {
				f.scores = scoreSpan{lo: lo, hi: hi, set: true}
				return f
			},
		}
		ax.extent = ax.hi - ax.lo
		if f.MinScore != nil {
			ax.lo = max(ax.lo, int64(math.Ceil(*f.MinScore*100-1e-6)))
		}
		if f.MaxScore != nil {
			ax.lo, ax.hi = max(ax.lo, 0), min(ax.hi, int64(math.Floor(*f.MaxScore*100+1e-6))+1)
		}
		return ax, true, nil
	}
	var first, last *time.Time
	if err := q.QueryRow(ctx, `SELECT min(created_at), max(created_at) FROM tasks`).Scan(&first, &last); err != nil || first == nil {
		return ax, false, err
	}
	ax = spanAxis{lo: first.UnixMicro(), hi: last.UnixMicro() + 1, split: math.MinInt64,
		at: func(value string) (int64, bool) {
			at, err := time.Parse(time.RFC3339Nano, value)
			return at.UnixMicro(), err == nil
		},
		within: func(f TaskFilter, lo, hi int64) TaskFilter {
			f.From, f.To = time.UnixMicro(lo), time.UnixMicro(hi)
			return f
		},
	}
	ax.extent = ax.hi - ax.lo
	if !f.From.IsZero() {
		ax.lo = max(ax.lo, f.From.UnixMicro())
	}
	if !f.To.IsZero() {
		ax.hi = min(ax.hi, f.To.UnixMicro())
	}
	return ax, true, nil
}

// taskListFew returns up to countExactly+1 of the tasks f selects after
// p's position, in p's order: all of them, in order, when there are no
// more than countExactly.
func taskListFew(ctx context.Context, q DBTX, f TaskFilter, p TaskPage) ([]Task, error) {
	sort, dir, cmp, err := p.order()
	if err != nil {
		return nil, err
	}
	var args []any
	where := f.where(&args) + p.after(sort, cmp, &args)
	return collectTasks(q.Query(ctx, fmt.Sprintf(`SELECT %s FROM (SELECT t.*%s WHERE %s LIMIT %d) t
		JOIN campaigns c ON c.id = t.campaign_id ORDER BY %s %s, t.uuid %s`,
		taskColumns, taskFrom, where, countExactly+1, sort.key, dir, dir), args...))
}

// after is the condition, appended to a WHERE clause, that starts the page
// after p.After in sort (cmp: its comparison), with its arguments added to
// args; nothing without a cursor.
func (p TaskPage) after(sort taskSort, cmp string, args *[]any) string {
	if p.After == nil {
		return ""
	}
	*args = append(*args, p.After.Value, p.After.UUID)
	value := fmt.Sprintf(sort.param, "$"+strconv.Itoa(len(*args)-1))
	return fmt.Sprintf(" AND (%s, t.uuid) %s (%s, $%d::uuid)", sort.key, cmp, value, len(*args))
}

// order returns p's sort, its direction and the comparison that continues
// it after a cursor; an error for an unknown p.Sort.
func (p TaskPage) order() (sort taskSort, dir, cmp string, err error) {
	sort, ok := taskSorts[p.Sort]
	if !ok {
		return sort, "", "", fmt.Errorf("task list: unknown sort %q", p.Sort)
	}
	if p.Desc {
		return sort, "DESC", "<", nil
	}
	return sort, "ASC", ">", nil
}

// collectTasks scans the rows of a query of taskColumns.
func collectTasks(rows pgx.Rows, err error) ([]Task, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Task, error) { return scanTask(row) })
}

// countExactly is how many matches TaskCount counts one by one before it
// estimates instead.
const countExactly = 1_000

// TaskCount returns how many tasks f selects, and whether that is an
// estimate. Filters on status, kind, campaign, creation time and result are
// counted exactly from the counts kept per day (task_stats_daily); others
// are counted one by one up to countExactly matches, beyond which the
// planner's estimate is returned.
func TaskCount(ctx context.Context, q DBTX, f TaskFilter) (n int64, estimated bool, err error) {
	if f.OperatorID == "" && f.AssigneeID == "" && f.FileName == "" && f.NeedsReview == nil && f.TranscriptUnreliable == nil && f.MinScore == nil &&
		f.MaxScore == nil && f.FailedCriterion == "" && f.Text == "" && f.ValidatedBy == "" && f.Language == "" &&
		f.ReviewState == "" && !f.Viewer.HidesAny() {
		n, err = taskCountKept(ctx, q, f)
		return n, false, err
	}
	var args []any
	where := f.where(&args)
	from := f.from()
	err = q.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1`+from+` WHERE `+where+` LIMIT `+
		strconv.Itoa(countExactly+1)+`) t`, args...).Scan(&n)
	if err != nil || n <= countExactly {
		return n, false, err
	}
	planned, err := taskCountPlanned(ctx, q, from, where, args)
	return max(planned, n), true, err
}

// taskCountPlanned is the planner's estimate of how many tasks the clause
// where (over from, with args) selects.
func taskCountPlanned(ctx context.Context, q DBTX, from, where string, args []any) (int64, error) {
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	if err := q.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT 1`+from+` WHERE `+where, args...).Scan(&plan); err != nil {
		return 0, err
	}
	if len(plan) == 0 {
		return 0, errors.New("task count: EXPLAIN returned no plan")
	}
	return int64(plan[0].Plan.Rows), nil
}

// TaskCountAll returns how many tasks f selects, counted one by one
// however many they are: for work that then walks them all (a bulk
// action's job), never for a page of the list (TaskCount).
func TaskCountAll(ctx context.Context, q DBTX, f TaskFilter) (int64, error) {
	var args []any
	where := f.where(&args)
	var n int64
	err := q.QueryRow(ctx, `SELECT count(*)`+f.from()+` WHERE `+where, args...).Scan(&n)
	return n, err
}

// from is what a count of the tasks f selects reads from. Every task has
// its campaign: the join is needed only to filter by its name, and
// without it a count reads the indexes alone.
func (f TaskFilter) from() string {
	if f.Campaign != "" {
		return taskFrom
	}
	return ` FROM tasks t`
}

// taskCountKept counts the tasks f selects (by status, kind, campaign,
// creation time and result only) from the counts kept per day.
func taskCountKept(ctx context.Context, q DBTX, f TaskFilter) (int64, error) {
	sf := StatsFilter{From: f.From, To: f.To}
	if sf.From.IsZero() {
		sf.From = time.Unix(0, 0)
	}
	if sf.To.IsZero() {
		sf.To = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if f.Campaign != "" {
		err := q.QueryRow(ctx, `SELECT id FROM campaigns WHERE name = $1`, f.Campaign).Scan(&sf.CampaignID)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
	}
	var args []any
	rows := sf.rows(dayRollup, "c.dim, c.key, c.n", &args)
	// key is "status kind passed"; an empty field matches any.
	pattern := func(v string) string {
		if v == "" {
			return "[^ ]*"
		}
		return regexp.QuoteMeta(v)
	}
	passed := ""
	if f.Passed != nil {
		passed = strconv.FormatBool(*f.Passed)
	}
	args = append(args, "^"+pattern(string(f.Status))+" "+pattern(f.Kind)+" "+pattern(passed)+"$")
	var n int64
	err := q.QueryRow(ctx, `SELECT COALESCE(sum(c.n), 0) FROM `+rows+` WHERE c.dim = 'tasks' AND c.key ~ $`+
		strconv.Itoa(len(args)), args...).Scan(&n)
	return n, err
}

// blobSweepLockID orders uploads against the blob sweeper.
const blobSweepLockID = 0x626c6f62 // "blob"

// BlobSweepLock takes, for the rest of transaction tx, the lock the blob
// sweeper holds while it decides which blobs are orphans and deletes them.
func BlobSweepLock(ctx context.Context, tx DBTX) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, blobSweepLockID)
	return err
}

// BlobSweepLockShared takes, for the rest of transaction tx, the lock that
// keeps the blob sweeper out while tx makes blobs referenced. Uploads share
// it with each other.
func BlobSweepLockShared(ctx context.Context, tx DBTX) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, blobSweepLockID)
	return err
}

// TaskBlobKeysReferenced returns the subset of keys that some task refers to.
func TaskBlobKeysReferenced(ctx context.Context, q DBTX, keys []string) (map[string]bool, error) {
	return keySet(q.Query(ctx, `SELECT blob_key FROM tasks WHERE blob_key = ANY($1)`, keys))
}

// AbandonedTask is a task no job will move on: its last transcribe or
// audit job ended discarded or cancelled while the task was still under
// way, and no other job of it is waiting or running.
type AbandonedTask struct {
	Task    Task
	JobID   int64
	JobKind string
	// JobState is discarded (attempts used up, or discarded by an
	// administrator) or cancelled.
	JobState string
	Attempt  int
}

// TasksAbandoned lists the tasks left under way by a job that ended
// without moving them on (an error on the last attempt no worker turned
// into a failure, a cancellation from River UI, a job rescued too often).
func TasksAbandoned(ctx context.Context, q DBTX) ([]AbandonedTask, error) {
	rows, err := q.Query(ctx, `
		SELECT DISTINCT ON (t.uuid) `+taskColumns+`, j.id, j.kind, j.state::text, j.attempt`+taskFrom+`
		JOIN river_job j ON t.uuid = (j.args->>'task_uuid')::uuid
		WHERE j.kind IN ('transcribe', 'audit') AND j.state IN ('discarded', 'cancelled')
		  AND t.status IN ('queued', 'transcribing', 'transcribed', 'auditing')
		  AND NOT EXISTS (SELECT 1 FROM river_job l
		                  WHERE l.kind IN ('transcribe', 'audit') AND l.args->>'task_uuid' = j.args->>'task_uuid'
		                    AND l.state NOT IN ('completed', 'discarded', 'cancelled'))
		ORDER BY t.uuid, j.finalized_at DESC, j.id DESC`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AbandonedTask, error) {
		var a AbandonedTask
		var err error
		a.Task, err = scanTask(scanAlso{row, []any{&a.JobID, &a.JobKind, &a.JobState, &a.Attempt}})
		return a, err
	})
}

// scanAlso scans a row of taskColumns followed by more columns into them.
type scanAlso struct {
	pgx.Row
	more []any
}

func (s scanAlso) Scan(dest ...any) error { return s.Row.Scan(append(dest, s.more...)...) }
