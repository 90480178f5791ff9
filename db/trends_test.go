package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

// reportTask inserts an audited task (or, without a score, a queued one)
// created at created; it passes at 85.
func reportTask(t *testing.T, pool *pgxpool.Pool, campaign, operator string, created time.Time, score *float64,
	judged, failed []string) string {
	t.Helper()
	var passed *bool
	var audited *time.Time
	if score != nil {
		p, a := *score >= 85, created.Add(time.Minute)
		passed, audited = &p, &a
		if failed == nil {
			failed = []string{}
		}
	}
	var uuid string
	require.NoError(t, pool.QueryRow(context.Background(), `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			operator_id, language, uploaded_by, created_at, updated_at, score, passed, audited_at, audit_revision,
			judged_criteria, failed_criteria)
		SELECT gen_random_uuid(), 'chat', CASE WHEN $4::numeric IS NULL THEN 'queued' ELSE 'audited' END, 'f', 'text/plain', 1,
			encode(sha256(gen_random_uuid()::text::bytea), 'hex'), gen_random_uuid()::text, $1, NULLIF($2, ''), 'es', 'qa',
			$3, $3, $4, $5, $6, CASE WHEN $4::numeric IS NOT NULL THEN 1 END, $7, $8
		RETURNING uuid`, campaign, operator, created, score, passed, audited, judged, failed).Scan(&uuid))
	return uuid
}

// agentWeeks is an agent's weeks as (audited, passed, average) triples.
func agentWeeks(a db.AgentTrend) [][3]float64 {
	var out [][3]float64
	for _, w := range a.Weeks {
		avg := -1.0
		if w.AverageScore != nil {
			avg = *w.AverageScore
		}
		out = append(out, [3]float64{float64(w.Audited), float64(w.Passed), avg})
	}
	return out
}

// criterionWeeks is a criterion's weeks as (judged, failed) pairs.
func criterionWeeks(c db.CriterionTrend) [][2]int64 {
	var out [][2]int64
	for _, w := range c.Weeks {
		out = append(out, [2]int64{w.Judged, w.Failed})
	}
	return out
}

func TestStatsTrends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, campaign := dbtest.ForTasks(t)
	at := func(day, hour, minute int) time.Time { return time.Date(2026, 10, day, hour, minute, 0, 0, time.UTC) }
	score := func(s float64) *float64 { return &s }
	both := []string{"greeting", "empathy"}
	// Weeks of 5 and 12 October. Madrid is two hours ahead (CEST): its
	// weeks begin at 22:00 UTC on Sundays.
	reportTask(t, pool, campaign.ID, "ana", at(5, 10, 0), score(90), both, nil)
	reportTask(t, pool, campaign.ID, "ana", at(11, 23, 30), score(70), both, []string{"empathy"}) // Monday in Madrid
	reportTask(t, pool, campaign.ID, "ana", at(13, 9, 0), score(80), both, []string{"greeting"})
	reportTask(t, pool, campaign.ID, "bob", at(6, 8, 0), score(100), []string{"greeting"}, nil)
	reportTask(t, pool, campaign.ID, "bob", at(11, 22, 30), score(60), []string{"greeting"}, []string{"greeting"}) // Monday in Madrid
	reportTask(t, pool, campaign.ID, "bob", at(12, 0, 30), score(50), []string{"greeting"}, []string{"greeting"})
	reportTask(t, pool, campaign.ID, "carl", at(7, 12, 0), nil, nil, nil)                      // not audited
	reportTask(t, pool, campaign.ID, "dora", at(18, 23, 0), score(40), both, both)             // after the Madrid period
	reportTask(t, pool, campaign.ID, "eva", at(4, 23, 0), score(95), []string{"empathy"}, nil) // before the UTC period
	reportTask(t, pool, campaign.ID, "ana", at(20, 10, 0), score(10), both, both)              // after both

	utc := db.StatsFilter{From: at(5, 0, 0), To: at(19, 0, 0), TZ: "UTC"}
	madrid := db.StatsFilter{From: at(4, 22, 0), To: at(18, 22, 0), TZ: "Europe/Madrid"}
	byAgent := db.AgentOrder{By: db.AgentsByAgent, Limit: 100}
	for _, folded := range []bool{false, true} {
		if folded {
			_, err := db.TaskStatsFold(ctx, pool)
			require.NoError(t, err)
		}
		r, err := db.StatsTrends(ctx, pool, utc, byAgent)
		require.NoError(t, err)
		require.Equal(t, []db.Week{
			{Week: "2026-10-05", ISOWeek: "2026-W41", From: at(5, 0, 0), To: at(12, 0, 0)},
			{Week: "2026-10-12", ISOWeek: "2026-W42", From: at(12, 0, 0), To: at(19, 0, 0)},
		}, r.Weeks)
		require.Equal(t, 3, r.AgentsTotal)
		require.Len(t, r.Agents, 3)
		ana, bob, dora := r.Agents[0], r.Agents[1], r.Agents[2]
		require.Equal(t, []string{"ana", "bob", "dora"}, []string{ana.OperatorID, bob.OperatorID, dora.OperatorID})
		require.Equal(t, [][3]float64{{2, 1, 80}, {1, 0, 80}}, agentWeeks(ana), "folded %v", folded)
		require.Equal(t, [][3]float64{{2, 1, 80}, {1, 0, 50}}, agentWeeks(bob))
		require.Equal(t, [][3]float64{{0, 0, -1}, {1, 0, 40}}, agentWeeks(dora))
		require.EqualValues(t, 3, ana.Audited)
		require.EqualValues(t, 1, ana.Passed)
		require.InDelta(t, 80, *ana.AverageScore, 1e-9)
		require.InDelta(t, 1.0/3, *ana.ApprovalRate, 1e-9)
		require.Equal(t, 0.5, *bob.Weeks[0].ApprovalRate)
		require.Nil(t, dora.Weeks[0].ApprovalRate)
		require.Equal(t, "2026-10-12", bob.LatestWeek)
		require.Equal(t, 50.0, bob.LatestAverage)
		require.Equal(t, -30.0, *bob.Change)
		require.Equal(t, 0.0, *ana.Change)
		require.Nil(t, dora.Change, "one week with audits: no change")

		require.Len(t, r.Criteria, 2)
		greeting, empathy := r.Criteria[0], r.Criteria[1]
		require.Equal(t, "greeting", greeting.CriterionID, "failed most first")
		require.NotEmpty(t, greeting.Question, "named from the scorecard")
		require.Equal(t, [][2]int64{{4, 1}, {3, 3}}, criterionWeeks(greeting))
		require.Equal(t, [][2]int64{{2, 1}, {2, 1}}, criterionWeeks(empathy))
		require.EqualValues(t, 7, greeting.Judged)
		require.EqualValues(t, 4, greeting.Failed)
		require.InDelta(t, 4.0/7, *greeting.Rate, 1e-9)
		require.Equal(t, 0.25, *greeting.Weeks[0].Rate)

		// Madrid's weeks: the Sunday-night tasks are Monday's, eva's is
		// in, dora's is out.
		r, err = db.StatsTrends(ctx, pool, madrid, byAgent)
		require.NoError(t, err)
		require.Equal(t, "2026-10-05", r.Weeks[0].Week)
		require.Equal(t, at(11, 22, 0), r.Weeks[0].To.UTC())
		require.Equal(t, "+02:00", r.Weeks[1].From.Format("Z07:00"), "in the zone")
		require.Len(t, r.Agents, 3)
		ana, bob, eva := r.Agents[0], r.Agents[1], r.Agents[2]
		require.Equal(t, "eva", eva.OperatorID)
		require.Equal(t, [][3]float64{{1, 1, 90}, {2, 0, 75}}, agentWeeks(ana), "folded %v", folded)
		require.Equal(t, [][3]float64{{1, 1, 100}, {2, 0, 55}}, agentWeeks(bob))
		require.Equal(t, [][3]float64{{1, 1, 95}, {0, 0, -1}}, agentWeeks(eva))
		require.Equal(t, [][2]int64{{2, 0}, {4, 3}}, criterionWeeks(r.Criteria[0]))

		// Sorted by change, by latest average, cut.
		r, err = db.StatsTrends(ctx, pool, madrid, db.AgentOrder{By: db.AgentsByChange, Limit: 100})
		require.NoError(t, err)
		require.Equal(t, []string{"bob", "ana", "eva"}, operatorIDs(r.Agents), "-45, -15, then no change")
		r, err = db.StatsTrends(ctx, pool, madrid, db.AgentOrder{By: db.AgentsByChange, Desc: true, Limit: 100})
		require.NoError(t, err)
		require.Equal(t, []string{"ana", "bob", "eva"}, operatorIDs(r.Agents), "no change last either way")
		r, err = db.StatsTrends(ctx, pool, madrid, db.AgentOrder{By: db.AgentsByLatest, Desc: true, Limit: 2})
		require.NoError(t, err)
		require.Equal(t, []string{"eva", "ana"}, operatorIDs(r.Agents), "95, 75, (55)")
		require.Equal(t, 3, r.AgentsTotal)

		// One agent: their audits' criteria only.
		r, err = db.StatsTrends(ctx, pool, db.StatsFilter{From: utc.From, To: utc.To, TZ: "UTC", OperatorID: "bob"}, byAgent)
		require.NoError(t, err)
		require.Equal(t, []string{"bob"}, operatorIDs(r.Agents))
		require.Equal(t, [][3]float64{{2, 1, 80}, {1, 0, 50}}, agentWeeks(r.Agents[0]))
		require.Len(t, r.Criteria, 1)
		require.Equal(t, [][2]int64{{2, 1}, {1, 1}}, criterionWeeks(r.Criteria[0]))
	}

	// A period that starts mid-week: its first week is cut; an empty one
	// has its weeks and nothing else.
	r, err := db.StatsTrends(ctx, pool, db.StatsFilter{From: at(7, 0, 0), To: at(13, 0, 0), TZ: "UTC"}, byAgent)
	require.NoError(t, err)
	require.Equal(t, []db.Week{
		{Week: "2026-10-05", ISOWeek: "2026-W41", From: at(7, 0, 0), To: at(12, 0, 0)},
		{Week: "2026-10-12", ISOWeek: "2026-W42", From: at(12, 0, 0), To: at(13, 0, 0)},
	}, r.Weeks)
	require.Equal(t, []string{"ana", "bob"}, operatorIDs(r.Agents))
	require.Equal(t, [][3]float64{{1, 0, 70}, {0, 0, -1}}, agentWeeks(r.Agents[0]))
	r, err = db.StatsTrends(ctx, pool, db.StatsFilter{From: at(1, 0, 0).AddDate(-1, 0, 0), To: at(2, 0, 0).AddDate(-1, 0, 0), TZ: "UTC"}, byAgent)
	require.NoError(t, err)
	require.Len(t, r.Weeks, 1)
	require.Empty(t, r.Agents)
	require.Empty(t, r.Criteria)
	require.NotNil(t, r.Agents)
}

func operatorIDs(agents []db.AgentTrend) []string {
	ids := []string{}
	for _, a := range agents {
		ids = append(ids, a.OperatorID)
	}
	return ids
}

func TestWeekStart(t *testing.T) {
	t.Parallel()
	madrid, err := time.LoadLocation("Europe/Madrid")
	require.NoError(t, err)
	santiago, err := time.LoadLocation("America/Santiago")
	require.NoError(t, err)
	for _, c := range []struct {
		at   time.Time
		loc  *time.Location
		want string
	}{
		{time.Date(2026, 10, 11, 21, 59, 0, 0, time.UTC), madrid, "2026-10-05T00:00:00+02:00"},
		{time.Date(2026, 10, 11, 22, 0, 0, 0, time.UTC), madrid, "2026-10-12T00:00:00+02:00"},
		{time.Date(2026, 10, 28, 12, 0, 0, 0, time.UTC), madrid, "2026-10-26T00:00:00+01:00"}, // after the clocks went back
		{time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC), time.UTC, "2026-12-28T00:00:00Z"},
		// Chile moves its clocks forward at midnight: Sunday 6 September
		// 2026 begins at 01:00.
		{time.Date(2026, 9, 9, 12, 0, 0, 0, time.UTC), santiago, "2026-09-07T00:00:00-03:00"},
	} {
		require.Equal(t, c.want, db.WeekStart(c.at, c.loc).In(c.loc).Format(time.RFC3339), "%s in %s", c.at, c.loc)
	}
}

// trendsCount checks that reports whose periods and weeks cut days read
// the same figures as counting their tasks, in zones whose weeks begin at
// all sorts of UTC times, for a campaign and for an agent.
func trendsCount(t *testing.T, pool *pgxpool.Pool, start time.Time, campaign string) {
	t.Helper()
	ctx := context.Background()
	from, to := start.Add(7*time.Hour+7*time.Minute), start.Add(50*time.Hour+52*time.Minute)
	for _, f := range []db.StatsFilter{
		{From: start, To: start.Add(72 * time.Hour), TZ: "Europe/Madrid"},
		{From: from, To: to, TZ: "Asia/Kathmandu", CampaignID: campaign},
		{From: from, To: to, TZ: "America/Los_Angeles"},
		{From: start, To: start.Add(72 * time.Hour), TZ: "Pacific/Auckland"},
		{From: from, To: from.Add(10 * time.Minute), TZ: "UTC"},
		{From: from, To: to, TZ: "Europe/Madrid", OperatorID: "ana"},
	} {
		r, err := db.StatsTrends(ctx, pool, f, db.AgentOrder{By: db.AgentsByAgent, Limit: 1000})
		require.NoError(t, err)
		got := map[string]string{}
		for _, a := range r.Agents {
			for i, w := range a.Weeks {
				if w.Audited > 0 {
					got[r.Weeks[i].Week+" "+a.OperatorID] = fmt.Sprintf("%d %d %.6f", w.Audited, w.Passed, *w.AverageScore)
				}
			}
		}
		for _, c := range r.Criteria {
			for i, w := range c.Weeks {
				if w.Judged > 0 {
					got[r.Weeks[i].Week+" "+c.CriterionID] = fmt.Sprintf("%d %d", w.Judged, w.Failed)
				}
			}
		}
		args := []any{f.From, f.To, f.CampaignID, f.OperatorID, f.TZ}
		const where = `created_at >= $1 AND created_at < $2 AND ($3 = '' OR campaign_id::text = $3)
			AND ($4 = '' OR operator_id = $4)`
		const week = `to_char(date_trunc('week', created_at AT TIME ZONE $5), 'YYYY-MM-DD')`
		rows, err := pool.Query(ctx, `
			SELECT `+week+` || ' ' || operator_id, format('%s %s %s', count(*), count(*) FILTER (WHERE passed),
				to_char(avg(score), 'FM9999990.000000'))
			FROM tasks WHERE `+where+` AND score IS NOT NULL AND operator_id IS NOT NULL GROUP BY 1
			UNION ALL
			SELECT `+week+` || ' ' || c, format('%s %s', count(*), count(*) FILTER (WHERE c = ANY (failed_criteria)))
			FROM tasks, unnest(judged_criteria) c WHERE `+where+` GROUP BY 1`, args...)
		require.NoError(t, err)
		want := map[string]string{}
		for rows.Next() {
			var k, v string
			require.NoError(t, rows.Scan(&k, &v))
			want[k] = v
		}
		require.NoError(t, rows.Err())
		require.Equal(t, want, got, "%+v", f)
	}
}
