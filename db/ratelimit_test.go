package db_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

// A bucket of 6 a minute admits a burst of 6, then one every 10 s; a
// refused take spends nothing and says how long to wait; a take of several
// gets what there is room for.
func TestRateTake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	take := func(key string, kind int16, at time.Duration, want int) (int, time.Duration) {
		t.Helper()
		granted, wait, err := db.RateTake(ctx, pool, key, kind, start.Add(at), 10*time.Second, time.Minute, want)
		require.NoError(t, err)
		return granted, wait
	}
	granted := func(key string, kind int16, at time.Duration, want int) int {
		t.Helper()
		n, _ := take(key, kind, at, want)
		return n
	}
	wait := func(key string, kind int16, at time.Duration) time.Duration {
		t.Helper()
		n, w := take(key, kind, at, 1)
		require.Zero(t, n)
		return w
	}
	for range 6 {
		require.Equal(t, 1, granted("alice", 1, 0, 1))
	}
	require.Equal(t, 10*time.Second, wait("alice", 1, 0))
	require.Equal(t, 6*time.Second, wait("alice", 1, 4*time.Second), "the refusals spent nothing")
	// Other keys and kinds have their own buckets.
	require.Equal(t, 1, granted("bob", 1, 0, 1))
	require.Equal(t, 1, granted("alice", 2, 0, 1))
	// One request every 10 s from then on.
	require.Equal(t, 1, granted("alice", 1, 10*time.Second, 1))
	require.Equal(t, 10*time.Second, wait("alice", 1, 10*time.Second))
	require.Equal(t, 1, granted("alice", 1, 20*time.Second, 1))
	// A minute idle refills the whole burst; a take of four gets four, the
	// next only the two left.
	require.Equal(t, 4, granted("alice", 1, 80*time.Second, 4))
	require.Equal(t, 2, granted("alice", 1, 80*time.Second, 4))
	require.Positive(t, wait("alice", 1, 80*time.Second))
	// A new bucket grants at most its burst.
	require.Equal(t, 6, granted("carol", 1, 0, 10))

	// Pruning drops the buckets full again, and only those.
	n, err := db.RateBucketsPrune(ctx, pool, start.Add(70*time.Second))
	require.NoError(t, err)
	require.Equal(t, int64(3), n, "bob's, carol's and alice's other kind")
	require.Positive(t, wait("alice", 1, 80*time.Second), "alice's busy bucket was kept")
	require.Equal(t, 1, granted("bob", 1, 80*time.Second, 1))
}

// A limit that does not divide a minute evenly still grants its whole
// burst, then one request each step: rounding never costs one.
func TestRateTakeUnevenStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	step := time.Minute / 7
	total := 0
	for i := range 70 {
		granted, _, err := db.RateTake(ctx, pool, "alice", 1, at.Add(time.Duration(i)*step/10), step, time.Minute, 1)
		require.NoError(t, err)
		total += granted
	}
	require.Equal(t, 7+6, total, "7 at once, then one a step (every tenth take)")
}

// Requests taken at once from many connections, as from several API
// processes, are admitted exactly up to the limit.
func TestRateTakeConcurrent(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	at := time.Now()
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				granted, _, err := db.RateTake(context.Background(), pool, "alice", 1, at, time.Second, 50*time.Second, 3)
				if err != nil {
					t.Error(err)
					return
				}
				admitted.Add(int64(granted))
			}
		})
	}
	wg.Wait()
	require.Equal(t, int64(50), admitted.Load())
}
