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
	Name string
	Kind string
	// PerAgent is per_agent's count; Share random_share's percentage.
	PerAgent *int
	Share    *float64
	Period   string
	Language string
	TaskKind string
	Strategy string
	DueDays  int
	Enabled  bool
}

// SamplingRule is a campaign's rule for picking newly audited tasks for an
// analyst's review (migration 00030), with how its last run went.
type SamplingRule struct {
	ID         string
	CampaignID string
	SamplingRuleFields
	// LastAnalyst is where round robin goes on from.
	LastAnalyst string
	LastRunAt   *time.Time
	LastPicked  int
	TotalPicked int
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
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
