//go:build faults

package faults

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/cmd/auditd/proctest"
)

// cluster is a private Postgres that a test stops and starts
// (scripts/pg.sh, as make run and make test use it), on a Unix socket in
// its directory.
type cluster struct {
	dir string
}

// newCluster starts a cluster and returns it with its URL.
func newCluster(t *testing.T) (*cluster, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "auditd-faults-pg")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755)) // the postgres user owns the cluster beneath
	c := &cluster{dir: dir + "/pg"}
	t.Cleanup(func() {
		_ = exec.Command("../scripts/pg.sh", "stop", c.dir).Run()
		_ = os.RemoveAll(dir)
	})
	return c, c.start(t)
}

func (c *cluster) start(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("../scripts/pg.sh", "start", c.dir, "5432", "test").Output()
	require.NoError(t, err, "pg.sh start")
	return strings.TrimSpace(string(out))
}

func (c *cluster) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, exec.Command("../scripts/pg.sh", "stop", c.dir).Run(), "pg.sh stop")
}

// Postgres restarted while uploads stream in and clients follow the event
// stream: while it is down the API answers 503 SERVICE_UNAVAILABLE, within
// DATABASE_TIMEOUT (the client gives up on anything slower); it recovers
// by itself; an upload that was refused left nothing behind, one that was
// accepted is audited once; and a client that resumes with Last-Event-ID
// has every event it may see, once, in order.
func TestPostgresRestarted(t *testing.T) {
	t.Parallel()
	pg, url := newCluster(t)
	_, stderr, err := proctest.Run(t, bin, proctest.Env(t, "DATABASE_URL="+url), "migrate")
	require.NoError(t, err, stderr)
	const dbTimeout = 2 * time.Second
	s := newStack(t, url, dbTimeout+10*time.Second, "DATABASE_TIMEOUT="+dbTimeout.String(),
		// A job whose completion the database missed runs again after 10 s.
		"TRANSCRIBE_TIMEOUT_MAX=5s", "JOB_RESCUE_AFTER=10s")
	s.start("serve")
	s.start("work")
	files := newContent(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := &follower{s: s, reconnect: make(chan struct{}, 1)}
	streamDone := s.background(func() error { return stream.run(ctx) })

	// Uploads and listings, one after the other, until told to stop.
	var accepted []string
	var refusedUploads, refusedLists atomic.Int64
	var acceptedCount atomic.Int64
	stopLoad := make(chan struct{})
	loadDone := s.background(func() error {
		for n := 0; ; n++ {
			select {
			case <-stopLoad:
				return nil
			default:
			}
			r, err := s.upload(fmt.Sprintf("chat-%d.txt", n), files.chat(n))
			switch {
			case err != nil:
				return fmt.Errorf("upload %d: %w", n, err)
			case r.Status == http.StatusAccepted:
				accepted = append(accepted, r.Body["details"].(map[string]any)["tasks"].([]any)[0].(map[string]any)["uuid"].(string))
				acceptedCount.Add(1)
			case r.Status == http.StatusServiceUnavailable && r.code() == "SERVICE_UNAVAILABLE":
				refusedUploads.Add(1)
			default:
				return fmt.Errorf("upload %d: %d %v", n, r.Status, r.Body)
			}
			r, err = s.request(http.MethodGet, "/tasks?limit=5", "", nil)
			switch {
			case err != nil:
				return fmt.Errorf("list: %w", err)
			case r.Status == http.StatusServiceUnavailable && r.code() == "SERVICE_UNAVAILABLE":
				refusedLists.Add(1)
			case r.Status != http.StatusOK:
				return fmt.Errorf("list: %d %v", r.Status, r.Body)
			}
		}
	})

	s.await(time.Minute, func() bool { return acceptedCount.Load() >= 5 }, "uploads before the restart")
	pg.stop(t)
	stream.reconnect <- struct{}{} // the client comes back while the database is down
	s.await(time.Minute, func() bool {
		return refusedUploads.Load() >= 3 && refusedLists.Load() >= 3 && stream.refusals() >= 2
	}, "503s while the database is down")
	pg.start(t)
	s.pool.Reset() // the test's own connections died with the server
	before := acceptedCount.Load()
	s.await(time.Minute, func() bool { return acceptedCount.Load() >= before+5 }, "uploads after the restart")
	stream.reconnect <- struct{}{} // and the stream client resumes once more
	close(stopLoad)
	require.NoError(t, <-loadDone)

	s.await(time.Minute, func() bool {
		return s.count(`SELECT count(*) FROM tasks WHERE status = 'audited'`) == len(accepted)
	}, "every accepted upload audited")
	want := visibleEvents(t, s, "qa-admin")
	s.await(time.Minute, func() bool { return stream.last() >= want[len(want)-1] }, "the stream caught up")
	cancel()
	require.NoError(t, <-streamDone)

	s.requireNoLoss(accepted, "audited")
	require.Equal(t, want, stream.received(), "events the client may see, once each, in order")
	t.Logf("REPORT database restarted: %d uploads accepted, %d uploads and %d listings answered 503 while it was down; stream: %d events over %d connections (%d answered 503)",
		len(accepted), refusedUploads.Load(), refusedLists.Load(), len(want), stream.connections, stream.refused)
}

// visibleEvents returns the ids of every event user (an admin) may see.
func visibleEvents(t *testing.T, s *stack, user string) []int64 {
	rows, err := s.pool.Query(context.Background(), `SELECT id FROM events WHERE user_id = $1 OR min_rank <= 4 ORDER BY id`, user)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.NotEmpty(t, ids)
	return ids
}

// follower is an event stream client as browsers have it (EventSource):
// when a stream ends it connects again with Last-Event-ID.
type follower struct {
	s         *stack
	reconnect chan struct{} // ends the current stream

	mu          sync.Mutex
	ids         []int64
	connections int
	refused     int // reconnections answered 503
}

func (f *follower) received() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.ids...)
}

func (f *follower) refusals() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

func (f *follower) last() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ids) == 0 {
		return 0
	}
	return f.ids[len(f.ids)-1]
}

// run follows the stream until ctx ends; it returns an unexpected answer.
func (f *follower) run(ctx context.Context) error {
	for ctx.Err() == nil {
		if err := f.once(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond): // EventSource's retry, shortened
		}
	}
	return nil
}

// once reads one connection's events.
func (f *follower) once(ctx context.Context) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, "http://"+f.s.addr+"/notifications/events", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+f.s.token)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(f.last(), 10))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer res.Body.Close()
	f.mu.Lock()
	f.connections++
	if res.StatusCode == http.StatusServiceUnavailable {
		f.refused++
	}
	f.mu.Unlock()
	switch res.StatusCode {
	case http.StatusOK:
	case http.StatusServiceUnavailable:
		return nil
	default:
		return fmt.Errorf("event stream: %d", res.StatusCode)
	}
	go func() {
		select {
		case <-f.reconnect:
			cancel()
		case <-sctx.Done():
		}
	}()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "id: ")
		if !ok {
			continue
		}
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("event id %q: %w", v, err)
		}
		f.mu.Lock()
		f.ids = append(f.ids, id)
		f.mu.Unlock()
	}
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) && sctx.Err() == nil {
		return fmt.Errorf("event stream: %w", err)
	}
	return nil
}
