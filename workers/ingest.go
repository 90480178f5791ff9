package workers

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/ingest"
	"github.com/auditd/auditd/jobs"
)

// DispatchIngestWorker queues a poll of each enabled ingest source that is
// due, every source its own job.
type DispatchIngestWorker struct {
	river.WorkerDefaults[jobs.DispatchIngestArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker.
func (w *DispatchIngestWorker) Work(ctx context.Context, _ *river.Job[jobs.DispatchIngestArgs]) error {
	ids, err := db.IngestSourcesDue(ctx, w.pool, time.Now())
	if err != nil || len(ids) == 0 {
		return err
	}
	polls := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		polls[i] = river.InsertManyParams{Args: jobs.PollIngestSourceArgs{SourceID: id}}
	}
	client := river.ClientFromContext[pgx.Tx](ctx)
	_, err = client.InsertMany(ctx, polls)
	return err
}

// PollIngestSourceWorker polls one ingest source.
type PollIngestSourceWorker struct {
	river.WorkerDefaults[jobs.PollIngestSourceArgs]
	// poller is copied for each poll, with the job's River client.
	poller ingest.Poller
}

// Timeout implements river.Worker: a poll reads at most its PerPoll
// objects, each within the upload's own bounds.
func (w *PollIngestSourceWorker) Timeout(*river.Job[jobs.PollIngestSourceArgs]) time.Duration {
	return 30 * time.Minute
}

// Work implements river.Worker. A source deleted meanwhile cancels the
// poll; a listing that failed is recorded on the source and ends the job
// (the next poll comes at its interval).
func (w *PollIngestSourceWorker) Work(ctx context.Context, job *river.Job[jobs.PollIngestSourceArgs]) error {
	p := w.poller
	p.Intake.River = river.ClientFromContext[pgx.Tx](ctx)
	_, err := p.Poll(ctx, job.Args.SourceID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("ingest source %s no longer exists", job.Args.SourceID))
	}
	return err
}
