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

// EventNew is an event to record: its type, who may see it and its data
// (marshalled to JSON).
type EventNew struct {
	Type     string
	Audience Audience
	Data     any
}

// EventInsert records an event of type typ with data (marshalled to JSON)
// for audience, in the transaction that makes the change.
func EventInsert(ctx context.Context, q DBTX, typ string, audience Audience, data any) error {
	return EventsInsert(ctx, q, EventNew{Type: typ, Audience: audience, Data: data})
}

// EventsInsert records events in one statement, in their order. They are
// written to the outbox and take their ids when the transaction commits
// (migration 00015), so that ids commit in increasing order; listeners are
// notified of them then.
func EventsInsert(ctx context.Context, q DBTX, events ...EventNew) error {
	if len(events) == 0 {
		return nil
	}
	types := make([]string, len(events))
	users := make([]*string, len(events))
	ranks := make([]*int16, len(events))
	payloads := make([][]byte, len(events))
	for i, e := range events {
		payload, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("event %s: %w", e.Type, err)
		}
		types[i], payloads[i] = e.Type, payload
		if e.Audience.UserID != "" {
			users[i] = &e.Audience.UserID
		}
		if e.Audience.MinRole != nil {
			r := int16(*e.Audience.MinRole)
			ranks[i] = &r
		}
	}
	_, err := q.Exec(ctx, `
		INSERT INTO event_outbox (type, user_id, min_rank, data)
		SELECT type, user_id, min_rank, data
		FROM unnest($1::text[], $2::text[], $3::smallint[], $4::jsonb[]) WITH ORDINALITY AS e (type, user_id, min_rank, data, n)
		ORDER BY n`, types, users, ranks, payloads)
	return err
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
