package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// reviewsResource is the analysts' side of the QA workflow: marking an
// audit reviewed, an analyst's queue, and their progress for supervisors.
type reviewsResource struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

func (r *reviewsResource) register(api huma.API) {
	tagged := func(op huma.Operation) huma.Operation {
		op.Tags = []string{"QA workflow"}
		return op
	}
	op := operation(http.MethodPost, "/tasks/{uuid}/review", "mark-task-reviewed", "Mark a task's audit reviewed",
		role.Quality, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Its review state goes from automatic to reviewed (as an analyst's edit does), with a " +
		"`task.updated` event; the agent then sees the audit. A task reviewed already is answered as it is; one without " +
		"an audit or validated already is 409."
	huma.Register(api, tagged(op), r.markReviewed)

	op = operation(http.MethodGet, "/reviews/mine", "list-my-reviews", "List the tasks assigned to me for review",
		role.Quality, http.StatusBadRequest)
	op.Description += " The caller's queue: tasks assigned to them (by a sampling rule or a bulk `assign`) whose audit " +
		"is still automatic (with `include_reviewed=true`, reviewed ones too; validated ones never), soonest due first, " +
		"those without a due date last; `overdue` marks those past it."
	huma.Register(api, tagged(op), r.mine)

	op = operation(http.MethodGet, "/reviews/progress", "get-review-progress", "Get each analyst's progress with their assignments",
		role.Supervisor, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " For the tasks assigned from `from` to `to` (by when they were assigned; the last 30 days by " +
		"default), of one campaign or all: per analyst, how many were assigned, reviewed (validated ones included), " +
		"validated, still open and overdue (open and past their due date)."
	huma.Register(api, tagged(op), r.progress)
}

func (r *reviewsResource) markReviewed(ctx context.Context, in *taskInput) (*Output[TaskSummary], error) {
	var task db.Task
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) (err error) {
		task, _, err = db.TaskMarkReviewed(ctx, tx, in.UUID, principal(ctx).User.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	v, err := viewerOf(ctx, r.pool)
	if err != nil {
		return nil, err
	}
	return ok(summaryFor(v, task)), nil
}

type myReviewsInput struct {
	IncludeReviewed bool `query:"include_reviewed" doc:"Also list the tasks reviewed but not validated yet"`
	Skip            int  `query:"skip" minimum:"0" default:"0" doc:"Tasks to skip"`
	Limit           int  `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Page size"`
}

// ReviewItem is a task of an analyst's queue.
type ReviewItem struct {
	TaskSummary
	Overdue bool `json:"overdue" doc:"Past its due date and not reviewed yet"`
}

// ReviewQueue is a page of an analyst's queue.
type ReviewQueue struct {
	Items []ReviewItem `json:"items"`
	// Total counts the whole queue.
	Total int64 `json:"total"`
	Skip  int   `json:"skip"`
	Limit int   `json:"limit"`
}

func (r *reviewsResource) mine(ctx context.Context, in *myReviewsInput) (*Output[ReviewQueue], error) {
	v, err := viewerOf(ctx, r.pool)
	if err != nil {
		return nil, err
	}
	tasks, total, err := db.TaskReviewQueue(ctx, r.pool, v, in.IncludeReviewed, in.Skip, in.Limit)
	if err != nil {
		return nil, err
	}
	now := r.now()
	out := ReviewQueue{Items: []ReviewItem{}, Total: total, Skip: in.Skip, Limit: in.Limit}
	for _, t := range tasks {
		out.Items = append(out.Items, ReviewItem{TaskSummary: summaryFor(v, t),
			Overdue: t.ReviewState() == db.ReviewAutomatic && t.DueAt != nil && t.DueAt.Before(now)})
	}
	return ok(out), nil
}

type progressInput struct {
	Campaign string `query:"campaign" format:"uuid" doc:"Only this campaign's tasks (its id)"`
	From     string `query:"from" doc:"Assigned at or after this time (RFC 3339, or a date: its UTC midnight); 30 days ago by default" example:"2024-05-01"`
	To       string `query:"to" doc:"Assigned before this time (RFC 3339, or a date: its UTC midnight); now by default" example:"2024-06-01"`
}

// ReviewProgress is each analyst's progress in a period.
type ReviewProgress struct {
	From     time.Time         `json:"from"`
	To       time.Time         `json:"to"`
	Analysts []AnalystProgress `json:"analysts" doc:"By analyst id"`
}

func (r *reviewsResource) progress(ctx context.Context, in *progressInput) (*Output[ReviewProgress], error) {
	now := r.now()
	from, err := parseTimeIn("from", in.From, time.UTC)
	if err != nil {
		return nil, err
	}
	to, err := parseTimeIn("to", in.To, time.UTC)
	if err != nil {
		return nil, err
	}
	if to.IsZero() {
		to = now
	}
	if from.IsZero() {
		from = to.AddDate(0, 0, -30)
	}
	if !from.Before(to) {
		return nil, invalidQuery("from", "must be before to", in.From)
	}
	if in.Campaign != "" {
		if _, err := db.CampaignGet(ctx, r.pool, in.Campaign); err != nil {
			return nil, err
		}
	}
	analysts, err := db.TaskReviewProgress(ctx, r.pool, in.Campaign, from, to, now)
	if err != nil {
		return nil, err
	}
	shown := []AnalystProgress{}
	for _, a := range analysts {
		shown = append(shown, AnalystProgress(a))
	}
	return ok(ReviewProgress{From: from, To: to, Analysts: shown}), nil
}

// AnalystProgress is how far one analyst got with the tasks assigned to
// them.
type AnalystProgress struct {
	AnalystID string `json:"analyst_id"`
	Name      string `json:"name,omitempty" doc:"The analyst's name or username, when known"`
	Assigned  int64  `json:"assigned" doc:"Tasks assigned to them in the period"`
	Reviewed  int64  `json:"reviewed" doc:"Of those, reviewed (validated ones included)"`
	Validated int64  `json:"validated" doc:"Of those, validated"`
	Open      int64  `json:"open" doc:"Of those, not reviewed yet"`
	Overdue   int64  `json:"overdue" doc:"Of the open ones, past their due date"`
}
