package db

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Trends is a period's audits week by week: each agent's and each
// criterion's, and what the channels of its calls tell. A task counts in
// the week it was created in, as on the dashboard.
type Trends struct {
	Weeks []Week
	// Agents are sorted and cut as AgentOrder says.
	Agents      []AgentTrend
	AgentsTotal int
	Criteria    []CriterionTrend
	Channels    ChannelTrend
}

// Week is one week of a report: an ISO week (Monday to Sunday) of the
// report's time zone, cut to the report's period.
type Week struct {
	Week    string
	ISOWeek string
	From    time.Time
	To      time.Time
}

// AgentTrend is one agent's audited tasks over the period and week by week.
type AgentTrend struct {
	OperatorID string
	AgentWeek
	// LatestWeek is the last week in which the agent has audits.
	LatestWeek    string
	LatestAverage float64
	Change        *float64
	// Weeks has an entry for every week of Trends.Weeks.
	Weeks []AgentWeek
}

// AgentWeek is an agent's audited tasks of a week (or of the period).
type AgentWeek struct {
	Audited      int64
	Passed       int64
	AverageScore *float64
	ApprovalRate *float64
}

// CriterionTrend is how often the period's audits judged a criterion and
// found it not met, over the period and week by week.
type CriterionTrend struct {
	CriterionID string
	Question    string
	CriterionWeek
	Weeks []CriterionWeek
}

// CriterionWeek is a criterion's verdicts of a week (or of the period).
type CriterionWeek struct {
	Judged int64
	Failed int64
	Rate   *float64
}

// How the agents of a report may be sorted (AgentOrder.By).
const (
	AgentsByLatest = "latest" // their latest average score
	AgentsByChange = "change" // its change from their previous week
	AgentsByAgent  = "agent"  // their id
)

// AgentOrder sorts and cuts a report's agents.
type AgentOrder struct {
	// By is AgentsByLatest, AgentsByChange or AgentsByAgent; agents
	// without a change sort after the others either way.
	By    string
	Desc  bool
	Limit int
}

// WeekStart returns the first instant, in loc, of the ISO week (starting
// on Monday) that holds t.
func WeekStart(t time.Time, loc *time.Location) time.Time {
	local := t.In(loc)
	y, m, d := local.Date()
	return dayStartIn(y, m, d-(int(local.Weekday())+6)%7, loc)
}

// dayStartIn returns the first instant of the day y-m-d (normalised, as
// time.Date does) in loc: its midnight, or, where a clock change skips
// midnight, the first time the day has.
func dayStartIn(y int, m time.Month, d int, loc *time.Location) time.Time {
	y, m, d = time.Date(y, m, d, 12, 0, 0, 0, loc).Date()
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	// Zones change clocks on quarter hours.
	for t.In(loc).Day() != d {
		t = t.Add(15 * time.Minute)
	}
	return t
}

// weeksOf cuts [from, to) into the ISO weeks of loc.
func weeksOf(from, to time.Time, loc *time.Location) []Week {
	var weeks []Week
	for start := WeekStart(from, loc); start.Before(to); {
		y, m, d := start.In(loc).Date()
		next := dayStartIn(y, m, d+7, loc)
		iy, iw := start.In(loc).ISOWeek()
		weeks = append(weeks, Week{
			Week: start.In(loc).Format(time.DateOnly), ISOWeek: fmt.Sprintf("%04d-W%02d", iy, iw),
			From: latest(start, from).In(loc), To: earliest(next, to).In(loc),
		})
		start = next
	}
	return weeks
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// trendsPlan is how a report's weeks are read. The rollup task_stats_daily
// keeps UTC days, and a week of another zone begins inside one: each day
// is read whole into the week that holds most of it, and the tasks of its
// other parts are moved to their weeks (taken from that one, added to
// theirs). At most half a day is read from tasks for each cut (a week's
// start, and the period's ends), none in UTC for a period of whole days.
type trendsPlan struct {
	// first is the first day of days.
	first time.Time
	// days holds, for each UTC day from first on, the week it is read
	// into (an index of the report's weeks), or -1: not read.
	days []int32
	// segments of creation time whose tasks are taken from the week minus
	// and added to the week plus (-1: neither).
	lo, hi      []time.Time
	minus, plus []int32
}

func (p *trendsPlan) segment(lo, hi time.Time, minus, plus int32) {
	if n := len(p.hi); n > 0 && p.hi[n-1].Equal(lo) && p.minus[n-1] == minus && p.plus[n-1] == plus {
		p.hi[n-1] = hi
		return
	}
	p.lo, p.hi = append(p.lo, lo), append(p.hi, hi)
	p.minus, p.plus = append(p.minus, minus), append(p.plus, plus)
}

// planTrends plans the reading of weeks, the weeks of f. The rollup does
// not keep an agent's criteria: for an agent (StatsFilter.readsTasks),
// every week is read from the agent's tasks.
func planTrends(f StatsFilter, weeks []Week) trendsPlan {
	var p trendsPlan
	if f.readsTasks() {
		for i, w := range weeks {
			p.segment(w.From, w.To, -1, int32(i))
		}
		return p
	}
	cuts := []time.Time{f.From, f.To}
	for _, w := range weeks[1:] {
		cuts = append(cuts, w.From)
	}
	slices.SortFunc(cuts, func(a, b time.Time) int { return a.Compare(b) })
	// Truncate counts from the zero time, midnight UTC.
	p.first = f.From.Truncate(24 * time.Hour)
	for day := p.first; day.Before(f.To); day = day.Add(24 * time.Hour) {
		end := day.Add(24 * time.Hour)
		// The day's pieces between the cuts inside it, and the longest.
		pieces := []time.Time{day}
		for _, c := range cuts {
			if c.After(day) && c.Before(end) {
				pieces = append(pieces, c)
			}
		}
		pieces = append(pieces, end)
		longest := 0
		for i := range len(pieces) - 1 {
			if pieces[i+1].Sub(pieces[i]) > pieces[longest+1].Sub(pieces[longest]) {
				longest = i
			}
		}
		into := weekAt(weeks, pieces[longest])
		p.days = append(p.days, into)
		for i := range len(pieces) - 1 {
			if w := weekAt(weeks, pieces[i]); w != into {
				p.segment(pieces[i], pieces[i+1], into, w)
			}
		}
	}
	return p
}

// weekAt returns the index of the week of weeks that holds t, or -1.
func weekAt(weeks []Week, t time.Time) int32 {
	for i, w := range weeks {
		if !t.Before(w.From) && t.Before(w.To) {
			return int32(i)
		}
	}
	return -1
}

// trendsDims are the dimensions of task_stats_daily a report reads.
const trendsDims = `('operator', 'judged', 'failed')`

// StatsTrends computes the weekly report of f's period, its weeks those
// of the zone f.TZ: from the figures kept per day as tasks change (and
// those not folded yet), and the tasks where a week or the period cuts a
// day, every figure exact; what the channels tell likewise, from the
// figures kept per day and the calls of the days a week cuts (channelTrend). It returns an error for a zone Go does not know.
func StatsTrends(ctx context.Context, q DBTX, f StatsFilter, order AgentOrder) (Trends, error) {
	loc, err := time.LoadLocation(f.TZ)
	if err != nil {
		return Trends{}, err
	}
	weeks := weeksOf(f.From, f.To, loc)
	p := planTrends(f, weeks)
	var args []any
	param := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	scope := func(of string) string {
		if f.CampaignID == "" {
			return ""
		}
		return " AND " + of + ".campaign_id = " + param(f.CampaignID) + "::uuid"
	}
	var union []string
	if slices.ContainsFunc(p.days, func(w int32) bool { return w >= 0 }) {
		first, days := param(p.first.UTC().Format(time.DateOnly))+"::date", param(p.days)+"::int[]"
		end := first + " + cardinality(" + days + ")"
		union = append(union,
			`SELECT (`+days+`)[c.day - `+first+` + 1] AS week, c.dim, c.key, c.n, c.total, c.passed
			FROM task_stats_daily c WHERE c.day >= `+first+` AND c.day < `+end+` AND c.dim IN `+trendsDims+scope("c"),
			`SELECT (`+days+`)[c.day - `+first+` + 1], c.dim, c.key, c.n, c.total, c.passed
			FROM task_stats_pending p, task_stats_daily_of(p.t, p.sign) c
			WHERE (p.t).created_at >= `+first+` AT TIME ZONE 'UTC' AND (p.t).created_at < (`+end+`) AT TIME ZONE 'UTC'`+
				scope("(p.t)"))
	}
	if len(p.lo) > 0 {
		agent := ""
		if f.OperatorID != "" {
			agent = " AND t.operator_id = " + param(f.OperatorID) + "::text"
		}
		// The segments' tasks' rows of the report's dimensions, as
		// task_stats_daily_of gives them, summed by segment (the criteria
		// by their lists first: a third of the time), then taken from one
		// week and added to the other; for a viewer not shown every audit (StatsFilter.Viewer), without
		// the audits hidden from them.
		task := f.task()
		union = append(union, `SELECT x.week, g.dim, g.key, x.sign * g.n AS n, x.sign * g.total AS total,
				x.sign * g.passed AS passed
			FROM (
				WITH cut AS MATERIALIZED (
					SELECT s.minus, s.plus, `+task+`.operator_id, `+task+`.score, `+task+`.passed, `+task+`.judged_criteria,
						`+task+`.failed_criteria, `+task+`.pending_criteria
					FROM unnest(`+param(p.lo)+`::timestamptz[], `+param(p.hi)+`::timestamptz[], `+param(p.minus)+`::int[], `+
			param(p.plus)+`::int[]) s (lo, hi, minus, plus)
					JOIN tasks t ON t.created_at >= s.lo AND t.created_at < s.hi`+scope("t")+agent+`
				)
				SELECT minus, plus, 'operator' AS dim, operator_id AS key, count(*) AS n, sum(score) AS total,
					count(*) FILTER (WHERE passed) AS passed
				FROM cut WHERE score IS NOT NULL AND operator_id IS NOT NULL GROUP BY 1, 2, 4
				UNION ALL
				SELECT l.minus, l.plus, d.dim, c.key, sum(l.n), 0, 0
				FROM (SELECT minus, plus, judged_criteria, failed_criteria, pending_criteria, count(*) AS n
					FROM cut GROUP BY 1, 2, 3, 4, 5) l,
					LATERAL (VALUES ('judged', l.judged_criteria), ('failed', l.failed_criteria)) d (dim, list),
					unnest(d.list) c (key)
				-- A pending criterion is not judged yet, as task_stats_daily_of counts it.
				WHERE NOT (d.dim = 'judged' AND c.key = ANY (COALESCE(l.pending_criteria, '{}')))
				GROUP BY 1, 2, 3, 4
			) g CROSS JOIN LATERAL (VALUES (g.minus, -1), (g.plus, 1)) x (week, sign)
			WHERE x.week >= 0`)
	}
	agents, criteria := map[string][]AgentWeek{}, map[string][]CriterionWeek{}
	if len(union) > 0 {
		rows, err := q.Query(ctx, `SELECT c.week, c.dim, c.key, sum(c.n)::bigint, sum(c.total)::float8, sum(c.passed)::bigint
			FROM (`+strings.Join(union, " UNION ALL ")+`) c
			WHERE c.week >= 0 AND c.dim IN `+trendsDims+`
			GROUP BY 1, 2, 3 HAVING (sum(c.n), sum(c.passed)) <> (0, 0)`, args...)
		if err != nil {
			return Trends{}, err
		}
		var week int
		var dim, key string
		var n, passed int64
		var total float64
		_, err = pgx.ForEachRow(rows, []any{&week, &dim, &key, &n, &total, &passed}, func() error {
			if week >= len(weeks) {
				return fmt.Errorf("trends: week %d of %d", week, len(weeks))
			}
			switch dim {
			case "operator":
				ws := agents[key]
				if ws == nil {
					ws = make([]AgentWeek, len(weeks))
					agents[key] = ws
				}
				ws[week].Audited, ws[week].Passed = n, passed
				avg := total / float64(n)
				ws[week].AverageScore = &avg
			default:
				ws := criteria[key]
				if ws == nil {
					ws = make([]CriterionWeek, len(weeks))
					criteria[key] = ws
				}
				if dim == "judged" {
					ws[week].Judged = n
				} else {
					ws[week].Failed = n
				}
			}
			return nil
		})
		if err != nil {
			return Trends{}, err
		}
	}
	t := Trends{Weeks: nonNil(weeks), Agents: agentTrends(agents, weeks, order), AgentsTotal: len(agents)}
	if t.Criteria, err = criterionTrends(ctx, q, criteria); err != nil {
		return Trends{}, err
	}
	if t.Channels, err = channelTrend(ctx, q, f, weeks); err != nil {
		return Trends{}, err
	}
	return t, nil
}

// agentTrends sums each agent's weeks and sorts and cuts them by order.
func agentTrends(agents map[string][]AgentWeek, weeks []Week, order AgentOrder) []AgentTrend {
	out := make([]AgentTrend, 0, len(agents))
	for id, ws := range agents {
		a := AgentTrend{OperatorID: id, Weeks: ws}
		var sum float64
		var seen []int
		for i := range ws {
			w := &ws[i]
			if w.Audited == 0 {
				continue
			}
			a.Audited += w.Audited
			a.Passed += w.Passed
			sum += *w.AverageScore * float64(w.Audited)
			rate := float64(w.Passed) / float64(w.Audited)
			w.ApprovalRate = &rate
			seen = append(seen, i)
		}
		avg, rate := sum/float64(a.Audited), float64(a.Passed)/float64(a.Audited)
		a.AverageScore, a.ApprovalRate = &avg, &rate
		last := seen[len(seen)-1]
		a.LatestWeek, a.LatestAverage = weeks[last].Week, *ws[last].AverageScore
		if len(seen) > 1 {
			change := a.LatestAverage - *ws[seen[len(seen)-2]].AverageScore
			a.Change = &change
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b AgentTrend) int {
		var c int
		switch order.By {
		case AgentsByChange:
			if (a.Change == nil) != (b.Change == nil) {
				if a.Change == nil {
					return 1
				}
				return -1
			}
			if a.Change != nil {
				c = cmp.Compare(*a.Change, *b.Change)
			}
		case AgentsByLatest:
			c = cmp.Compare(a.LatestAverage, b.LatestAverage)
		}
		if order.Desc {
			c = -c
		}
		return cmp.Or(c, strings.Compare(a.OperatorID, b.OperatorID))
	})
	return out[:min(len(out), max(order.Limit, 0))]
}

// criterionTrends sums each criterion's weeks, names them, and sorts them,
// failed most first.
func criterionTrends(ctx context.Context, q DBTX, criteria map[string][]CriterionWeek) ([]CriterionTrend, error) {
	out := make([]CriterionTrend, 0, len(criteria))
	ids := make([]string, 0, len(criteria))
	for id, ws := range criteria {
		c := CriterionTrend{CriterionID: id, Weeks: ws}
		for i := range ws {
			w := &ws[i]
			// Failed without judged would be a stored audit's mistake: a
			// rate above 1 helps no one.
			w.Judged = max(w.Judged, w.Failed)
			c.Judged += w.Judged
			c.Failed += w.Failed
			w.Rate = rateOf(w.Failed, w.Judged)
		}
		c.Rate = rateOf(c.Failed, c.Judged)
		out = append(out, c)
		ids = append(ids, id)
	}
	questions, err := criteriaQuestions(ctx, q, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Question = questions[out[i].CriterionID]
	}
	slices.SortFunc(out, func(a, b CriterionTrend) int {
		return cmp.Or(cmp.Compare(b.Failed, a.Failed), strings.Compare(a.CriterionID, b.CriterionID))
	})
	return out, nil
}

// rateOf is part / whole, or nil when whole is 0.
func rateOf(part, whole int64) *float64 {
	if whole == 0 {
		return nil
	}
	r := float64(part) / float64(whole)
	return &r
}
