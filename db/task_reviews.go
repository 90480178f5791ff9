package db

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/visibility"
)

// openAssignment selects the tasks t whose assignment is open: not yet
// reviewed nor validated (the partial index tasks_open_assignment_idx).
const openAssignment = `t.status <> 'validated' AND t.reviewed_at IS NULL`

// TaskMarkReviewed records that analyst by reviewed task uuid's current
// audit, with its task.updated event, through tx. A task reviewed already
// is returned unchanged (changed false). It returns a NotFound error, or a
// Conflict error for a task without an audit or validated already.
func TaskMarkReviewed(ctx context.Context, tx pgx.Tx, uuid, by string) (t Task, changed bool, err error) {
	if t, err = TaskLock(ctx, tx, uuid); err != nil {
		return t, false, err
	}
	switch t.ReviewState() {
	case ReviewReviewed:
		return t, false, nil
	case ReviewValidated:
		return t, false, errcode.New(errcode.Conflict, "task %s is validated already", uuid)
	case "":
		return t, false, errcode.New(errcode.Conflict, "task %s has no audit to review yet (it is %s)", uuid, t.Status)
	}
	t, err = scanTask(tx.QueryRow(ctx, `
		WITH t AS (
			UPDATE tasks SET reviewed_at = now(), reviewed_by = $2, updated_at = now() WHERE uuid = $1 RETURNING *
		)
		SELECT `+taskColumns+` FROM t JOIN campaigns c ON c.id = t.campaign_id`, uuid, by))
	if err != nil {
		return t, false, err
	}
	return t, true, TaskEventInsert(ctx, tx, EventTaskUpdated, t)
}

// TaskReviewQueue returns the page (skip, limit) of the tasks assigned to
// analyst v (v.User) whose assignment is open (with reviewed ones too when
// reviewed is set, validated ones never), soonest due first (no due date
// last), and how many there are. The tasks are rows: the caller shows each
// as v may see it (v.AuditHidden).
func TaskReviewQueue(ctx context.Context, q DBTX, v visibility.Viewer, reviewed bool, skip, limit int) ([]Task, int64, error) {
	assignee := v.User
	cond := openAssignment
	if reviewed {
		cond = `t.status <> 'validated'`
	}
	var total int64
	if err := q.QueryRow(ctx, `SELECT count(*) FROM tasks t WHERE t.assignee_id = $1 AND `+cond, assignee).Scan(&total); err != nil {
		return nil, 0, err
	}
	tasks, err := collectTasks(q.Query(ctx, `SELECT `+taskColumns+taskFrom+` WHERE t.assignee_id = $1 AND `+cond+`
		ORDER BY t.assignment_due_at NULLS LAST, t.uuid LIMIT `+strconv.Itoa(limit)+` OFFSET `+strconv.Itoa(skip), assignee))
	return tasks, total, err
}

// AnalystProgress is how far one analyst got with the tasks assigned to
// them.
type AnalystProgress struct {
	AnalystID string
	Name      string
	Assigned  int64
	Reviewed  int64
	Validated int64
	Open      int64
	Overdue   int64
}

// TaskReviewProgress returns each analyst's progress with the tasks of
// campaign campaignID ("" for every campaign) assigned to them from from
// to to (assigned_at), by analyst id, overdue as of now.
func TaskReviewProgress(ctx context.Context, q DBTX, campaignID string, from, to, now time.Time) ([]AnalystProgress, error) {
	rows, err := q.Query(ctx, fmt.Sprintf(`
		SELECT t.assignee_id, COALESCE(NULLIF(u.name, ''), u.username, ''), count(*),
			count(*) FILTER (WHERE t.reviewed_at IS NOT NULL OR t.status = 'validated'),
			count(*) FILTER (WHERE t.status = 'validated'),
			count(*) FILTER (WHERE %[1]s),
			count(*) FILTER (WHERE %[1]s AND t.assignment_due_at < $4)
		FROM tasks t LEFT JOIN users u ON u.id = t.assignee_id
		WHERE t.assignee_id IS NOT NULL AND t.assigned_at >= $2 AND t.assigned_at < $3
			AND ($1 = '' OR t.campaign_id::text = $1)
		GROUP BY 1, 2 ORDER BY 1`, openAssignment), campaignID, from, to, now)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AnalystProgress, error) {
		var p AnalystProgress
		return p, row.Scan(&p.AnalystID, &p.Name, &p.Assigned, &p.Reviewed, &p.Validated, &p.Open, &p.Overdue)
	})
}
