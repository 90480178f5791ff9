package db

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
)

// Bulk action statuses: queued until its job starts, running, then one of
// the three ends.
const (
	BulkQueued    = "queued"
	BulkRunning   = "running"
	BulkDone      = "done"
	BulkFailed    = "failed"
	BulkCancelled = "cancelled"
)

// Outcomes of a bulk action on one task.
const (
	BulkSucceeded  = "succeeded"
	BulkSkipped    = "skipped"
	BulkItemFailed = "failed"
)

// EventBulkActionUpdated is the event type of a bulk action's progress; its
// data is a BulkProgress.
const EventBulkActionUpdated = "bulk_action.updated"

// BulkProgress is how far a bulk action has got: what GET
// /bulk-actions/{id} shows of it and its bulk_action.updated events carry.
type BulkProgress struct {
	ID          string `json:"id"`
	Action      string `json:"action"`
	Status      string `json:"status"`
	RequestedBy string `json:"requested_by"`
	// Matched is nil until the job has counted a filter's tasks.
	Matched   *int64 `json:"matched"`
	Done      int64  `json:"done"`
	Succeeded int64  `json:"succeeded"`
	Skipped   int64  `json:"skipped"`
	Failed    int64  `json:"failed"`
	// Error says why a failed action stopped.
	Error       string     `json:"error,omitempty"`
	CancelledBy string     `json:"cancelled_by,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// Finished reports whether the action has ended: done, failed or cancelled.
func (p BulkProgress) Finished() bool {
	return p.Status == BulkDone || p.Status == BulkFailed || p.Status == BulkCancelled
}

// BulkParams are what a bulk action takes besides its tasks.
type BulkParams struct {
	// AssigneeID is the user id of the analyst an assign action assigns to.
	AssigneeID string `json:"assignee_id,omitempty"`
	// Notes are the notes of a validate action's validations.
	Notes string `json:"notes,omitempty"`
}

// NewBulkAction is a bulk action to record: its action, parameters and
// selection, either TaskUUIDs or Filter (with FilterQuery, the task list's
// query string it was read from).
type NewBulkAction struct {
	Action      string
	Params      BulkParams
	TaskUUIDs   []string
	Filter      *TaskFilter
	FilterQuery string
	RequestedBy string
}

// BulkAction is a bulk action as stored.
type BulkAction struct {
	BulkProgress
	Params      BulkParams
	TaskUUIDs   []string
	Filter      *TaskFilter
	FilterQuery string
	// After is where the job is: the position of the last task of the
	// last page it committed (only the uuid for TaskUUIDs); nil at the
	// start.
	After *TaskCursor
	JobID int64
	// ResultsDeletedAt is when its per-task results were deleted
	// (BulkResultsDelete), nil while they are kept.
	ResultsDeletedAt *time.Time
}

const bulkColumns = `id, action, status, requested_by, matched, done, succeeded, skipped, failed, COALESCE(error, ''),
	COALESCE(cancelled_by, ''), created_at, started_at, finished_at, updated_at,
	parameters, task_uuids::text[], filter, COALESCE(filter_query, ''), after_value, after_uuid::text, COALESCE(job_id, 0),
	results_deleted_at`

func scanBulkAction(row pgx.Row) (BulkAction, error) {
	var a BulkAction
	var params, filter []byte
	var afterValue, afterUUID *string
	err := row.Scan(&a.ID, &a.Action, &a.Status, &a.RequestedBy, &a.Matched, &a.Done, &a.Succeeded, &a.Skipped, &a.Failed,
		&a.Error, &a.CancelledBy, &a.CreatedAt, &a.StartedAt, &a.FinishedAt, &a.UpdatedAt,
		&params, &a.TaskUUIDs, &filter, &a.FilterQuery, &afterValue, &afterUUID, &a.JobID, &a.ResultsDeletedAt)
	if err != nil {
		return BulkAction{}, err
	}
	if err := json.Unmarshal(params, &a.Params); err != nil {
		return BulkAction{}, err
	}
	if filter != nil {
		a.Filter = new(TaskFilter)
		if err := json.Unmarshal(filter, a.Filter); err != nil {
			return BulkAction{}, err
		}
	}
	if afterUUID != nil {
		a.After = &TaskCursor{UUID: *afterUUID}
		if afterValue != nil {
			a.After.Value = *afterValue
		}
	}
	return a, nil
}

// BulkActionInsert records n, queued, with its job's id to come
// (BulkActionSetJob), and writes its first bulk_action.updated event. An
// explicit selection is matched at once. It returns the action.
func BulkActionInsert(ctx context.Context, q DBTX, n NewBulkAction) (BulkAction, error) {
	params, err := json.Marshal(n.Params)
	if err != nil {
		return BulkAction{}, err
	}
	var filter, filterQuery any
	var matched *int64
	if n.Filter != nil {
		b, err := json.Marshal(n.Filter)
		if err != nil {
			return BulkAction{}, err
		}
		filter, filterQuery = b, n.FilterQuery
	} else {
		matched = new(int64(len(n.TaskUUIDs)))
	}
	var uuids any
	if n.TaskUUIDs != nil {
		uuids = n.TaskUUIDs
	}
	a, err := scanBulkAction(q.QueryRow(ctx, `
		INSERT INTO bulk_actions (action, parameters, task_uuids, filter, filter_query, requested_by, matched, published_at)
		VALUES ($1, $2, $3::uuid[], $4, $5, $6, $7, now())
		RETURNING `+bulkColumns, n.Action, params, uuids, filter, filterQuery, n.RequestedBy, matched))
	if err != nil {
		return BulkAction{}, err
	}
	return a, BulkEventInsert(ctx, q, a.BulkProgress)
}

// BulkActionSetJob records the id of the job that carries out bulk action id.
func BulkActionSetJob(ctx context.Context, q DBTX, id string, jobID int64) error {
	_, err := q.Exec(ctx, `UPDATE bulk_actions SET job_id = $2 WHERE id = $1`, id, jobID)
	return err
}

// BulkActionGet returns bulk action id, or a NotFound error.
func BulkActionGet(ctx context.Context, q DBTX, id string) (BulkAction, error) {
	a, err := scanBulkAction(q.QueryRow(ctx, `SELECT `+bulkColumns+` FROM bulk_actions WHERE id = $1`, id))
	return a, one(err, "no bulk action %s", id)
}

// BulkActionLock returns bulk action id locked for the rest of tx, or a
// NotFound error. A job's page of results and a cancellation lock it
// first, so a cancellation waits for the page being committed and no
// result is recorded after it.
func BulkActionLock(ctx context.Context, tx pgx.Tx, id string) (BulkAction, error) {
	a, err := scanBulkAction(tx.QueryRow(ctx, `SELECT `+bulkColumns+` FROM bulk_actions WHERE id = $1 FOR UPDATE`, id))
	return a, one(err, "no bulk action %s", id)
}

// BulkActionStart marks queued bulk action id running, with matched
// tasks when known (nil keeps what is stored), and writes its event. It
// returns the action as it then is.
func BulkActionStart(ctx context.Context, q DBTX, id string, matched *int64) (BulkAction, error) {
	a, err := scanBulkAction(q.QueryRow(ctx, `
		UPDATE bulk_actions SET status = 'running', started_at = COALESCE(started_at, now()),
			matched = COALESCE($2, matched), updated_at = now(), published_at = now()
		WHERE id = $1
		RETURNING `+bulkColumns, id, matched))
	if err != nil {
		return BulkAction{}, one(err, "no bulk action %s", id)
	}
	return a, BulkEventInsert(ctx, q, a.BulkProgress)
}

// BulkCounts are results to add to a bulk action's counts.
type BulkCounts struct {
	Succeeded, Skipped, Failed int64
}

// Add counts one result of outcome.
func (c *BulkCounts) Add(outcome string) {
	switch outcome {
	case BulkSucceeded:
		c.Succeeded++
	case BulkSkipped:
		c.Skipped++
	default:
		c.Failed++
	}
}

// bulkPublishEvery is the least time between two progress events of one
// bulk action.
const bulkPublishEvery = time.Second

// BulkActionProgress adds c to bulk action id's counts and moves its
// position to after, in the transaction of the page's results, and writes
// a bulk_action.updated event when the last one is a second old or more.
// It returns the action as it then is.
func BulkActionProgress(ctx context.Context, q DBTX, id string, c BulkCounts, after TaskCursor) (BulkAction, error) {
	var publish bool
	a, err := scanBulkAction(scanAlso{q.QueryRow(ctx, `
		WITH old AS (SELECT published_at FROM bulk_actions WHERE id = $1)
		UPDATE bulk_actions b SET succeeded = succeeded + $2, skipped = skipped + $3, failed = failed + $4,
			done = done + $2 + $3 + $4, after_value = NULLIF($5, ''), after_uuid = $6::uuid, updated_at = now(),
			published_at = CASE WHEN b.published_at IS NULL OR b.published_at <= clock_timestamp() - $7 * interval '1 millisecond'
				THEN clock_timestamp() ELSE b.published_at END
		FROM old
		WHERE b.id = $1
		RETURNING `+bulkColumns+`, b.published_at IS DISTINCT FROM old.published_at`,
		id, c.Succeeded, c.Skipped, c.Failed, after.Value, after.UUID, bulkPublishEvery.Milliseconds()), []any{&publish}})
	if err != nil {
		return BulkAction{}, one(err, "no bulk action %s", id)
	}
	if !publish {
		return a, nil
	}
	return a, BulkEventInsert(ctx, q, a.BulkProgress)
}

// BulkActionFinish ends bulk action id with status (done or failed, with
// reason), sets matched to the tasks it went through when it is done, and
// writes its event. It returns the action as it then is, or a Conflict
// error when it had ended already (cancelled meanwhile).
func BulkActionFinish(ctx context.Context, q DBTX, id, status, reason string) (BulkAction, error) {
	a, err := scanBulkAction(q.QueryRow(ctx, `
		UPDATE bulk_actions SET status = $2, error = NULLIF($3, ''), finished_at = now(), updated_at = now(),
			published_at = now(), matched = CASE WHEN $2 = 'done' THEN done ELSE matched END
		WHERE id = $1 AND status IN ('queued', 'running')
		RETURNING `+bulkColumns, id, status, reason))
	if errors.Is(err, pgx.ErrNoRows) {
		return BulkAction{}, errcode.New(errcode.Conflict, "bulk action %s has ended already", id)
	}
	if err != nil {
		return BulkAction{}, err
	}
	return a, BulkEventInsert(ctx, q, a.BulkProgress)
}

// BulkActionCancel cancels bulk action id on behalf of user by, and writes
// its event. It returns the action as it then is, or a Conflict error when
// it has ended already.
func BulkActionCancel(ctx context.Context, q DBTX, id, by string) (BulkAction, error) {
	a, err := scanBulkAction(q.QueryRow(ctx, `
		UPDATE bulk_actions SET status = 'cancelled', cancelled_by = $2, finished_at = now(), updated_at = now(),
			published_at = now()
		WHERE id = $1 AND status IN ('queued', 'running')
		RETURNING `+bulkColumns, id, by))
	if errors.Is(err, pgx.ErrNoRows) {
		current, err := BulkActionGet(ctx, q, id)
		if err != nil {
			return BulkAction{}, err
		}
		return BulkAction{}, errcode.New(errcode.Conflict, "bulk action %s is %s already: only a queued or running one can be cancelled",
			id, current.Status).With(map[string]any{"status": current.Status})
	}
	if err != nil {
		return BulkAction{}, err
	}
	return a, BulkEventInsert(ctx, q, a.BulkProgress)
}

// BulkEventInsert writes a bulk_action.updated event of p, seen by its
// requester and by supervisors and above (who may read any bulk action).
func BulkEventInsert(ctx context.Context, q DBTX, p BulkProgress) error {
	supervisor := role.Supervisor
	return EventInsert(ctx, q, EventBulkActionUpdated, Audience{UserID: p.RequestedBy, MinRole: &supervisor}, p)
}

// BulkReason is what a bulk action's result on a task says, as a stable
// code and its parameters; package bulk writes it in a language. The zero
// BulkReason says nothing.
type BulkReason struct {
	Code   string
	Params BulkReasonParams
}

// BulkReasonParams are the parameters of a BulkReason, each set by the
// codes that take it.
type BulkReasonParams struct {
	// Status is the task's status, when it is the reason.
	Status pipeline.Status `json:"status,omitempty"`
	// Requester and Role name the requester and the role they lack.
	Requester string `json:"requester,omitempty"`
	Role      string `json:"role,omitempty"`
	// Action is the bulk action, when the reason names it.
	Action string `json:"action,omitempty"`
	// AssigneeID is the analyst assigned, or unassigned.
	AssigneeID string `json:"assignee_id,omitempty"`
	// Revision, Score, Passed, PassingScore and ScorecardVersion are a
	// re-audit's new revision.
	Revision         int      `json:"revision,omitempty"`
	Score            *float64 `json:"score,omitempty"`
	Passed           *bool    `json:"passed,omitempty"`
	PassingScore     *float64 `json:"passing_score,omitempty"`
	ScorecardVersion int      `json:"scorecard_version,omitempty"`
	// Pending are the criteria whose verdicts await an analyst's
	// confirmation, when they are the reason (or a re-audit left them).
	Pending []string `json:"pending,omitempty"`
	// Recipients are the addresses a validation's e-mail goes to.
	Recipients []string `json:"recipients,omitempty"`
	// Campaign is the task's campaign, by name.
	Campaign string `json:"campaign,omitempty"`
	// Error is what refused the task, in English: a rule of the service or
	// the audit engine.
	Error string `json:"error,omitempty"`
}

// BulkItem is the result of a bulk action on one task.
type BulkItem struct {
	TaskUUID string
	FileName string
	Outcome  string
	BulkReason
	// Message is stored in English; the API writes it from the code in
	// the reader's language.
	Message string
	At      time.Time
}

// BulkItemInsert records the outcome of bulk action bulkID on task, with
// its reason and message (its English text), unless one is recorded
// already; it reports whether it was recorded now.
func BulkItemInsert(ctx context.Context, q DBTX, bulkID, task, outcome string, reason BulkReason, message string) (bool, error) {
	params, err := json.Marshal(reason.Params)
	if err != nil {
		return false, err
	}
	tag, err := q.Exec(ctx, `
		INSERT INTO bulk_action_items (bulk_id, task_uuid, outcome, code, params, message) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (bulk_id, task_uuid) DO NOTHING`, bulkID, task, outcome, nullIfEmpty(reason.Code), params, message)
	return tag.RowsAffected() == 1, err
}

// BulkItemsRecorded returns the subset of tasks (lower-case uuids) that
// bulk action bulkID has a result for.
func BulkItemsRecorded(ctx context.Context, q DBTX, bulkID string, tasks []string) (map[string]bool, error) {
	return keySet(q.Query(ctx, `SELECT task_uuid::text FROM bulk_action_items WHERE bulk_id = $1 AND task_uuid = ANY($2::uuid[])`,
		bulkID, tasks))
}

// BulkItemList returns up to limit results of bulk action bulkID in task
// order, after task uuid after ("" for the start), of outcome only ("" for
// any).
func BulkItemList(ctx context.Context, q DBTX, bulkID, outcome, after string, limit int) ([]BulkItem, error) {
	var start, only *string
	if after != "" {
		start = &after
	}
	if outcome != "" {
		only = &outcome
	}
	rows, err := q.Query(ctx, `
		SELECT i.task_uuid::text, t.file_name, i.outcome, COALESCE(i.code, ''), i.params, i.message, i.at
		FROM bulk_action_items i JOIN tasks t ON t.uuid = i.task_uuid
		WHERE i.bulk_id = $1 AND ($2::text IS NULL OR i.outcome = $2) AND ($3::uuid IS NULL OR i.task_uuid > $3::uuid)
		ORDER BY i.task_uuid LIMIT $4`, bulkID, only, start, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (BulkItem, error) {
		var i BulkItem
		var params []byte
		if err := row.Scan(&i.TaskUUID, &i.FileName, &i.Outcome, &i.Code, &params, &i.Message, &i.At); err != nil || params == nil {
			return i, err
		}
		return i, json.Unmarshal(params, &i.Params)
	})
}

// BulkActionFilter selects bulk actions: each field set narrows the list.
type BulkActionFilter struct {
	// RequestedBy is the requester's user id.
	RequestedBy string
	// Status and Action are the action's status and kind.
	Status, Action string
	// Before is the id of the action the page continues after: the list
	// holds the actions created before it.
	Before string
}

// BulkActionList returns up to limit bulk actions f selects, newest first
// (by creation, then id).
func BulkActionList(ctx context.Context, q DBTX, f BulkActionFilter, limit int) ([]BulkAction, error) {
	rows, err := q.Query(ctx, `SELECT `+bulkColumns+` FROM bulk_actions
		WHERE ($1::text IS NULL OR requested_by = $1) AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR action = $3)
			AND ($4::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM bulk_actions WHERE id = $4))
		ORDER BY created_at DESC, id DESC LIMIT $5`,
		nullIfEmpty(f.RequestedBy), nullIfEmpty(f.Status), nullIfEmpty(f.Action), nullIfEmpty(f.Before), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (BulkAction, error) { return scanBulkAction(row) })
}

// BulkResultsExpired returns up to limit bulk actions that ended more than
// days ago and still keep their per-task results, those that ended first
// first.
func BulkResultsExpired(ctx context.Context, q DBTX, days, limit int) ([]string, error) {
	return texts(q.Query(ctx, `
		SELECT id::text FROM bulk_actions
		WHERE finished_at IS NOT NULL AND results_deleted_at IS NULL AND finished_at < now() - make_interval(days => $1)
		ORDER BY finished_at LIMIT $2`, days, limit))
}

// BulkResultsDelete deletes up to batch of bulk action id's per-task
// results and, once none is left, records on the action when they were
// deleted. It reports whether it got to the end. The action and its
// counts stay.
func BulkResultsDelete(ctx context.Context, q DBTX, id string, batch int) (bool, error) {
	tag, err := q.Exec(ctx, `
		DELETE FROM bulk_action_items WHERE (bulk_id, task_uuid) IN (
			SELECT bulk_id, task_uuid FROM bulk_action_items WHERE bulk_id = $1 LIMIT $2)`, id, batch)
	if err != nil || tag.RowsAffected() == int64(batch) {
		return false, err
	}
	_, err = q.Exec(ctx, `UPDATE bulk_actions SET results_deleted_at = now() WHERE id = $1`, id)
	return true, err
}
