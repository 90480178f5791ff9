package api

import "github.com/auditd/auditd/db"

// The dashboard's wire types: db.StatsDashboard's figures as the API shows
// them (dashboardOf).

// each is f of every element of in, nil for nil.
func each[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// dashboardOf is d as the API shows it.
func dashboardOf(d db.Dashboard) Dashboard {
	return Dashboard{
		ByStatus: d.ByStatus, Tasks: d.Tasks, Audited: d.Audited, PendingReview: d.PendingReview, Passed: d.Passed,
		ApprovalRate: d.ApprovalRate, Validated: d.Validated, AudioMinutes: d.AudioMinutes, AverageScore: d.AverageScore,
		ScoreDistribution: each(d.ScoreDistribution, func(b db.Bucket) Bucket { return Bucket(b) }),
		PerDay:            each(d.PerDay, func(v db.Day) Day { return Day(v) }),
		CriteriaFailed:    each(d.CriteriaFailed, func(c db.CriterionFailure) CriterionFailure { return CriterionFailure(c) }),
		Automatic:         Automatic(d.Automatic),
		Operators: OperatorRanking{
			Top:    each(d.Operators.Top, func(o db.OperatorAverage) OperatorAverage { return OperatorAverage(o) }),
			Bottom: each(d.Operators.Bottom, func(o db.OperatorAverage) OperatorAverage { return OperatorAverage(o) }),
		},
		ProcessingSeconds: Percentiles(d.ProcessingSeconds),
		Queue:             each(d.Queue, func(q db.QueueDepth) QueueDepth { return QueueDepth(q) }),
		FailedJobs:        each(d.FailedJobs, func(k db.KindCount) KindCount { return KindCount(k) }),
	}
}

// Dashboard is every figure of the dashboard.
type Dashboard struct {
	ByStatus          map[string]int64   `json:"by_status" doc:"Tasks by status"`
	Tasks             int64              `json:"tasks"`
	Audited           int64              `json:"audited" doc:"Tasks with a decided audit (pending_review not included)"`
	PendingReview     int64              `json:"pending_review" doc:"Tasks whose audit has verdicts pending an analyst's confirmation: provisional, so counted in no other figure of audits (audited, passed, approval rate, average, distribution, agents, criteria failed)"`
	Passed            int64              `json:"passed" doc:"Audited tasks whose audit passed"`
	ApprovalRate      *float64           `json:"approval_rate" doc:"passed / audited (null when nothing is audited)"`
	Validated         int64              `json:"validated"`
	AudioMinutes      float64            `json:"audio_minutes" doc:"Minutes of call audio"`
	AverageScore      *float64           `json:"average_score"`
	ScoreDistribution []Bucket           `json:"score_distribution" doc:"Audited tasks in ten score ranges: [0,10), …, [90,100]"`
	PerDay            []Day              `json:"per_day" doc:"Tasks by day of creation, in the requested time zone"`
	CriteriaFailed    []CriterionFailure `json:"criteria_failed" doc:"The ten criteria failed most: by the share of the audits that judged them failed (rate), then by how many"`
	Automatic         Automatic          `json:"automatic" doc:"The engine's verdicts and how many it was confident of"`
	Operators         OperatorRanking    `json:"operators"`
	ProcessingSeconds Percentiles        `json:"processing_seconds" doc:"Upload to audited, estimated within 4.5 %"`
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
	Judged      int64   `json:"judged" doc:"Audits that judged it (those that found it not applicable did not): the denominator of its failure rate"`
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
