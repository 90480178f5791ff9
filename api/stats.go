package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/role"
)

type statsResource struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// defaultStatsRange is the period a dashboard covers when none is asked for.
const defaultStatsRange = 30 * 24 * time.Hour

type dashboardInput struct {
	From     string `query:"from" doc:"Start (inclusive): RFC 3339, or a date taken as midnight in tz. Default: 30 days before to" example:"2026-11-01"`
	To       string `query:"to" doc:"End (exclusive): RFC 3339, or a date taken as midnight in tz. Default: now" example:"2026-12-01"`
	TZ       string `query:"tz" default:"UTC" maxLength:"64" doc:"IANA time zone for days, e.g. Europe/Madrid"`
	Campaign string `query:"campaign" maxLength:"200" doc:"Only this campaign (its name)"`
	Operator string `query:"operator" maxLength:"200" doc:"Only this agent (user id or username); operators always see only their own"`
}

// StatsPeriod is the period statistics cover, and the zone of their days
// and weeks.
type StatsPeriod struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	TZ   string    `json:"tz"`
}

// DashboardStats is the dashboard with the period it covers.
type DashboardStats struct {
	StatsPeriod
	Dashboard
	Channels ChannelStats `json:"channels" doc:"What the channels of the period's calls tell (talk ratio, silence, dead air, overtalk, holds), over the calls analysed"`
}

// ReportInput is the period and campaign of a report (exported, so that
// Huma reads the fields of the inputs that embed it). The period's default
// is 12 weeks: the current ISO week of tz and the 11 before it.
type ReportInput struct {
	From     string `query:"from" doc:"Start (inclusive): RFC 3339, or a date taken as midnight in tz. Default: the Monday (in tz) 11 weeks before the week of to; at most 53 weeks before to" example:"2026-09-07"`
	To       string `query:"to" doc:"End (exclusive): RFC 3339, or a date taken as midnight in tz. Default: now" example:"2026-12-01"`
	TZ       string `query:"tz" default:"UTC" maxLength:"64" doc:"IANA time zone of the dates and of the ISO weeks (Monday to Sunday), e.g. Europe/Madrid"`
	Campaign string `query:"campaign" maxLength:"200" doc:"Only this campaign (its name)"`
}

type trendsInput struct {
	ReportInput
	Operator string `query:"operator" maxLength:"200" doc:"Only this agent (user id or username); operators always see only their own"`
	Sort     string `query:"sort" enum:"latest,change,agent" default:"latest" doc:"Agents by their latest week's average score, by its change from their previous week with audits, or by id (agents without a change come last either way)"`
	Order    string `query:"order" enum:"asc,desc" default:"desc" doc:"Sort direction"`
	Limit    int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"At most this many agents"`
}

// TrendsReport is the weekly report with the period it covers.
type TrendsReport struct {
	StatsPeriod
	Trends
}

// AnalystsReport is the analysts' work with the period it covers.
type AnalystsReport struct {
	StatsPeriod
	Analysts
}

// reportWeeks is how many weeks a report covers by default; maxReportSpan
// how long its period may be.
const (
	reportWeeks   = 12
	maxReportSpan = 53 * 7 * 24 * time.Hour
)

func (s *statsResource) register(api huma.API) {
	huma.Register(api, statsOperation("/stats/dashboard", "get-dashboard", "Aggregated dashboard metrics", role.Operator,
		"Over the tasks created in [from, to): counts by status, tasks per day (in `tz`), audio minutes, "+
			"average score and its distribution, approval rate, validations, the criteria failed most, agents by average "+
			"score, the share of the engine's verdicts confirmed automatically (not marked for review), upload-to-audited "+
			"time, queue depth and failed jobs, and what the calls' channels tell (over the calls analysed). Operators see only their own figures, "+
			agentFigures), s.dashboard)
	huma.Register(api, statsOperation("/stats/trends", "get-trends", "Agents and criteria week by week", role.Operator,
		"Over the tasks created in [from, to), cut into the ISO weeks (Monday to Sunday) of `tz`: each "+
			"agent's audits, average score and approval rate, overall and per week, with their latest week's average and "+
			"its change from their previous week with audits (sorted and cut as asked); each criterion's audits that "+
			"judged it and found it not met, overall and per week; what the channels of the calls analysed tell (talk ratio, "+
			"silence, dead air, overtalk, holds, longest silence), overall and per week. Operators see only their own figures, "+
			agentFigures), s.trends)
	huma.Register(api, statsOperation("/stats/analysts", "get-analyst-stats", "Analysts' productivity", role.Quality,
		"Over the analyst revisions and validations made in [from, to): per analyst and for everyone, "+
			"the audits reviewed (distinct tasks with a revision of theirs), the edits, the validations, and the median "+
			"time from a task's first audit to the analyst's first revision or validation of it (over the reviews whose "+
			"first action lies in the period)."), s.analysts)
	huma.Register(api, statsOperation("/stats/coaching", "get-coaching-report", "Coaching per team and per coached criterion", role.Supervisor,
		"Over the coaching items opened in [from, to): per campaign (the team an item belongs to), the items open "+
			"(or acknowledged, and of those the overdue) and done; per coached criterion, the share of the coached agents' "+
			"validated audits of its campaign (their current revisions) that met it in the 30 days before each item was "+
			"opened and in the 30 days after (so far)."), s.coaching)
}

// agentFigures says what an operator's own figures count.
const agentFigures = "counting only the audits they are shown: an automatic audit (not reviewed by an analyst yet) " +
	"counts as none unless its campaign shows those (`operator_sees_automatic`)."

// statsOperation describes a GET of statistics for minRole and above.
func statsOperation(path, id, summary string, minRole role.Role, description string) huma.Operation {
	op := operation(http.MethodGet, path, id, summary, minRole, http.StatusBadRequest)
	op.Description += " " + description
	op.Tags = []string{"stats"}
	return op
}

func (s *statsResource) dashboard(ctx context.Context, in *dashboardInput) (*Output[DashboardStats], error) {
	from, to, loc, err := s.period(in.From, in.To, in.TZ, func(to time.Time, _ *time.Location) time.Time {
		return to.Add(-defaultStatsRange)
	})
	if err != nil {
		return nil, err
	}
	f, err := s.filter(ctx, from, to, loc, in.Campaign, in.Operator)
	if err != nil {
		return nil, err
	}
	d, err := db.StatsDashboard(ctx, s.pool, f)
	if err != nil {
		return nil, err
	}
	c, err := db.StatsChannels(ctx, s.pool, f)
	if err != nil {
		return nil, err
	}
	return ok(DashboardStats{StatsPeriod: StatsPeriod{From: from, To: to, TZ: f.TZ}, Dashboard: dashboardOf(d),
		Channels: channelStatsOf(c, d.Operators)}), nil
}

func (s *statsResource) trends(ctx context.Context, in *trendsInput) (*Output[TrendsReport], error) {
	from, to, loc, err := in.period(s)
	if err != nil {
		return nil, err
	}
	f, err := s.filter(ctx, from, to, loc, in.Campaign, in.Operator)
	if err != nil {
		return nil, err
	}
	r, err := db.StatsTrends(ctx, s.pool, f, db.AgentOrder{By: in.Sort, Desc: in.Order == "desc", Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	return ok(TrendsReport{StatsPeriod: StatsPeriod{From: from.In(loc), To: to.In(loc), TZ: f.TZ}, Trends: trendsOf(r)}), nil
}

func (s *statsResource) analysts(ctx context.Context, in *ReportInput) (*Output[AnalystsReport], error) {
	from, to, loc, err := in.period(s)
	if err != nil {
		return nil, err
	}
	v, err := viewerOf(ctx, s.pool)
	if err != nil {
		return nil, err
	}
	f := db.AnalystsFilter{From: from, To: to, Viewer: v}
	if f.CampaignID, _, err = s.scope(ctx, in.Campaign, ""); err != nil {
		return nil, err
	}
	r, err := db.StatsAnalysts(ctx, s.pool, f)
	if err != nil {
		return nil, err
	}
	return ok(AnalystsReport{StatsPeriod: StatsPeriod{From: from.In(loc), To: to.In(loc), TZ: loc.String()}, Analysts: analystsOf(r)}), nil
}

// period reads a report's period: by default its weeks, and at most
// maxReportSpan long.
func (in *ReportInput) period(s *statsResource) (from, to time.Time, loc *time.Location, err error) {
	from, to, loc, err = s.period(in.From, in.To, in.TZ, func(to time.Time, loc *time.Location) time.Time {
		return db.WeekStart(to.Add(-time.Nanosecond), loc).AddDate(0, 0, -7*(reportWeeks-1))
	})
	if err == nil && to.Sub(from) > maxReportSpan {
		err = invalidQuery("from", "must be at most 53 weeks (371 days) before to", in.From)
	}
	return from, to, loc, err
}

// period reads the period [from, to) of statistics: RFC 3339 times, or
// dates taken as midnight in the zone tz; to defaults to now, from to what
// start gives for to.
func (s *statsResource) period(fromText, toText, tz string, start func(to time.Time, loc *time.Location) time.Time) (
	from, to time.Time, loc *time.Location, err error) {
	if loc, err = l10n.Zone(tz); err != nil {
		return from, to, nil, invalidQuery("tz", "must be an IANA time zone such as UTC or Europe/Madrid", tz)
	}
	if to, err = parseTimeIn("to", toText, loc); err != nil {
		return from, to, nil, err
	}
	if to.IsZero() {
		to = s.now()
	}
	if from, err = parseTimeIn("from", fromText, loc); err != nil {
		return from, to, nil, err
	}
	if from.IsZero() {
		from = start(to, loc)
	}
	if !from.Before(to) {
		return from, to, nil, invalidQuery("from", "must be before to", fromText)
	}
	return from, to, loc, nil
}

// filter selects the figures of the tasks created in [from, to), their
// days those of loc, as the caller may see them (scope): a user below
// quality gets their own; everyone counts only the audits they are shown
// (the caller's viewerOf).
func (s *statsResource) filter(ctx context.Context, from, to time.Time, loc *time.Location, campaign, operator string) (
	db.StatsFilter, error) {
	v, err := viewerOf(ctx, s.pool)
	if err != nil {
		return db.StatsFilter{}, err
	}
	f := db.StatsFilter{From: from, To: to, TZ: loc.String(), Viewer: v}
	f.CampaignID, f.OperatorID, err = s.scope(ctx, campaign, operator)
	return f, err
}

// scope resolves statistics' campaign (a name) and agent (a user id or
// username); a user below quality sees only their own figures, whatever
// they ask.
func (s *statsResource) scope(ctx context.Context, campaign, operator string) (campaignID, operatorID string, err error) {
	if campaign != "" {
		c, err := db.CampaignGetByName(ctx, s.pool, campaign)
		if errcode.Is(err, errcode.NotFound) {
			return "", "", invalidQuery("campaign", fmt.Sprintf("names no campaign (%q)", campaign), campaign)
		}
		if err != nil {
			return "", "", err
		}
		campaignID = c.ID
	}
	p := principal(ctx)
	switch {
	case !p.Is(role.Quality):
		operatorID = p.User.ID
	case operator != "":
		if operatorID, err = resolveOperator(ctx, s.pool, operator, "query.operator"); err != nil {
			return "", "", err
		}
	}
	return campaignID, operatorID, nil
}

// Times a query may name: from 1900 to the end of 9998, so that a period
// and its defaults (30 days, 12 weeks before) stay in the years every zone
// writes with four digits.
var (
	earliestTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	latestTime   = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
)

// parseTimeIn reads an RFC 3339 time, or a date as midnight in loc (the
// zero time when v is empty).
func parseTimeIn(name, v string, loc *time.Location) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t, err = time.ParseInLocation(time.DateOnly, v, loc)
	}
	if err != nil || t.Before(earliestTime) || !t.Before(latestTime) {
		return time.Time{}, invalidQuery(name, "must be an RFC 3339 time or a date (YYYY-MM-DD) from 1900 to 9998", v)
	}
	return t, nil
}
