package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
)

// BenchmarkTaskList1M reads the first page of a million tasks as GET /tasks
// does by default for quality and above (the newest 100 and one more, then
// the total, exact from the counts kept per day), and reports its p50 and
// p95 next to a plain count of the million.
func BenchmarkTaskList1M(b *testing.B) {
	pool := seedTasks(b, 1_000_000)
	f := db.TaskFilter{}
	page := db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101}
	benchAgainstCount(b, pool, func(ctx context.Context) {
		tasks, err := db.TaskList(ctx, pool, f, page)
		require.NoError(b, err)
		require.Len(b, tasks, 101)
		total, estimated, err := db.TaskCount(ctx, pool, f)
		require.NoError(b, err)
		require.False(b, estimated)
		require.EqualValues(b, 1_000_000, total)
	}, "true")
}

// BenchmarkTaskListNeedsReview1M reads the first page of the million tasks'
// audits with items to review (GET /tasks?needs_review=true: a quarter of
// the audited ones) with its total (estimated: there are more than 10,000),
// next to Postgres counting them.
func BenchmarkTaskListNeedsReview1M(b *testing.B) {
	pool := seedTasks(b, 1_000_000)
	needsReview := true
	f := db.TaskFilter{NeedsReview: &needsReview}
	page := db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101}
	benchAgainstCount(b, pool, func(ctx context.Context) {
		tasks, err := db.TaskList(ctx, pool, f, page)
		require.NoError(b, err)
		require.Len(b, tasks, 101)
		total, estimated, err := db.TaskCount(ctx, pool, f)
		require.NoError(b, err)
		require.True(b, estimated)
		require.InEpsilon(b, 200_000, total, 0.1, "the planner's estimate")
	}, "review_items > 0")
}
