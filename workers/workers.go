// Package workers holds one River worker per job kind of package jobs, and
// the engines those workers drive.
package workers

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/storage"
)

// Deps are what the workers need.
type Deps struct {
	// Pool is the database.
	Pool *pgxpool.Pool
	// Store holds the uploaded files.
	Store *storage.Store
}

// Register adds every worker of the service to ws.
func Register(ws *river.Workers, deps Deps) {
	river.AddWorker(ws, &CanaryWorker{})
	river.AddWorker(ws, &SweepBlobsWorker{pool: deps.Pool, store: deps.Store})
}

// PeriodicJobs are the jobs the leader among worker processes schedules.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(15*time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.SweepBlobsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "sweep_blobs", RunOnStart: true}),
	}
}

// CanaryWorker completes canary jobs.
type CanaryWorker struct {
	river.WorkerDefaults[jobs.CanaryArgs]
}

// Work implements river.Worker.
func (w *CanaryWorker) Work(ctx context.Context, job *river.Job[jobs.CanaryArgs]) error {
	return nil
}
