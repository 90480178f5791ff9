package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// Event types of coaching items; their data is a Coaching (without its
// comments).
const (
	EventCoachingOpened       = "coaching.opened"
	EventCoachingUpdated      = "coaching.updated"
	EventCoachingAcknowledged = "coaching.acknowledged"
	EventCoachingCommented    = "coaching.commented"
	EventCoachingClosed       = "coaching.closed"
)

// CoachingCriterion is a criterion an item coaches, as the campaign's
// scorecard had it when the item named it.
type CoachingCriterion struct {
	CriterionID string `json:"criterion_id"`
	Category    string `json:"category"`
	Question    string `json:"question"`
}

// CoachingLink is an interaction an item links, with the quote that shows
// the point.
type CoachingLink struct {
	TaskUUID string `json:"task_uuid"`
	FileName string `json:"file_name"`
	Quote    string `json:"quote"`
}

// CoachingComment is one comment of an item's thread.
type CoachingComment struct {
	ID         int64     `json:"id"`
	AuthorID   string    `json:"author_id"`
	AuthorName string    `json:"author_name"`
	Body       string    `json:"body"`
	CreatedAt  time.Time `json:"created_at"`
}

// Coaching is a coaching item with its campaign's and agent's names, as
// its events carry it (stored JSON).
type Coaching struct {
	ID             string              `json:"id"`
	CampaignID     string              `json:"campaign_id"`
	Campaign       string              `json:"campaign"`
	AgentID        string              `json:"agent_id"`
	AgentName      string              `json:"agent_name"`
	CoachID        string              `json:"coach_id"`
	CoachName      string              `json:"coach_name"`
	Title          string              `json:"title"`
	Focus          string              `json:"focus"`
	Criteria       []CoachingCriterion `json:"criteria"`
	DisputeID      string              `json:"dispute_id,omitempty"`
	Status         string              `json:"status"`
	DueAt          time.Time           `json:"due_at"`
	OpenedAt       time.Time           `json:"opened_at"`
	UpdatedAt      time.Time           `json:"updated_at"`
	AcknowledgedAt *time.Time          `json:"acknowledged_at,omitempty"`
	ClosedAt       *time.Time          `json:"closed_at,omitempty"`
	ClosedBy       string              `json:"closed_by,omitempty"`
	Links          []CoachingLink      `json:"links"`
	Comments       int                 `json:"comments"`
	// RemindedDueAt is the due date the agent was last reminded of.
	RemindedDueAt *time.Time `json:"-"`
}

// CoachingNew is a coaching item to open, or the new content of one.
type CoachingNew struct {
	CampaignID, AgentID, CoachID, CoachName string
	Title, Focus                            string
	Criteria                                []CoachingCriterion
	DisputeID                               string
	DueAt                                   time.Time
	Links                                   []CoachingLink
}

const coachingColumns = `ci.id, ci.campaign_id, c.name, ci.agent_id, COALESCE(NULLIF(a.name, ''), NULLIF(a.username, ''), a.id),
	ci.coach_id, ci.coach_name, ci.title, ci.focus, ci.criteria, COALESCE(ci.dispute_id::text, ''), ci.status, ci.due_at,
	ci.opened_at, ci.updated_at, ci.acknowledged_at, ci.closed_at, COALESCE(ci.closed_by, ''), ci.reminded_due_at,
	COALESCE((SELECT jsonb_agg(jsonb_build_object('task_uuid', l.task_uuid, 'file_name', t.file_name, 'quote', l.quote)
		ORDER BY l.position) FROM coaching_links l JOIN tasks t ON t.uuid = l.task_uuid WHERE l.coaching_id = ci.id), '[]'),
	(SELECT count(*) FROM coaching_comments m WHERE m.coaching_id = ci.id)`

const coachingFrom = ` FROM coaching_items ci JOIN campaigns c ON c.id = ci.campaign_id JOIN users a ON a.id = ci.agent_id`

func scanCoaching(row pgx.Row) (Coaching, error) {
	var c Coaching
	var criteria, links []byte
	err := row.Scan(&c.ID, &c.CampaignID, &c.Campaign, &c.AgentID, &c.AgentName, &c.CoachID, &c.CoachName, &c.Title,
		&c.Focus, &criteria, &c.DisputeID, &c.Status, &c.DueAt, &c.OpenedAt, &c.UpdatedAt, &c.AcknowledgedAt,
		&c.ClosedAt, &c.ClosedBy, &c.RemindedDueAt, &links, &c.Comments)
	if err != nil {
		return Coaching{}, err
	}
	if err := json.Unmarshal(criteria, &c.Criteria); err != nil {
		return Coaching{}, err
	}
	return c, json.Unmarshal(links, &c.Links)
}

// coachingMissing is what an item that does not exist, or that the caller
// may not see, is: the same NotFound.
func coachingMissing(err error, id string) error { return one(err, "no coaching item %s", id) }

// CoachingInsert opens n and returns it.
func CoachingInsert(ctx context.Context, tx pgx.Tx, n CoachingNew) (Coaching, error) {
	criteria, err := json.Marshal(n.Criteria)
	if err != nil {
		return Coaching{}, err
	}
	var id string
	err = tx.QueryRow(ctx, `INSERT INTO coaching_items (campaign_id, agent_id, coach_id, coach_name, title, focus, criteria,
		dispute_id, due_at) VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, '')::uuid, $9) RETURNING id`,
		n.CampaignID, n.AgentID, n.CoachID, n.CoachName, n.Title, n.Focus, criteria, n.DisputeID, n.DueAt).Scan(&id)
	if err != nil {
		return Coaching{}, err
	}
	if err := coachingLinksSet(ctx, tx, id, n.Links); err != nil {
		return Coaching{}, err
	}
	return CoachingGet(ctx, tx, id)
}

// coachingLinksSet makes links the interactions of item id.
func coachingLinksSet(ctx context.Context, tx pgx.Tx, id string, links []CoachingLink) error {
	if _, err := tx.Exec(ctx, `DELETE FROM coaching_links WHERE coaching_id = $1`, id); err != nil {
		return err
	}
	for i, l := range links {
		if _, err := tx.Exec(ctx, `INSERT INTO coaching_links (coaching_id, position, task_uuid, quote) VALUES ($1, $2, $3, $4)`,
			id, i, l.TaskUUID, l.Quote); err != nil {
			return err
		}
	}
	return nil
}

// CoachingUpdate replaces the content of item id (title, focus, criteria,
// due date and links; not its agent, campaign or coach) and returns it.
// Lock it first (CoachingLock).
func CoachingUpdate(ctx context.Context, tx pgx.Tx, id string, n CoachingNew) (Coaching, error) {
	criteria, err := json.Marshal(n.Criteria)
	if err != nil {
		return Coaching{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE coaching_items SET title = $2, focus = $3, criteria = $4, due_at = $5, updated_at = now()
		WHERE id = $1`, id, n.Title, n.Focus, criteria, n.DueAt); err != nil {
		return Coaching{}, err
	}
	if err := coachingLinksSet(ctx, tx, id, n.Links); err != nil {
		return Coaching{}, err
	}
	return CoachingGet(ctx, tx, id)
}

// CoachingSetStatus moves item id to status (acknowledged or done, by
// whom for done) and returns it. Lock it first (CoachingLock).
func CoachingSetStatus(ctx context.Context, tx pgx.Tx, id, status, by string) (Coaching, error) {
	if _, err := tx.Exec(ctx, `UPDATE coaching_items SET status = $2, updated_at = now(),
		acknowledged_at = CASE WHEN $2 = 'acknowledged' THEN now() ELSE acknowledged_at END,
		closed_at = CASE WHEN $2 = 'done' THEN now() END, closed_by = CASE WHEN $2 = 'done' THEN NULLIF($3, '') END
		WHERE id = $1`, id, status, by); err != nil {
		return Coaching{}, err
	}
	return CoachingGet(ctx, tx, id)
}

// CoachingReminded records that the agent of item id was reminded of due
// date due.
func CoachingReminded(ctx context.Context, tx pgx.Tx, id string, due time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE coaching_items SET reminded_due_at = $2 WHERE id = $1`, id, due)
	return err
}

// CoachingGet returns item id, or a NotFound error.
func CoachingGet(ctx context.Context, q DBTX, id string) (Coaching, error) {
	c, err := scanCoaching(q.QueryRow(ctx, `SELECT `+coachingColumns+coachingFrom+` WHERE ci.id = $1`, id))
	return c, coachingMissing(err, id)
}

// CoachingLock returns item id locked for the rest of tx, or a NotFound
// error: the steps of one item happen one after the other.
func CoachingLock(ctx context.Context, tx pgx.Tx, id string) (Coaching, error) {
	c, err := scanCoaching(tx.QueryRow(ctx, `SELECT `+coachingColumns+coachingFrom+` WHERE ci.id = $1 FOR UPDATE OF ci`, id))
	return c, coachingMissing(err, id)
}

// CoachingFilter selects coaching items; zero fields select everything.
type CoachingFilter struct {
	// Status is open, acknowledged or done; "active" is open or
	// acknowledged.
	Status                       string
	AgentID, CoachID, CampaignID string
	// CriterionID keeps the items that coach it.
	CriterionID string
	Skip, Limit int
}

// CoachingList returns a page of the items f selects, due soonest first
// while active, else newest first, and how many it selects.
func CoachingList(ctx context.Context, q DBTX, f CoachingFilter) ([]Coaching, int, error) {
	where := ` WHERE ($1 = '' OR ci.status = $1 OR $1 = 'active' AND ci.status <> 'done') AND ($2 = '' OR ci.agent_id = $2)
		AND ($3 = '' OR ci.coach_id = $3) AND ($4 = '' OR ci.campaign_id = NULLIF($4, '')::uuid)
		AND ($5 = '' OR ci.criteria @> jsonb_build_array(jsonb_build_object('criterion_id', $5::text)))`
	args := []any{f.Status, f.AgentID, f.CoachID, f.CampaignID, f.CriterionID}
	var total int
	if err := q.QueryRow(ctx, `SELECT count(*)`+coachingFrom+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := ` ORDER BY ci.status = 'done', CASE WHEN ci.status <> 'done' THEN ci.due_at END, ci.opened_at DESC, ci.id`
	rows, err := q.Query(ctx, `SELECT `+coachingColumns+coachingFrom+where+order+` OFFSET $6 LIMIT $7`, append(args, f.Skip, f.Limit)...)
	if err != nil {
		return nil, 0, err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Coaching, error) { return scanCoaching(row) })
	return items, total, err
}

// CoachingCommentInsert adds a comment by author to item id's thread.
func CoachingCommentInsert(ctx context.Context, tx pgx.Tx, id, authorID, authorName, body string) (CoachingComment, error) {
	c := CoachingComment{AuthorID: authorID, AuthorName: authorName, Body: body}
	err := tx.QueryRow(ctx, `INSERT INTO coaching_comments (coaching_id, author_id, author_name, body) VALUES ($1, $2, $3, $4)
		RETURNING id, created_at`, id, authorID, authorName, body).Scan(&c.ID, &c.CreatedAt)
	return c, err
}

// CoachingComments returns the thread of item id, oldest first.
func CoachingComments(ctx context.Context, q DBTX, id string) ([]CoachingComment, error) {
	rows, err := q.Query(ctx, `SELECT id, author_id, author_name, body, created_at FROM coaching_comments
		WHERE coaching_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[CoachingComment])
}

// coachingAudience is who may see events about an agent's coaching: the
// agent, and supervisors and above (who coach).
func coachingAudience(agentID string) Audience {
	supervisor := role.Supervisor
	return Audience{UserID: agentID, MinRole: &supervisor}
}

// CoachingEventInsert writes event typ about c, in the transaction that
// changed it.
func CoachingEventInsert(ctx context.Context, q DBTX, typ string, c Coaching) error {
	return EventInsert(ctx, q, typ, coachingAudience(c.AgentID), c)
}

// CoachingTeam is one team's coaching in a report: a campaign's items.
type CoachingTeam struct {
	CampaignID string
	Campaign   string
	Open       int
	Overdue    int
	Done       int
}

// CoachingCriterionScore is a coached criterion's compliance rate before
// and after its items were opened.
type CoachingCriterionScore struct {
	CampaignID   string
	Campaign     string
	CriterionID  string
	Question     string
	Items        int
	Before       *float64
	AuditsBefore int
	After        *float64
	AuditsAfter  int
}

// CoachingReport is coaching per team and per coached criterion.
type CoachingReport struct {
	WindowDays int
	Teams      []CoachingTeam
	Criteria   []CoachingCriterionScore
}

// CoachingReportFilter selects the items a report counts: opened in
// [From, To) of a campaign ("" for any).
type CoachingReportFilter struct {
	From, To   time.Time
	CampaignID string
	// WindowDays is how far before and after an item's opening its
	// agent's validated audits are read.
	WindowDays int
	Now        time.Time
}

// CoachingReportOf counts the items f selects per campaign (the team) and,
// for each coached criterion, the compliance of the coached agents'
// validated audits (their current revisions) of that campaign in f.Window
// before and after each item was opened. Audits hidden from v are not
// read.
func CoachingReportOf(ctx context.Context, q DBTX, v visibility.Viewer, f CoachingReportFilter) (CoachingReport, error) {
	out := CoachingReport{WindowDays: f.WindowDays, Teams: []CoachingTeam{}, Criteria: []CoachingCriterionScore{}}
	from := ` FROM coaching_items ci JOIN campaigns c ON c.id = ci.campaign_id`
	where := ` WHERE ci.opened_at >= $1 AND ci.opened_at < $2 AND ($3 = '' OR ci.campaign_id = NULLIF($3, '')::uuid)`
	rows, err := q.Query(ctx, `SELECT ci.campaign_id, c.name, count(*) FILTER (WHERE ci.status <> 'done')::int,
		count(*) FILTER (WHERE ci.status <> 'done' AND ci.due_at < $4)::int, count(*) FILTER (WHERE ci.status = 'done')::int`+from+where+`
		GROUP BY ci.campaign_id, c.name ORDER BY c.name`, f.From, f.To, f.CampaignID, f.Now)
	if err != nil {
		return CoachingReport{}, err
	}
	if out.Teams, err = pgx.CollectRows(rows, pgx.RowToStructByPos[CoachingTeam]); err != nil {
		return CoachingReport{}, err
	}
	rows, err = q.Query(ctx, `WITH coached AS (
			SELECT ci.id, ci.campaign_id, c.name, ci.agent_id, ci.opened_at, e->>'criterion_id' AS criterion_id,
				e->>'question' AS question`+from+`, jsonb_array_elements(ci.criteria) e`+where+`
		), judged AS (
			SELECT k.id, k.criterion_id, va.validated_at < k.opened_at AS before,
				NOT k.criterion_id = ANY (COALESCE(t.failed_criteria, '{}')) AS met
			FROM coached k JOIN tasks t ON t.operator_id = k.agent_id AND t.campaign_id = k.campaign_id
			JOIN validations va ON va.task_uuid = t.uuid
			WHERE k.criterion_id = ANY (t.judged_criteria) AND va.validated_at >= k.opened_at - make_interval(days => $4::int)
				AND va.validated_at < k.opened_at + make_interval(days => $4::int) AND NOT `+v.AuditHiddenSQL("t")+`
		)
		SELECT k.campaign_id, k.name, k.criterion_id, max(k.question), count(DISTINCT k.id)::int,
			(100.0 * count(*) FILTER (WHERE j.before AND j.met) / NULLIF(count(*) FILTER (WHERE j.before), 0))::float8,
			count(*) FILTER (WHERE j.before)::int,
			(100.0 * count(*) FILTER (WHERE NOT j.before AND j.met) / NULLIF(count(*) FILTER (WHERE NOT j.before), 0))::float8,
			count(*) FILTER (WHERE NOT j.before)::int
		FROM coached k LEFT JOIN judged j ON j.id = k.id AND j.criterion_id = k.criterion_id
		GROUP BY k.campaign_id, k.name, k.criterion_id ORDER BY k.name, k.criterion_id`,
		f.From, f.To, f.CampaignID, f.WindowDays)
	if err != nil {
		return CoachingReport{}, err
	}
	out.Criteria, err = pgx.CollectRows(rows, pgx.RowToStructByPos[CoachingCriterionScore])
	return out, err
}
