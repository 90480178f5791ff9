package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// registerEvaluations registers the agent's list of their evaluations.
func (r *disputesResource) registerEvaluations(api huma.API) {
	op := operation(http.MethodGet, "/users/me/evaluations", "list-my-evaluations", "List your validated evaluations",
		role.Operator, http.StatusBadRequest)
	op.Description += " The validated evaluations of the tasks whose agent you are, newest validation first: the " +
		"result, who validated it when, your acknowledgement and your disputes of it with their outcome. Only your own " +
		"tasks, whatever your role, and never an audit hidden from you. Your score and each criterion week by week are " +
		"GET /stats/trends, which shows an agent only their own figures."
	op.Tags = []string{"disputes"}
	huma.Register(api, op, r.evaluations)
}

type myEvaluationsInput struct {
	Skip  int `query:"skip" minimum:"0" default:"0" doc:"Pagination offset"`
	Limit int `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Pagination limit"`
}

// MyEvaluation is one validated evaluation of the caller's task.
type MyEvaluation struct {
	TaskUUID       string     `json:"task_uuid" format:"uuid"`
	FileName       string     `json:"file_name"`
	Kind           string     `json:"kind" enum:"call,chat"`
	Campaign       string     `json:"campaign" doc:"The campaign's name"`
	Score          *float64   `json:"score,omitempty" doc:"The current audit's score (0..100)"`
	Passed         *bool      `json:"passed,omitempty" doc:"Whether it reaches the campaign's passing score"`
	ValidatedAt    time.Time  `json:"validated_at"`
	ValidatorName  string     `json:"validator_name"`
	AcknowledgedAt *time.Time `json:"acknowledged_at,omitempty" doc:"When you acknowledged it; absent until you do"`
	Disputes       []Dispute  `json:"disputes" doc:"Your disputes of it, oldest first, each with its outcome (a dispute accepted with some criteria rejected is partly accepted: its items say which)"`
}

// MyEvaluations is one page of the caller's evaluations.
type MyEvaluations struct {
	Items []MyEvaluation `json:"items"`
	Total int            `json:"total" doc:"Your validated evaluations"`
	Skip  int            `json:"skip"`
	Limit int            `json:"limit"`
}

func (r *disputesResource) evaluations(ctx context.Context, in *myEvaluationsInput) (*Output[MyEvaluations], error) {
	v, err := viewerOf(ctx, r.pool)
	if err != nil {
		return nil, err
	}
	list, total, err := db.EvaluationList(ctx, r.pool, v, in.Skip, in.Limit)
	if err != nil {
		return nil, err
	}
	page := MyEvaluations{Items: make([]MyEvaluation, len(list)), Total: total, Skip: in.Skip, Limit: in.Limit}
	for i, e := range list {
		page.Items[i] = myEvaluation(e)
	}
	return ok(page), nil
}

// myEvaluation is e as the API shows it.
func myEvaluation(e db.Evaluation) MyEvaluation {
	return MyEvaluation{TaskUUID: e.TaskUUID, FileName: e.FileName, Kind: e.Kind, Campaign: e.Campaign, Score: e.Score,
		Passed: e.Passed, ValidatedAt: e.ValidatedAt, ValidatorName: e.ValidatorName, AcknowledgedAt: e.AcknowledgedAt,
		Disputes: disputesOf(e.Disputes)}
}
