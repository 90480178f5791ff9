package workers

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/storage"
)

// defaultForgetBatch is how many tasks retention and erasure handle in one
// transaction (Deps.ForgetBatch).
const defaultForgetBatch = 200

// forgetter deletes content from tasks a batch at a time: in one
// transaction it drops the rows and references, records the counts, writes
// each task's task.updated event and inserts the delete_blobs job for the
// files, so a blob is deleted only once nothing committed refers to it.
type forgetter struct {
	pool  *pgxpool.Pool
	batch int
}

// forget runs one batch in a transaction: pick selects the locked tasks
// (none ends the walk), TasksForget deletes kinds from them, and record
// writes what was deleted. It reports whether there may be more.
func (f forgetter) forget(ctx context.Context, kinds []string, pick func(pgx.Tx) ([]string, error),
	record func(pgx.Tx, []string, db.Forgotten) error) (bool, error) {
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return false, err
	}
	more := false
	err = pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		uuids, err := pick(tx)
		if err != nil || len(uuids) == 0 {
			return err
		}
		more = len(uuids) == f.batch
		var gone db.Forgotten
		for _, kind := range kinds {
			if err := db.TasksForget(ctx, tx, kind, uuids, &gone); err != nil {
				return err
			}
		}
		if err := record(tx, uuids, gone); err != nil {
			return err
		}
		// Screens showing these tasks reload them.
		tasks, err := db.TasksGet(ctx, tx, uuids)
		if err != nil {
			return err
		}
		events := make([]db.EventNew, len(tasks))
		for i, task := range tasks {
			events[i] = db.TaskEvent(db.EventTaskUpdated, task)
		}
		if err := db.EventsInsert(ctx, tx, events...); err != nil {
			return err
		}
		if len(gone.BlobKeys) == 0 {
			return nil
		}
		_, err = client.InsertTx(ctx, tx, jobs.DeleteBlobsArgs{Keys: gone.BlobKeys}, nil)
		return err
	})
	return more, err
}

// ApplyRetentionWorker deletes what each campaign's retention says has
// expired, oldest first, a batch per transaction, and records the counts
// (privacy_deletions). Held tasks are left alone; what is gone is not
// looked at again, so a run cut short is finished by the next.
type ApplyRetentionWorker struct {
	river.WorkerDefaults[jobs.ApplyRetentionArgs]
	forgetter
}

// RetentionResult is the output a retention run records on its job.
type RetentionResult struct {
	Recordings  int `json:"recordings"`
	Transcripts int `json:"transcripts"`
	Audits      int `json:"audits"`
}

// Timeout implements river.Worker: a first run over years of tasks takes a while.
func (w *ApplyRetentionWorker) Timeout(*river.Job[jobs.ApplyRetentionArgs]) time.Duration {
	return 30 * time.Minute
}

// Work implements river.Worker.
func (w *ApplyRetentionWorker) Work(ctx context.Context, job *river.Job[jobs.ApplyRetentionArgs]) error {
	campaigns, err := db.CampaignRetentionList(ctx, w.pool)
	if err != nil {
		return err
	}
	var res RetentionResult
	for _, c := range campaigns {
		for i, days := range []*int{c.RecordingsDays, c.TranscriptsDays, c.AuditsDays} {
			kind := db.ForgetKinds[i]
			if days == nil {
				continue
			}
			for more := true; more; {
				more, err = w.forget(ctx, []string{kind}, func(tx pgx.Tx) ([]string, error) {
					return db.TasksExpired(ctx, tx, c.CampaignID, kind, *days, w.batch)
				}, func(tx pgx.Tx, _ []string, gone db.Forgotten) error {
					res.Recordings += gone.Count(db.ForgetRecording)
					res.Transcripts += gone.Count(db.ForgetTranscript)
					res.Audits += gone.Count(db.ForgetAudit)
					return db.PrivacyDeletionInsert(ctx, tx, db.CauseRetention, "", gone)
				})
				if err != nil {
					return err
				}
			}
		}
	}
	return river.RecordOutput(ctx, res)
}

// ErasePersonWorker carries out an erasure: every task of the person not
// on legal hold loses its recording, transcript and audit, a batch per
// transaction with the erasure's counts; then the held tasks are counted
// and the erasure is done. A run cut short is finished by the next: the
// tasks done hold nothing more to delete.
type ErasePersonWorker struct {
	river.WorkerDefaults[jobs.ErasePersonArgs]
	forgetter
}

// Timeout implements river.Worker.
func (w *ErasePersonWorker) Timeout(*river.Job[jobs.ErasePersonArgs]) time.Duration {
	return 30 * time.Minute
}

// Work implements river.Worker.
func (w *ErasePersonWorker) Work(ctx context.Context, job *river.Job[jobs.ErasePersonArgs]) error {
	e, err := db.ErasureGet(ctx, w.pool, job.Args.ErasureID)
	if err != nil || e.Status == db.ErasureDone {
		return err
	}
	for more := true; more; {
		more, err = w.forget(ctx, db.ForgetKinds, func(tx pgx.Tx) ([]string, error) {
			return db.TasksOfPerson(ctx, tx, e.OperatorID, e.CustomerRef, w.batch)
		}, func(tx pgx.Tx, uuids []string, gone db.Forgotten) error {
			if err := db.ErasureProgress(ctx, tx, e.ID, len(uuids), gone); err != nil {
				return err
			}
			return db.PrivacyDeletionInsert(ctx, tx, db.CauseErasure, e.ID, gone)
		})
		if err != nil {
			return err
		}
	}
	held, err := db.TasksOfPersonHeld(ctx, w.pool, e.OperatorID, e.CustomerRef)
	if err != nil {
		return err
	}
	// Done, and the admin who asked told so, in one transaction.
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		done, err := db.ErasureFinish(ctx, tx, e.ID, held)
		if err != nil {
			return err
		}
		_, err = db.NotificationCreate(ctx, tx, db.NotificationNew{UserID: done.RequestedBy, Variant: "success",
			Text: l10n.T("The erasure of %s is done: %d tasks lost their content (%d recordings, %d transcripts, %d audits); %d tasks on legal hold were left untouched.",
				strings.Join(slices.DeleteFunc([]string{done.OperatorID, done.CustomerRef}, func(s string) bool { return s == "" }), ", "),
				done.Tasks, done.Recordings, done.Transcripts, done.Audits, done.Held)})
		return err
	})
}

// DeleteBlobsWorker deletes blobs whose references are gone (committed
// with the job). Deleting a blob already gone is no error, so it may run
// again.
type DeleteBlobsWorker struct {
	river.WorkerDefaults[jobs.DeleteBlobsArgs]
	store *storage.Store
}

// Work implements river.Worker.
func (w *DeleteBlobsWorker) Work(ctx context.Context, job *river.Job[jobs.DeleteBlobsArgs]) error {
	for _, k := range job.Args.Keys {
		if err := w.store.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}
