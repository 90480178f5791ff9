package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/role"
)

// EventChannel is the NOTIFY channel that carries new event ids.
const EventChannel = "auditd_events"

// eventsLockID serialises event writers so ids commit in increasing order.
const eventsLockID = 0x65766e74 // "evnt"

// Event is a change a client may show, as stored.
type Event struct {
	ID   int64
	Type string
	// UserID is the user the event concerns ("" for none).
	UserID string
	// MinRole, when set, lets every user of at least that role see it;
	// role.None means everyone.
	MinRole   *role.Role
	Data      json.RawMessage
	CreatedAt time.Time
}

// VisibleTo reports whether a user with id and role r may see e.
func (e Event) VisibleTo(id string, r role.Role) bool {
	return (e.UserID != "" && e.UserID == id) || (e.MinRole != nil && r >= *e.MinRole)
}

// Audience says who may see an event.
type Audience struct {
	// UserID is the user the event is for, if any.
	UserID string
	// MinRole lets every user of at least this role see it too (nil: nobody else).
	MinRole *role.Role
}

// Everyone is the audience of global events.
func Everyone() Audience {
	r := role.None
	return Audience{MinRole: &r}
}

// EventInsert records an event of type typ with data (marshalled to JSON) for
// audience, and notifies listeners with its id at commit. Call it in the
// transaction that makes the change, as late as possible: it holds a lock
// that orders event writers until that transaction ends.
func EventInsert(ctx context.Context, q DBTX, typ string, audience Audience, data any) (int64, error) {
	payload, err := json.Marshal(data)
	if err != nil {
		return 0, fmt.Errorf("event %s: %w", typ, err)
	}
	var uid *string
	if audience.UserID != "" {
		uid = &audience.UserID
	}
	var rank *int16
	if audience.MinRole != nil {
		r := int16(*audience.MinRole)
		rank = &r
	}
	// One statement, so the lock is taken before the id even outside an
	// explicit transaction.
	var id int64
	err = q.QueryRow(ctx, `
		WITH lock AS (SELECT pg_advisory_xact_lock($1)),
		ins AS (
			INSERT INTO events (type, user_id, min_rank, data)
			SELECT $2, $3, $4, $5 FROM lock
			RETURNING id
		)
		SELECT id FROM ins, pg_notify($6, id::text)`,
		eventsLockID, typ, uid, rank, payload, EventChannel).Scan(&id)
	return id, err
}

const eventColumns = `id, type, COALESCE(user_id, ''), min_rank, data, created_at`

func scanEvents(rows pgx.Rows) ([]Event, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Event, error) {
		var e Event
		var rank *int16
		err := row.Scan(&e.ID, &e.Type, &e.UserID, &rank, &e.Data, &e.CreatedAt)
		if rank != nil {
			r := role.Role(*rank)
			e.MinRole = &r
		}
		return e, err
	})
}

// EventsAfter returns up to limit events with ids above after, oldest first.
func EventsAfter(ctx context.Context, q DBTX, after int64, limit int) ([]Event, error) {
	rows, err := q.Query(ctx, `SELECT `+eventColumns+` FROM events WHERE id > $1 ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, err
	}
	return scanEvents(rows)
}

// EventsAfterFor returns up to limit events with ids in (after, upTo] that
// user id with role r may see, oldest first.
func EventsAfterFor(ctx context.Context, q DBTX, after, upTo int64, id string, r role.Role, limit int) ([]Event, error) {
	rows, err := q.Query(ctx, `
		SELECT `+eventColumns+` FROM events
		WHERE id > $1 AND id <= $2 AND (user_id = $3 OR min_rank <= $4)
		ORDER BY id LIMIT $5`, after, upTo, id, int16(r), limit)
	if err != nil {
		return nil, err
	}
	return scanEvents(rows)
}

// EventLastID returns the id of the newest event, or 0 when there is none.
func EventLastID(ctx context.Context, q DBTX) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT COALESCE(max(id), 0) FROM events`).Scan(&id)
	return id, err
}

// EventsPrune deletes events created before cutoff and returns how many.
func EventsPrune(ctx context.Context, q DBTX, cutoff time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM events WHERE created_at < $1`, cutoff)
	return tag.RowsAffected(), err
}
