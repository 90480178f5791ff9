package db

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// channelFigures are the columns of call_channels_daily (migration 00058)
// every figure of a ChannelTotals is derived from, as call_channels_daily_of
// gives them for one call and call_channels_calls (migration 00059) keeps
// them.
const channelFigures = `c.calls, c.stereo, c.talk_ratio_sum, c.talk_ratios, c.silence_share_sum, c.silence_shares,
	c.dead_air_calls, c.hold_calls, c.overtalk_sum, c.overtalks, c.overtalk_seconds_sum, c.overtalk_seconds_n,
	c.longest_silence`

// channelTotals is the select list of a ChannelTotals (scanned into its
// fields) over rows of channelFigures c: each average its sum over its count,
// as avg computes it (the overtalks' in numeric, as avg of an integer).
const channelTotals = `COALESCE(sum(c.calls), 0)::bigint, COALESCE(sum(c.stereo), 0)::bigint,
	sum(c.talk_ratio_sum) / NULLIF(sum(c.talk_ratios), 0)::float8,
	sum(c.silence_share_sum) / NULLIF(sum(c.silence_shares), 0)::float8,
	COALESCE(sum(c.dead_air_calls), 0)::bigint, COALESCE(sum(c.hold_calls), 0)::bigint,
	sum(c.overtalk_sum) / NULLIF(sum(c.overtalks), 0),
	sum(c.overtalk_seconds_sum) / NULLIF(sum(c.overtalk_seconds_n), 0)::float8, max(c.longest_silence)`

// fields are where the columns of channelTotals are scanned.
func (c *ChannelTotals) fields() []any {
	return []any{&c.Calls, &c.Stereo, &c.AgentTalkRatio, &c.SilenceShare, &c.DeadAirCalls, &c.HoldCalls,
		&c.Overtalks, &c.OvertalkSeconds, &c.LongestSilenceSeconds}
}

// channelPlan is how the analysed calls of a period are read into its
// weeks: the UTC days wholly inside one week from call_channels_daily, the
// others' calls from call_channels_calls. Unlike the agents' figures (trendsPlan), no part
// of a day is moved from one week to another: a longest silence cannot be
// taken back.
type channelPlan struct {
	// first is the first day of days.
	first time.Time
	// days holds, for each UTC day from first on, the week it is read
	// into (an index of the weeks), or -1: read from the calls.
	days []int32
	// lo and hi bound the stretches of creation time read from the calls.
	lo, hi []time.Time
}

// planChannels plans the reading of the calls of [from, to) into weeks,
// which cut it.
func planChannels(from, to time.Time, weeks []Week) channelPlan {
	// Truncate counts from the zero time, midnight UTC.
	p := channelPlan{first: from.Truncate(24 * time.Hour)}
	for day := p.first; day.Before(to); day = day.Add(24 * time.Hour) {
		end := day.Add(24 * time.Hour)
		if w := weekAt(weeks, day); w >= 0 && !end.After(weeks[w].To) {
			p.days = append(p.days, w)
			continue
		}
		p.days = append(p.days, -1)
		lo, hi := latest(day, from), earliest(end, to)
		if n := len(p.hi); n > 0 && p.hi[n-1].Equal(lo) {
			p.hi[n-1] = hi
			continue
		}
		p.lo, p.hi = append(p.lo, lo), append(p.hi, hi)
	}
	return p
}

// channelRows renders, as a subquery aliased c, the analysed calls f
// selects (created in the period, of its campaign and agent: an agent's own
// calls only, as the task list shows them; no figure of a channel belongs to
// an audit, so none is hidden otherwise) as rows of channelFigures with the
// index of their week of weeks (which cut f's period) and their agent
// (operator_id, NULL for none): the rows of call_channels_daily over the
// whole days of a week, those of call_channels_calls (a call each, migration
// 00059) by creation time over the rest. Its parameters are appended to
// args.
func channelRows(f StatsFilter, weeks []Week, args *[]any) string {
	param := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	p := planChannels(f.From, f.To, weeks)
	scope := ""
	if f.CampaignID != "" {
		scope += " AND c.campaign_id = " + param(f.CampaignID) + "::uuid"
	}
	if f.OperatorID != "" {
		scope += " AND c.operator_id = " + param(f.OperatorID) + "::text"
	}
	var union []string
	if slices.ContainsFunc(p.days, func(w int32) bool { return w >= 0 }) {
		first, days := param(p.first.UTC().Format(time.DateOnly))+"::date", param(p.days)+"::int[]"
		week := `(` + days + `)[c.day - ` + first + ` + 1]`
		union = append(union, `SELECT `+week+` AS week, NULLIF(c.operator_id, '') AS operator_id, `+channelFigures+`
			FROM call_channels_daily c
			WHERE c.day >= `+first+` AND c.day < `+first+` + cardinality(`+days+`) AND `+week+` >= 0`+scope)
	}
	if len(p.lo) > 0 {
		starts := make([]time.Time, len(weeks))
		for i, w := range weeks {
			starts[i] = w.From
		}
		union = append(union, `SELECT width_bucket(c.created_at, `+param(starts)+`::timestamptz[]) - 1 AS week,
				NULLIF(c.operator_id, '') AS operator_id, `+channelFigures+`
			FROM unnest(`+param(p.lo)+`::timestamptz[], `+param(p.hi)+`::timestamptz[]) s (lo, hi)
			JOIN call_channels_calls c ON c.created_at >= s.lo AND c.created_at < s.hi`+scope)
	}
	if len(union) == 0 {
		return "(SELECT NULL::int AS week, NULL::text AS operator_id, " + channelFigures + " FROM call_channels_daily c WHERE false) c"
	}
	return "(" + strings.Join(union, " UNION ALL ") + ") c"
}

// ChannelStats is what the channels of a dashboard's calls tell, in all
// and per agent.
type ChannelStats struct {
	ChannelTotals
	Agents map[string]ChannelTotals
}

// StatsChannels computes what the channels of the calls f selects tell
// (channelRows), in all and per agent.
func StatsChannels(ctx context.Context, q DBTX, f StatsFilter) (ChannelStats, error) {
	var args []any
	from := channelRows(f, []Week{{From: f.From, To: f.To}}, &args)
	rows, err := q.Query(ctx, `SELECT c.operator_id, GROUPING(c.operator_id) = 0, `+channelTotals+` FROM `+from+`
		GROUP BY GROUPING SETS ((), (c.operator_id))`, args...)
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
// (channelRows), over f's period and in each of weeks, the period's.
func channelTrend(ctx context.Context, q DBTX, f StatsFilter, weeks []Week) (ChannelTrend, error) {
	var args []any
	from := channelRows(f, weeks, &args)
	rows, err := q.Query(ctx, `SELECT c.week, GROUPING(c.week) = 0, `+channelTotals+` FROM `+from+`
		GROUP BY GROUPING SETS ((), (c.week))`, args...)
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
