package db

import (
	"context"
	"strconv"

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

// ChannelStats is what the channels of a dashboard's calls tell, in all
// and per agent.
type ChannelStats struct {
	ChannelTotals
	Agents map[string]ChannelTotals
}

// StatsChannels computes what the channels of the calls f selects tell:
// created in the period, of its campaign and agent (an agent's own calls
// only, as the task list shows them; no figure of a channel belongs to an
// audit, so none is hidden otherwise).
func StatsChannels(ctx context.Context, q DBTX, f StatsFilter) (ChannelStats, error) {
	args := []any{f.From, f.To}
	where := "t.created_at >= $1 AND t.created_at < $2"
	if f.CampaignID != "" {
		args = append(args, f.CampaignID)
		where += " AND t.campaign_id = $" + strconv.Itoa(len(args)) + "::uuid"
	}
	if f.OperatorID != "" {
		args = append(args, f.OperatorID)
		where += " AND t.operator_id = $" + strconv.Itoa(len(args)) + "::text"
	}
	rows, err := q.Query(ctx, `SELECT t.operator_id, GROUPING(t.operator_id) = 0, count(*),
			count(*) FILTER (WHERE (ch.figures->>'stereo')::boolean),
			avg(ch.agent_talk_ratio), avg(ch.silence_share),
			count(*) FILTER (WHERE ch.dead_air_count > 0), count(*) FILTER (WHERE ch.hold_count > 0),
			avg(ch.overtalk_count), avg((ch.figures->>'overtalk_seconds')::float8), max(ch.longest_silence_seconds)
		FROM tasks t JOIN call_channels ch ON ch.task_uuid = t.uuid
		WHERE `+where+` GROUP BY GROUPING SETS ((), (t.operator_id))`, args...)
	if err != nil {
		return ChannelStats{}, err
	}
	s := ChannelStats{Agents: map[string]ChannelTotals{}}
	var operator *string
	var perAgent bool
	var c ChannelTotals
	_, err = pgx.ForEachRow(rows, []any{&operator, &perAgent, &c.Calls, &c.Stereo, &c.AgentTalkRatio, &c.SilenceShare,
		&c.DeadAirCalls, &c.HoldCalls, &c.Overtalks, &c.OvertalkSeconds, &c.LongestSilenceSeconds}, func() error {
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
