package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/role"
)

type adminResource struct {
	river *river.Client[pgx.Tx]
	wait  time.Duration
}

// CanaryResult reports a canary job's round trip through the workers.
type CanaryResult struct {
	JobID     int64   `json:"job_id"`
	State     string  `json:"state" example:"completed"`
	LatencyMS float64 `json:"latency_ms" doc:"Time from insertion to completion"`
}

func (a *adminResource) register(api huma.API) {
	op := operation(http.MethodPost, "/admin/canary", "run-canary", "Check that workers are taking jobs", role.Admin,
		http.StatusServiceUnavailable)
	op.Description += " Inserts a no-op job and waits (up to JOB_WAIT_TIMEOUT) for a worker process to complete it; " +
		"503 SERVICE_UNAVAILABLE means no worker did."
	op.Tags = []string{"admin"}
	huma.Register(api, op, a.canary)
	a.registerJobs(api)
}

func (a *adminResource) canary(ctx context.Context, _ *struct{}) (*Output[CanaryResult], error) {
	res, err := a.river.Insert(ctx, jobs.CanaryArgs{RequestedBy: principal(ctx).User.ID}, nil)
	if err != nil {
		return nil, err
	}
	job, err := waitForJob(ctx, a.river, res.Job.ID, a.wait)
	if errors.Is(err, errJobWaitExpired) {
		// Nobody will want this answer later; don't leave it queued.
		_, _ = a.river.JobCancel(context.WithoutCancel(ctx), res.Job.ID)
		return nil, Errorf(CodeServiceUnavailable,
			fmt.Sprintf("no worker completed the canary job within %s: is an `auditd work` (or `auditd all`) process running?", a.wait)).
			WithDetails(map[string]any{"job_id": res.Job.ID})
	}
	if err != nil {
		return nil, err
	}
	if job.State != rivertype.JobStateCompleted {
		return nil, Errorf(CodeServiceUnavailable, "the canary job ended "+string(job.State)).
			WithDetails(map[string]any{"job_id": job.ID, "errors": job.Errors})
	}
	return ok(CanaryResult{
		JobID: job.ID, State: string(job.State),
		LatencyMS: float64(job.FinalizedAt.Sub(job.CreatedAt).Microseconds()) / 1000,
	}), nil
}

// Job is a River job as the admin API shows it.
type Job struct {
	ID          int64           `json:"id"`
	Kind        string          `json:"kind"`
	State       string          `json:"state" enum:"available,cancelled,completed,discarded,pending,retryable,running,scheduled"`
	Queue       string          `json:"queue"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	Priority    int             `json:"priority"`
	Args        json.RawMessage `json:"args"`
	Tags        []string        `json:"tags"`
	Errors      []JobError      `json:"errors" doc:"One per failed attempt, oldest first"`
	CreatedAt   time.Time       `json:"created_at"`
	ScheduledAt time.Time       `json:"scheduled_at"`
	AttemptedAt *time.Time      `json:"attempted_at,omitempty"`
	FinalizedAt *time.Time      `json:"finalized_at,omitempty"`
}

// JobError is one failed attempt.
type JobError struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
}

func jobView(j *rivertype.JobRow) Job {
	v := Job{ID: j.ID, Kind: j.Kind, State: string(j.State), Queue: j.Queue, Attempt: j.Attempt,
		MaxAttempts: j.MaxAttempts, Priority: j.Priority, Args: j.EncodedArgs, Tags: j.Tags,
		Errors: make([]JobError, len(j.Errors)), CreatedAt: j.CreatedAt, ScheduledAt: j.ScheduledAt,
		AttemptedAt: j.AttemptedAt, FinalizedAt: j.FinalizedAt}
	for i, e := range j.Errors {
		v.Errors[i] = JobError{Attempt: e.Attempt, At: e.At, Error: e.Error}
	}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	return v
}

// JobPage is one page of jobs.
type JobPage struct {
	Items []Job `json:"items"`
	// Next is the cursor of the following page; empty on the last one.
	Next string `json:"next,omitempty"`
}

type listJobsInput struct {
	Kind   []string `query:"kind" doc:"Only these kinds (repeat or comma-separate)"`
	State  []string `query:"state" enum:"available,cancelled,completed,discarded,pending,retryable,running,scheduled" doc:"Only these states"`
	Queue  []string `query:"queue" doc:"Only these queues"`
	Limit  int      `query:"limit" minimum:"1" maximum:"500" default:"100"`
	Cursor string   `query:"cursor" doc:"The next of the previous page"`
}

type jobIDInput struct {
	ID int64 `path:"id" minimum:"1" doc:"The job's id"`
}

func (a *adminResource) registerJobs(api huma.API) {
	tags := []string{"admin"}
	op := operation(http.MethodGet, "/admin/jobs", "list-jobs", "List background jobs", role.Admin, http.StatusBadRequest)
	op.Description += " Newest first; filter by kind, state and queue; page with `cursor`."
	op.Tags = tags
	huma.Register(api, op, a.listJobs)
	op = operation(http.MethodGet, "/admin/jobs/{id}", "get-job", "Get a background job", role.Admin, http.StatusNotFound)
	op.Tags = tags
	huma.Register(api, op, a.getJob)
	op = operation(http.MethodPost, "/admin/jobs/{id}/retry", "retry-job", "Retry a background job", role.Admin, http.StatusNotFound)
	op.Description += " Makes a finished (completed, cancelled, discarded) or waiting job available to work now. A running job is left alone."
	op.Tags = tags
	huma.Register(api, op, a.retryJob)
	op = operation(http.MethodPost, "/admin/jobs/{id}/cancel", "cancel-job", "Cancel a background job", role.Admin, http.StatusNotFound)
	op.Description += " A waiting job is cancelled; a running one has its context cancelled and is not retried."
	op.Tags = tags
	huma.Register(api, op, a.cancelJob)
}

func (a *adminResource) listJobs(ctx context.Context, in *listJobsInput) (*Output[JobPage], error) {
	params := river.NewJobListParams().OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(in.Limit)
	if kinds := splitList(in.Kind); len(kinds) > 0 {
		params = params.Kinds(kinds...)
	}
	if queues := splitList(in.Queue); len(queues) > 0 {
		params = params.Queues(queues...)
	}
	if states := splitList(in.State); len(states) > 0 {
		ss := make([]rivertype.JobState, len(states))
		for i, s := range states {
			ss[i] = rivertype.JobState(s)
		}
		params = params.States(ss...)
	}
	if in.Cursor != "" {
		cursor, ok := decodeJobCursor(in.Cursor)
		if !ok {
			return nil, badCursor()
		}
		params = params.After(cursor)
	}
	res, err := a.river.JobList(ctx, params)
	if err != nil {
		return nil, err
	}
	page := JobPage{Items: make([]Job, len(res.Jobs))}
	for i, j := range res.Jobs {
		page.Items[i] = jobView(j)
	}
	if len(res.Jobs) == in.Limit && res.LastCursor != nil {
		next, err := res.LastCursor.MarshalText()
		if err != nil {
			return nil, err
		}
		page.Next = string(next)
	}
	return ok(page), nil
}

// decodeJobCursor reads s strictly: only what River writes for a listed job
// (the same text once written again, a job id), never "null" or {}.
func decodeJobCursor(s string) (*river.JobListCursor, bool) {
	var c river.JobListCursor
	if c.UnmarshalText([]byte(s)) != nil {
		return nil, false
	}
	again, err := c.MarshalText()
	if err != nil || string(again) != s {
		return nil, false
	}
	var fields struct {
		ID int64 `json:"id"`
	}
	raw, _ := base64.URLEncoding.DecodeString(s) // decoded above
	if json.Unmarshal(raw, &fields) != nil || fields.ID <= 0 {
		return nil, false
	}
	return &c, true
}

// splitList accepts repeated and comma-separated query values alike.
func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func (a *adminResource) getJob(ctx context.Context, in *jobIDInput) (*Output[Job], error) {
	return a.jobAction(ctx, in.ID, a.river.JobGet)
}

func (a *adminResource) retryJob(ctx context.Context, in *jobIDInput) (*Output[Job], error) {
	return a.jobAction(ctx, in.ID, a.river.JobRetry)
}

func (a *adminResource) cancelJob(ctx context.Context, in *jobIDInput) (*Output[Job], error) {
	return a.jobAction(ctx, in.ID, a.river.JobCancel)
}

func (a *adminResource) jobAction(ctx context.Context, id int64, action func(context.Context, int64) (*rivertype.JobRow, error)) (*Output[Job], error) {
	job, err := action(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil, Errorf(CodeNotFound, fmt.Sprintf("no job has id %d", id))
	}
	if err != nil {
		return nil, err
	}
	return ok(jobView(job)), nil
}
