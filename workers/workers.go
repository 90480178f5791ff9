// Package workers holds one River worker per job kind of package jobs, and
// the engines those workers drive.
package workers

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/auditd/auditd/jobs"
)

// Register adds every worker of the service to ws.
func Register(ws *river.Workers) {
	river.AddWorker(ws, &CanaryWorker{})
}

// CanaryWorker completes canary jobs.
type CanaryWorker struct {
	river.WorkerDefaults[jobs.CanaryArgs]
}

// Work implements river.Worker.
func (w *CanaryWorker) Work(ctx context.Context, job *river.Job[jobs.CanaryArgs]) error {
	return nil
}
