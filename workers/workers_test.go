package workers

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/jobs"
)

func TestPruneEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	for range 3 {
		require.NoError(t, db.EventInsert(ctx, pool, "old", db.Everyone(), nil))
	}
	_, err := pool.Exec(ctx, "UPDATE events SET created_at = now() - interval '8 days'")
	require.NoError(t, err)
	require.NoError(t, db.EventInsert(ctx, pool, "new", db.Everyone(), nil))

	w := rivertest.NewWorker(t, riverpgxv5.New(pool), &river.Config{}, &PruneEventsWorker{pool: pool, retention: 7 * 24 * time.Hour})
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	res, err := w.Work(ctx, t, tx, jobs.PruneEventsArgs{}, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)

	left, err := db.EventsAfter(ctx, pool, 0, 10)
	require.NoError(t, err)
	require.Len(t, left, 1)
	require.Equal(t, "new", left[0].Type)
}
