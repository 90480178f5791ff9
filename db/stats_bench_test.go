package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

// BenchmarkDashboard1M computes the dashboard (default 30-day range, all
// campaigns and agents) over a million tasks and reports its p50 and p95,
// next to a plain count of the same 30 days' tasks.
func BenchmarkDashboard1M(b *testing.B) {
	pool := dbtest.Pool(b)
	dbtest.SeedTasks(b, pool, 1_000_000)
	to := time.Now()
	f := db.StatsFilter{From: to.Add(-30 * 24 * time.Hour), To: to, TZ: "UTC"}
	benchAgainstCount(b, pool, func(ctx context.Context) {
		d, err := db.StatsDashboard(ctx, pool, f)
		require.NoError(b, err)
		require.Positive(b, d.Tasks)
		require.NotNil(b, d.Automatic.Share)
	}, "tasks WHERE created_at >= $1 AND created_at < $2", f.From, f.To)
}

// benchAgainstCount times query and, as its baseline, Postgres counting the
// rows of rows (a table and its condition, such as "tasks WHERE …": the
// least any query over them costs, on the machine as loaded as it is now):
// query samplesPerOp times an iteration, the count once. It uses b.Loop, so the caller's seeding runs once. It
// reports query's p50 and p95, the count's p50 and the ratio of the p50s;
// ns/op is samplesPerOp queries.
func benchAgainstCount(b *testing.B, pool *pgxpool.Pool, query func(context.Context), rows string, args ...any) {
	ctx := context.Background()
	var took, counted []time.Duration
	for b.Loop() {
		for range samplesPerOp {
			start := time.Now()
			query(ctx)
			took = append(took, time.Since(start))
		}

		b.StopTimer()
		start := time.Now()
		var n int64
		require.NoError(b, pool.QueryRow(ctx, "SELECT count(*) FROM "+rows, args...).Scan(&n))
		require.Positive(b, n)
		counted = append(counted, time.Since(start))
		b.StartTimer()
	}
	p50, count := dbtest.PercentileMS(took, 0.50), dbtest.PercentileMS(counted, 0.50)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(dbtest.PercentileMS(took, 0.95), "p95-ms")
	b.ReportMetric(count, "count-p50-ms")
	b.ReportMetric(p50/count, "p50/count")
}

// samplesPerOp is how many times an iteration of a latency benchmark runs
// its query, so that a p95 of make bench's three iterations is not just
// their slowest (the first, on a cold cache).
const samplesPerOp = 10
