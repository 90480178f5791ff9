package api

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// Hub defaults.
const (
	// hubBatch is how many events the hub reads from the table at a time.
	hubBatch = 1000
	// hubPoll bounds how long the hub waits for a notification before it
	// looks at the table anyway (a safety net; NOTIFY normally wakes it).
	hubPoll = 30 * time.Second
	// subscriberBuffer is how many events a stream may fall behind before
	// it is disconnected (it resumes with Last-Event-ID).
	subscriberBuffer = 256
	// listenerAppName identifies the hub's connection in pg_stat_activity.
	listenerAppName = "auditd-events-listener"
	// revokeEvery is how often the hub ends the streams of users who have
	// been deactivated (by an admin or a directory sync) since they
	// connected; their reconnection is then refused.
	revokeEvery = 10 * time.Second
)

// Hub fans events out to the SSE streams of one API process. It holds one
// Postgres connection that LISTENs for new event ids and reads the events
// table in id order; ids commit in order (db.EventInsert), so reading
// "after the last id delivered" loses nothing. When the connection drops
// it reconnects and catches up from the table.
type Hub struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu     sync.Mutex
	last   int64 // id of the last event dispatched
	subs   map[*subscriber]struct{}
	closed bool
	ready  chan struct{} // closed once last is known
}

// subscriber is one stream's mailbox.
type subscriber struct {
	userID string
	role   role.Role
	ch     chan *frame // closed when the stream must end (too slow, user deactivated, or shutdown)
}

// NewHub returns a hub reading events through pool's database. Call Run.
func NewHub(pool *pgxpool.Pool, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.Default()
	}
	return &Hub{pool: pool, log: log, subs: map[*subscriber]struct{}{}, ready: make(chan struct{})}
}

// Run listens and dispatches until ctx ends, reconnecting with backoff when
// the connection fails. It returns nil when ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	revoking := make(chan struct{})
	go func() { h.revokeLoop(ctx); close(revoking) }()
	defer func() { <-revoking }()
	const minBackoff = 100 * time.Millisecond
	backoff := minBackoff
	for ctx.Err() == nil {
		connected, err := h.listen(ctx)
		if ctx.Err() != nil {
			break
		}
		if connected {
			backoff = minBackoff
		}
		h.log.Warn("events listener lost its connection; reconnecting", "error", err, "backoff", backoff.String())
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	h.Close()
	return nil
}

// listen runs one connection's life: LISTEN, catch up, then dispatch on
// every notification. It reports whether it got as far as listening.
func (h *Hub) listen(ctx context.Context) (bool, error) {
	cfg := h.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = listenerAppName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+db.EventChannel); err != nil {
		return false, err
	}
	if !h.started() {
		// First connection: start from now; earlier events are replayed
		// per stream from the table (Last-Event-ID), not broadcast.
		last, err := db.EventLastID(ctx, conn)
		if err != nil {
			return true, err
		}
		h.start(last)
	}
	// Anything committed while no connection listened is in the table.
	if err := h.catchUp(ctx, conn); err != nil {
		return true, err
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, hubPoll)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return true, nil
		case errors.Is(err, context.DeadlineExceeded):
		case err != nil:
			return true, err
		default:
			if id, perr := strconv.ParseInt(n.Payload, 10, 64); perr == nil && id <= h.lastID() {
				continue
			}
		}
		if err := h.catchUp(ctx, conn); err != nil {
			return true, err
		}
	}
}

func (h *Hub) started() bool {
	select {
	case <-h.ready:
		return true
	default:
		return false
	}
}

// start sets where dispatching begins and lets subscribers in.
func (h *Hub) start(last int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.started() {
		h.last = last
		close(h.ready)
	}
}

func (h *Hub) lastID() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// catchUp dispatches every event after the last one dispatched.
func (h *Hub) catchUp(ctx context.Context, conn *pgx.Conn) error {
	for {
		events, err := db.EventsAfter(ctx, conn, h.lastID(), hubBatch)
		if err != nil {
			return err
		}
		for _, e := range events {
			h.dispatch(newFrame(e))
		}
		if len(events) < hubBatch {
			return nil
		}
	}
}

// dispatch hands f to every subscriber who may see it. A subscriber whose
// buffer is full is dropped: a slow client never slows the others.
func (h *Hub) dispatch(f *frame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = f.ID
	for s := range h.subs {
		if !f.VisibleTo(s.userID, s.role) {
			continue
		}
		select {
		case s.ch <- f:
		default:
			delete(h.subs, s)
			close(s.ch)
		}
	}
}

// subscribe registers a stream for user id with role r. It returns the
// subscriber and the id of the last event dispatched before it: every
// later event the user may see arrives on the subscriber's channel. It
// waits until the hub knows where it starts, at most hubStartWait: a hub
// that cannot read the database yet refuses the stream (the client comes
// back) rather than hold it.
func (h *Hub) subscribe(ctx context.Context, id string, r role.Role) (*subscriber, int64, error) {
	wait := time.NewTimer(hubStartWait)
	defer wait.Stop()
	select {
	case <-h.ready:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	case <-wait.C:
		return nil, 0, errHubNotStarted
	}
	s := &subscriber{userID: id, role: r, ch: make(chan *frame, subscriberBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, 0, errHubClosed
	}
	h.subs[s] = struct{}{}
	return s, h.last, nil
}

// unsubscribe removes s if the hub has not dropped it already.
func (h *Hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.ch)
	}
}

// revokeLoop ends, every revokeEvery until ctx ends, the streams of users
// who are no longer active. One query per sweep covers every stream.
func (h *Hub) revokeLoop(ctx context.Context) {
	t := time.NewTicker(revokeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := h.revoke(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("cannot check whether streaming users are still active", "error", err)
		}
	}
}

// revoke ends the streams of the subscribers whose users are inactive.
func (h *Hub) revoke(ctx context.Context) error {
	h.mu.Lock()
	users := map[string]bool{}
	for s := range h.subs {
		users[s.userID] = true
	}
	h.mu.Unlock()
	ids := slices.Collect(maps.Keys(users))
	if len(ids) == 0 {
		return nil
	}
	gone, err := db.UsersInactive(ctx, h.pool, ids)
	if err != nil || len(gone) == 0 {
		return err
	}
	revoked := map[string]bool{}
	for _, id := range gone {
		revoked[id] = true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if revoked[s.userID] {
			delete(h.subs, s)
			close(s.ch)
		}
	}
	return nil
}

// Subscribers returns how many streams are open.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every stream and refuses new ones; used at shutdown so open
// streams do not hold the HTTP server's drain.
func (h *Hub) Close() {
	h.start(0) // release subscribers still waiting for a start
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		close(s.ch)
	}
}

var errHubClosed = errors.New("the server is shutting down")

// errHubNotStarted is a stream refused because the hub has not read where
// events stand yet (the database cannot be read).
var errHubNotStarted = errors.New("the events cannot be read yet; try again shortly")

// hubStartWait bounds how long a new stream waits for the hub to start.
const hubStartWait = 5 * time.Second
