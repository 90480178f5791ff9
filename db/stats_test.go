package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/pipeline"
)

// rollupDrift returns the rows where the kept dashboard figures differ from
// the same figures computed from the tasks there are now.
func rollupDrift(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	var drift []string
	for _, q := range []string{
		`WITH fresh AS (
			SELECT c.slot, c.campaign_id, c.status, sum(c.tasks)::bigint tasks, sum(c.scored)::bigint scored,
				sum(c.passed)::bigint passed, sum(c.score_sum) score_sum, sum(c.audio_seconds) audio_seconds,
				sum(c.engine_verdicts)::bigint engine_verdicts, sum(c.engine_confident)::bigint engine_confident
			FROM tasks t, task_stats_of(t, 1) c GROUP BY 1, 2, 3
		), kept AS (
			SELECT slot, campaign_id, status, tasks, scored, passed, score_sum, audio_seconds, engine_verdicts, engine_confident
			FROM task_stats WHERE (tasks, scored, passed, score_sum, audio_seconds, engine_verdicts, engine_confident)
				<> (0, 0, 0, 0, 0, 0, 0)
		)
		SELECT format('%s %s', f, k) FROM fresh f FULL JOIN kept k USING (slot, campaign_id, status)
		WHERE f IS DISTINCT FROM k`,
		`WITH fresh AS (
			SELECT c.day, c.campaign_id, c.dim, c.key, sum(c.n)::bigint n, sum(c.total) total, sum(c.passed)::bigint passed
			FROM tasks t, task_stats_daily_of(t, 1) c GROUP BY 1, 2, 3, 4
		), kept AS (
			SELECT day, campaign_id, dim, key, n, total, passed FROM task_stats_daily WHERE (n, total, passed) <> (0, 0, 0)
		)
		SELECT format('%s %s', f, k) FROM fresh f FULL JOIN kept k USING (day, campaign_id, dim, key)
		WHERE f IS DISTINCT FROM k`,
	} {
		rows, err := pool.Query(context.Background(), q)
		require.NoError(t, err)
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			drift = append(drift, s)
		}
		require.NoError(t, rows.Err())
	}
	return drift
}

// TestDashboardFiguresFollowTaskChanges changes, deletes and inserts tasks
// from several connections at once, every way the service and an
// administrator's SQL could, and checks that the figures kept for the
// dashboard are those of the tasks after every round, and that dashboards
// and weekly reports read them.
func TestDashboardFiguresFollowTaskChanges(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	var second string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO campaigns (name) VALUES ('second') RETURNING id`).Scan(&second))
	campaigns := []string{campaign.ID, second}
	start := time.Date(2026, 3, 28, 20, 0, 0, 0, time.UTC) // across a daylight saving change in Europe

	insert := func(r *rand.Rand, i int) error {
		_, err := pool.Exec(ctx, `
			INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
				operator_id, language, uploaded_by, duration_seconds, created_at, updated_at)
			VALUES (gen_random_uuid(), $1, 'queued', 'f', 'audio/wav', 1, encode(sha256($2::bytea), 'hex'), $2, $3,
				NULLIF($4, ''), 'es', 'qa', $5, $6, $6)`,
			[]string{"call", "chat"}[r.IntN(2)], fmt.Sprintf("stats-%d-%d", i, r.Int()), campaigns[r.IntN(2)],
			[]string{"", "ana", "bea", "carl"}[r.IntN(4)], r.Float64()*600,
			start.Add(time.Duration(r.Int64N(int64(72*time.Hour)))))
		return err
	}
	// change picks a random task and changes it one way or another.
	change := func(r *rand.Rand) error {
		var sql string
		switch r.IntN(8) {
		case 0:
			sql = `UPDATE tasks SET status = 'auditing' WHERE uuid = $1`
		case 1:
			sql = `UPDATE tasks SET status = 'audited', score = round((random() * 100)::numeric, 2),
				passed = random() < 0.5, audited_at = created_at + random() * interval '1 hour',
				judged_criteria = ARRAY['greeting', 'empathy', 'farewell'],
				failed_criteria = (ARRAY['greeting', 'empathy'])[1:floor(random() * 3)::int],
				engine_verdicts = 3, engine_confident = floor(random() * 4)::int, review_items = 1
				WHERE uuid = $1`
		case 2:
			sql = `UPDATE tasks SET status = 'validated' WHERE uuid = $1 AND score IS NOT NULL`
		case 3:
			sql = `UPDATE tasks SET operator_id = 'dora' WHERE uuid = $1`
		case 4:
			sql = `UPDATE tasks SET duration_seconds = 42 WHERE uuid = $1`
		case 5:
			sql = `UPDATE tasks SET status = 'failed', error = 'boom', score = NULL, passed = NULL, audited_at = NULL,
				judged_criteria = NULL, failed_criteria = NULL WHERE uuid = $1`
		case 6:
			sql = `DELETE FROM tasks WHERE uuid = $1`
		default:
			sql = `UPDATE tasks SET file_name = 'renamed', updated_at = now() WHERE uuid = $1` // changes no figure
		}
		_, err := pool.Exec(ctx, strings.Replace(sql, "$1", "(SELECT uuid FROM tasks ORDER BY random() LIMIT 1)", 1))
		return err
	}
	for round := range 3 {
		g := new(errgroup.Group)
		for w := range 4 {
			r := rand.New(rand.NewPCG(uint64(round), uint64(w)))
			g.Go(func() error {
				for i := range 60 {
					var err error
					if i%3 == 0 {
						err = insert(r, round*1000+w*100+i)
					} else {
						err = change(r)
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
		}
		require.NoError(t, g.Wait())
		// Read with the changes pending, then folded.
		dashboardsCount(t, pool, start, second)
		trendsCount(t, pool, start, second)
		n, err := db.TaskStatsFold(ctx, pool)
		require.NoError(t, err)
		require.Positive(t, n)
		require.Empty(t, rollupDrift(t, pool), "round %d", round)
		dashboardsCount(t, pool, start, second)
		trendsCount(t, pool, start, second)
	}
}

// After a bulk change the fold gives the pending table's emptied pages
// back, waiting for no writer longer than its lock timeout and losing no
// change written meanwhile; a small table is left alone.
func TestTaskStatsCompact(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	compacted, err := db.TaskStatsCompact(ctx, pool)
	require.NoError(t, err)
	require.False(t, compacted, "an empty table is left alone")

	_, err = pool.Exec(ctx, `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			language, uploaded_by, created_at, updated_at)
		SELECT gen_random_uuid(), 'chat', 'queued', 'bulk-' || i || '.txt', 'text/plain', 1,
			encode(sha256(('b' || i)::bytea), 'hex'), 'b' || i, $1, 'es', 'qa', $2::timestamptz + i * interval '1 second',
			$2::timestamptz
		FROM generate_series(1, 40000) i`, campaign.ID, start)
	require.NoError(t, err)
	_, err = db.TaskStatsFold(ctx, pool)
	require.NoError(t, err)
	var size int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT pg_relation_size('task_stats_pending')`).Scan(&size))
	require.Greater(t, size, int64(8<<20), "the folded bulk insert left its pages")

	// A writer holds the table past the lock timeout: compacting gives up.
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, `UPDATE tasks SET status = 'failed' WHERE file_name = 'bulk-7.txt'`)
	require.NoError(t, err)
	compacted, err = db.TaskStatsCompact(ctx, pool)
	require.NoError(t, err)
	require.False(t, compacted)
	require.NoError(t, tx.Commit(ctx))

	// Free, it folds and truncates, and the writer's change is counted.
	compacted, err = db.TaskStatsCompact(ctx, pool)
	require.NoError(t, err)
	require.True(t, compacted)
	require.NoError(t, pool.QueryRow(ctx, `SELECT pg_relation_size('task_stats_pending')`).Scan(&size))
	require.Zero(t, size)
	require.Empty(t, rollupDrift(t, pool))
	n, estimated, err := db.TaskCount(ctx, pool, db.TaskFilter{Status: pipeline.Failed})
	require.NoError(t, err)
	require.False(t, estimated)
	require.EqualValues(t, 1, n)
}

// dashboardsCount checks that periods whose ends cut quarter hours and days
// read the same figures as counting their tasks, in any zone, for a
// campaign and for an agent.
func dashboardsCount(t *testing.T, pool *pgxpool.Pool, start time.Time, campaign string) {
	t.Helper()
	ctx := context.Background()
	from, to := start.Add(7*time.Hour+7*time.Minute), start.Add(50*time.Hour+52*time.Minute)
	for _, f := range []db.StatsFilter{
		{From: from, To: to, TZ: "UTC"},
		{From: from, To: to, TZ: "Asia/Kathmandu", CampaignID: campaign},
		{From: start, To: start.Add(72 * time.Hour), TZ: "Europe/Madrid"},
		{From: from, To: from.Add(10 * time.Minute), TZ: "UTC"},
		{From: from, To: to, TZ: "UTC", OperatorID: "ana"},
	} {
		d, err := db.StatsDashboard(ctx, pool, f)
		require.NoError(t, err)
		var want db.Dashboard
		args := []any{f.From, f.To, f.CampaignID, f.OperatorID, f.TZ}
		const where = `created_at >= $1 AND created_at < $2 AND ($3 = '' OR campaign_id::text = $3)
			AND ($4 = '' OR operator_id = $4)`
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), count(score), count(*) FILTER (WHERE passed),
				count(*) FILTER (WHERE status = 'validated'), COALESCE(sum(engine_verdicts), 0)
			FROM tasks WHERE `+where+` AND $5 <> ''`, args...).
			Scan(&want.Tasks, &want.Audited, &want.Passed, &want.Validated, &want.Automatic.Verdicts))
		require.Equal(t, want.Tasks, d.Tasks, "%+v", f)
		require.Equal(t, want.Audited, d.Audited, "%+v", f)
		require.Equal(t, want.Passed, d.Passed, "%+v", f)
		require.Equal(t, want.Validated, d.Validated, "%+v", f)
		require.Equal(t, want.Automatic.Verdicts, d.Automatic.Verdicts, "%+v", f)

		rows, err := pool.Query(ctx, `SELECT to_char(created_at AT TIME ZONE $5, 'YYYY-MM-DD'), count(*), count(score),
				count(*) FILTER (WHERE passed)
			FROM tasks WHERE `+where+` GROUP BY 1 ORDER BY 1`, args...)
		require.NoError(t, err)
		for rows.Next() {
			var day db.Day
			require.NoError(t, rows.Scan(&day.Day, &day.Tasks, &day.Audited, &day.Passed))
			want.PerDay = append(want.PerDay, day)
		}
		require.NoError(t, rows.Err())
		if want.PerDay == nil {
			want.PerDay = []db.Day{}
		}
		require.Equal(t, want.PerDay, d.PerDay, "%+v", f)

		var failed int64
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM tasks WHERE `+where+`
			AND 'greeting' = ANY (failed_criteria) AND $5 <> ''`, args...).Scan(&failed))
		for _, c := range d.CriteriaFailed {
			if c.CriterionID == "greeting" {
				require.Equal(t, failed, c.Failed, "%+v", f)
				failed = 0
			}
		}
		require.Zero(t, failed, "greeting's failures are listed (%+v)", f)
	}
}

// TestTaskCount counts tasks exactly from the counts kept per day for the
// filters they cover, whatever the period's ends, and one by one for the
// others, estimating past 1,000 matches.
func TestTaskCount(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	_, err := pool.Exec(ctx, `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			operator_id, language, uploaded_by, created_at, updated_at, score, passed, review_items)
		SELECT gen_random_uuid(), (ARRAY['call', 'chat'])[1 + i % 2], s.status, 'f', 'audio/wav', 1,
			encode(sha256(i::text::bytea), 'hex'), 'k' || i, $1, 'agent-' || i % 3, 'es', 'qa',
			$2::timestamptz + i * interval '97 seconds', $2::timestamptz + i * interval '97 seconds',
			CASE WHEN s.status IN ('audited', 'validated') THEN i % 100 END,
			CASE WHEN s.status IN ('audited', 'validated') THEN i % 100 >= 85 END,
			CASE WHEN s.status IN ('audited', 'validated') THEN i % 2 END
		FROM generate_series(1, 12000) i,
			LATERAL (SELECT (ARRAY['queued', 'audited', 'validated', 'failed'])[1 + i % 4] AS status) s`,
		campaign.ID, start)
	require.NoError(t, err)

	yes, no := true, false
	high, top, low := 90.0, 95.0, 10.0
	from, to := start.Add(26*time.Hour+7*time.Minute), start.Add(9*24*time.Hour+3*time.Hour)
	for _, f := range []db.TaskFilter{
		{},
		{Status: pipeline.Audited},
		{Kind: db.TaskChat, Passed: &yes},
		{Status: pipeline.Validated, Kind: db.TaskCall, Passed: &no, Campaign: db.DefaultCampaign},
		{From: from, To: to},
		{From: from, Status: pipeline.Failed},
		{To: to, Kind: db.TaskCall},
		{From: from, To: from.Add(5 * time.Minute)},
		{Campaign: "nope"},
		{OperatorID: "agent-1", Status: pipeline.Queued},
		{NeedsReview: &yes, From: from, To: from.Add(24 * time.Hour)},
		{MinScore: &high, MaxScore: &top, From: from, To: to},
		{MaxScore: &low, Kind: db.TaskCall},
	} {
		n, estimated, err := db.TaskCount(ctx, pool, f)
		require.NoError(t, err)
		require.False(t, estimated, "%+v", f)
		tasks, err := db.TaskList(ctx, pool, f, db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 20_000})
		require.NoError(t, err)
		require.EqualValues(t, len(tasks), n, "%+v", f)
	}

	// A page that ends the list is its own total; one past the end counts.
	f := db.TaskFilter{OperatorID: "agent-1", Status: pipeline.Queued}
	for _, p := range []db.TaskPage{{Limit: 5000}, {Skip: 990, Limit: 20}, {Skip: 5000, Limit: 20}, {Limit: 20}} {
		p.Sort = db.TaskSortCreatedAt
		tasks, total, estimated, err := db.TaskListTotal(ctx, pool, f, p)
		require.NoError(t, err)
		require.False(t, estimated)
		require.EqualValues(t, 1000, total, "%+v", p)
		require.Len(t, tasks, min(p.Limit, max(0, 1000-p.Skip)), "%+v", p)
	}

	// A search by file name with few matches reads them once for the page
	// and the total, in the page's order.
	_, err = pool.Exec(ctx, `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			language, uploaded_by, created_at, updated_at, score)
		SELECT gen_random_uuid(), 'chat', 'audited', 'Call-' || i || '.txt', 'text/plain', 1,
			encode(sha256(('c' || i)::bytea), 'hex'), 'c' || i, $1, 'es', 'qa', $2::timestamptz - i * interval '1 hour',
			$2::timestamptz, (i * 37) % 100
		FROM generate_series(1, 30) i`, campaign.ID, start)
	require.NoError(t, err)
	search := db.TaskFilter{FileName: "call-1"}
	for _, p := range []db.TaskPage{
		{Sort: db.TaskSortFileName, Limit: 5},
		{Sort: db.TaskSortScore, Desc: true, Limit: 5},
		{Sort: db.TaskSortCreatedAt, Limit: 50},
	} {
		all, err := db.TaskList(ctx, pool, search, db.TaskPage{Sort: p.Sort, Desc: p.Desc, Limit: 1000})
		require.NoError(t, err)
		require.Len(t, all, 11, "Call-1, Call-10 … Call-19")
		tasks, total, estimated, err := db.TaskListTotal(ctx, pool, search, p)
		require.NoError(t, err)
		require.False(t, estimated)
		require.EqualValues(t, 11, total, "%+v", p)
		require.Equal(t, all[:min(p.Limit, 11)], tasks, "%+v", p)
	}
	// Paged by cursor and by skip, they come once each, in order.
	for _, sort := range []string{db.TaskSortFileName, db.TaskSortScore, db.TaskSortCreatedAt} {
		all, err := db.TaskList(ctx, pool, search, db.TaskPage{Sort: sort, Limit: 1000})
		require.NoError(t, err)
		var paged []db.Task
		var after *db.TaskCursor
		for range 5 {
			page, total, _, err := db.TaskListTotal(ctx, pool, search, db.TaskPage{Sort: sort, Limit: 4, After: after})
			require.NoError(t, err)
			require.EqualValues(t, 11, total)
			paged = append(paged, page...)
			if len(page) < 4 {
				break
			}
			c := page[len(page)-1].Cursor(sort)
			after = &c
		}
		require.Equal(t, all, paged, sort)
		page, _, _, err := db.TaskListTotal(ctx, pool, search, db.TaskPage{Sort: sort, Limit: 4, Skip: 9})
		require.NoError(t, err)
		require.Equal(t, all[9:], page)
	}
	_, _, _, err = db.TaskListTotal(ctx, pool, search, db.TaskPage{Sort: "size", Limit: 5})
	require.ErrorContains(t, err, `unknown sort "size"`)

	// Past 1,000 matches a filter the kept counts do not cover is
	// estimated (from the statistics autovacuum keeps), and says so.
	_, err = pool.Exec(ctx, `ANALYZE tasks`)
	require.NoError(t, err)
	n, estimated, err := db.TaskCount(ctx, pool, db.TaskFilter{FileName: "f"})
	require.NoError(t, err)
	require.True(t, estimated)
	require.InEpsilon(t, 12_000, n, 0.5)
	tasks, total, estimated, err := db.TaskListTotal(ctx, pool, db.TaskFilter{FileName: "f"},
		db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 20})
	require.NoError(t, err)
	require.True(t, estimated)
	require.InEpsilon(t, 12_000, total, 0.5)
	require.Len(t, tasks, 20)
	require.True(t, tasks[0].CreatedAt.After(tasks[19].CreatedAt), "newest first")
}
