package api

import (
	"time"

	"github.com/auditd/auditd/db"
)

// The weekly report's wire types: db.StatsTrends' figures as the API shows
// them (trendsOf).

// trendsOf is t as the API shows it.
func trendsOf(t db.Trends) Trends {
	return Trends{
		Weeks:       each(t.Weeks, func(w db.Week) Week { return Week(w) }),
		Agents:      each(t.Agents, agentTrendOf),
		AgentsTotal: t.AgentsTotal,
		Criteria:    each(t.Criteria, criterionTrendOf),
		Channels:    ChannelTrend{ChannelFigures: channelFiguresOf(t.Channels.ChannelTotals), Weeks: each(t.Channels.Weeks, channelFiguresOf)},
	}
}

// agentTrendOf is a as the API shows it.
func agentTrendOf(a db.AgentTrend) AgentTrend {
	return AgentTrend{OperatorID: a.OperatorID, AgentWeek: AgentWeek(a.AgentWeek), LatestWeek: a.LatestWeek,
		LatestAverage: a.LatestAverage, Change: a.Change, Weeks: each(a.Weeks, func(w db.AgentWeek) AgentWeek { return AgentWeek(w) })}
}

// criterionTrendOf is c as the API shows it.
func criterionTrendOf(c db.CriterionTrend) CriterionTrend {
	return CriterionTrend{CriterionID: c.CriterionID, Question: c.Question, CriterionWeek: CriterionWeek(c.CriterionWeek),
		Weeks: each(c.Weeks, func(w db.CriterionWeek) CriterionWeek { return CriterionWeek(w) })}
}

// Trends is a period's audits week by week: each agent's and each
// criterion's, and what the channels of its calls tell. A task counts in
// the week it was created in, as on the dashboard.
type Trends struct {
	Weeks []Week `json:"weeks" doc:"The period's weeks, oldest first; every agent's and criterion's weeks follow them one by one"`
	// Agents are sorted and cut as AgentOrder says.
	Agents      []AgentTrend     `json:"agents" doc:"The agents with audits in the period, in the order asked for"`
	AgentsTotal int              `json:"agents_total" doc:"How many agents have audits in the period (agents lists at most limit of them)"`
	Criteria    []CriterionTrend `json:"criteria" doc:"The criteria the period's audits judged, failed most first"`
	Channels    ChannelTrend     `json:"channels" doc:"What the channels of the period's calls tell (talk ratio, silence, dead air, overtalk, holds), over the calls analysed, in all and week by week"`
}

// Week is one week of a report: an ISO week (Monday to Sunday) of the
// report's time zone, cut to the report's period.
type Week struct {
	Week    string    `json:"week" format:"date" doc:"Its Monday, in the time zone"`
	ISOWeek string    `json:"iso_week" doc:"Its ISO 8601 week" example:"2026-W45"`
	From    time.Time `json:"from" doc:"Where it starts: its Monday's midnight, or the period's start"`
	To      time.Time `json:"to" doc:"Where it ends (excluded): the next Monday's midnight, or the period's end"`
}

// AgentTrend is one agent's audited tasks over the period and week by week.
type AgentTrend struct {
	OperatorID string `json:"operator_id"`
	AgentWeek
	// LatestWeek is the last week in which the agent has audits.
	LatestWeek    string   `json:"latest_week" format:"date" doc:"The last week (its Monday) in which the agent has audits"`
	LatestAverage float64  `json:"latest_average" doc:"The agent's average score in latest_week"`
	Change        *float64 `json:"change" doc:"latest_average minus the agent's average in their previous week with audits (null when latest_week is their only one)"`
	// Weeks has an entry for every week of Trends.Weeks.
	Weeks []AgentWeek `json:"weeks" doc:"One per week of the report, in its order"`
}

// AgentWeek is an agent's audited tasks of a week (or of the period).
type AgentWeek struct {
	Audited      int64    `json:"audited"`
	Passed       int64    `json:"passed"`
	AverageScore *float64 `json:"average_score" doc:"null without audits"`
	ApprovalRate *float64 `json:"approval_rate" doc:"passed / audited (null without audits)"`
}

// CriterionTrend is how often the period's audits judged a criterion and
// found it not met, over the period and week by week.
type CriterionTrend struct {
	CriterionID string `json:"criterion_id"`
	Question    string `json:"question" doc:"Its question in the latest scorecard that has it"`
	CriterionWeek
	Weeks []CriterionWeek `json:"weeks" doc:"One per week of the report, in its order"`
}

// CriterionWeek is a criterion's verdicts of a week (or of the period).
type CriterionWeek struct {
	Judged int64    `json:"judged" doc:"Audits that judged it (those that found it not applicable did not)"`
	Failed int64    `json:"failed" doc:"Audits that found it not met"`
	Rate   *float64 `json:"rate" doc:"failed / judged (null when none judged it)"`
}
