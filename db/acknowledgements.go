package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Acknowledgement is an agent's acknowledgement of their task's
// evaluation, as its audit.acknowledged event carries it (stored JSON).
type Acknowledgement struct {
	TaskUUID       string    `json:"task_uuid"`
	AgentID        string    `json:"agent_id"`
	AuditRevision  int       `json:"audit_revision"`
	AcknowledgedAt time.Time `json:"acknowledged_at"`
}

const acknowledgementColumns = `task_uuid, agent_id, audit_revision, acknowledged_at`

func scanAcknowledgement(row pgx.Row) (Acknowledgement, error) {
	var a Acknowledgement
	err := row.Scan(&a.TaskUUID, &a.AgentID, &a.AuditRevision, &a.AcknowledgedAt)
	return a, err
}

// AcknowledgementInsert records that agentID acknowledged revision of
// task uuid's audit. A task is acknowledged once: again is a Conflict
// error.
func AcknowledgementInsert(ctx context.Context, tx pgx.Tx, uuid, agentID string, revision int) (Acknowledgement, error) {
	a, err := scanAcknowledgement(tx.QueryRow(ctx, `INSERT INTO acknowledgements (task_uuid, agent_id, audit_revision)
		VALUES ($1, $2, $3) RETURNING `+acknowledgementColumns, uuid, agentID, revision))
	return a, unique(err, "task "+uuid+"'s evaluation is acknowledged already")
}

// AcknowledgementGet returns task uuid's acknowledgement, or a NotFound
// error when it has none.
func AcknowledgementGet(ctx context.Context, q DBTX, uuid string) (Acknowledgement, error) {
	a, err := scanAcknowledgement(q.QueryRow(ctx, `SELECT `+acknowledgementColumns+` FROM acknowledgements WHERE task_uuid = $1`, uuid))
	return a, one(err, "task %s is not acknowledged", uuid)
}

// AcknowledgementEventInsert writes the audit.acknowledged event of a,
// in the transaction that recorded it.
func AcknowledgementEventInsert(ctx context.Context, q DBTX, a Acknowledgement) error {
	return EventInsert(ctx, q, EventAuditAcknowledged, disputeAudience(a.AgentID), a)
}
