package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// Statuses of a dispute: open until a supervisor resolves it, accepted
// when at least one of its criteria was accepted, else rejected.
const (
	DisputeOpen     = "open"
	DisputeAccepted = "accepted"
	DisputeRejected = "rejected"
)

// Decisions on a disputed criterion.
const (
	DecisionAccept = "accept"
	DecisionReject = "reject"
)

// Event types of disputes (their data is a Dispute) and of an
// acknowledgement (an Acknowledgement).
const (
	EventDisputeOpened     = "dispute.opened"
	EventDisputeAccepted   = "dispute.accepted"
	EventDisputeRejected   = "dispute.rejected"
	EventAuditAcknowledged = "audit.acknowledged"
)

// DisputeItem is one disputed criterion: the verdict as the disputed
// revision has it, the agent's comment and, once resolved, the decision;
// stored as JSON (a dispute's items).
type DisputeItem struct {
	CriterionID string `json:"criterion_id"`
	Category    string `json:"category"`
	Question    string `json:"question"`
	Complies    bool   `json:"complies"`
	// NotApplicable: the verdict disputed is not applicable.
	NotApplicable bool `json:"not_applicable,omitempty"`
	// ClaimsNotApplicable: the agent claims the criterion does not apply.
	ClaimsNotApplicable bool   `json:"claims_not_applicable,omitempty"`
	Comment             string `json:"comment"`
	Decision            string `json:"decision,omitempty"`
	// AcceptedNotApplicable: accepted as not applicable.
	AcceptedNotApplicable bool   `json:"accepted_not_applicable,omitempty"`
	Reason                string `json:"reason,omitempty"`
}

// Dispute is an agent's dispute of criteria of a validated audit, with
// its task's name and the outcome of its accepted criteria, as its events
// carry it (stored JSON).
type Dispute struct {
	ID            string        `json:"id"`
	TaskUUID      string        `json:"task_uuid"`
	FileName      string        `json:"file_name"`
	Campaign      string        `json:"campaign"`
	AgentID       string        `json:"agent_id"`
	ValidatorID   string        `json:"validator_id"`
	AuditRevision int           `json:"audit_revision"`
	ScoreBefore   float64       `json:"score_before"`
	Status        string        `json:"status"`
	Items         []DisputeItem `json:"items"`
	OpenedAt      time.Time     `json:"opened_at"`
	ResolvedBy    string        `json:"resolved_by,omitempty"`
	ResolverName  string        `json:"resolver_name,omitempty"`
	ResolvedAt    *time.Time    `json:"resolved_at,omitempty"`
	// EditID is the audit edit of the accepted criteria, 0 for none.
	EditID     int64    `json:"-"`
	EditStatus string   `json:"edit_status,omitempty"`
	Revision   *int     `json:"revision,omitempty"`
	ScoreAfter *float64 `json:"score_after,omitempty"`
}

// DisputeNew is a dispute to open.
type DisputeNew struct {
	TaskUUID      string
	AgentID       string
	ValidatorID   string
	AuditRevision int
	Items         []DisputeItem
}

const disputeColumns = `d.id, d.task_uuid, t.file_name, c.name, d.agent_id, d.validator_id, d.audit_revision,
	r0.score::float8, d.status, d.items, d.opened_at, COALESCE(d.resolved_by, ''), COALESCE(d.resolver_name, ''),
	d.resolved_at, COALESCE(d.edit_id, 0), COALESCE(e.status, ''), e.revision, r1.score::float8`

const disputeFrom = ` FROM disputes d
	JOIN tasks t ON t.uuid = d.task_uuid
	JOIN campaigns c ON c.id = t.campaign_id
	JOIN audit_revisions r0 ON r0.task_uuid = d.task_uuid AND r0.revision = d.audit_revision
	LEFT JOIN audit_edits e ON e.id = d.edit_id
	LEFT JOIN audit_revisions r1 ON r1.task_uuid = d.task_uuid AND r1.revision = e.revision`

func scanDispute(row pgx.Row) (Dispute, error) {
	var d Dispute
	var items []byte
	err := row.Scan(&d.ID, &d.TaskUUID, &d.FileName, &d.Campaign, &d.AgentID, &d.ValidatorID, &d.AuditRevision,
		&d.ScoreBefore, &d.Status, &items, &d.OpenedAt, &d.ResolvedBy, &d.ResolverName,
		&d.ResolvedAt, &d.EditID, &d.EditStatus, &d.Revision, &d.ScoreAfter)
	if err != nil {
		return Dispute{}, err
	}
	return d, json.Unmarshal(items, &d.Items)
}

func collectDisputes(rows pgx.Rows, err error) ([]Dispute, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Dispute, error) { return scanDispute(row) })
}

// disputeMissing is what a dispute that does not exist, or that the
// caller may not see, is: the same NotFound.
func disputeMissing(err error, id string) error { return one(err, "no dispute %s", id) }

// DisputeInsert opens n and returns it. A task has at most one open
// dispute: another is a Conflict error.
func DisputeInsert(ctx context.Context, tx pgx.Tx, n DisputeNew) (Dispute, error) {
	items, err := json.Marshal(n.Items)
	if err != nil {
		return Dispute{}, err
	}
	var id string
	err = tx.QueryRow(ctx, `INSERT INTO disputes (task_uuid, agent_id, validator_id, audit_revision, items)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, n.TaskUUID, n.AgentID, n.ValidatorID, n.AuditRevision, items).Scan(&id)
	if err != nil {
		return Dispute{}, unique(err, "task "+n.TaskUUID+" has an open dispute already; wait for its outcome")
	}
	return DisputeGet(ctx, tx, id)
}

// DisputeGet returns dispute id, or a NotFound error.
func DisputeGet(ctx context.Context, q DBTX, id string) (Dispute, error) {
	d, err := scanDispute(q.QueryRow(ctx, `SELECT `+disputeColumns+disputeFrom+` WHERE d.id = $1`, id))
	return d, disputeMissing(err, id)
}

// DisputeLock returns dispute id locked for the rest of tx, or a NotFound
// error: resolutions of one dispute happen one after the other.
func DisputeLock(ctx context.Context, tx pgx.Tx, id string) (Dispute, error) {
	d, err := scanDispute(tx.QueryRow(ctx, `SELECT `+disputeColumns+disputeFrom+` WHERE d.id = $1 FOR UPDATE OF d`, id))
	return d, disputeMissing(err, id)
}

// DisputeResolve records the resolution of open dispute id: its status,
// its items with their decisions, the resolver and the edit of the
// accepted criteria (0 for none). It returns the dispute as it then is.
// Lock it first (DisputeLock).
func DisputeResolve(ctx context.Context, tx pgx.Tx, id, status string, items []DisputeItem, resolverID, resolverName string, editID int64) (Dispute, error) {
	raw, err := json.Marshal(items)
	if err != nil {
		return Dispute{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE disputes SET status = $2, items = $3, resolved_by = $4, resolver_name = NULLIF($5, ''),
		resolved_at = now(), edit_id = NULLIF($6, 0) WHERE id = $1 AND status = 'open'`,
		id, status, raw, resolverID, resolverName, editID); err != nil {
		return Dispute{}, err
	}
	return DisputeGet(ctx, tx, id)
}

// DisputesOfTask returns the disputes of task uuid, oldest first.
func DisputesOfTask(ctx context.Context, q DBTX, uuid string) ([]Dispute, error) {
	return collectDisputes(q.Query(ctx, `SELECT `+disputeColumns+disputeFrom+` WHERE d.task_uuid = $1 ORDER BY d.opened_at, d.id`, uuid))
}

// DisputeFilter selects disputes; zero fields select everything.
type DisputeFilter struct {
	// Status is open, accepted or rejected.
	Status string
	// AgentID keeps an agent's disputes; ValidatorID those of the audits a
	// user validated.
	AgentID     string
	ValidatorID string
	TaskUUID    string
	// CampaignID keeps the disputes of a campaign's tasks.
	CampaignID  string
	Skip, Limit int
}

// DisputeList returns a page of the disputes f selects in v's view, and
// how many it selects: open ones oldest first (a queue), the others newest
// first. A dispute tells its audit's score and verdicts: those of a task
// whose audit is hidden from v are left out.
func DisputeList(ctx context.Context, q DBTX, v visibility.Viewer, f DisputeFilter) ([]Dispute, int, error) {
	where := ` WHERE ($1 = '' OR d.status = $1) AND ($2 = '' OR d.agent_id = $2) AND ($3 = '' OR d.validator_id = $3)
		AND ($4 = '' OR d.task_uuid = NULLIF($4, '')::uuid)
		AND ($5 = '' OR EXISTS (SELECT 1 FROM tasks t WHERE t.uuid = d.task_uuid AND t.campaign_id = NULLIF($5, '')::uuid))`
	if v.HidesAny() {
		where += ` AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.uuid = d.task_uuid AND ` + v.AuditHiddenSQL("t") + `)`
	}
	args := []any{f.Status, f.AgentID, f.ValidatorID, f.TaskUUID, f.CampaignID}
	var total int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM disputes d`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := ` ORDER BY d.opened_at DESC, d.id DESC`
	if f.Status == DisputeOpen {
		order = ` ORDER BY d.opened_at, d.id`
	}
	items, err := collectDisputes(q.Query(ctx, `SELECT `+disputeColumns+disputeFrom+where+order+` OFFSET $6 LIMIT $7`,
		append(args, f.Skip, f.Limit)...))
	return items, total, err
}

// disputeAudience is who may see events about a task's disputes and
// acknowledgement: its agent, and quality and above (who read every task).
func disputeAudience(agentID string) Audience {
	quality := role.Quality
	return Audience{UserID: agentID, MinRole: &quality}
}

// DisputeEventInsert writes event typ about d, in the transaction that
// changed it.
func DisputeEventInsert(ctx context.Context, q DBTX, typ string, d Dispute) error {
	return EventInsert(ctx, q, typ, disputeAudience(d.AgentID), d)
}
