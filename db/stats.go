package db

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// StatsFilter selects the tasks a dashboard summarises: created in [From, To).
type StatsFilter struct {
	From, To time.Time
	// TZ is the IANA zone days are counted in.
	TZ string
	// CampaignID and OperatorID narrow it when set.
	CampaignID string
	OperatorID string
}

// Dashboard is every figure of the dashboard.
type Dashboard struct {
	ByStatus          map[string]int64   `json:"by_status" doc:"Tasks by status"`
	Tasks             int64              `json:"tasks"`
	Audited           int64              `json:"audited" doc:"Tasks with an audit"`
	Passed            int64              `json:"passed" doc:"Audited tasks whose audit passed"`
	ApprovalRate      *float64           `json:"approval_rate" doc:"passed / audited (null when nothing is audited)"`
	Validated         int64              `json:"validated"`
	AudioMinutes      float64            `json:"audio_minutes" doc:"Minutes of call audio"`
	AverageScore      *float64           `json:"average_score"`
	ScoreDistribution []Bucket           `json:"score_distribution" doc:"Audited tasks in ten score ranges: [0,10), …, [90,100]"`
	PerDay            []Day              `json:"per_day" doc:"Tasks by day of creation, in the requested time zone"`
	CriteriaFailed    []CriterionFailure `json:"criteria_failed" doc:"The ten criteria failed most"`
	Automatic         Automatic          `json:"automatic" doc:"The engine's verdicts and how many it was confident of"`
	Operators         OperatorRanking    `json:"operators"`
	ProcessingSeconds Percentiles        `json:"processing_seconds" doc:"Upload to audited"`
	Queue             []QueueDepth       `json:"queue" doc:"Jobs waiting or running, by queue"`
	FailedJobs        []KindCount        `json:"failed_jobs" doc:"Jobs discarded in the period, and jobs waiting to be retried, by kind"`
}

// Automatic is how much of the audits the engine settled alone: of the
// verdicts it made (each audit's first revision, and the criteria
// recomputations or edits asked it about later), those it was confident of,
// which no analyst needs to review.
type Automatic struct {
	Verdicts  int64    `json:"verdicts" doc:"Verdicts made by the audit engine"`
	Confident int64    `json:"confident" doc:"Of them, those not marked for review (their confidence reached AUDIT_REVIEW_CONFIDENCE): confirmed automatically"`
	Share     *float64 `json:"share" doc:"confident / verdicts (null when there are no verdicts)"`
}

// Bucket is one score range.
type Bucket struct {
	From  int   `json:"from"`
	To    int   `json:"to"`
	Count int64 `json:"count"`
}

// Day is one day's tasks.
type Day struct {
	Day     string `json:"day" format:"date"`
	Tasks   int64  `json:"tasks"`
	Audited int64  `json:"audited"`
	Passed  int64  `json:"passed"`
}

// CriterionFailure is how often a criterion was not met.
type CriterionFailure struct {
	CriterionID string  `json:"criterion_id"`
	Question    string  `json:"question"`
	Failed      int64   `json:"failed"`
	Judged      int64   `json:"judged" doc:"Audits that judged it"`
	Rate        float64 `json:"rate" doc:"failed / judged"`
}

// OperatorRanking lists agents by average score.
type OperatorRanking struct {
	Top    []OperatorAverage `json:"top"`
	Bottom []OperatorAverage `json:"bottom"`
}

// OperatorAverage is one agent's audited tasks.
type OperatorAverage struct {
	OperatorID   string  `json:"operator_id"`
	Audited      int64   `json:"audited"`
	AverageScore float64 `json:"average_score"`
}

// Percentiles of a duration in seconds (null without data).
type Percentiles struct {
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
}

// QueueDepth counts a queue's unfinished jobs.
type QueueDepth struct {
	Queue     string `json:"queue"`
	Available int64  `json:"available"`
	Running   int64  `json:"running"`
	Waiting   int64  `json:"waiting" doc:"Scheduled or retryable"`
}

// KindCount counts jobs of a kind.
type KindCount struct {
	Kind      string `json:"kind"`
	Discarded int64  `json:"discarded"`
	Retryable int64  `json:"retryable"`
}

// operatorsListed is how many agents each end of the ranking shows.
const operatorsListed = 5

// where renders f over tasks t, appending its arguments to args.
func (f StatsFilter) where(args *[]any) string {
	add := func(cond string, v any) string {
		*args = append(*args, v)
		return strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(*args)))
	}
	conds := []string{add("t.created_at >= $?", f.From), add("t.created_at < $?", f.To)}
	if f.CampaignID != "" {
		conds = append(conds, add("t.campaign_id = $?", f.CampaignID))
	}
	if f.OperatorID != "" {
		conds = append(conds, add("t.operator_id = $?", f.OperatorID))
	}
	return strings.Join(conds, " AND ")
}

// StatsDashboard computes the dashboard for f. Its queries run side by side
// on the pool's connections.
func StatsDashboard(ctx context.Context, q *pgxpool.Pool, f StatsFilter) (Dashboard, error) {
	d := Dashboard{ByStatus: map[string]int64{}}
	g, ctx := errgroup.WithContext(ctx)
	// query runs sql with {where} replaced by the filter's conditions and
	// {arg} by the parameter of its first extra argument.
	query := func(sql string, scan func(pgx.Rows) error, extra ...any) {
		g.Go(func() error {
			var args []any
			where := f.where(&args)
			stmt := strings.NewReplacer("{where}", where, "{arg}", "$"+strconv.Itoa(len(args)+1)).Replace(sql)
			rows, err := q.Query(ctx, stmt, append(args, extra...)...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if err := scan(rows); err != nil {
					return err
				}
			}
			return rows.Err()
		})
	}
	query(`SELECT count(*), count(t.score), count(*) FILTER (WHERE t.passed), count(*) FILTER (WHERE t.status = 'validated'),
			COALESCE(sum(t.duration_seconds) FILTER (WHERE t.kind = 'call'), 0) / 60, avg(t.score)::float8,
			percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM t.audited_at - t.created_at)),
			percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM t.audited_at - t.created_at)),
			COALESCE(sum(t.engine_verdicts), 0), COALESCE(sum(t.engine_confident), 0)
		FROM tasks t WHERE {where}`, func(r pgx.Rows) error {
		return r.Scan(&d.Tasks, &d.Audited, &d.Passed, &d.Validated, &d.AudioMinutes, &d.AverageScore,
			&d.ProcessingSeconds.P50, &d.ProcessingSeconds.P95, &d.Automatic.Verdicts, &d.Automatic.Confident)
	})
	// One pass for the counts by status, by day (in the zone) and by score range.
	buckets := make([]int64, 10)
	days := map[string]*Day{}
	query(`SELECT to_char(date_trunc('day', t.created_at AT TIME ZONE {arg}), 'YYYY-MM-DD'),
			t.status, CASE WHEN t.score IS NOT NULL THEN least(floor(t.score / 10)::int, 9) END, count(*),
			count(*) FILTER (WHERE t.passed)
		FROM tasks t WHERE {where} GROUP BY 1, 2, 3`, func(r pgx.Rows) error {
		var day, status string
		var bucket *int
		var n, passed int64
		if err := r.Scan(&day, &status, &bucket, &n, &passed); err != nil {
			return err
		}
		d.ByStatus[status] += n
		dd := days[day]
		if dd == nil {
			dd = &Day{Day: day}
			days[day] = dd
		}
		dd.Tasks += n
		dd.Passed += passed
		if bucket != nil {
			buckets[*bucket] += n
			dd.Audited += n
		}
		return nil
	}, f.TZ)
	query(`SELECT c.id, c.failed, c.judged, COALESCE(q.question, '')
		FROM (
			SELECT j.id, count(*) FILTER (WHERE j.id = ANY (t.failed_criteria)) AS failed, count(*) AS judged
			FROM tasks t, unnest(t.judged_criteria) AS j(id) WHERE {where} GROUP BY j.id
		) c
		LEFT JOIN LATERAL (
			SELECT e->>'question' AS question FROM scorecards s, jsonb_array_elements(s.criteria) e
			WHERE e->>'id' = c.id ORDER BY s.published_at DESC LIMIT 1
		) q ON true
		WHERE c.failed > 0 ORDER BY c.failed DESC, c.id LIMIT 10`, func(r pgx.Rows) error {
		var c CriterionFailure
		err := r.Scan(&c.CriterionID, &c.Failed, &c.Judged, &c.Question)
		c.Rate = float64(c.Failed) / float64(c.Judged)
		d.CriteriaFailed = append(d.CriteriaFailed, c)
		return err
	})
	var operators []OperatorAverage
	query(`SELECT t.operator_id, count(*), avg(t.score)::float8 FROM tasks t
		WHERE {where} AND t.score IS NOT NULL AND t.operator_id IS NOT NULL
		GROUP BY t.operator_id ORDER BY 3 DESC, 1`, func(r pgx.Rows) error {
		var o OperatorAverage
		err := r.Scan(&o.OperatorID, &o.Audited, &o.AverageScore)
		operators = append(operators, o)
		return err
	})
	g.Go(func() error {
		var err error
		d.Queue, d.FailedJobs, err = jobStats(ctx, q, f.From, f.To)
		return err
	})
	if err := g.Wait(); err != nil {
		return Dashboard{}, err
	}
	for i, n := range buckets {
		d.ScoreDistribution = append(d.ScoreDistribution, Bucket{From: i * 10, To: i*10 + 10, Count: n})
	}
	if d.Audited > 0 {
		rate := float64(d.Passed) / float64(d.Audited)
		d.ApprovalRate = &rate
	}
	if d.Automatic.Verdicts > 0 {
		share := float64(d.Automatic.Confident) / float64(d.Automatic.Verdicts)
		d.Automatic.Share = &share
	}
	d.Operators.Top = operators[:min(operatorsListed, len(operators))]
	bottom := operators[max(0, len(operators)-operatorsListed):]
	for i := len(bottom) - 1; i >= 0; i-- {
		d.Operators.Bottom = append(d.Operators.Bottom, bottom[i])
	}
	d.PerDay = make([]Day, 0, len(days))
	for _, day := range days {
		d.PerDay = append(d.PerDay, *day)
	}
	slices.SortFunc(d.PerDay, func(a, b Day) int { return strings.Compare(a.Day, b.Day) })
	if d.CriteriaFailed == nil {
		d.CriteriaFailed = []CriterionFailure{}
	}
	if d.Operators.Top == nil {
		d.Operators.Top, d.Operators.Bottom = []OperatorAverage{}, []OperatorAverage{}
	}
	return d, nil
}

func jobStats(ctx context.Context, q *pgxpool.Pool, from, to time.Time) ([]QueueDepth, []KindCount, error) {
	rows, err := q.Query(ctx, `SELECT queue,
			count(*) FILTER (WHERE state = 'available'), count(*) FILTER (WHERE state = 'running'),
			count(*) FILTER (WHERE state IN ('scheduled', 'retryable'))
		FROM river_job WHERE state IN ('available', 'running', 'scheduled', 'retryable') GROUP BY queue ORDER BY queue`)
	if err != nil {
		return nil, nil, err
	}
	queues, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (QueueDepth, error) {
		var d QueueDepth
		err := r.Scan(&d.Queue, &d.Available, &d.Running, &d.Waiting)
		return d, err
	})
	if err != nil {
		return nil, nil, err
	}
	rows, err = q.Query(ctx, `SELECT kind,
			count(*) FILTER (WHERE state = 'discarded' AND finalized_at >= $1 AND finalized_at < $2),
			count(*) FILTER (WHERE state = 'retryable')
		FROM river_job WHERE state = 'retryable' OR (state = 'discarded' AND finalized_at >= $1 AND finalized_at < $2)
		GROUP BY kind ORDER BY kind`, from, to)
	if err != nil {
		return nil, nil, err
	}
	kinds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (KindCount, error) {
		var k KindCount
		err := r.Scan(&k.Kind, &k.Discarded, &k.Retryable)
		return k, err
	})
	return queues, kinds, err
}

// JobStateCount counts River's jobs of one queue in one state.
type JobStateCount struct {
	Queue string
	State string
	Count int64
}

// JobsUnfinished counts River's jobs that are not finalized, by queue and
// state: the queue depth.
func JobsUnfinished(ctx context.Context, q DBTX) ([]JobStateCount, error) {
	rows, err := q.Query(ctx, `SELECT queue, state::text, count(*) FROM river_job
		WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled') GROUP BY queue, state`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (JobStateCount, error) {
		var c JobStateCount
		err := r.Scan(&c.Queue, &c.State, &c.Count)
		return c, err
	})
}
