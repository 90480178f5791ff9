package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

type sseEvent struct {
	ID   int64
	Type string
	Data map[string]any
}

// sseClient reads one event stream into a channel.
type sseClient struct {
	events chan sseEvent
	done   chan error // receives when the stream ends
	cancel context.CancelFunc
	proto  int // the HTTP version's major number
}

func openStream(t *testing.T, baseURL, path string, headers ...string) *sseClient {
	t.Helper()
	return openStreamWith(t, http.DefaultClient, baseURL, path, headers...)
}

func openStreamWith(t *testing.T, client *http.Client, baseURL, path string, headers ...string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := client.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	require.NotEmpty(t, res.Header.Get("X-Request-Id"))
	require.Equal(t, "no", res.Header.Get("X-Accel-Buffering"))
	c := &sseClient{events: make(chan sseEvent, 10000), done: make(chan error, 1), cancel: cancel, proto: res.ProtoMajor}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		var data strings.Builder
		sawRetry := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "retry: "):
				sawRetry = true
			case strings.HasPrefix(line, "id: "):
				ev.ID, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
			case strings.HasPrefix(line, "event: "):
				ev.Type = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data.WriteString(strings.TrimPrefix(line, "data: "))
			case line == "" && ev.Type != "":
				if !sawRetry {
					c.done <- fmt.Errorf("event before retry:")
					return
				}
				_ = json.Unmarshal([]byte(data.String()), &ev.Data)
				c.events <- ev
				ev, data = sseEvent{}, strings.Builder{}
			}
		}
		c.done <- sc.Err()
	}()
	t.Cleanup(cancel)
	return c
}

func (c *sseClient) next(t *testing.T) sseEvent {
	t.Helper()
	select {
	case ev := <-c.events:
		return ev
	case err := <-c.done:
		t.Fatalf("stream ended: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no event within 20s")
	}
	return sseEvent{}
}

// stream opens the caller's event stream on b's server.
func (b *testBundle) stream(t *testing.T, token string, headers ...string) *sseClient {
	return openStream(t, b.http.URL, "/notifications/events", append([]string{"Authorization", "Bearer " + token}, headers...)...)
}

// Over HTTP/1.1 a stream takes its connection over from the server, so an
// idle one costs little; over HTTP/2, where it cannot, it is served through
// the response as long as it is open. Both deliver the same events, and
// end when the client leaves.
func TestStreamOverHTTP1AndHTTP2(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, root := b.users(t)
	h2 := httptest.NewUnstartedServer(b.server)
	h2.EnableHTTP2 = true
	h2.StartTLS()
	t.Cleanup(h2.Close)
	streams := []*sseClient{
		b.stream(t, alice),
		openStreamWith(t, h2.Client(), h2.URL, "/notifications/events", "Authorization", "Bearer "+alice),
	}
	require.Equal(t, 1, streams[0].proto)
	require.Equal(t, 2, streams[1].proto)
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/notifications", root,
		map[string]any{"text": "to both", "variant": "info", "user_id": "alice"}).Status)
	for _, c := range streams {
		ev := c.next(t)
		require.Equal(t, db.EventNotificationCreated, ev.Type)
		require.Equal(t, "to both", ev.Data["text"])
	}
	require.Equal(t, 2, b.hub.Subscribers())
	streams[1].cancel()
	require.Eventually(t, func() bool { return b.hub.Subscribers() == 1 }, 10*time.Second, 10*time.Millisecond,
		"the HTTP/2 stream ended with its request")
}

func TestStreamAcrossProcessesAndResume(t *testing.T) {
	t.Parallel()
	a := setup(t)
	alice, _, root := a.users(t)
	// A second API process: its own hub, its own listening connection.
	_, httpB, _ := newServer(t, a.pool, func(string) Options { return Options{Auth: a.server.opts.Auth} })
	onB := openStream(t, httpB.URL, "/notifications/events?access_token="+alice)

	first := a.notify(t, root, map[string]any{"text": "one", "variant": "info", "user_id": "alice"})
	a.notify(t, root, map[string]any{"text": "not yours", "variant": "info", "user_id": "bob"})
	global := a.notify(t, root, map[string]any{"text": "all", "variant": "warning", "is_global": true})

	ev := onB.next(t)
	require.Equal(t, "notification.created", ev.Type)
	require.Equal(t, first, ev.Data["id"])
	require.Equal(t, "one", ev.Data["text"])
	ev2 := onB.next(t)
	require.Equal(t, global, ev2.Data["id"], "bob's notification never reaches alice")
	require.Greater(t, ev2.ID, ev.ID)

	// Disconnect, miss some events, resume: exactly the missed ones.
	onB.cancel()
	var missed []string
	for i := range 3 {
		missed = append(missed, a.notify(t, root, map[string]any{"text": fmt.Sprint("missed ", i), "variant": "info", "user_id": "alice"}))
		a.notify(t, root, map[string]any{"text": "bob again", "variant": "info", "user_id": "bob"})
	}
	r := a.json(t, http.MethodPatch, "/notifications/"+global, alice, nil)
	require.Equal(t, http.StatusOK, r.Status)

	resumed := openStream(t, httpB.URL, "/notifications/events", "Authorization", "Bearer "+alice, "Last-Event-ID", strconv.FormatInt(ev2.ID, 10))
	for _, id := range missed {
		ev := resumed.next(t)
		require.Equal(t, "notification.created", ev.Type)
		require.Equal(t, id, ev.Data["id"])
	}
	upd := resumed.next(t)
	require.Equal(t, "notification.updated", upd.Type)
	require.Equal(t, true, upd.Data["read"])
	// Then live.
	live := a.notify(t, root, map[string]any{"text": "live", "variant": "info", "user_id": "alice"})
	require.Equal(t, live, resumed.next(t).Data["id"])

	// The same through the query parameter, on the first process.
	q := openStream(t, a.http.URL, fmt.Sprintf("/notifications/events?access_token=%s&last_event_id=%d", alice, ev2.ID))
	require.Equal(t, missed[0], q.next(t).Data["id"])

	// Deletions reach the owner's stream.
	require.Equal(t, http.StatusOK, a.do(t, http.MethodDelete, "/notifications/"+live, alice, nil).Status)
	for {
		ev := resumed.next(t)
		if ev.Type == "notification.deleted" {
			require.Equal(t, live, ev.Data["id"])
			break
		}
	}
}

func TestStreamRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	requireError(t, b.do(t, http.MethodGet, "/notifications/events", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodGet, "/notifications/events?access_token=garbage", "", nil), http.StatusUnauthorized, CodeUnauthorized)
	// The query token is accepted only on the stream.
	requireError(t, b.do(t, http.MethodGet, "/users/me?access_token="+alice, "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	r := b.do(t, http.MethodGet, "/notifications/events", alice, nil, "Last-Event-ID", "yesterday")
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"header.Last-Event-ID"`)
	r = b.do(t, http.MethodGet, "/notifications/events?last_event_id=-4", alice, nil)
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"query.last_event_id"`)
}

func TestStreamEndsWhenTokenExpires(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.issuer.claims("shortlived")
	c["exp"] = time.Now().Add(2 * time.Second).Unix()
	s := b.stream(t, b.issuer.sign(t, c))
	select {
	case err := <-s.done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("stream outlived its token")
	}
}

// A user deactivated while streaming loses the stream within 30 s (the
// hub's sweep) and cannot reconnect; another user's stream goes on.
func TestStreamEndsWhenUserDeactivated(t *testing.T) {
	t.Parallel()
	b := setup(t)
	gone, stays := b.issuer.token(t, "leaver", "analyst"), b.issuer.token(t, "stayer", "analyst")
	s, other := b.stream(t, gone), b.stream(t, stays)
	_, err := b.pool.Exec(context.Background(), "UPDATE users SET active = false WHERE id = 'leaver'")
	require.NoError(t, err)
	select {
	case err := <-s.done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("a deactivated user kept their stream")
	}
	requireError(t, b.do(t, http.MethodGet, "/notifications/events", gone, nil), http.StatusUnauthorized, CodeUnauthorized)
	select {
	case err := <-other.done:
		t.Fatalf("an active user's stream ended: %v", err)
	default:
	}
}

// The listener's backend is killed again and again while events are
// written: every event still arrives, in order, exactly once.
func TestStreamSurvivesListenerKills(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	s := b.stream(t, alice)
	ctx := context.Background()

	const total, kills = 200, 8
	// listening reports whether a listener other than the killed one is up.
	listening := func(killedPID int) bool {
		var n int
		err := b.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND datname = current_database() AND pid <> $2`, listenerAppName, killedPID).Scan(&n)
		return err == nil && n > 0
	}
	written := make(chan error, 1)
	killed, killedPID := 0, 0
	go func() {
		for i := range total {
			err := db.EventInsert(ctx, b.pool, "probe", db.Audience{UserID: "alice"}, map[string]int{"n": i})
			if err != nil {
				written <- err
				return
			}
			// Every 25 events the listener is killed; the next ones are
			// written while it is down, then it must come back.
			switch i % 25 {
			case 0:
				err := b.pool.QueryRow(ctx, `SELECT pid FROM pg_stat_activity, pg_terminate_backend(pid)
					WHERE application_name = $1 AND datname = current_database()`, listenerAppName).Scan(&killedPID)
				if err != nil {
					written <- err
					return
				}
				killed++
			case 12:
				tick := time.NewTicker(10 * time.Millisecond)
				for !listening(killedPID) {
					<-tick.C
				}
				tick.Stop()
			}
		}
		written <- nil
	}()
	var last int64
	for i := range total {
		ev := s.next(t)
		require.Equal(t, "probe", ev.Type)
		require.Equal(t, float64(i), ev.Data["n"])
		require.Greater(t, ev.ID, last)
		last = ev.ID
	}
	require.NoError(t, <-written)
	require.Equal(t, kills, killed, "the listener was killed and came back each time")
	select {
	case ev := <-s.events:
		t.Fatalf("unexpected extra event %+v", ev)
	default:
	}
}

// A subscriber that does not keep up is dropped; the others are not slowed.
func TestHubDropsSlowSubscriber(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	slow, _, err := b.hub.subscribe(ctx, "slow", role.Operator)
	require.NoError(t, err)
	fast, _, err := b.hub.subscribe(ctx, "fast", role.Operator)
	require.NoError(t, err)
	everyone := role.None
	for i := range subscriberBuffer + 10 {
		b.hub.dispatch(newFrame(db.Event{ID: int64(1_000_000 + i), Type: "x", MinRole: &everyone, Data: []byte(`{}`)}))
		<-fast.ch
	}
	for range subscriberBuffer {
		<-slow.ch
	}
	_, open := <-slow.ch
	require.False(t, open, "the slow subscriber's channel is closed")
	require.Equal(t, 1, b.hub.Subscribers())
}
