package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/review"
	"github.com/auditd/auditd/scoring"
)

// Sources of audit revisions.
const (
	AuditByEngine    = review.ByEngine
	AuditByAnalyst   = review.ByAnalyst
	AuditByRecompute = review.ByRecompute
)

// ErrAuditRevision is the cause of the Conflict error (errcode) AuditAppend
// returns when the task's current revision is not the one the caller based
// its change on.
var ErrAuditRevision = errors.New("the audit has changed since")

// AuditRevision is one revision of a task's audit.
type AuditRevision struct {
	TaskUUID string
	Revision int
	Result   scoring.Result
	// Source is AuditByEngine, AuditByAnalyst or AuditByRecompute.
	Source string
	// Engine names what produced the verdicts of an engine revision.
	Engine string
	// AuthorID and AuthorName say who made an analyst's revision (the
	// token subject and the x-username header); empty for the system.
	AuthorID   string
	AuthorName string
	// CalibrationSessionID is the calibration session whose calibrated
	// answers the revision applies, if any.
	CalibrationSessionID string
	// Diff says what changed from the previous revision (JSON), if anything.
	Diff      json.RawMessage
	CreatedAt time.Time
}

const auditColumns = `task_uuid, revision, result, source, COALESCE(engine, ''), COALESCE(author_id, ''),
	COALESCE(author_name, ''), diff, created_at, COALESCE(calibration_session_id::text, '')`

func scanAudit(row pgx.Row) (AuditRevision, error) {
	var a AuditRevision
	var result []byte
	err := row.Scan(&a.TaskUUID, &a.Revision, &result, &a.Source, &a.Engine, &a.AuthorID, &a.AuthorName, &a.Diff, &a.CreatedAt, &a.CalibrationSessionID)
	if err != nil {
		return AuditRevision{}, err
	}
	return a, json.Unmarshal(result, &a.Result)
}

// AuditAppend stores a as the next revision of its task's audit and makes it
// the current one (the task's score, passed and review items follow it, and
// the engine's verdicts it adds are counted). When basedOn is not zero it
// must be the current revision, else it is a Conflict error wrapping ErrAuditRevision: two
// edits made from the same revision cannot both land. Call it in a
// transaction; it locks the task row. It returns the stored revision, or
// a NotFound error for an unknown task.
func AuditAppend(ctx context.Context, tx pgx.Tx, a AuditRevision, basedOn int) (AuditRevision, error) {
	stored, _, err := auditAppend(ctx, tx, a, basedOn, nil)
	return stored, err
}

// AuditAppendAfter appends a as the revision that follows prev, the
// task's current one (else a Conflict error wrapping ErrAuditRevision), with the diff
// from prev, as AuditAppend does. Call it in a transaction.
func AuditAppendAfter(ctx context.Context, tx pgx.Tx, prev, a AuditRevision) (AuditRevision, error) {
	diff, err := json.Marshal(scoring.Compare(prev.Result, a.Result))
	if err != nil {
		return AuditRevision{}, err
	}
	a.Diff = diff
	return AuditAppend(ctx, tx, a, prev.Revision)
}

// AuditAppendAndMove appends a's revision as AuditAppend does and, in the
// same write of the task, moves it along path: from the first change that
// starts from the task's status to the last, each recorded in its history,
// with one task.updated event. It returns the task as it then is, or a
// Conflict error wrapping ErrTaskStatus when no change of path starts from
// its status.
func AuditAppendAndMove(ctx context.Context, tx pgx.Tx, a AuditRevision, path []TaskChange) (Task, error) {
	_, t, err := auditAppend(ctx, tx, a, 0, path)
	return t, err
}

func auditAppend(ctx context.Context, tx pgx.Tx, a AuditRevision, basedOn int, path []TaskChange) (AuditRevision, Task, error) {
	var status pipeline.Status
	var current *int
	var previous []string
	if len(a.Result.Items) == 0 {
		// Score never returns a result without items: this is a caller's
		// bug, and every revision read takes its items as an array.
		return AuditRevision{}, Task{}, fmt.Errorf("task %s: an audit revision needs items (a scored result)", a.TaskUUID)
	}
	// previous: the criteria the current revision has items for (judged
	// or not applicable; judged_criteria lists only the former).
	if err := tx.QueryRow(ctx, `SELECT t.status, t.audit_revision,
			ARRAY(SELECT i->>'criterion_id' FROM audit_revisions r, jsonb_array_elements(r.result->'items') i
				WHERE r.task_uuid = t.uuid AND r.revision = t.audit_revision)
		FROM tasks t WHERE t.uuid = $1 FOR UPDATE`,
		a.TaskUUID).Scan(&status, &current, &previous); err != nil {
		return AuditRevision{}, Task{}, one(err, "no task %s", a.TaskUUID)
	}
	cur := 0
	if current != nil {
		cur = *current
	}
	if basedOn != 0 && basedOn != cur {
		return AuditRevision{}, Task{}, errcode.Wrap(errcode.Conflict, ErrAuditRevision, fmt.Sprintf(
			"the audit of task %s changed while this change was made from revision %d: revision %d is current; read it and try again",
			a.TaskUUID, basedOn, cur))
	}
	// The moves: statuses left and reached, the status at the end, the attempt.
	var left, reached []pipeline.Status
	var to *pipeline.Status
	attempt := 0
	if path != nil {
		i := slices.IndexFunc(path, func(c TaskChange) bool { return slices.Contains(c.From, status) })
		if i < 0 {
			return AuditRevision{}, Task{}, taskStatusError(a.TaskUUID, status)
		}
		for _, c := range path[i:] {
			left, reached = append(left, status), append(reached, c.To)
			status, attempt = c.To, c.Attempt
		}
		to = &status
	}
	result, err := json.Marshal(a.Result)
	if err != nil {
		return AuditRevision{}, Task{}, err
	}
	var diff []byte
	if len(a.Diff) > 0 {
		diff = a.Diff
	}
	stored, err := scanAudit(tx.QueryRow(ctx, `
		INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed, result, source,
			engine, author_id, author_name, diff, calibration_session_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, ''), NULLIF($9, ''), NULLIF($10, ''), $11, NULLIF($12, '')::uuid)
		RETURNING `+auditColumns,
		a.TaskUUID, cur+1, a.Result.ScorecardVersion, a.Result.Score, a.Result.Passed, result, a.Source,
		a.Engine, a.AuthorID, a.AuthorName, diff, a.CalibrationSessionID))
	if err != nil {
		return AuditRevision{}, Task{}, err
	}
	// A criterion not applicable is not judged: figures per criterion
	// count it neither as met nor as failed.
	judged, failed := make([]string, 0, len(a.Result.Items)), []string{}
	for _, it := range a.Result.Items {
		if it.NotApplicable {
			continue
		}
		judged = append(judged, it.CriterionID)
		if !it.Complies && !it.NeedsReview {
			failed = append(failed, it.CriterionID)
		}
	}
	// A provisional audit has no score nor result on its task: no figure
	// counts it as scored (Task.Pending).
	score, passed := &a.Result.Score, &a.Result.Passed
	if len(a.Result.Pending) > 0 {
		score, passed = nil, nil
	}
	c := countReview(a.Result.Items, previous)
	t, err := scanTask(tx.QueryRow(ctx, `
		WITH t AS (
			UPDATE tasks SET audit_revision = $2, score = $3, passed = $4,
				judged_criteria = $5, failed_criteria = $6, review_items = $7, engine_verdicts = engine_verdicts + $8,
				score_min = $16, score_max = $17, pending_criteria = $18,
				engine_confident = engine_confident + $9, audited_at = COALESCE(audited_at, now()), updated_at = now(),
				status = COALESCE($10, status), error = CASE WHEN $10::text IS NULL THEN error END,
				attempts = CASE WHEN $11 > 0 THEN $11 ELSE attempts END,
				`+review.SetSQL("$14", "$15")+`
			WHERE uuid = $1
			RETURNING *
		), history AS (
			INSERT INTO task_transitions (task_uuid, from_status, to_status, attempt)
			SELECT t.uuid, m.left_status, m.reached, t.attempts
			FROM t, unnest($12::text[], $13::text[]) WITH ORDINALITY AS m (left_status, reached, n)
			ORDER BY m.n
		)
		SELECT `+taskColumns+` FROM t JOIN campaigns c ON c.id = t.campaign_id`,
		a.TaskUUID, stored.Revision, score, passed, judged, failed, c.review, c.engine, c.confident,
		to, attempt, left, reached, a.Source, a.AuthorID, a.Result.ScoreMin, a.Result.ScoreMax, pendingOf(a.Result)))
	if err == nil {
		err = TaskSearchRefresh(ctx, tx, a.TaskUUID)
	}
	if err != nil || to == nil {
		return stored, t, err
	}
	return stored, t, TaskEventInsert(ctx, tx, EventTaskUpdated, t)
}

// pendingOf is r's pending criteria, never nil (the column's empty array).
func pendingOf(r scoring.Result) []string {
	if r.Pending == nil {
		return []string{}
	}
	return r.Pending
}

// reviewCounts are what a revision changes in its task's review figures.
type reviewCounts struct {
	// review counts the items that need review.
	review int
	// engine counts the engine's verdicts the revision adds, confident
	// those of them that need no review.
	engine, confident int
}

// countReview counts the review figures of a revision's items; previous
// lists the criteria its previous revision judged (none for revision 1).
// The engine's verdicts a revision adds are its items with a basis (an
// analyst's have none) for criteria the previous revision did not judge:
// the engine judges only what neither an edit nor the previous revision
// has a verdict for, and a verdict kept from the previous revision was
// counted when it was made. Migration 00010 counts stored audits the same
// way.
func countReview(items []scoring.Item, previous []string) reviewCounts {
	var c reviewCounts
	for _, it := range items {
		if it.NeedsReview {
			c.review++
		}
		if it.Basis != "" && !slices.Contains(previous, it.CriterionID) {
			c.engine++
			if !it.NeedsReview {
				c.confident++
			}
		}
	}
	return c
}

// AuditCurrent returns the current revision of a task's audit, or a
// NotFound error when the task has none.
func AuditCurrent(ctx context.Context, q DBTX, taskUUID string) (AuditRevision, error) {
	a, err := scanAudit(q.QueryRow(ctx, `SELECT `+auditColumns+` FROM audit_revisions
		WHERE task_uuid = $1 AND revision = (SELECT audit_revision FROM tasks WHERE uuid = $1)`, taskUUID))
	return a, one(err, "task %s has no audit", taskUUID)
}

// AuditRevisionGet returns revision n of a task's audit, or a NotFound error.
func AuditRevisionGet(ctx context.Context, q DBTX, taskUUID string, n int) (AuditRevision, error) {
	a, err := scanAudit(q.QueryRow(ctx, `SELECT `+auditColumns+` FROM audit_revisions
		WHERE task_uuid = $1 AND revision = $2`, taskUUID, n))
	return a, one(err, "task %s has no audit revision %d", taskUUID, n)
}

// AuditRevisionInfo is one entry of a task's revision list.
type AuditRevisionInfo struct {
	Revision   int
	Source     string
	Engine     string
	AuthorID   string
	AuthorName string
	// Calibration names the calibration session the revision applies.
	Calibration      *CalibrationRef
	ScorecardVersion int
	ScoreBefore      *float64
	Score            float64
	Passed           bool
	// Pending counts the revision's verdicts pending an analyst's
	// confirmation: its score is then provisional, and it did not pass.
	Pending   int
	CreatedAt time.Time
}

// AuditRevisionList lists a task's audit revisions, oldest first.
func AuditRevisionList(ctx context.Context, q DBTX, taskUUID string) ([]AuditRevisionInfo, error) {
	rows, err := q.Query(ctx, `
		SELECT a.revision, a.source, COALESCE(a.engine, ''), COALESCE(a.author_id, ''), COALESCE(a.author_name, ''),
			a.scorecard_version, (lag(a.score) OVER (ORDER BY a.revision))::float8, a.score::float8, a.passed,
			jsonb_array_length(COALESCE(a.result->'pending', '[]')), a.created_at, s.id::text, s.name
		FROM audit_revisions a LEFT JOIN calibration_sessions s ON s.id = a.calibration_session_id
		WHERE a.task_uuid = $1 ORDER BY a.revision`, taskUUID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditRevisionInfo, error) {
		var i AuditRevisionInfo
		var sessionID, sessionName *string
		err := row.Scan(&i.Revision, &i.Source, &i.Engine, &i.AuthorID, &i.AuthorName, &i.ScorecardVersion,
			&i.ScoreBefore, &i.Score, &i.Passed, &i.Pending, &i.CreatedAt, &sessionID, &sessionName)
		if sessionID != nil {
			i.Calibration = &CalibrationRef{ID: *sessionID, Name: *sessionName}
		}
		return i, err
	})
}

// EventAuditUpdated is the event type of a new revision of an audit (an
// analyst's edit or a recomputation); its data is an AuditUpdate.
const EventAuditUpdated = "audit.updated"

// AuditUpdate is what an audit.updated event carries.
type AuditUpdate struct {
	// Task is the task's summary after the change (its score and passed).
	Task             TaskSummary `json:"task"`
	Revision         int         `json:"revision"`
	Source           string      `json:"source"`
	AuthorID         string      `json:"author_id,omitempty"`
	AuthorName       string      `json:"author_name,omitempty"`
	ScorecardVersion int         `json:"scorecard_version"`
	Score            float64     `json:"score"`
	Passed           bool        `json:"passed"`
	// Pending are the revision's pending verdicts (scoring.Result.Pending).
	Pending []string `json:"pending,omitempty"`
	// ScoreBefore is the previous revision's score.
	ScoreBefore *float64 `json:"score_before,omitempty"`
}

// AuditEventInsert writes the audit.updated event of revision a of task t
// (read after the revision was appended), seen by the task's operator and
// by quality and above, like the task's own events (not by the operator
// while the audit is hidden from them: Task.AuditHiddenFromOperator). before is the previous
// revision's score, if any. Call it in the transaction that appended the
// revision.
func AuditEventInsert(ctx context.Context, q DBTX, t Task, a AuditRevision, before *float64) error {
	audience := t.audience()
	if t.AuditHiddenFromOperator() {
		audience.UserID = ""
	}
	err := EventInsert(ctx, q, EventAuditUpdated, audience, AuditUpdate{
		Task: t.Summary(), Revision: a.Revision, Source: a.Source, AuthorID: a.AuthorID, AuthorName: a.AuthorName,
		ScorecardVersion: a.Result.ScorecardVersion, Score: a.Result.Score, Passed: a.Result.Passed, Pending: a.Result.Pending,
		ScoreBefore: before,
	})
	return err
}

// auditsToRecompute selects the audited (not validated) tasks of campaign $1
// whose current revision was scored against a scorecard version below $2.
const auditsToRecompute = ` FROM tasks t
	JOIN audit_revisions a ON a.task_uuid = t.uuid AND a.revision = t.audit_revision
	WHERE t.campaign_id = $1 AND t.status = 'audited' AND a.scorecard_version < $2`

// AuditsToRecompute returns up to limit tasks of a campaign, by uuid after
// after ("" for the start), that are audited (not validated) and whose
// current revision was scored against a scorecard version below version:
// the audits a recomputation against that version still has to do.
func AuditsToRecompute(ctx context.Context, q DBTX, campaignID string, version int, after string, limit int) ([]string, error) {
	var start *string
	if after != "" {
		start = &after
	}
	return texts(q.Query(ctx, `SELECT t.uuid::text`+auditsToRecompute+`
			AND ($3::uuid IS NULL OR t.uuid > $3::uuid)
		ORDER BY t.uuid LIMIT $4`, campaignID, version, start, limit))
}

// AuditsToRecomputeCount counts what AuditsToRecompute would list from the start.
func AuditsToRecomputeCount(ctx context.Context, q DBTX, campaignID string, version int) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*)`+auditsToRecompute, campaignID, version).Scan(&n)
	return n, err
}
