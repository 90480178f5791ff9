package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

func requireLimited(t *testing.T, r response) {
	t.Helper()
	requireError(t, r, http.StatusTooManyRequests, CodeRateLimited)
	after, err := strconv.Atoi(r.Header.Get("Retry-After"))
	require.NoError(t, err, r.Header.Get("Retry-After"))
	require.Positive(t, after)
	require.Equal(t, float64(after), details(r)["retry_after_seconds"])
}

func TestRateLimitedWrites(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rateLimit: RateLimits{Writes: 3, Uploads: 1}})
	alice, bob, _ := b.users(t)
	note := func(token, text string) response {
		return b.json(t, http.MethodPost, "/notifications", token, map[string]any{"text": text, "variant": "info", "user_id": "alice"})
	}
	for i := range 3 {
		require.Equal(t, http.StatusCreated, note(alice, strconv.Itoa(i)).Status)
	}
	r := note(alice, "one too many")
	requireLimited(t, r)
	require.Contains(t, r.Body["message"], "3 a minute")
	// Every write method counts, refused ones do not reach the handler.
	requireLimited(t, b.do(t, http.MethodDelete, "/notifications", alice, nil))
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM notifications").Scan(&n))
	require.Equal(t, 3, n)

	// Reads have their own bucket, and other users theirs.
	for range 5 {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/notifications", alice, nil).Status)
	}
	require.NotEqual(t, http.StatusTooManyRequests, b.json(t, http.MethodPatch, "/notifications/00000000-0000-4000-8000-000000000000", bob, nil).Status)

	// Requests refused by authentication count against their address, not
	// against a user.
	requireError(t, b.do(t, http.MethodPost, "/notifications", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
}

func TestRateLimitedReads(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rateLimit: RateLimits{Reads: 4}})
	alice, bob, _ := b.users(t) // one read each
	for range 3 {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/notifications", alice, nil).Status)
	}
	r := b.do(t, http.MethodGet, "/users/me", alice, nil)
	requireLimited(t, r)
	require.Contains(t, r.Body["message"], "reads: the limit is 4 a minute per user")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", bob, nil).Status)
	// Writes are apart.
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/notifications", alice,
		map[string]any{"text": "x", "variant": "info", "user_id": "alice"}).Status)
}

// A client address gets RATE_LIMIT_ANONYMOUS public requests and failed
// authentications a minute, then 429 before anything else; valid tokens
// through the same address (a reverse proxy's) are not refused, and the
// probes never are.
func TestRateLimitedAnonymous(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rateLimit: RateLimits{Anonymous: 3}})
	alice, _, _ := b.users(t)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/client-config", "", nil).Status)
	requireError(t, b.do(t, http.MethodGet, "/users/me", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodGet, "/users/me", "forged", nil), http.StatusUnauthorized, CodeUnauthorized)
	for _, r := range []response{
		b.do(t, http.MethodGet, "/users/me", "forged", nil),
		b.do(t, http.MethodPost, "/notifications", "", nil),
		b.do(t, http.MethodGet, "/client-config", "", nil),
	} {
		requireLimited(t, r)
		require.Contains(t, r.Body["message"], "without a valid token from your address")
		require.Empty(t, r.Header.Get("WWW-Authenticate"))
	}
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", alice, nil).Status)
	for range 5 {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/health", "", nil).Status)
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/ready", "", nil).Status)
	}
}

func TestRateLimitedUploads(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rateLimit: RateLimits{Writes: 100, Uploads: 1}})
	alice, _, root := b.users(t)
	uploaded(t, b.upload(t, alice, file("a.txt", []byte(goodChat))))
	r := b.upload(t, alice, file("b.txt", []byte(rudeChat)))
	requireLimited(t, r)
	require.Contains(t, r.Body["message"], "uploads")
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM tasks").Scan(&n))
	require.Equal(t, 1, n, "the refused upload stored nothing")
	require.Len(t, b.blobs(t), 1)
	// The upload limit is apart from the writes limit, and per user.
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/notifications", alice,
		map[string]any{"text": "x", "variant": "info", "user_id": "alice"}).Status)
	uploaded(t, b.upload(t, root, file("b.txt", []byte(rudeChat))))
}

func TestRateLimitDocumented(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, rt := range routes(t, b.server) {
		_, documented := rt.op.Responses["429"]
		switch {
		case rt.path == "/health" || rt.path == "/ready":
			require.False(t, documented, rt.String())
		default:
			require.True(t, documented, rt.String())
		}
	}
}

// processesAt is the limiters of two API processes on pool, allowing 1000
// reads a minute, whose clocks stand still at start: nothing refills
// while a test spends.
func processesAt(pool db.DBTX, start time.Time) []*limiter {
	procs := []*limiter{newLimiter(RateLimits{Reads: 1000}, pool), newLimiter(RateLimits{Reads: 1000}, pool)}
	for _, p := range procs {
		p.now = func() time.Time { return start }
	}
	return procs
}

// Two processes leasing from the same buckets admit, between them, a
// user's limit exactly once they have both spent what they leased.
func TestLimiterLeasesAcrossProcesses(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	start := time.Now()
	procs := processesAt(pool, start)
	admitted := 0
	for i := 0; ; i++ {
		a, b := procs[i%2].take(t.Context(), "alice", reads), procs[(i+1)%2].take(t.Context(), "alice", reads)
		if a != nil && b != nil {
			break
		}
		admitted += btoi(a == nil) + btoi(b == nil)
	}
	require.Equal(t, 1000, admitted)
	var leased int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT granted FROM rate_buckets WHERE key = 'alice'`).Scan(&leased))
	require.Equal(t, 10, leased, "a hundredth of the limit at a time")

	// A lease unused for a minute is dropped: its leftovers were spent
	// for the other process, and the bucket has refilled since.
	l := newLimiter(RateLimits{Reads: 1000}, pool)
	l.now = func() time.Time { return start.Add(time.Hour) }
	require.Nil(t, l.take(t.Context(), "bob", reads))
	require.Equal(t, 9, l.leases[bucketKey{"bob", reads}].left)
	l.now = func() time.Time { return start.Add(time.Hour + time.Minute) }
	require.Nil(t, l.take(t.Context(), "bob", reads))
	require.Equal(t, 9, l.leases[bucketKey{"bob", reads}].left, "a fresh lease")
}

// Many requests at once take one lease at a time from the shared bucket,
// not one each: a hundred at once spend a hundred.
func TestLimiterLeasesOneAtATime(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	procs := processesAt(pool, time.Now())
	var refused atomic.Int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if procs[0].take(t.Context(), "alice", reads) != nil {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	require.Zero(t, refused.Load())
	admitted := 0
	for procs[1].take(t.Context(), "alice", reads) == nil {
		admitted++
	}
	require.Equal(t, 900, admitted, "the other process gets what the hundred left")
}

// The leases of addresses that stopped sending are dropped as addresses
// pile up, so their number stays bounded.
func TestLimiterForgetsIdleAddresses(t *testing.T) {
	t.Parallel()
	l := newLimiter(RateLimits{Anonymous: 200}, dbtest.Pool(t))
	start := time.Now()
	l.now = func() time.Time { return start }
	for i := range 2 * minPrune {
		require.Nil(t, l.take(t.Context(), fmt.Sprintf("10.0.%d.%d", i/256, i%256), anonymous))
	}
	l.now = func() time.Time { return start.Add(time.Minute) }
	require.Nil(t, l.take(t.Context(), "busy", anonymous))
	for i := range 2 * minPrune {
		require.Nil(t, l.take(t.Context(), fmt.Sprintf("10.1.%d.%d", i/256, i%256), anonymous))
	}
	for k := range l.leases {
		require.False(t, strings.HasPrefix(k.key, "10.0."), "the idle addresses' leases were dropped")
	}
	require.Contains(t, l.leases, bucketKey{"busy", anonymous}, "a lease in use is kept")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkRateLimit measures what the shared rate limits add to a request:
// reads admitted a second by one process's limiter (default limits), from
// 8 goroutines over 200 users, against the same pool doing the cheapest
// round trip (SELECT 1) from 8 goroutines. Goal: a request's limit costs
// less than a round trip (ratio ≥ 1).
func BenchmarkRateLimit(b *testing.B) {
	pool := dbtest.Pool(b)
	l := newLimiter(RateLimits{}, pool)
	const workers, each = 8, 500
	rate := func(op func(i int) error) float64 {
		start := time.Now()
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					if err := op(w*each + i); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return workers * each / time.Since(start).Seconds()
	}
	var takes, trips []float64
	for b.Loop() {
		takes = append(takes, rate(func(i int) error {
			if f := l.take(b.Context(), fmt.Sprint("user-", i%200), reads); f != nil {
				return f.err
			}
			return nil
		}))
		b.StopTimer()
		trips = append(trips, rate(func(int) error { return pool.QueryRow(b.Context(), `SELECT 1`).Scan(new(int)) }))
		b.StartTimer()
	}
	slices.Sort(takes)
	slices.Sort(trips)
	take, trip := takes[len(takes)/2], trips[len(trips)/2]
	b.ReportMetric(take, "requests/s")
	b.ReportMetric(trip, "roundtrips/s")
	b.ReportMetric(take/trip, "ratio")
}
