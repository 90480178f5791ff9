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

// DashboardStats is the dashboard with the period it covers.
type DashboardStats struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	TZ   string    `json:"tz"`
	db.Dashboard
}

func (s *statsResource) register(api huma.API) {
	op := operation(http.MethodGet, "/stats/dashboard", "get-dashboard", "Aggregated dashboard metrics", role.Operator,
		http.StatusBadRequest)
	op.Description += " Over the tasks created in [from, to): counts by status, tasks per day (in `tz`), audio minutes, " +
		"average score and its distribution, approval rate, validations, the criteria failed most, agents by average " +
		"score, the share of the engine's verdicts confirmed automatically (not marked for review), upload-to-audited " +
		"time, queue depth and failed jobs. Operators see only their own figures."
	op.Tags = []string{"stats"}
	huma.Register(api, op, s.dashboard)
}

func (s *statsResource) dashboard(ctx context.Context, in *dashboardInput) (*Output[DashboardStats], error) {
	loc, err := time.LoadLocation(in.TZ)
	if err != nil {
		return nil, invalidQuery("tz", "must be an IANA time zone such as UTC or Europe/Madrid", in.TZ)
	}
	to, err := parseTimeIn("to", in.To, loc)
	if err != nil {
		return nil, err
	}
	if to.IsZero() {
		to = s.now()
	}
	from, err := parseTimeIn("from", in.From, loc)
	if err != nil {
		return nil, err
	}
	if from.IsZero() {
		from = to.Add(-defaultStatsRange)
	}
	if !from.Before(to) {
		return nil, invalidQuery("from", "must be before to", in.From)
	}
	f := db.StatsFilter{From: from, To: to, TZ: loc.String()}
	if in.Campaign != "" {
		c, err := db.CampaignGetByName(ctx, s.pool, in.Campaign)
		if errcode.Is(err, errcode.NotFound) {
			return nil, invalidQuery("campaign", fmt.Sprintf("names no campaign (%q)", in.Campaign), in.Campaign)
		}
		if err != nil {
			return nil, err
		}
		f.CampaignID = c.ID
	}
	p := principal(ctx)
	switch {
	case !p.Is(role.Quality):
		f.OperatorID = p.User.ID
	case in.Operator != "":
		if f.OperatorID, err = resolveOperator(ctx, s.pool, in.Operator, "query.operator"); err != nil {
			return nil, err
		}
	}
	d, err := db.StatsDashboard(ctx, s.pool, f)
	if err != nil {
		return nil, err
	}
	return ok(DashboardStats{From: from, To: to, TZ: f.TZ, Dashboard: d}), nil
}

// parseTimeIn reads an RFC 3339 time, or a date as midnight in loc.
func parseTimeIn(name, v string, loc *time.Location) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, v, loc); err == nil {
		return t, nil
	}
	return time.Time{}, invalidQuery(name, "must be an RFC 3339 time or a date (YYYY-MM-DD)", v)
}
