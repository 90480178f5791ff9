package db

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// ChannelTotals is what the channels of some calls tell, over the calls
// whose channels were analysed (call_channels): a call not analysed yet,
// and a chat, count in none of them. Averages and the longest silence are
// nil without calls to take them from.
type ChannelTotals struct {
	// Calls were analysed; Stereo of them had the agent and the customer
	// on channels of their own (the talk ratio, overtalk and holds count
	// only these).
	Calls, Stereo int64
	// AgentTalkRatio and SilenceShare are averages over the calls.
	AgentTalkRatio, SilenceShare *float64
	// DeadAirCalls had a dead-air silence; HoldCalls a hold.
	DeadAirCalls, HoldCalls int64
	// Overtalks and OvertalkSeconds are averages per stereo call.
	Overtalks, OvertalkSeconds *float64
	LongestSilenceSeconds      *float64
}

// channelTotals is the select list of a ChannelTotals (scanned into its
// fields) over the rows of channelCalls.
const channelTotals = `count(*), count(*) FILTER (WHERE (ch.figures->>'stereo')::boolean),
	avg(ch.agent_talk_ratio), avg(ch.silence_share),
	count(*) FILTER (WHERE ch.dead_air_count > 0), count(*) FILTER (WHERE ch.hold_count > 0),
	avg(ch.overtalk_count), avg((ch.figures->>'overtalk_seconds')::float8), max(ch.longest_silence_seconds)`

// fields are where the columns of channelTotals are scanned.
func (c *ChannelTotals) fields() []any {
	return []any{&c.Calls, &c.Stereo, &c.AgentTalkRatio, &c.SilenceShare, &c.DeadAirCalls, &c.HoldCalls,
		&c.Overtalks, &c.OvertalkSeconds, &c.LongestSilenceSeconds}
}

// channelCalls is the FROM and WHERE of the analysed calls (tasks t, their
// call_channels ch) f selects: created in the period, of its campaign and
// agent (an agent's own calls only, as the task list shows them; no figure
// of a channel belongs to an audit, so none is hidden otherwise). Its
// parameters are appended to args.
func channelCalls(f StatsFilter, args *[]any) string {
	param := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	where := "t.created_at >= " + param(f.From) + " AND t.created_at < " + param(f.To)
	if f.CampaignID != "" {
		where += " AND t.campaign_id = " + param(f.CampaignID) + "::uuid"
	}
	if f.OperatorID != "" {
		where += " AND t.operator_id = " + param(f.OperatorID) + "::text"
	}
	return " FROM tasks t JOIN call_channels ch ON ch.task_uuid = t.uuid WHERE " + where
}

// ChannelStats is what the channels of a dashboard's calls tell, in all
// and per agent.
type ChannelStats struct {
	ChannelTotals
	Agents map[string]ChannelTotals
}

// StatsChannels computes what the channels of the calls f selects tell
// (channelCalls), in all and per agent.
func StatsChannels(ctx context.Context, q DBTX, f StatsFilter) (ChannelStats, error) {
	var args []any
	from := channelCalls(f, &args)
	rows, err := q.Query(ctx, `SELECT t.operator_id, GROUPING(t.operator_id) = 0, `+channelTotals+from+`
		GROUP BY GROUPING SETS ((), (t.operator_id))`, args...)
	if err != nil {
		return ChannelStats{}, err
	}
	s := ChannelStats{Agents: map[string]ChannelTotals{}}
	var operator *string
	var perAgent bool
	var c ChannelTotals
	_, err = pgx.ForEachRow(rows, append([]any{&operator, &perAgent}, c.fields()...), func() error {
		switch {
		case !perAgent:
			s.ChannelTotals = c
		case operator != nil:
			s.Agents[*operator] = c
		}
		return nil
	})
	return s, err
}

// ChannelTrend is what the channels of a report's calls tell, over its
// period and week by week.
type ChannelTrend struct {
	ChannelTotals
	// Weeks has an entry for every week of Trends.Weeks.
	Weeks []ChannelTotals
}

// channelTrend computes what the channels of the calls f selects tell
// (channelCalls), over f's period and in each of weeks, the period's.
func channelTrend(ctx context.Context, q DBTX, f StatsFilter, weeks []Week) (ChannelTrend, error) {
	var args []any
	from := channelCalls(f, &args)
	starts := make([]time.Time, len(weeks))
	for i, w := range weeks {
		starts[i] = w.From
	}
	args = append(args, starts)
	week := "width_bucket(t.created_at, $" + strconv.Itoa(len(args)) + "::timestamptz[])"
	rows, err := q.Query(ctx, `SELECT `+week+` - 1, GROUPING(`+week+`) = 0, `+channelTotals+from+`
		GROUP BY GROUPING SETS ((), (`+week+`))`, args...)
	if err != nil {
		return ChannelTrend{}, err
	}
	c := ChannelTrend{Weeks: make([]ChannelTotals, len(weeks))}
	var i *int
	var perWeek bool
	var totals ChannelTotals
	_, err = pgx.ForEachRow(rows, append([]any{&i, &perWeek}, totals.fields()...), func() error {
		switch {
		case !perWeek:
			c.ChannelTotals = totals
		case *i < 0 || *i >= len(weeks):
			return fmt.Errorf("channel trend: week %d of %d", *i, len(weeks))
		default:
			c.Weeks[*i] = totals
		}
		return nil
	})
	return c, err
}
