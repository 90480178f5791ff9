package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

// reportPeriod is the period reports cover by default in loc (GET
// /stats/trends and /stats/analysts): the 12 ISO weeks up to now, this
// one included.
func reportPeriod(b *testing.B, tz string) (from, to time.Time) {
	loc, err := time.LoadLocation(tz)
	require.NoError(b, err)
	to = time.Now()
	return db.WeekStart(to, loc).AddDate(0, 0, -7*11), to
}

// BenchmarkTrends1M computes the weekly report of agents and criteria, and
// what the channels of the calls tell (SeedChannels: about 150,000 calls
// analysed), over a million tasks for the default 12 weeks (about 230,000
// tasks), in UTC,
// in zones whose weeks begin one or two hours (Madrid) and five hours (New
// York) into a UTC day, for a campaign and for an agent, each next to a
// plain count of the same period's tasks (goal: p95 ≤ 100 ms).
func BenchmarkTrends1M(b *testing.B) {
	pool := dbtest.Pool(b)
	dbtest.SeedTasks(b, pool, 1_000_000)
	dbtest.SeedChannels(b, pool)
	var campaign string
	require.NoError(b, pool.QueryRow(context.Background(), `SELECT id FROM campaigns WHERE name = 'default'`).Scan(&campaign))
	order := db.AgentOrder{By: db.AgentsByLatest, Desc: true, Limit: 100}
	for _, tc := range []struct {
		name, tz, campaign, operator string
		agents                       int // the seed's agents with audits: one in five has none
	}{
		{"utc", "UTC", "", "", 160},
		{"madrid", "Europe/Madrid", "", "", 160},
		{"new_york", "America/New_York", "", "", 160},
		{"campaign", "UTC", campaign, "", 160},
		{"operator", "UTC", "", "agent-7", 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			from, to := reportPeriod(b, tc.tz)
			f := db.StatsFilter{From: from, To: to, TZ: tc.tz, CampaignID: tc.campaign, OperatorID: tc.operator}
			benchAgainstCount(b, pool, func(ctx context.Context) {
				r, err := db.StatsTrends(ctx, pool, f, order)
				require.NoError(b, err)
				require.Len(b, r.Weeks, 12)
				require.Equal(b, tc.agents, r.AgentsTotal)
				require.Len(b, r.Criteria, 7)
				require.Positive(b, r.Channels.Calls)
				require.Len(b, r.Channels.Weeks, 12)
			}, "tasks WHERE created_at >= $1 AND created_at < $2 AND ($3 = '' OR operator_id = $3)", f.From, f.To, tc.operator)
		})
	}
}

// BenchmarkAnalysts1M computes the analysts' productivity for the default
// 12 weeks over a million tasks, a tenth of whose audits analysts edited
// and a seventh validated (about 56,000 revisions and validations in the
// period), next to Postgres counting the analysts' actions it reads (goal:
// p95 ≤ 100 ms).
func BenchmarkAnalysts1M(b *testing.B) {
	pool := dbtest.Pool(b)
	dbtest.SeedTasks(b, pool, 1_000_000)
	dbtest.SeedReviews(b, pool)
	from, to := reportPeriod(b, "UTC")
	f := db.AnalystsFilter{From: from, To: to}
	benchAgainstCount(b, pool, func(ctx context.Context) {
		r, err := db.StatsAnalysts(ctx, pool, f)
		require.NoError(b, err)
		require.Len(b, r.Analysts, 20)
		require.NotNil(b, r.Total.MedianReviewSeconds)
	}, "analyst_actions WHERE at >= $1 AND at < $2", f.From, f.To)
}
