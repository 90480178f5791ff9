package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// Stream settings.
const (
	heartbeatEvery = 15 * time.Second
	// retryMillis is the reconnection delay the stream asks clients for.
	retryMillis = 3000
	// writeTimeout bounds one write to a client; a stuck client is dropped.
	writeTimeout = 10 * time.Second
	// replayBatch is how many missed events are read at a time on resume.
	replayBatch = 500
)

type eventsResource struct {
	pool *pgxpool.Pool
	hub  *Hub
}

type streamInput struct {
	LastEventID string `header:"Last-Event-ID" doc:"Resume after this event id (sent by EventSource on reconnect)"`
	LastID      string `query:"last_event_id" doc:"Resume after this event id (alternative to the header)"`
	AccessToken string `query:"access_token" doc:"The access token, for clients that cannot send headers (EventSource)"`
}

func (e *eventsResource) register(api huma.API) {
	op := operation(http.MethodGet, "/notifications/events", "stream-events", "Stream real-time events (SSE)",
		role.None, http.StatusBadRequest)
	op.Description += " A `text/event-stream` of every change the caller may see: their own and global " +
		"notifications (`notification.created`, `notification.updated`, `notification.deleted`, " +
		"`notification.cleared`) and task changes. Each message has `id:` (the event id), `event:` (its type) and " +
		"`data:` (JSON of the resource). A comment heartbeat comes every 15 s. Reconnect with `Last-Event-ID` " +
		"(or `last_event_id`) to receive exactly what was missed. The token may be sent as the `access_token` " +
		"query parameter (EventSource cannot send headers); the stream ends when the token expires."
	op.Tags = []string{"notifications"}
	op.Metadata[metaQueryToken] = true
	op.Responses = map[string]*huma.Response{"200": {
		Description: "An event stream",
		Content:     map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{Type: "string"}}},
	}}
	huma.Register(api, op, e.stream)
}

func (e *eventsResource) stream(ctx context.Context, in *streamInput) (*huma.StreamResponse, error) {
	after := int64(-1) // no resume: live events only
	for _, v := range []struct{ value, name, location string }{
		{in.LastEventID, "Last-Event-ID", "header.Last-Event-ID"},
		{in.LastID, "last_event_id", "query.last_event_id"},
	} {
		if v.value == "" {
			continue
		}
		id, err := strconv.ParseInt(v.value, 10, 64)
		if err != nil || id < 0 {
			return nil, Errorf(CodeValidation, v.name+" must be an event id (a non-negative integer)").
				WithDetail(v.location, "not an event id", v.value)
		}
		after = id
	}
	p := principal(ctx)
	sub, hubLast, err := e.hub.subscribe(ctx, p.User.ID, p.Role)
	if err != nil {
		logger(ctx).InfoContext(ctx, "event stream refused", "error", err)
		return nil, Errorf(CodeServiceUnavailable, "the event stream is not available yet; reconnect shortly")
	}
	// Read after subscribing: a session that starts in between is in what
	// is read, or its calibration.updated event comes after.
	blind := &blindness{pool: e.pool, user: p.User.ID, role: p.Role, on: p.Is(role.Quality)}
	if err := blind.load(ctx); err != nil {
		e.hub.unsubscribe(sub)
		return nil, Errorf(CodeServiceUnavailable, "the event stream is not available: the calibration sessions could not be read")
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w := unwrap(hctx)
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("X-Accel-Buffering", "no")
		s, detached := e.open(w)
		end := func() {
			e.hub.unsubscribe(sub)
			s.close()
		}
		if s.retry() != nil {
			end()
			return
		}
		sent := hubLast
		if after >= 0 {
			if sent, err = e.replay(ctx, s, p, blind, after, hubLast); err != nil {
				logger(ctx).InfoContext(ctx, "event stream replay ended", "error", err)
				end()
				return
			}
		}
		if !detached {
			defer end()
			e.live(r.Context(), s, sub, blind, sent, p.Expiry)
			return
		}
		// The handler returns, and with it the server's goroutine for the
		// connection, its stack and buffers: an idle stream costs one small
		// goroutine and its socket.
		go func() {
			defer end()
			e.live(context.Background(), s, sub, blind, sent, p.Expiry)
		}()
	}}, nil
}

// open starts the response: on an HTTP/1.x connection it takes the
// connection over from the server (detached: the stream outlives the
// handler, and ends the response by closing the connection); otherwise it
// streams through w, as long as the handler runs.
func (e *eventsResource) open(w http.ResponseWriter) (*sseWriter, bool) {
	rc := http.NewResponseController(w)
	conn, _, err := rc.Hijack()
	if err != nil {
		w.WriteHeader(http.StatusOK)
		return &sseWriter{w: w, deadline: rc.SetWriteDeadline, flush: rc.Flush}, false
	}
	// The body runs until the connection closes: no length, no chunks.
	w.Header().Set("Connection", "close")
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	_ = w.Header().Write(&head)
	head.WriteString("\r\n")
	s := &sseWriter{w: conn, deadline: conn.SetWriteDeadline, closer: conn.Close, head: head.Bytes()}
	return s, true
}

// replay sends the events in (after, upTo] that p may see (as blind lets
// them) and returns the id of the last one the client now has.
func (e *eventsResource) replay(ctx context.Context, s *sseWriter, p Principal, blind *blindness, after, upTo int64) (int64, error) {
	for after < upTo {
		events, err := db.EventsAfterFor(ctx, e.pool, after, upTo, p.User.ID, p.Role, replayBatch)
		if err != nil {
			return 0, err
		}
		if len(events) == 0 {
			break
		}
		for _, ev := range events {
			if f := blind.frame(ctx, newFrame(ev)); f != nil {
				if err := s.send(f); err != nil {
					return 0, err
				}
			}
		}
		after = events[len(events)-1].ID
	}
	return max(after, upTo), nil
}

// live relays the hub's events (as blind lets them) until the client
// leaves, the token expires, the user is deactivated, the client falls too
// far behind or the server shuts down.
func (e *eventsResource) live(ctx context.Context, s *sseWriter, sub *subscriber, blind *blindness, sent int64, expiry time.Time) {
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	var expired <-chan time.Time
	if !expiry.IsZero() {
		t := time.NewTimer(time.Until(expiry))
		defer t.Stop()
		expired = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-expired:
			_ = s.comment("token expired; reconnect with a fresh token")
			return
		case <-heartbeat.C:
			if s.comment("heartbeat") != nil {
				return
			}
		case ev, open := <-sub.ch:
			if !open {
				// Too slow, or the server is stopping: the client reconnects
				// with Last-Event-ID and loses nothing. Or the user was
				// deactivated: the reconnection is refused.
				return
			}
			if ev.ID <= sent {
				continue
			}
			if f := blind.frame(ctx, ev); f != nil && s.send(f) != nil {
				return
			}
			sent = ev.ID
		}
	}
}

// sseWriter writes Server-Sent Events, each with a write deadline and
// flushed. It writes straight into the connection, or into the server's own
// response buffer: an idle stream should cost as little memory as possible.
type sseWriter struct {
	w        io.Writer
	deadline func(time.Time) error
	flush    func() error // nil: w is the connection
	closer   func() error // nil: the server closes the connection
	head     []byte       // the response's head, not written yet
}

func (s *sseWriter) write(p []byte) error {
	_ = s.deadline(time.Now().Add(writeTimeout))
	if s.head != nil {
		p = append(s.head, p...)
		s.head = nil
	}
	if _, err := s.w.Write(p); err != nil {
		return err
	}
	if s.flush == nil {
		return nil
	}
	if err := s.flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

func (s *sseWriter) retry() error {
	return s.write(fmt.Appendf(nil, "retry: %d\n\n", retryMillis))
}

func (s *sseWriter) comment(text string) error {
	return s.write(fmt.Appendf(nil, ": %s\n\n", text))
}

func (s *sseWriter) send(f *frame) error { return s.write(f.wire) }

// close ends a stream that owns its connection.
func (s *sseWriter) close() {
	if s.closer != nil {
		_ = s.closer()
	}
}

// frame is an event with its SSE encoding, made once however many streams
// it goes to. Frames are shared between streams: read-only.
type frame struct {
	db.Event
	wire []byte
}

// blindness keeps from a user's stream what would tell them the audit of
// a task they calibrate blind (an open calibration session they have still
// to answer), as the task's view and the list do: every event about the
// task (audit.updated, validation, dispute, notification…) is withheld
// but its task events, which carry no score, result or review count. The tasks are read again whenever a calibration
// session of theirs changes (calibration.updated: started, answered,
// closed). Only quality and above take part in sessions.
type blindness struct {
	pool   *pgxpool.Pool
	user   string
	role   role.Role
	on     bool
	viewer visibility.Viewer
}

// load reads the user's view (db.ViewerOf): the tasks they calibrate blind.
func (b *blindness) load(ctx context.Context) error {
	if !b.on {
		return nil
	}
	v, err := db.ViewerOf(ctx, b.pool, b.user, b.role)
	if err != nil {
		return err
	}
	b.viewer = v
	return nil
}

// blind reports whether the user calibrates task uuid blind.
func (b *blindness) blind(uuid string) bool { return b.viewer.BlindTo(visibility.Row{UUID: uuid}) }

// frame returns f as the user may see it; nil to withhold it.
func (b *blindness) frame(ctx context.Context, f *frame) *frame {
	if f.Type == db.EventCalibrationUpdated {
		if err := b.load(ctx); err != nil {
			// The last tasks read stay blind: what they hide stays hidden.
			logger(ctx).WarnContext(ctx, "event stream: reading the tasks calibrated blind", "error", err)
		}
		return f
	}
	if len(b.viewer.Blind) == 0 {
		return f
	}
	var of struct {
		TaskUUID string `json:"task_uuid"`
		Task     struct {
			UUID string `json:"uuid"`
		} `json:"task"`
	}
	if f.Type == db.EventTaskCreated || f.Type == db.EventTaskUpdated {
		var task db.TaskSummary
		if json.Unmarshal(f.Data, &task) != nil {
			return nil
		}
		if !b.blind(task.UUID) {
			return f
		}
		data, err := json.Marshal(task.WithoutAudit())
		if err != nil {
			return nil
		}
		ev := f.Event
		ev.Data = data
		return newFrame(ev)
	}
	// Data that is not an object (a list of ids…) names no task.
	if json.Unmarshal(f.Data, &of) == nil && (b.blind(of.Task.UUID) || b.blind(of.TaskUUID)) {
		return nil
	}
	return f
}

func newFrame(e db.Event) *frame {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %d\nevent: %s\n", e.ID, e.Type)
	for line := range strings.SplitSeq(string(e.Data), "\n") {
		fmt.Fprintf(&b, "data: %s\n", line)
	}
	b.WriteString("\n")
	return &frame{Event: e, wire: []byte(b.String())}
}
