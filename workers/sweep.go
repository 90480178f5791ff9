package workers

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/storage"
)

const (
	// sweepDays is how many days of upload keys a sweep lists, today
	// (UTC) included: orphans come from uploads that just failed, and
	// listing the whole store would cost too much on a large bucket.
	sweepDays = 3
	// sweepBatch is how many blobs one locked check deletes at most, so
	// uploads waiting to commit are not held up for long.
	sweepBatch = 100
)

// SweepBlobsWorker deletes uploaded blobs that no task and no validation's
// attachment refers to once they are older than storage.OrphanAge: what
// uploads and validations that failed half-way, or processes that died
// mid-request, left behind.
type SweepBlobsWorker struct {
	river.WorkerDefaults[jobs.SweepBlobsArgs]
	pool  *pgxpool.Pool
	store *storage.Store
}

// SweepResult is the output a sweep records on its job.
type SweepResult struct {
	Checked int `json:"checked"`
	Deleted int `json:"deleted"`
}

// Timeout implements river.Worker: listing a bucket can take a while.
func (w *SweepBlobsWorker) Timeout(*river.Job[jobs.SweepBlobsArgs]) time.Duration {
	return 10 * time.Minute
}

// Work implements river.Worker.
func (w *SweepBlobsWorker) Work(ctx context.Context, job *river.Job[jobs.SweepBlobsArgs]) error {
	now := time.Now()
	cutoff := now.Add(-storage.OrphanAge)
	var res SweepResult
	var batch []string
	flush := func() error {
		n, err := w.sweep(ctx, batch)
		res.Deleted += n
		batch = batch[:0]
		return err
	}
	for day := range sweepDays {
		for o, err := range w.store.List(ctx, storage.DayPrefix(now.AddDate(0, 0, -day))) {
			if err != nil {
				return err
			}
			if !o.ModTime.Before(cutoff) {
				continue
			}
			res.Checked++
			if batch = append(batch, o.Key); len(batch) == sweepBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if len(batch) > 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	return river.RecordOutput(ctx, res)
}

// sweep deletes the keys nothing refers to, holding the lock that keeps
// uploads and validations from committing a reference to one meanwhile.
func (w *SweepBlobsWorker) sweep(ctx context.Context, keys []string) (int, error) {
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
	if err := db.BlobSweepLock(ctx, tx); err != nil {
		return 0, err
	}
	referenced, err := db.TaskBlobKeysReferenced(ctx, tx, keys)
	if err != nil {
		return 0, err
	}
	attached, err := db.ValidationBlobKeysReferenced(ctx, tx, keys)
	if err != nil {
		return 0, err
	}
	deleted := 0
	for _, k := range keys {
		if referenced[k] || attached[k] {
			continue
		}
		if err := w.store.Delete(ctx, k); err != nil {
			return deleted, err
		}
		deleted++
	}
	return deleted, tx.Commit(ctx)
}
