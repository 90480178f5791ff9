// Package workers holds one River worker per job kind of package jobs, and
// the engines those workers drive.
package workers

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/jobs"
)

// Deps are what the workers need.
type Deps struct {
	// Pool is the database.
	Pool *pgxpool.Pool
	// EventRetention is how long events are kept for streams to resume from.
	EventRetention time.Duration
}

// Register adds every worker of the service to ws.
func Register(ws *river.Workers, d Deps) {
	river.AddWorker(ws, &CanaryWorker{})
	river.AddWorker(ws, &PruneEventsWorker{pool: d.Pool, retention: d.EventRetention})
}

// Periodic returns the jobs River's leader inserts on a schedule.
func Periodic() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.PruneEventsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "prune_events", RunOnStart: true}),
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
