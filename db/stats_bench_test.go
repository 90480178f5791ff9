package db_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

// seedTasks inserts n audited-looking tasks spread over the last year, with
// 200 agents and the default scorecard's criteria; a quarter of the audits
// have an item to review, and the engine made seven verdicts in each, of
// which it was confident of five to seven.
func seedTasks(t testing.TB, n int) *pgxpool.Pool {
	pool := dbtest.Pool(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('seed', 'seed')`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			operator_id, language, uploaded_by, duration_seconds, created_at, updated_at, score, passed, audited_at,
			audit_revision, judged_criteria, failed_criteria, review_items, engine_verdicts, engine_confident)
		SELECT gen_random_uuid(), k.kind, CASE WHEN s.score IS NULL THEN 'queued' WHEN i % 7 = 0 THEN 'validated' ELSE 'audited' END,
			'seed-' || i || '.wav', 'audio/wav', 1000, encode(sha256(i::text::bytea), 'hex'), 'seed/' || i,
			(SELECT id FROM campaigns WHERE name = 'default'), 'agent-' || (i % 200), 'es', 'seed',
			CASE WHEN k.kind = 'call' THEN 60 + i % 600 END, c.at, c.at, s.score, s.score >= 85,
			CASE WHEN s.score IS NOT NULL THEN c.at + (30 + i % 600) * interval '1 second' END,
			CASE WHEN s.score IS NOT NULL THEN 1 END,
			CASE WHEN s.score IS NOT NULL THEN ARRAY['greeting', 'verification', 'no_forbidden_phrases', 'empathy',
				'resolution', 'further_help', 'farewell'] END,
			CASE WHEN s.score IS NOT NULL THEN (ARRAY['greeting', 'verification', 'empathy'])[1:(i % 4)] END,
			CASE WHEN s.score IS NOT NULL THEN (i % 4 = 1)::int END,
			CASE WHEN s.score IS NOT NULL THEN 7 ELSE 0 END,
			CASE WHEN s.score IS NOT NULL THEN 7 - i % 3 ELSE 0 END
		FROM generate_series(1, $1) i,
			LATERAL (SELECT now() - (i % 365) * interval '1 day' - (i % 86400) * interval '1 second' AS at) c,
			LATERAL (SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 37 % 10001) / 100.0 END AS score) s,
			LATERAL (SELECT CASE WHEN i % 3 = 0 THEN 'chat' ELSE 'call' END AS kind) k`, n)
	require.NoError(t, err)
	// As the fold_task_stats job would, every few seconds, and autovacuum
	// after it.
	_, err = db.TaskStatsFold(ctx, pool)
	require.NoError(t, err)
	compacted, err := db.TaskStatsCompact(ctx, pool)
	require.NoError(t, err)
	require.True(t, compacted, "the seed's pending changes took more than a few pages")
	_, err = pool.Exec(ctx, `VACUUM ANALYZE tasks, task_stats_pending, task_stats_daily, task_stats`)
	require.NoError(t, err)
	// The seed's writes are flushed before anything is measured, not by a
	// checkpoint in the middle of it.
	_, err = pool.Exec(ctx, `CHECKPOINT`)
	require.NoError(t, err)
	return pool
}

// BenchmarkDashboard1M computes the dashboard (default 30-day range, all
// campaigns and agents) over a million tasks and reports its p50 and p95,
// next to a plain count of the same 30 days' tasks.
func BenchmarkDashboard1M(b *testing.B) {
	pool := seedTasks(b, 1_000_000)
	to := time.Now()
	f := db.StatsFilter{From: to.Add(-30 * 24 * time.Hour), To: to, TZ: "UTC"}
	benchAgainstCount(b, pool, func(ctx context.Context) {
		d, err := db.StatsDashboard(ctx, pool, f)
		require.NoError(b, err)
		require.Positive(b, d.Tasks)
		require.NotNil(b, d.Automatic.Share)
	}, "created_at >= $1 AND created_at < $2", f.From, f.To)
}

// benchAgainstCount times query and, as its baseline, Postgres counting the
// tasks that match where (the least any query over them costs, on the
// machine as loaded as it is now): query samplesPerOp times an iteration,
// the count once. It uses b.Loop, so the caller's seeding runs once. It
// reports query's p50 and p95, the count's p50 and the ratio of the p50s;
// ns/op is samplesPerOp queries.
func benchAgainstCount(b *testing.B, pool *pgxpool.Pool, query func(context.Context), where string, args ...any) {
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
		require.NoError(b, pool.QueryRow(ctx, "SELECT count(*) FROM tasks WHERE "+where, args...).Scan(&n))
		require.Positive(b, n)
		counted = append(counted, time.Since(start))
		b.StartTimer()
	}
	p50, count := percentileMS(took, 0.50), percentileMS(counted, 0.50)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(percentileMS(took, 0.95), "p95-ms")
	b.ReportMetric(count, "count-p50-ms")
	b.ReportMetric(p50/count, "p50/count")
}

// samplesPerOp is how many times an iteration of a latency benchmark runs
// its query, so that a p95 of make bench's three iterations is not just
// their slowest (the first, on a cold cache).
const samplesPerOp = 10

// percentileMS returns the p-th quantile of ds (sorting it) in milliseconds.
func percentileMS(ds []time.Duration, p float64) float64 {
	slices.Sort(ds)
	return float64(ds[int(p*float64(len(ds)))].Microseconds()) / 1000
}
