package api

import (
	"github.com/auditd/auditd/db"
)

// ChannelFigures is what the channels of some calls tell: over the calls
// whose channels were analysed, which it counts.
type ChannelFigures struct {
	Calls  int64 `json:"calls" doc:"Calls with their channels analysed: every figure here counts only these (a chat, or a call not analysed yet, counts in none)"`
	Stereo int64 `json:"stereo_calls" doc:"Of them, stereo calls (agent and customer on channels of their own): the talk ratio, overtalk and holds count only these"`
	ChannelAverages
	DeadAirCalls          int64    `json:"dead_air_calls" doc:"Calls with at least one dead-air silence (min_dead_air=1 on the task list)"`
	DeadAirShare          *float64 `json:"dead_air_share" doc:"dead_air_calls / calls (null without calls)"`
	HoldCalls             int64    `json:"hold_calls" doc:"Stereo calls with at least one hold (min_holds=1 on the task list)"`
	HoldShare             *float64 `json:"hold_share" doc:"hold_calls / stereo_calls (null without stereo calls)"`
	OvertalkPerCall       *float64 `json:"overtalk_per_call" doc:"Overtalk stretches per stereo call (null without stereo calls)"`
	OvertalkSeconds       *float64 `json:"overtalk_seconds_per_call" doc:"Seconds of overtalk per stereo call (null without stereo calls)"`
	LongestSilenceSeconds *float64 `json:"longest_silence_seconds" doc:"The longest silence of any of the calls (null without calls)"`
}

// ChannelStats is what the channels of a dashboard's calls tell, in all
// and for the agents of its ranking.
type ChannelStats struct {
	ChannelFigures
	Agents []AgentChannels `json:"agents" doc:"Each agent of the ranking (operators.top, then operators.bottom) who has analysed calls, once"`
}

// ChannelTrend is what the channels of a report's calls tell, over its
// period and week by week.
type ChannelTrend struct {
	ChannelFigures
	Weeks []ChannelFigures `json:"weeks" doc:"One per week of the report, in its order"`
}

// ChannelAverages are the averages over some calls of what their channels
// tell.
type ChannelAverages struct {
	AgentTalkRatio *float64 `json:"average_agent_talk_ratio" doc:"The average agent talk ratio of the stereo calls (0..1; null without stereo calls in which someone spoke)"`
	SilenceShare   *float64 `json:"average_silence_share" doc:"The average share of a call in which nobody spoke (0..1; null without calls)"`
}

// AgentChannels is what one agent's analysed calls tell.
type AgentChannels struct {
	OperatorID string `json:"operator_id"`
	Calls      int64  `json:"calls" doc:"The agent's calls with their channels analysed"`
	ChannelAverages
}

// channelFiguresOf is t on the wire.
func channelFiguresOf(t db.ChannelTotals) ChannelFigures {
	return ChannelFigures{
		Calls: t.Calls, Stereo: t.Stereo, DeadAirCalls: t.DeadAirCalls, HoldCalls: t.HoldCalls,
		ChannelAverages: ChannelAverages{AgentTalkRatio: t.AgentTalkRatio, SilenceShare: t.SilenceShare},
		OvertalkPerCall: t.Overtalks, OvertalkSeconds: t.OvertalkSeconds, LongestSilenceSeconds: t.LongestSilenceSeconds,
		DeadAirShare: share(t.DeadAirCalls, t.Calls), HoldShare: share(t.HoldCalls, t.Stereo),
	}
}

// channelStatsOf is s on the wire, with the agents of ranking (in its
// order, each once) who have analysed calls.
func channelStatsOf(s db.ChannelStats, ranking db.OperatorRanking) ChannelStats {
	c := ChannelStats{ChannelFigures: channelFiguresOf(s.ChannelTotals), Agents: []AgentChannels{}}
	seen := map[string]bool{}
	for _, o := range append(append([]db.OperatorAverage{}, ranking.Top...), ranking.Bottom...) {
		if a, ok := s.Agents[o.OperatorID]; ok && !seen[o.OperatorID] {
			seen[o.OperatorID] = true
			c.Agents = append(c.Agents, AgentChannels{OperatorID: o.OperatorID, Calls: a.Calls,
				ChannelAverages: ChannelAverages{AgentTalkRatio: a.AgentTalkRatio, SilenceShare: a.SilenceShare}})
		}
	}
	return c
}

// share is n / of, nil when of is 0.
func share(n, of int64) *float64 {
	if of == 0 {
		return nil
	}
	v := float64(n) / float64(of)
	return &v
}
