package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
