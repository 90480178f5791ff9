package db

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/pipeline"
)

// SamplingCandidate is a task a sampling rule has not decided on yet.
type SamplingCandidate struct {
	TaskUUID   string
	OperatorID string
	// PeriodStart is the start (UTC) of the rule's period the task was
	// audited in.
	PeriodStart time.Time
	// Draw is the task's number in [0, 1) for this rule, from their ids: a
	// random share picks the tasks whose draw is below it, the same on
	// every run.
	Draw float64
}

// SamplingCandidates returns up to limit tasks, oldest audit first, that
// rule r has not decided on and that it may pick: of its campaign, audited,
// automatic (not reviewed), unassigned, audited since the start of the
// period r was created in, in its language and of its kind, and for
// failed_critical and needs_review the tasks it takes.
func SamplingCandidates(ctx context.Context, q DBTX, r SamplingRule, limit int) ([]SamplingCandidate, error) {
	f := TaskFilter{Status: pipeline.Audited, Kind: r.TaskKind, Language: r.Language, ReviewState: ReviewAutomatic}
	if r.Kind == SampleNeedsReview {
		yes := true
		f.NeedsReview = &yes
	}
	args := []any{r.ID, r.CampaignID, r.Period, r.CreatedAt}
	where := f.where(&args)
	if r.Kind == SampleFailedCritical {
		where += ` AND EXISTS (SELECT 1 FROM audit_revisions a WHERE a.task_uuid = t.uuid AND a.revision = t.audit_revision
			AND a.result->'items' @> '[{"critical": true, "complies": false}]')`
	}
	rows, err := q.Query(ctx, `
		SELECT t.uuid, COALESCE(t.operator_id, ''), date_trunc($3, t.audited_at AT TIME ZONE 'UTC'),
			('x' || substr(md5($1::text || t.uuid::text), 1, 8))::bit(32)::bigint / 4294967296.0
		FROM tasks t
		WHERE t.campaign_id = $2 AND t.assignee_id IS NULL
			AND t.audited_at >= date_trunc($3, $4::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
			AND NOT EXISTS (SELECT 1 FROM sampling_picks p WHERE p.rule_id = $1::uuid AND p.task_uuid = t.uuid)
			AND `+where+`
		ORDER BY t.audited_at, t.uuid LIMIT `+strconv.Itoa(limit), args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (SamplingCandidate, error) {
		var c SamplingCandidate
		err := row.Scan(&c.TaskUUID, &c.OperatorID, &c.PeriodStart, &c.Draw)
		return c, err
	})
}

// SamplingPeriodKey is an agent's period: what a per_agent rule counts its
// picks in.
type SamplingPeriodKey struct {
	PeriodStart time.Time
	OperatorID  string
}

// SamplingPicked counts the tasks rule ruleID picked per agent and period,
// for the periods since since (UTC).
func SamplingPicked(ctx context.Context, q DBTX, ruleID string, since time.Time) (map[SamplingPeriodKey]int, error) {
	rows, err := q.Query(ctx, `SELECT period_start::timestamp, COALESCE(operator_id, ''), count(*) FROM sampling_picks
		WHERE rule_id = $1 AND picked AND period_start >= $2::date GROUP BY 1, 2`, ruleID, since)
	if err != nil {
		return nil, err
	}
	out := map[SamplingPeriodKey]int{}
	var k SamplingPeriodKey
	var n int
	_, err = pgx.ForEachRow(rows, []any{&k.PeriodStart, &k.OperatorID, &n}, func() error {
		out[k] = n
		return nil
	})
	return out, err
}

// SamplingPick is a rule's decision on a task.
type SamplingPick struct {
	SamplingCandidate
	Picked bool
	// AssigneeID is the analyst a picked task went to.
	AssigneeID string
}

// SamplingPicksInsert records rule ruleID's decisions; a task it decided
// on already keeps its first decision.
func SamplingPicksInsert(ctx context.Context, q DBTX, ruleID string, picks []SamplingPick) error {
	if len(picks) == 0 {
		return nil
	}
	uuids, periods, operators, picked, assignees := make([]string, len(picks)), make([]time.Time, len(picks)),
		make([]string, len(picks)), make([]bool, len(picks)), make([]string, len(picks))
	for i, p := range picks {
		uuids[i], periods[i], operators[i], picked[i], assignees[i] = p.TaskUUID, p.PeriodStart, p.OperatorID, p.Picked, p.AssigneeID
	}
	_, err := q.Exec(ctx, `
		INSERT INTO sampling_picks (rule_id, task_uuid, period_start, operator_id, picked, assignee_id)
		SELECT $1, u, p::date, NULLIF(o, ''), k, NULLIF(a, '')
		FROM unnest($2::uuid[], $3::timestamp[], $4::text[], $5::bool[], $6::text[]) AS x (u, p, o, k, a)
		ON CONFLICT DO NOTHING`, ruleID, uuids, periods, operators, picked, assignees)
	return err
}
