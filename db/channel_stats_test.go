package db_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/transcript"
)

// insertCall inserts a transcribed call named name (its blob key and
// hash) of campaignID and operator ("" for none), created at created, and
// returns its uuid.
func insertCall(t *testing.T, pool *pgxpool.Pool, name, campaignID, operator string, created time.Time) string {
	t.Helper()
	var uuid string
	require.NoError(t, pool.QueryRow(context.Background(), `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			operator_id, language, uploaded_by, created_at, updated_at)
		VALUES (gen_random_uuid(), 'call', 'transcribed', 'f', 'audio/wav', 1, encode(sha256($1::bytea), 'hex'), $1, $2,
			NULLIF($3, ''), 'es', 'qa', $4, $4) RETURNING uuid`, name, campaignID, operator, created).Scan(&uuid))
	return uuid
}

// TestStatsChannels holds the channel figures of a dashboard's calls: the
// period's ends, the campaign and the agent narrow them; a call without an
// agent counts in all but in no agent's.
func TestStatsChannels(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	var second string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO campaigns (name) VALUES ('second') RETURNING id`).Scan(&second))
	from := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	call := func(campaignID, operator string, created time.Time, silence float64, deadAir int) {
		n++
		uuid := insertCall(t, pool, fmt.Sprintf("channels-%d", n), campaignID, operator, created)
		dead := make([]transcript.Span, deadAir)
		require.NoError(t, db.ChannelsSave(ctx, pool, uuid, transcript.Channels{Stereo: true, DurationSeconds: 60,
			AgentTalkRatio: new(0.5), SilenceShare: silence, LongestSilenceSeconds: 10 * silence, DeadAir: dead}))
	}
	call(campaign.ID, "ana", from, 0.2, 1)                     // the first instant counts
	call(campaign.ID, "", from.Add(time.Hour), 0.4, 0)         // no agent
	call(second, "ana", from.Add(2*time.Hour), 0.6, 2)         // another campaign
	call(campaign.ID, "ana", from.Add(24*time.Hour), 0.9, 3)   // the end is excluded
	call(campaign.ID, "ana", from.Add(-time.Nanosecond), 1, 1) // before the start

	f := db.StatsFilter{From: from, To: from.Add(24 * time.Hour), TZ: "UTC"}
	s, err := db.StatsChannels(ctx, pool, f)
	require.NoError(t, err)
	require.Equal(t, int64(3), s.Calls)
	require.Equal(t, int64(2), s.DeadAirCalls)
	require.InDelta(t, 0.4, *s.SilenceShare, 1e-9)
	require.InDelta(t, 6.0, *s.LongestSilenceSeconds, 1e-9)
	require.Equal(t, []string{"ana"}, slices.Collect(maps.Keys(s.Agents)), "a call without an agent is no agent's")
	require.Equal(t, int64(2), s.Agents["ana"].Calls)
	require.InDelta(t, 0.4, *s.Agents["ana"].SilenceShare, 1e-9)

	f.CampaignID = campaign.ID
	s, err = db.StatsChannels(ctx, pool, f)
	require.NoError(t, err)
	require.Equal(t, int64(2), s.Calls)
	require.InDelta(t, 0.3, *s.SilenceShare, 1e-9)

	f.OperatorID = "ana"
	s, err = db.StatsChannels(ctx, pool, f)
	require.NoError(t, err)
	require.Equal(t, int64(1), s.Calls)
	require.Equal(t, int64(1), s.DeadAirCalls)
	require.InDelta(t, 0.2, *s.SilenceShare, 1e-9)
}

// TestChannelsDaily holds the figures kept per day (call_channels_daily) to
// those of the calls themselves, after calls are analysed, analysed again
// with a shorter longest silence, forgotten by an erasure, deleted, and
// moved to another day and agent: the dashboard's figures over whole days,
// read from the rollup alone, and a report's in a zone whose weeks cut days.
func TestChannelsDaily(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	from := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	var uuids []string
	call := func(operator string, created time.Time, c transcript.Channels) {
		uuid := insertCall(t, pool, fmt.Sprintf("daily-%d", len(uuids)), campaign.ID, operator, created)
		require.NoError(t, db.ChannelsSave(ctx, pool, uuid, c))
		uuids = append(uuids, uuid)
	}
	stereo := func(ratio, silence, longest float64, deadAir, overtalk, holds int) transcript.Channels {
		return transcript.Channels{Stereo: true, DurationSeconds: 60, AgentTalkRatio: new(ratio), SilenceShare: silence,
			LongestSilenceSeconds: longest, DeadAir: make([]transcript.Span, deadAir), Overtalk: make([]transcript.Span, overtalk),
			OvertalkSeconds: new(0.5 * float64(overtalk)), Holds: make([]transcript.Span, holds)}
	}
	for i := range 12 {
		created := from.Add(time.Duration(i*9) * time.Hour)
		operator := []string{"ana", "luis", ""}[i%3]
		if i%4 == 3 {
			call(operator, created, transcript.Channels{DurationSeconds: 60, SilenceShare: 0.25, LongestSilenceSeconds: float64(i),
				DeadAir: []transcript.Span{}})
			continue
		}
		call(operator, created, stereo(0.25*float64(1+i%3), 0.125*float64(i%4), float64(10+i), i%2, i%3, i%5%2))
	}
	period := db.StatsFilter{From: from, To: from.AddDate(0, 0, 7), TZ: "UTC"}
	check := func(step string) {
		t.Helper()
		var want db.ChannelStats
		rows, err := pool.Query(ctx, `SELECT t.operator_id, GROUPING(t.operator_id) = 0, count(*),
				count(*) FILTER (WHERE (ch.figures->>'stereo')::boolean), avg(ch.agent_talk_ratio), avg(ch.silence_share),
				count(*) FILTER (WHERE ch.dead_air_count > 0), count(*) FILTER (WHERE ch.hold_count > 0),
				avg(ch.overtalk_count), avg((ch.figures->>'overtalk_seconds')::float8), max(ch.longest_silence_seconds)
			FROM tasks t JOIN call_channels ch ON ch.task_uuid = t.uuid WHERE t.created_at >= $1 AND t.created_at < $2
			GROUP BY GROUPING SETS ((), (t.operator_id))`, period.From, period.To)
		require.NoError(t, err)
		want.Agents = map[string]db.ChannelTotals{}
		for rows.Next() {
			var operator *string
			var perAgent bool
			var c db.ChannelTotals
			require.NoError(t, rows.Scan(&operator, &perAgent, &c.Calls, &c.Stereo, &c.AgentTalkRatio, &c.SilenceShare,
				&c.DeadAirCalls, &c.HoldCalls, &c.Overtalks, &c.OvertalkSeconds, &c.LongestSilenceSeconds))
			switch {
			case !perAgent:
				want.ChannelTotals = c
			case operator != nil:
				want.Agents[*operator] = c
			}
		}
		require.NoError(t, rows.Err())
		got, err := db.StatsChannels(ctx, pool, period)
		require.NoError(t, err)
		require.Equal(t, want, got, step)
		require.Zero(t, channelsDailyDrift(t, pool), step)

		madrid := period
		madrid.TZ = "Europe/Madrid"
		trend, err := db.StatsTrends(ctx, pool, madrid, db.AgentOrder{By: db.AgentsByAgent, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, want.ChannelTotals, trend.Channels.ChannelTotals, step)
		require.Len(t, trend.Channels.Weeks, 2, step)
		require.Equal(t, want.Calls, trend.Channels.Weeks[0].Calls+trend.Channels.Weeks[1].Calls, step)
	}
	check("analysed")

	// The longest silence of the period is 21 s: analysed again with less.
	require.NoError(t, db.ChannelsSave(ctx, pool, uuids[11], stereo(0.5, 0.25, 1, 0, 0, 0)))
	check("analysed again")

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, db.TasksForget(ctx, tx, db.ForgetTranscript, uuids[:4], &db.Forgotten{}))
	require.NoError(t, tx.Commit(ctx))
	check("erased")

	_, err = pool.Exec(ctx, `DELETE FROM tasks WHERE uuid = ANY($1::uuid[])`, uuids[9:11])
	require.NoError(t, err)
	check("deleted")

	_, err = pool.Exec(ctx, `UPDATE tasks SET created_at = created_at + interval '1 day', operator_id = 'marta'
		WHERE uuid = $1`, uuids[0])
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE tasks SET created_at = $2 WHERE uuid = $1`, uuids[1], from.AddDate(0, 0, 8))
	require.NoError(t, err)
	check("moved")
}

// channelsDailyDrift counts the rows of call_channels_daily whose calls and
// longest silence differ from those of the calls of their day, campaign
// and agent, and the days of calls it has no row for.
func channelsDailyDrift(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `
		WITH calls AS (
			SELECT (t.created_at AT TIME ZONE 'UTC')::date, t.campaign_id, COALESCE(t.operator_id, ''), count(*)::bigint,
				max(ch.longest_silence_seconds)
			FROM tasks t JOIN call_channels ch ON ch.task_uuid = t.uuid GROUP BY 1, 2, 3
		), kept AS (
			SELECT day, campaign_id, operator_id, calls, longest_silence FROM call_channels_daily
		)
		SELECT count(*) FROM ((TABLE kept EXCEPT TABLE calls) UNION ALL (TABLE calls EXCEPT TABLE kept)) d`).Scan(&n))
	return n
}

// TestMigrationFillsChannelsDaily: migration 00058 keeps per day what the
// channels of the calls analysed before it tell.
func TestMigrationFillsChannelsDaily(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.PoolFor(t, dbtest.EmptyURL(t))
	require.NoError(t, db.MigrateSchemaTo(ctx, pool, 53))
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('qa', 'qa')`)
	require.NoError(t, err)
	var campaign string
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM campaigns WHERE name = 'default'`).Scan(&campaign))
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	for i, longest := range []float64{12, 30, 7} {
		uuid := insertCall(t, pool, fmt.Sprintf("before-%d", i), campaign, "ana", day.Add(time.Duration(i*20)*time.Hour))
		require.NoError(t, db.ChannelsSave(ctx, pool, uuid, transcript.Channels{DurationSeconds: 60, SilenceShare: 0.5,
			LongestSilenceSeconds: longest, DeadAir: []transcript.Span{}}))
	}

	require.NoError(t, db.Migrate(ctx, pool))
	require.Zero(t, channelsDailyDrift(t, pool))
	var days int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM call_channels_daily`).Scan(&days))
	require.Equal(t, 2, days, "two calls of the first day, one of the second")
	s, err := db.StatsChannels(ctx, pool, db.StatsFilter{From: day, To: day.AddDate(0, 0, 3), TZ: "UTC"})
	require.NoError(t, err)
	require.Equal(t, int64(3), s.Calls)
	require.Equal(t, 30.0, *s.LongestSilenceSeconds)
}

// channelsOfCalls sums, call by call, what the channels of the calls created
// in [from, to) of campaign and operator (each "" for any) tell.
func channelsOfCalls(t *testing.T, pool *pgxpool.Pool, from, to time.Time, campaign, operator string) db.ChannelTotals {
	t.Helper()
	var c db.ChannelTotals
	require.NoError(t, pool.QueryRow(context.Background(), `
		SELECT count(*), count(*) FILTER (WHERE (ch.figures->>'stereo')::boolean),
			avg(ch.agent_talk_ratio), avg(ch.silence_share), count(*) FILTER (WHERE ch.dead_air_count > 0),
			count(*) FILTER (WHERE ch.hold_count > 0), avg(ch.overtalk_count),
			avg((ch.figures->>'overtalk_seconds')::float8), max(ch.longest_silence_seconds)
		FROM call_channels ch JOIN tasks t ON t.uuid = ch.task_uuid
		WHERE t.created_at >= $1 AND t.created_at < $2 AND ($3 = '' OR t.campaign_id::text = $3)
			AND ($4 = '' OR t.operator_id = $4)`, from, to, campaign, operator).
		Scan(&c.Calls, &c.Stereo, &c.AgentTalkRatio, &c.SilenceShare, &c.DeadAirCalls, &c.HoldCalls, &c.Overtalks,
			&c.OvertalkSeconds, &c.LongestSilenceSeconds))
	return c
}

// channelCallsDrift counts the rows of call_channels_calls that differ from
// what call_channels_daily_of tells of their call with its task's creation
// time, campaign and agent, and the analysed calls it has no row for.
func channelCallsDrift(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `
		WITH calls AS (
			SELECT ch.task_uuid, t.created_at, t.campaign_id, COALESCE(t.operator_id, ''), d.*
			FROM tasks t JOIN call_channels ch ON ch.task_uuid = t.uuid, call_channels_daily_of(ch) d
		)
		SELECT count(*) FROM ((TABLE call_channels_calls EXCEPT TABLE calls)
			UNION ALL (TABLE calls EXCEPT TABLE call_channels_calls)) d`).Scan(&n))
	return n
}

// TestChannelCutDays holds the channel figures of reports whose weeks cut
// days (Madrid's and New York's), read from call_channels_calls for those
// days, to the sums of the calls themselves, for everyone, a campaign and
// an agent, after calls are analysed, analysed again, deleted, and moved to
// another agent, campaign and time: a call moved on a cut day takes its
// figures along.
func TestChannelCutDays(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	var second string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO campaigns (name) VALUES ('second') RETURNING id`).Scan(&second))
	madrid, err := time.LoadLocation("Europe/Madrid")
	require.NoError(t, err)
	// Monday 5 October, midnight in Madrid: 22:00 UTC the day before.
	from := time.Date(2026, 10, 5, 0, 0, 0, 0, madrid)
	to := from.AddDate(0, 0, 14)
	channels := func(i int) transcript.Channels {
		if i%5 == 4 {
			return transcript.Channels{DurationSeconds: 60, SilenceShare: 0.25, LongestSilenceSeconds: float64(i),
				DeadAir: []transcript.Span{}}
		}
		return transcript.Channels{Stereo: true, DurationSeconds: 60, AgentTalkRatio: new(0.25 * float64(1+i%3)),
			SilenceShare: 0.125 * float64(i%4), LongestSilenceSeconds: float64(100 - i), DeadAir: make([]transcript.Span, i%2),
			Overtalk: make([]transcript.Span, i%3), OvertalkSeconds: new(0.5 * float64(i%3)), Holds: make([]transcript.Span, i%7%2)}
	}
	// A call every seven hours from a day before the period to a day
	// after it: some on every day a week cuts, in either zone.
	var uuids []string
	for at := from.Add(-24 * time.Hour); at.Before(to.Add(24 * time.Hour)); at = at.Add(7 * time.Hour) {
		i := len(uuids)
		uuid := insertCall(t, pool, fmt.Sprintf("cut-%d", i), []string{campaign.ID, second}[i%2], []string{"ana", "luis", ""}[i%3], at)
		require.NoError(t, db.ChannelsSave(ctx, pool, uuid, channels(i)))
		uuids = append(uuids, uuid)
	}
	check := func(step string) {
		t.Helper()
		for _, tz := range []string{"Europe/Madrid", "America/New_York"} {
			for _, scope := range []struct{ campaign, operator string }{{}, {campaign.ID, ""}, {"", "ana"}, {second, "marta"}} {
				f := db.StatsFilter{From: from, To: to, TZ: tz, CampaignID: scope.campaign, OperatorID: scope.operator}
				at := fmt.Sprintf("%s: %s %+v", step, tz, scope)
				r, err := db.StatsTrends(ctx, pool, f, db.AgentOrder{By: db.AgentsByAgent, Limit: 10})
				require.NoError(t, err)
				require.Equal(t, channelsOfCalls(t, pool, from, to, scope.campaign, scope.operator), r.Channels.ChannelTotals, at)
				require.Len(t, r.Channels.Weeks, len(r.Weeks), at)
				for i, w := range r.Weeks {
					require.Equal(t, channelsOfCalls(t, pool, w.From, w.To, scope.campaign, scope.operator), r.Channels.Weeks[i],
						"%s, week %s", at, w.Week)
				}
				s, err := db.StatsChannels(ctx, pool, f)
				require.NoError(t, err)
				require.Equal(t, r.Channels.ChannelTotals, s.ChannelTotals, at)
			}
		}
		require.Zero(t, channelCallsDrift(t, pool), step)
	}
	check("analysed")

	require.NoError(t, db.ChannelsSave(ctx, pool, uuids[0], channels(1)))
	require.NoError(t, db.ChannelsSave(ctx, pool, uuids[5], channels(4)))
	check("analysed again")

	_, err = pool.Exec(ctx, `DELETE FROM tasks WHERE uuid = ANY($1::uuid[])`, uuids[7:9])
	require.NoError(t, err)
	check("deleted")

	// The call of Sunday 11 October at 23:00 UTC (the day Madrid's second
	// week begins in, at 22:00) to another agent and campaign, and one to
	// another day.
	moved := insertCall(t, pool, "cut-moved", campaign.ID, "ana", time.Date(2026, 10, 11, 23, 0, 0, 0, time.UTC))
	require.NoError(t, db.ChannelsSave(ctx, pool, moved, channels(0)))
	check("analysed on a cut day")
	_, err = pool.Exec(ctx, `UPDATE tasks SET operator_id = 'marta', campaign_id = $2 WHERE uuid = $1`, moved, second)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE tasks SET created_at = created_at + interval '3 days' WHERE uuid = $1`, uuids[3])
	require.NoError(t, err)
	check("moved")
	r, err := db.StatsTrends(ctx, pool, db.StatsFilter{From: from, To: to, TZ: "Europe/Madrid", OperatorID: "marta"},
		db.AgentOrder{By: db.AgentsByAgent, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, int64(1), r.Channels.Weeks[1].Calls, "the moved call, in its new agent's week")
}

// TestMigrationFillsChannelCalls: migration 00059 keeps each call's
// channels with its task's creation time, campaign and agent for the calls
// analysed before it.
func TestMigrationFillsChannelCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.PoolFor(t, dbtest.EmptyURL(t))
	require.NoError(t, db.MigrateSchemaTo(ctx, pool, 58))
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('qa', 'qa')`)
	require.NoError(t, err)
	var campaign string
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM campaigns WHERE name = 'default'`).Scan(&campaign))
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	for i, operator := range []string{"ana", "", "luis"} {
		uuid := insertCall(t, pool, fmt.Sprintf("before-%d", i), campaign, operator, day.Add(time.Duration(i*20)*time.Hour))
		require.NoError(t, db.ChannelsSave(ctx, pool, uuid, transcript.Channels{DurationSeconds: 60, SilenceShare: 0.5,
			LongestSilenceSeconds: float64(10 + i), DeadAir: []transcript.Span{}}))
	}

	require.NoError(t, db.Migrate(ctx, pool))
	require.Zero(t, channelCallsDrift(t, pool))
	var calls int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM call_channels_calls`).Scan(&calls))
	require.Equal(t, 3, calls)
}

// TestChannelCallsConcurrentMove: a call analysed again while its task is
// moved to another agent, in a transaction not committed yet, waits for it
// and keeps both changes (unlocked, it wrote the call's row a second time
// once the move committed: a duplicate key).
func TestChannelCallsConcurrentMove(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	uuid := insertCall(t, pool, "concurrent", campaign.ID, "ana", time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC))
	analysis := func(longest float64) transcript.Channels {
		return transcript.Channels{DurationSeconds: 60, LongestSilenceSeconds: longest, DeadAir: []transcript.Span{}}
	}
	require.NoError(t, db.ChannelsSave(ctx, pool, uuid, analysis(10)))

	move, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer move.Rollback(ctx) //nolint:errcheck // committed below
	_, err = move.Exec(ctx, `UPDATE tasks SET operator_id = 'luis' WHERE uuid = $1`, uuid)
	require.NoError(t, err)
	saved := make(chan error)
	go func() { saved <- db.ChannelsSave(ctx, pool, uuid, analysis(20)) }()
	require.Eventually(t, func() bool {
		var waiting bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting))
		return waiting
	}, 10*time.Second, 10*time.Millisecond, "the analysis waits for the move")
	require.NoError(t, move.Commit(ctx))
	require.NoError(t, <-saved)

	require.Zero(t, channelCallsDrift(t, pool))
	var operator string
	var longest float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT operator_id, longest_silence FROM call_channels_calls WHERE task_uuid = $1`,
		uuid).Scan(&operator, &longest))
	require.Equal(t, "luis", operator)
	require.Equal(t, 20.0, longest)
}
