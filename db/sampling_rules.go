package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Kinds of sampling rule (SamplingRule.Kind).
const (
	SamplePerAgent       = "per_agent"
	SampleFailedCritical = "failed_critical"
	SampleNeedsReview    = "needs_review"
	SampleRandomShare    = "random_share"
)

// Ways a sampling rule shares its picks among the analysts
// (SamplingRule.Strategy).
const (
	AssignRoundRobin = "round_robin"
	AssignByLoad     = "load"
)

// SamplingRuleFields are what a supervisor sets on a sampling rule.
type SamplingRuleFields struct {
	Name string `json:"name" doc:"The rule's name"`
	Kind string `json:"kind" enum:"per_agent,failed_critical,needs_review,random_share" doc:"per_agent: up to per_agent tasks of each agent per period; failed_critical: every task whose audit failed a critical criterion; needs_review: every task with verdicts that need review; random_share: share percent of the tasks"`
	// PerAgent is per_agent's count; Share random_share's percentage.
	PerAgent *int     `json:"per_agent,omitempty" doc:"per_agent: how many tasks of each agent per period"`
	Share    *float64 `json:"share,omitempty" doc:"random_share: the percentage of tasks picked (above 0, up to 100)"`
	Period   string   `json:"period" enum:"day,week,month" doc:"The period per_agent counts over (UTC); a rule looks at tasks audited since the start of the period it was created in"`
	Language string   `json:"language,omitempty" doc:"Only tasks in this language (es: every Spanish)"`
	TaskKind string   `json:"task_kind,omitempty" enum:"call,chat" doc:"Only calls or only chats"`
	Strategy string   `json:"strategy" enum:"round_robin,load" doc:"round_robin: the analysts in turn; load: the analyst with the fewest open assignments"`
	DueDays  int      `json:"due_days" doc:"Days from assignment to the due date"`
	Enabled  bool     `json:"enabled"`
}

// SamplingRule is a campaign's rule for picking newly audited tasks for an
// analyst's review (migration 00030), with how its last run went.
type SamplingRule struct {
	ID         string `json:"id" format:"uuid"`
	CampaignID string `json:"campaign_id" format:"uuid"`
	SamplingRuleFields
	// LastAnalyst is where round robin goes on from.
	LastAnalyst string     `json:"-"`
	LastRunAt   *time.Time `json:"last_run_at,omitempty" doc:"When the rule last ran"`
	LastPicked  int        `json:"last_picked" doc:"How many tasks its last run picked"`
	TotalPicked int        `json:"total_picked" doc:"How many tasks it has picked in all"`
	CreatedBy   string     `json:"created_by"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

const samplingRuleColumns = `id, campaign_id, name, kind, per_agent, share::float8, period, COALESCE(language, ''),
	COALESCE(task_kind, ''), strategy, due_days, enabled, COALESCE(last_analyst, ''), last_run_at, last_picked,
	(SELECT count(*) FROM sampling_picks p WHERE p.rule_id = sampling_rules.id AND p.picked)::int,
	created_by, created_at, updated_at`

func scanSamplingRule(row pgx.Row) (SamplingRule, error) {
	var r SamplingRule
	err := row.Scan(&r.ID, &r.CampaignID, &r.Name, &r.Kind, &r.PerAgent, &r.Share, &r.Period, &r.Language,
		&r.TaskKind, &r.Strategy, &r.DueDays, &r.Enabled, &r.LastAnalyst, &r.LastRunAt, &r.LastPicked, &r.TotalPicked,
		&r.CreatedBy, &r.CreatedAt, &r.UpdatedAt)
	return r, err
}

func collectSamplingRules(rows pgx.Rows, err error) ([]SamplingRule, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (SamplingRule, error) { return scanSamplingRule(row) })
}

// SamplingRuleList returns the rules of campaign campaignID, oldest first.
func SamplingRuleList(ctx context.Context, q DBTX, campaignID string) ([]SamplingRule, error) {
	return collectSamplingRules(q.Query(ctx, `SELECT `+samplingRuleColumns+` FROM sampling_rules
		WHERE campaign_id = $1 ORDER BY created_at, id`, campaignID))
}

// SamplingRulesEnabled returns the enabled rules of campaign campaignID, or
// of every campaign when it is "", oldest first.
func SamplingRulesEnabled(ctx context.Context, q DBTX, campaignID string) ([]SamplingRule, error) {
	return collectSamplingRules(q.Query(ctx, `SELECT `+samplingRuleColumns+` FROM sampling_rules
		WHERE enabled AND ($1 = '' OR campaign_id::text = $1) ORDER BY created_at, id`, campaignID))
}

// SamplingRuleGet returns rule id, or a NotFound error.
func SamplingRuleGet(ctx context.Context, q DBTX, id string) (SamplingRule, error) {
	r, err := scanSamplingRule(q.QueryRow(ctx, `SELECT `+samplingRuleColumns+` FROM sampling_rules WHERE id = $1`, id))
	return r, one(err, "no sampling rule %s", id)
}

// SamplingRuleLock returns rule id locked for the rest of tx (runs of one
// rule happen one after the other), or a NotFound error.
func SamplingRuleLock(ctx context.Context, tx pgx.Tx, id string) (SamplingRule, error) {
	r, err := scanSamplingRule(tx.QueryRow(ctx, `SELECT `+samplingRuleColumns+` FROM sampling_rules WHERE id = $1 FOR UPDATE`, id))
	return r, one(err, "no sampling rule %s", id)
}

// SamplingRuleCreate inserts a rule of campaign campaignID made by user by.
func SamplingRuleCreate(ctx context.Context, q DBTX, campaignID, by string, f SamplingRuleFields) (SamplingRule, error) {
	return scanSamplingRule(q.QueryRow(ctx, `
		INSERT INTO sampling_rules (campaign_id, name, kind, per_agent, share, period, language, task_kind, strategy,
			due_days, enabled, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''), NULLIF($8, ''), $9, $10, $11, $12)
		RETURNING `+samplingRuleColumns,
		campaignID, f.Name, f.Kind, f.PerAgent, f.Share, f.Period, f.Language, f.TaskKind, f.Strategy, f.DueDays, f.Enabled, by))
}

// SamplingRuleUpdate replaces the fields of rule id, returning it, or a
// NotFound error. The decisions it took stay: a task it picked or passed
// over is not decided again.
func SamplingRuleUpdate(ctx context.Context, q DBTX, id string, f SamplingRuleFields) (SamplingRule, error) {
	r, err := scanSamplingRule(q.QueryRow(ctx, `
		UPDATE sampling_rules SET name = $2, kind = $3, per_agent = $4, share = $5, period = $6, language = NULLIF($7, ''),
			task_kind = NULLIF($8, ''), strategy = $9, due_days = $10, enabled = $11, updated_at = now()
		WHERE id = $1 RETURNING `+samplingRuleColumns,
		id, f.Name, f.Kind, f.PerAgent, f.Share, f.Period, f.Language, f.TaskKind, f.Strategy, f.DueDays, f.Enabled))
	return r, one(err, "no sampling rule %s", id)
}

// SamplingRuleDelete deletes rule id and its decisions (the assignments it
// made stay), or returns a NotFound error.
func SamplingRuleDelete(ctx context.Context, q DBTX, id string) (SamplingRule, error) {
	r, err := scanSamplingRule(q.QueryRow(ctx, `DELETE FROM sampling_rules WHERE id = $1 RETURNING `+samplingRuleColumns, id))
	return r, one(err, "no sampling rule %s", id)
}

// SamplingRuleRecordRun records a run of rule id that picked picked tasks.
func SamplingRuleRecordRun(ctx context.Context, q DBTX, id string, picked int) error {
	_, err := q.Exec(ctx, `UPDATE sampling_rules SET last_run_at = now(), last_picked = $2 WHERE id = $1`, id, picked)
	return err
}

// SamplingRuleAdvance records the analyst rule id's round robin goes on
// after.
func SamplingRuleAdvance(ctx context.Context, q DBTX, id, lastAnalyst string) error {
	_, err := q.Exec(ctx, `UPDATE sampling_rules SET last_analyst = $2 WHERE id = $1`, id, lastAnalyst)
	return err
}
