package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/visibility"
)

// StatsFilter selects the tasks a dashboard summarises: created in [From, To).
type StatsFilter struct {
	From, To time.Time
	// TZ is the IANA zone days are counted in.
	TZ string
	// CampaignID and OperatorID narrow it when set.
	CampaignID string
	OperatorID string
	// Viewer is whose figures they are: an audit hidden from them
	// (visibility.Viewer.AuditHidden) counts as none. The figures of a
	// viewer who is not shown every audit are read from the tasks, which
	// know review states, not from the rollups, which do not.
	Viewer visibility.Viewer
}

// auditBlank is, as JSON, what an agent is not shown of an audit hidden from
// them (TaskSummary.WithoutAudit): the columns of tasks the figures read of
// it.
const auditBlank = `{"score": null, "passed": null, "review_items": null, "judged_criteria": null, ` +
	`"failed_criteria": null, "pending_criteria": null, "score_min": null, "score_max": null, ` +
	`"engine_verdicts": 0, "engine_confident": 0}`

// task is, in SQL, the row of tasks t as f counts it: without the audits
// hidden from its viewer.
func (f StatsFilter) task() string {
	if !f.Viewer.HidesAny() {
		return "t"
	}
	return "(CASE WHEN " + f.Viewer.AuditHiddenSQL("t") + " THEN jsonb_populate_record(t, '" + auditBlank + "') ELSE t END)"
}

// readsTasks reports whether f's figures are read from its tasks alone: an
// agent's, or those of a viewer not shown every audit, whom the rollups do
// not keep apart.
func (f StatsFilter) readsTasks() bool {
	return f.OperatorID != "" || f.Viewer.HidesAny()
}

// Dashboard is every figure of the dashboard.
type Dashboard struct {
	ByStatus          map[string]int64
	Tasks             int64
	Audited           int64
	PendingReview     int64
	Passed            int64
	ApprovalRate      *float64
	Validated         int64
	AudioMinutes      float64
	AverageScore      *float64
	ScoreDistribution []Bucket
	PerDay            []Day
	CriteriaFailed    []CriterionFailure
	Automatic         Automatic
	Operators         OperatorRanking
	ProcessingSeconds Percentiles
	Queue             []QueueDepth
	FailedJobs        []KindCount
}

// Automatic is how much of the audits the engine settled alone: of the
// verdicts it made (each audit's first revision, and the criteria
// recomputations or edits asked it about later), those it was confident of,
// which no analyst needs to review.
type Automatic struct {
	Verdicts  int64
	Confident int64
	Share     *float64
}

// Bucket is one score range.
type Bucket struct {
	From  int
	To    int
	Count int64
}

// Day is one day's tasks.
type Day struct {
	Day     string
	Tasks   int64
	Audited int64
	Passed  int64
}

// CriterionFailure is how often a criterion was not met.
type CriterionFailure struct {
	CriterionID string
	Question    string
	Failed      int64
	Judged      int64
	Rate        float64
}

// OperatorRanking lists agents by average score.
type OperatorRanking struct {
	Top    []OperatorAverage
	Bottom []OperatorAverage
}

// OperatorAverage is one agent's audited tasks.
type OperatorAverage struct {
	OperatorID   string
	Audited      int64
	AverageScore float64
}

// Percentiles of a duration in seconds (null without data).
type Percentiles struct {
	P50 *float64
	P95 *float64
}

// QueueDepth counts a queue's unfinished jobs.
type QueueDepth struct {
	Queue     string
	Available int64
	Running   int64
	Waiting   int64
}

// KindCount counts jobs of a kind.
type KindCount struct {
	Kind      string
	Discarded int64
	Retryable int64
}

// operatorsListed is how many agents each end of the ranking shows.
const operatorsListed = 5

// rollup is a table of dashboard figures kept per unit of creation time
// (migration 00013), and the function giving one task's contribution to it.
type rollup struct {
	table, unit, of string
	day             bool // units are UTC days, else quarter hours
}

var (
	slotRollup = rollup{table: "task_stats", unit: "slot", of: "task_stats_of"}
	dayRollup  = rollup{table: "task_stats_daily", unit: "day", of: "task_stats_daily_of", day: true}
)

// covered returns the part [lo, hi) of [f.From, f.To) that whole units of r
// make up, read from r's table; the rest, the edges, is read from tasks.
// With an agent (readsTasks) it is empty (lo = hi = f.To): the agent's
// tasks are read.
func (f StatsFilter) covered(r rollup) (lo, hi time.Time) {
	unit := 15 * time.Minute
	if r.day {
		unit = 24 * time.Hour
	}
	// Truncate counts from the zero time, midnight UTC.
	lo, hi = f.From.Truncate(unit), f.To.Truncate(unit)
	if lo.Before(f.From) {
		lo = lo.Add(unit)
	}
	if f.readsTasks() || !lo.Before(hi) {
		return f.To, f.To
	}
	return lo, hi
}

// rows renders, as a subquery aliased c, the rows of r that f selects with
// the columns cols (c.name, named alike in r's table and function): r's own
// over whole units, corrected by the changes not folded into them yet, and
// the contributions of the tasks at the edges. It appends its arguments to
// args.
func (f StatsFilter) rows(r rollup, cols string, args *[]any) string {
	p := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	lo, hi := f.covered(r)
	unit := func(t time.Time) string { return p(t) + "::timestamptz" }
	if r.day {
		unit = func(t time.Time) string { return p(t.UTC().Format(time.DateOnly)) + "::date" }
	}
	loTime, hiTime := p(lo)+"::timestamptz", p(hi)+"::timestamptz"
	own := fmt.Sprintf("SELECT %s FROM %s c WHERE c.%s >= %s AND c.%s < %s", cols, r.table, r.unit, unit(lo), r.unit, unit(hi))
	pending := fmt.Sprintf("SELECT %s FROM task_stats_pending p, %s(p.t, p.sign) c WHERE (p.t).created_at >= %s AND (p.t).created_at < %s",
		cols, r.of, loTime, hiTime)
	campaign := ""
	if f.CampaignID != "" {
		campaign = p(f.CampaignID) + "::uuid"
		own += " AND c.campaign_id = " + campaign
		pending += " AND (p.t).campaign_id = " + campaign
	}
	union := own + " UNION ALL " + pending
	// The ends of the period the rollup does not cover, each only when it
	// is not empty: a prepared statement's generic plan cannot tell an
	// empty range from a wide one, and would read every task for it.
	var ends []string
	if f.From.Before(lo) {
		ends = append(ends, "t.created_at >= "+p(f.From)+"::timestamptz AND t.created_at < "+loTime)
	}
	if hi.Before(f.To) {
		ends = append(ends, "t.created_at >= "+hiTime+" AND t.created_at < "+p(f.To)+"::timestamptz")
	}
	if len(ends) > 0 {
		union += fmt.Sprintf(" UNION ALL SELECT %s FROM tasks t, %s(%s, 1) c WHERE (%s)", cols, r.of, f.task(), strings.Join(ends, " OR "))
		if campaign != "" {
			union += " AND t.campaign_id = " + campaign
		}
		if f.OperatorID != "" {
			union += " AND t.operator_id = " + p(f.OperatorID) + "::text"
		}
	}
	return "(" + union + ") c"
}

// TaskStatsFold moves the changes of tasks not folded yet into the figures
// kept for the dashboard, and returns how many it moved. Readers add the
// pending changes themselves, so folding changes no figure, only how fast
// they are read.
func TaskStatsFold(ctx context.Context, q DBTX) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT task_stats_fold()`).Scan(&n)
	return n, err
}

// pendingCompactBytes is the size past which the fold empties
// task_stats_pending's file too (TaskStatsCompact): readers scan the table
// whole, its pages included when autovacuum has emptied them but could not
// give them back (a bulk change of a million tasks leaves 450 MB that cost
// every dashboard 100 ms).
const pendingCompactBytes = 8 << 20

// compactLockTimeout bounds how long compacting waits for task_stats_pending
// (and so how long the writers queued behind it wait).
const compactLockTimeout = "200ms"

// TaskStatsCompact folds the pending changes and truncates
// task_stats_pending when its file has grown past pendingCompactBytes,
// holding the table alone for that transaction so that no change written
// meanwhile is lost. It reports whether it truncated; when the table stays
// busy for compactLockTimeout it gives up without an error, for the next
// fold to try again.
func TaskStatsCompact(ctx context.Context, q *pgxpool.Pool) (bool, error) {
	var size int64
	if err := q.QueryRow(ctx, `SELECT pg_relation_size('task_stats_pending')`).Scan(&size); err != nil {
		return false, err
	}
	if size <= pendingCompactBytes {
		return false, nil
	}
	err := pgx.BeginFunc(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '`+compactLockTimeout+`'`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE task_stats_pending IN ACCESS EXCLUSIVE MODE`); err != nil {
			return err
		}
		if _, err := TaskStatsFold(ctx, tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `TRUNCATE task_stats_pending`)
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgerrcode.LockNotAvailable {
		return false, nil
	}
	return err == nil, err
}

// processingStep is how many histogram buckets of the upload-to-audited time
// an octave holds (task_stats_daily's processing dimension).
const processingStep = 8

// StatsDashboard computes the dashboard for f from the figures kept as
// tasks change, and the tasks at the edges of the period. Its queries run
// side by side on the pool's connections.
func StatsDashboard(ctx context.Context, q *pgxpool.Pool, f StatsFilter) (Dashboard, error) {
	d := Dashboard{ByStatus: map[string]int64{}}
	g, gctx := errgroup.WithContext(ctx)
	query := func(sql func(args *[]any) string, scan func(pgx.Rows) error) {
		g.Go(func() error {
			var args []any
			rows, err := q.Query(gctx, sql(&args), args...)
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
	// Counts by status and by day (in the zone), and the sums.
	days := map[string]*Day{}
	var scoreSum float64
	query(func(args *[]any) string {
		from := f.rows(slotRollup, "c.slot, c.status, c.tasks, c.scored, c.passed, c.score_sum, c.audio_seconds, "+
			"c.engine_verdicts, c.engine_confident", args)
		*args = append(*args, f.TZ)
		return `SELECT to_char(c.slot AT TIME ZONE $` + strconv.Itoa(len(*args)) + `::text, 'YYYY-MM-DD'), c.status,
				sum(c.tasks), sum(c.scored), sum(c.passed), sum(c.score_sum)::float8, sum(c.audio_seconds)::float8,
				sum(c.engine_verdicts), sum(c.engine_confident)
			FROM ` + from + ` GROUP BY 1, 2 HAVING sum(c.tasks) > 0`
	}, func(r pgx.Rows) error {
		var day, status string
		var n, scored, passed, verdicts, confident int64
		var score, audio float64
		if err := r.Scan(&day, &status, &n, &scored, &passed, &score, &audio, &verdicts, &confident); err != nil {
			return err
		}
		d.ByStatus[status] += n
		d.Tasks += n
		d.Audited += scored
		d.Passed += passed
		if pipeline.Status(status) == pipeline.Validated {
			d.Validated += n
		}
		scoreSum += score
		d.AudioMinutes += audio / 60
		d.Automatic.Verdicts += verdicts
		d.Automatic.Confident += confident
		dd := days[day]
		if dd == nil {
			dd = &Day{Day: day}
			days[day] = dd
		}
		dd.Tasks += n
		dd.Audited += scored
		dd.Passed += passed
		return nil
	})
	// The period's score ranges, agents, criteria and processing times.
	buckets := make([]int64, 10)
	var operators []OperatorAverage
	judged := map[string]int64{}
	var processing [][2]int64 // bucket, tasks
	query(func(args *[]any) string {
		return `SELECT c.dim, c.key, sum(c.n), sum(c.total)::float8
			FROM ` + f.rows(dayRollup, "c.dim, c.key, c.n, c.total", args) + ` WHERE c.dim <> 'tasks'
			GROUP BY 1, 2 HAVING sum(c.n) > 0`
	}, func(r pgx.Rows) error {
		var dim, key string
		var n int64
		var total float64
		if err := r.Scan(&dim, &key, &n, &total); err != nil {
			return err
		}
		switch dim {
		case "score":
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(buckets) {
				return fmt.Errorf("dashboard: score range %q", key)
			}
			buckets[i] += n
		case "operator":
			operators = append(operators, OperatorAverage{OperatorID: key, Audited: n, AverageScore: total / float64(n)})
		case "judged":
			judged[key] = n
		case "pending":
			d.PendingReview += n
		case "failed":
			d.CriteriaFailed = append(d.CriteriaFailed, CriterionFailure{CriterionID: key, Failed: n})
		case "processing":
			k, err := strconv.ParseInt(key, 10, 64)
			if err != nil {
				return fmt.Errorf("dashboard: processing bucket %q", key)
			}
			processing = append(processing, [2]int64{k, n})
		}
		return nil
	})
	g.Go(func() error {
		var err error
		d.Queue, d.FailedJobs, err = jobStats(gctx, q, f.From, f.To)
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
		avg := scoreSum / float64(d.Audited)
		d.AverageScore = &avg
	}
	if d.Automatic.Verdicts > 0 {
		share := float64(d.Automatic.Confident) / float64(d.Automatic.Verdicts)
		d.Automatic.Share = &share
	}
	d.ProcessingSeconds = percentiles(processing)
	for i := range d.CriteriaFailed {
		c := &d.CriteriaFailed[i]
		c.Judged = max(judged[c.CriterionID], c.Failed)
		c.Rate = float64(c.Failed) / float64(c.Judged)
	}
	// By the share failed, which the dashboard plots, then by how many.
	slices.SortFunc(d.CriteriaFailed, func(a, b CriterionFailure) int {
		return cmp.Or(cmp.Compare(b.Rate, a.Rate), cmp.Compare(b.Failed, a.Failed), strings.Compare(a.CriterionID, b.CriterionID))
	})
	d.CriteriaFailed = d.CriteriaFailed[:min(len(d.CriteriaFailed), 10)]
	ids := make([]string, len(d.CriteriaFailed))
	for i, c := range d.CriteriaFailed {
		ids[i] = c.CriterionID
	}
	questions, err := criteriaQuestions(ctx, q, ids)
	if err != nil {
		return Dashboard{}, err
	}
	for i := range d.CriteriaFailed {
		d.CriteriaFailed[i].Question = questions[d.CriteriaFailed[i].CriterionID]
	}
	slices.SortFunc(operators, func(a, b OperatorAverage) int {
		return cmp.Or(cmp.Compare(b.AverageScore, a.AverageScore), strings.Compare(a.OperatorID, b.OperatorID))
	})
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

// criteriaQuestions returns the question of each criterion of ids in the
// latest scorecard that has it.
func criteriaQuestions(ctx context.Context, q DBTX, ids []string) (map[string]string, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT ON (e->>'id') e->>'id', COALESCE(e->>'question', '')
		FROM scorecards s, jsonb_array_elements(s.criteria) e WHERE e->>'id' = ANY ($1)
		ORDER BY e->>'id', s.published_at DESC`, ids)
	if err != nil {
		return nil, err
	}
	questions := map[string]string{}
	var id, question string
	_, err = pgx.ForEachRow(rows, []any{&id, &question}, func() error {
		questions[id] = question
		return nil
	})
	return questions, err
}

// percentiles estimates the p50 and p95 of the upload-to-audited times
// from their histogram (bucket k holds times in [2^(k/8), 2^((k+1)/8))
// seconds): the middle of the bucket that holds the nearest rank, within
// 4.5 % of it.
func percentiles(histogram [][2]int64) Percentiles {
	slices.SortFunc(histogram, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var total int64
	for _, b := range histogram {
		total += b[1]
	}
	at := func(p float64) *float64 {
		rank := int64(math.Ceil(p * float64(total)))
		var seen int64
		for _, b := range histogram {
			if seen += b[1]; seen >= rank {
				v := math.Round(math.Exp2((float64(b[0])+0.5)/processingStep)*10) / 10
				return &v
			}
		}
		return nil
	}
	if total == 0 {
		return Percentiles{}
	}
	return Percentiles{P50: at(0.50), P95: at(0.95)}
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
