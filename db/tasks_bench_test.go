package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
)

// BenchmarkTaskList1M reads the first page of a million tasks as GET /tasks
// does by default for quality and above (the newest 100 and one more, then
// the total), and reports its p50 and p95 next to a plain count of the
// million.
func BenchmarkTaskList1M(b *testing.B) {
	pool := seedTasks(b, 1_000_000)
	f := db.TaskFilter{}
	page := db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101}
	benchAgainstCount(b, pool, func(ctx context.Context) {
		tasks, err := db.TaskList(ctx, pool, f, page)
		require.NoError(b, err)
		require.Len(b, tasks, 101)
		total, err := db.TaskCount(ctx, pool, f)
		require.NoError(b, err)
		require.EqualValues(b, 1_000_000, total)
	}, "true")
}

// BenchmarkTaskListNeedsReview1M reads the first page of the million tasks'
// audits with items to review (GET /tasks?needs_review=true: a quarter of
// the audited ones) with its total, next to Postgres counting them.
func BenchmarkTaskListNeedsReview1M(b *testing.B) {
	pool := seedTasks(b, 1_000_000)
	needsReview := true
	f := db.TaskFilter{NeedsReview: &needsReview}
	page := db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101}
	benchAgainstCount(b, pool, func(ctx context.Context) {
		tasks, err := db.TaskList(ctx, pool, f, page)
		require.NoError(b, err)
		require.Len(b, tasks, 101)
		total, err := db.TaskCount(ctx, pool, f)
		require.NoError(b, err)
		require.EqualValues(b, 200_000, total)
	}, "review_items > 0")
}
