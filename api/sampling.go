package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/role"
)

// samplingResource is a campaign's sampling rules (package sampling).
type samplingResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	// wait bounds how long a run asked for waits for its job.
	wait time.Duration
}

func (s *samplingResource) register(api huma.API) {
	tagged := func(op huma.Operation) huma.Operation {
		op.Tags = []string{"QA workflow"}
		return op
	}
	huma.Register(api, tagged(operation(http.MethodGet, "/campaigns/{id}/sampling-rules", "list-sampling-rules",
		"List a campaign's sampling rules", role.Supervisor, http.StatusBadRequest, http.StatusNotFound)), s.list)
	op := operation(http.MethodPost, "/campaigns/{id}/sampling-rules", "create-sampling-rule", "Add a sampling rule to a campaign",
		role.Supervisor, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " A rule picks newly audited tasks of the campaign for an analyst's review (audited, still automatic, " +
		"not assigned, audited since the start of the period the rule is created in) and assigns them to the campaign's " +
		"analysts (`review_analysts`, else every active user whose highest role is quality), in round robin or by load " +
		"(fewest open assignments), due `due_days` later. The `apply_sampling` job runs the rules every SAMPLING_INTERVAL; " +
		"each rule decides on a task once."
	op.DefaultStatus = http.StatusCreated
	huma.Register(api, tagged(op), s.create)
	huma.Register(api, tagged(operation(http.MethodPut, "/sampling-rules/{id}", "update-sampling-rule",
		"Replace a sampling rule", role.Supervisor, http.StatusBadRequest, http.StatusNotFound)), s.update)
	op = operation(http.MethodDelete, "/sampling-rules/{id}", "delete-sampling-rule", "Delete a sampling rule",
		role.Supervisor, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " The assignments it made stay."
	huma.Register(api, tagged(op), s.delete)
	op = operation(http.MethodPost, "/campaigns/{id}/sampling-rules/run", "run-sampling-rules",
		"Run a campaign's sampling rules now", role.Supervisor, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Inserts the campaign's `apply_sampling` job (or returns the one waiting) and waits for it, " +
		"bounded: 200 with the rules as the run left them, or 202 with the job id when it outlasts the wait."
	huma.Register(api, tagged(op), s.run)
}

// SamplingRuleInput is a sampling rule as a supervisor sends it.
type SamplingRuleInput struct {
	Name     string   `json:"name" minLength:"1" maxLength:"100" doc:"The rule's name"`
	Kind     string   `json:"kind" enum:"per_agent,failed_critical,needs_review,random_share" doc:"per_agent: up to per_agent tasks of each agent per period; failed_critical: every task whose audit failed a critical criterion; needs_review: every task with verdicts that need review; random_share: share percent of the tasks"`
	PerAgent *int     `json:"per_agent,omitempty" minimum:"1" maximum:"1000" doc:"per_agent (required for it, refused otherwise): how many tasks of each agent per period"`
	Share    *float64 `json:"share,omitempty" exclusiveMinimum:"0" maximum:"100" doc:"random_share (required for it, refused otherwise): the percentage of tasks picked, above 0 and up to 100"`
	Period   string   `json:"period,omitempty" enum:"day,week,month" default:"week" doc:"The period per_agent counts in (UTC)"`
	Language string   `json:"language,omitempty" maxLength:"35" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$" doc:"Only tasks in this language (BCP 47; es is every Spanish)"`
	TaskKind string   `json:"task_kind,omitempty" enum:"call,chat" doc:"Only calls or only chats"`
	Strategy string   `json:"strategy,omitempty" enum:"round_robin,load" default:"round_robin" doc:"round_robin: the analysts in turn; load: the analyst with the fewest open assignments"`
	DueDays  int      `json:"due_days,omitempty" minimum:"1" maximum:"90" default:"3" doc:"Days from assignment to the due date"`
	Enabled  *bool    `json:"enabled,omitempty" doc:"Defaults to true"`
}

// fields checks what the schema cannot (a count for per_agent alone, a
// share for random_share alone) and returns the rule's fields.
func (in SamplingRuleInput) fields() (db.SamplingRuleFields, error) {
	switch {
	case in.Kind == db.SamplePerAgent && in.PerAgent == nil:
		return db.SamplingRuleFields{}, invalidBody("per_agent", "is required for a per_agent rule: how many tasks of each agent per period", nil)
	case in.Kind != db.SamplePerAgent && in.PerAgent != nil:
		return db.SamplingRuleFields{}, invalidBody("per_agent", "is only for a per_agent rule; leave it out for "+in.Kind, *in.PerAgent)
	case in.Kind == db.SampleRandomShare && in.Share == nil:
		return db.SamplingRuleFields{}, invalidBody("share", "is required for a random_share rule: the percentage of tasks picked", nil)
	case in.Kind != db.SampleRandomShare && in.Share != nil:
		return db.SamplingRuleFields{}, invalidBody("share", "is only for a random_share rule; leave it out for "+in.Kind, *in.Share)
	}
	if in.Share != nil {
		if err := hundredths("share", *in.Share); err != nil {
			return db.SamplingRuleFields{}, err
		}
	}
	f := db.SamplingRuleFields{Name: in.Name, Kind: in.Kind, PerAgent: in.PerAgent, Share: in.Share, Period: in.Period,
		Language: in.Language, TaskKind: in.TaskKind, Strategy: in.Strategy, DueDays: in.DueDays, Enabled: in.Enabled == nil || *in.Enabled}
	return f, nil
}

type samplingRuleInput struct {
	ID   string `path:"id" format:"uuid" doc:"The sampling rule's id"`
	Body SamplingRuleInput
}

type campaignRuleInput struct {
	ID   string `path:"id" format:"uuid" doc:"The campaign's id"`
	Body SamplingRuleInput
}

// SamplingRuleFields are what a supervisor sets on a sampling rule
// (db.SamplingRuleFields).
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
// analyst's review, with how its last run went (db.SamplingRule).
type SamplingRule struct {
	ID         string `json:"id" format:"uuid"`
	CampaignID string `json:"campaign_id" format:"uuid"`
	SamplingRuleFields
	LastRunAt   *time.Time `json:"last_run_at,omitempty" doc:"When the rule last ran"`
	LastPicked  int        `json:"last_picked" doc:"How many tasks its last run picked"`
	TotalPicked int        `json:"total_picked" doc:"How many tasks it has picked in all"`
	CreatedBy   string     `json:"created_by"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// samplingRuleOf is r as the API shows it.
func samplingRuleOf(r db.SamplingRule) SamplingRule {
	return SamplingRule{ID: r.ID, CampaignID: r.CampaignID, SamplingRuleFields: SamplingRuleFields(r.SamplingRuleFields),
		LastRunAt: r.LastRunAt, LastPicked: r.LastPicked, TotalPicked: r.TotalPicked, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// SamplingRules are a campaign's rules.
type SamplingRules struct {
	Items []SamplingRule `json:"items"`
}

func (s *samplingResource) rules(ctx context.Context, campaignID string) (SamplingRules, error) {
	rules, err := db.SamplingRuleList(ctx, s.pool, campaignID)
	if rules == nil {
		rules = []db.SamplingRule{}
	}
	return SamplingRules{Items: each(rules, samplingRuleOf)}, err
}

func (s *samplingResource) list(ctx context.Context, in *campaignInput) (*Output[SamplingRules], error) {
	if _, err := db.CampaignGet(ctx, s.pool, in.ID); err != nil {
		return nil, err
	}
	out, err := s.rules(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(out), nil
}

func (s *samplingResource) create(ctx context.Context, in *campaignRuleInput) (*Output[SamplingRule], error) {
	f, err := in.Body.fields()
	if err != nil {
		return nil, err
	}
	if _, err := db.CampaignGet(ctx, s.pool, in.ID); err != nil {
		return nil, err
	}
	r, err := db.SamplingRuleCreate(ctx, s.pool, in.ID, principal(ctx).User.ID, f)
	if err != nil {
		return nil, err
	}
	return ok(samplingRuleOf(r)), nil
}

func (s *samplingResource) update(ctx context.Context, in *samplingRuleInput) (*Output[SamplingRule], error) {
	f, err := in.Body.fields()
	if err != nil {
		return nil, err
	}
	r, err := db.SamplingRuleUpdate(ctx, s.pool, in.ID, f)
	if err != nil {
		return nil, err
	}
	return ok(samplingRuleOf(r)), nil
}

type ruleIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The sampling rule's id"`
}

func (s *samplingResource) delete(ctx context.Context, in *ruleIDInput) (*Output[SamplingRule], error) {
	r, err := db.SamplingRuleDelete(ctx, s.pool, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(samplingRuleOf(r)), nil
}

// SamplingRun is a run of a campaign's rules asked for.
type SamplingRun struct {
	JobID int64 `json:"job_id" doc:"The apply_sampling job (GET /admin/jobs/{id})"`
	// Rules are the campaign's rules as the run left them; absent on a 202.
	Rules []SamplingRule `json:"rules,omitempty" doc:"The campaign's rules as the run left them (last_run_at, last_picked); absent when the run outlasted the wait"`
}

type runSamplingOutput struct {
	Status int
	Body   Envelope[SamplingRun]
}

func (s *samplingResource) run(ctx context.Context, in *campaignInput) (*runSamplingOutput, error) {
	if _, err := db.CampaignGet(ctx, s.pool, in.ID); err != nil {
		return nil, err
	}
	res, err := s.river.Insert(ctx, jobs.ApplySamplingArgs{CampaignID: in.ID, RequestedBy: principal(ctx).User.ID}, nil)
	if err != nil {
		return nil, err
	}
	out := SamplingRun{JobID: res.Job.ID}
	job, err := waitForJob(ctx, s.river, res.Job.ID, s.wait)
	if errors.Is(err, errJobWaitExpired) {
		return &runSamplingOutput{Status: http.StatusAccepted, Body: accepted(out).Body}, nil
	}
	if err != nil {
		return nil, err
	}
	if job.State != rivertype.JobStateCompleted {
		return nil, fmt.Errorf("apply_sampling job %d ended %s: %v", job.ID, job.State, job.Errors)
	}
	rules, err := s.rules(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out.Rules = rules.Items
	return &runSamplingOutput{Status: http.StatusOK, Body: ok(out).Body}, nil
}
