package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/visibility"
)

// BenchmarkTaskList1M reads the first page of a million tasks as GET /tasks
// does by default for quality and above (the newest 100 and one more, then
// the total, exact from the counts kept per day), and reports its p50 and
// p95 next to a plain count of the million.
func BenchmarkTaskList1M(b *testing.B) {
	pool := dbtest.Pool(b)
	dbtest.SeedTasks(b, pool, 1_000_000)
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
	}, "tasks")
}

// BenchmarkTaskListNeedsReview1M reads the first page of the million tasks'
// audits with items to review (GET /tasks?needs_review=true: a quarter of
// the audited ones) with its total (estimated: there are more than 10,000),
// next to Postgres counting them.
func BenchmarkTaskListNeedsReview1M(b *testing.B) {
	pool := dbtest.Pool(b)
	dbtest.SeedTasks(b, pool, 1_000_000)
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
	}, "tasks WHERE review_items > 0")
}

// BenchmarkTaskListFilters1M reads, over a million tasks, the first page
// with its total (db.TaskListTotal, as GET /tasks does) for every filter
// and sort GET /tasks offers, one at a
// time, and a page deep in the list by its cursor; each sub-benchmark
// reports its p50 and p95 over samplesPerOp reads an iteration (goal: p95
// ≤ 20 ms for any page and filter).
func BenchmarkTaskListFilters1M(b *testing.B) {
	pool := dbtest.Pool(b)
	dbtest.SeedTasks(b, pool, 1_000_000)
	ctx := context.Background()
	yes, no := true, false
	high, low := 90.0, 10.0
	now := time.Now()
	newest := db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101}
	// A cursor half way down the list by creation, and by score.
	deep := func(sort string, desc bool) db.TaskPage {
		var c db.TaskCursor
		require.NoError(b, pool.QueryRow(ctx, `SELECT CASE WHEN $1 THEN created_at::text ELSE COALESCE(score, -1)::text END, uuid::text
			FROM tasks ORDER BY created_at OFFSET 500000 LIMIT 1`, sort == db.TaskSortCreatedAt).Scan(&c.Value, &c.UUID))
		return db.TaskPage{Sort: sort, Desc: desc, Limit: 101, After: &c}
	}
	for _, tc := range []struct {
		name string
		f    db.TaskFilter
		page db.TaskPage
	}{
		{"status", db.TaskFilter{Status: pipeline.Validated}, newest},
		{"kind", db.TaskFilter{Kind: db.TaskChat}, newest},
		{"campaign", db.TaskFilter{Campaign: "default"}, newest},
		{"operator", db.TaskFilter{OperatorID: "agent-7"}, newest},
		{"period", db.TaskFilter{From: now.Add(-7 * 24 * time.Hour), To: now}, newest},
		{"passed", db.TaskFilter{Passed: &no}, newest},
		{"needs_review", db.TaskFilter{NeedsReview: &yes}, newest},
		{"no_review", db.TaskFilter{NeedsReview: &no}, newest},
		{"min_score", db.TaskFilter{MinScore: &high}, newest},
		{"max_score", db.TaskFilter{MaxScore: &low}, newest},
		{"file_name", db.TaskFilter{FileName: "seed-4242"}, newest},
		{"file_name_rare", db.TaskFilter{FileName: "seed-987654."}, newest},
		{"operator_status", db.TaskFilter{OperatorID: "agent-7", Status: pipeline.Audited}, newest},
		{"failed_criterion", db.TaskFilter{FailedCriterion: "empathy"}, newest},
		{"failed_criterion_rare", db.TaskFilter{FailedCriterion: "farewell"}, newest},
		{"sort_file_name", db.TaskFilter{}, db.TaskPage{Sort: db.TaskSortFileName, Limit: 101}},
		{"sort_score", db.TaskFilter{}, db.TaskPage{Sort: db.TaskSortScore, Desc: true, Limit: 101}},
		{"sort_score_operator", db.TaskFilter{OperatorID: "agent-7"}, db.TaskPage{Sort: db.TaskSortScore, Desc: true, Limit: 101}},
		{"deep_created_at", db.TaskFilter{}, deep(db.TaskSortCreatedAt, true)},
		{"deep_score", db.TaskFilter{}, deep(db.TaskSortScore, false)},
		{"skip_1000", db.TaskFilter{}, db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101, Skip: 1000}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				for range samplesPerOp {
					start := time.Now()
					_, _, _, err := db.TaskListTotal(ctx, pool, tc.f, tc.page)
					require.NoError(b, err)
					took = append(took, time.Since(start))
				}
			}
			b.ReportMetric(dbtest.PercentileMS(took, 0.5), "p50-ms")
			b.ReportMetric(dbtest.PercentileMS(took, 0.95), "p95-ms")
		})
	}
}

// BenchmarkTaskSearch1M searches a million tasks' transcripts as GET
// /tasks?q= does (db.SearchQuery, the first page of 100 and one more with
// its total, db.TaskListTotal, and the page's snippets, db.TaskSnippets),
// for searches from the commonest words to a phrase said in a hundred
// tasks, alone and with other filters; each sub-benchmark reports its p50
// and p95 over samplesPerOp searches an iteration (goal: p95 ≤ 50 ms).
func BenchmarkTaskSearch1M(b *testing.B) {
	pool := dbtest.Pool(b)
	dbtest.SeedTasks(b, pool, 1_000_000)
	dbtest.SeedSearch(b, pool)
	ctx := context.Background()
	newest := db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101}
	for _, tc := range []struct {
		name, q string
		f       db.TaskFilter
		page    db.TaskPage
	}{
		{"common_word", "cliente", db.TaskFilter{}, newest},
		{"word_in_1_percent", "reembolso", db.TaskFilter{}, newest},
		{"phrase_in_100", `"tarjeta bloqueada"`, db.TaskFilter{}, newest},
		{"prefix", "reembols*", db.TaskFilter{}, newest},
		{"two_words", "reembolso tarjeta", db.TaskFilter{}, newest},
		{"or", "reembolso OR bloqueada", db.TaskFilter{}, newest},
		{"not_found", "hipoteca", db.TaskFilter{}, newest},
		{"word_and_operator", "reembolso", db.TaskFilter{OperatorID: "agent-7"}, newest},
		{"word_and_status", "reembolso", db.TaskFilter{Status: pipeline.Validated}, newest},
		{"word_by_score", "reembolso", db.TaskFilter{}, db.TaskPage{Sort: db.TaskSortScore, Desc: true, Limit: 101}},
		{"word_by_lowest_score", "reembolso", db.TaskFilter{}, db.TaskPage{Sort: db.TaskSortScore, Limit: 101}},
		{"word_last_month", "reembolso", db.TaskFilter{From: time.Now().AddDate(0, -1, 0)}, newest},
		{"phrase_last_month", `"le tramito el reembolso"`, db.TaskFilter{From: time.Now().AddDate(0, -1, 0)}, newest},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				for range samplesPerOp {
					start := time.Now()
					f := tc.f
					var err error
					f.Text, err = db.SearchQuery(ctx, pool, tc.q)
					require.NoError(b, err)
					tasks, _, _, err := db.TaskListTotal(ctx, pool, f, tc.page)
					require.NoError(b, err)
					uuids := make([]string, len(tasks))
					for i, t := range tasks {
						uuids[i] = t.UUID
					}
					_, err = db.TaskSnippets(ctx, pool, visibility.Viewer{}, f.Text, uuids)
					require.NoError(b, err)
					took = append(took, time.Since(start))
				}
			}
			b.ReportMetric(dbtest.PercentileMS(took, 0.5), "p50-ms")
			b.ReportMetric(dbtest.PercentileMS(took, 0.95), "p95-ms")
		})
	}
}
