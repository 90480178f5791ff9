package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/workers/directory"
)

// syncBatchSize is how many users one statement upserts or deactivates:
// each batch commits on its own, so sign-ins are never held up for long.
const syncBatchSize = 500

// minSnooze is the least a throttled sync waits before its next attempt,
// even when the directory said it could be called again at once.
const minSnooze = 10 * time.Second

// SyncUsersWorker syncs users from the directory: every user it lists is
// created or updated by subject (the id their tokens carry), and the users
// an earlier sync listed that it no longer lists are deactivated. Nobody is
// deleted. The admins waiting for the job are told when it starts and how
// it ended.
type SyncUsersWorker struct {
	river.WorkerDefaults[jobs.SyncUsersArgs]
	pool *pgxpool.Pool
	// directory is nil when none is configured.
	directory directory.Provider
}

// Timeout implements river.Worker: a large directory takes minutes (Keycloak
// and Graph answer roles one user at a time). It stays below River's
// rescue of stuck jobs (1h), so a slow sync is never run twice at once.
func (w *SyncUsersWorker) Timeout(*river.Job[jobs.SyncUsersArgs]) time.Duration {
	return 50 * time.Minute
}

// syncResult counts what one sync did.
type syncResult struct {
	// Listed users came from the directory, Skipped of them had no subject.
	Listed, Skipped int
	// Created, Updated and Disabled are as db.DirectoryUpsertResult.
	db.DirectoryUpsertResult
	// Deactivated users were synced before and are no longer listed.
	Deactivated int
}

// Work implements river.Worker. Every step is idempotent: a retried or
// rescued sync lists and upserts again, and deactivates only after a
// complete listing.
func (w *SyncUsersWorker) Work(ctx context.Context, job *river.Job[jobs.SyncUsersArgs]) error {
	if w.directory == nil {
		err := errors.New("no directory is configured on the worker: DIRECTORY_PROVIDER is not set")
		return river.JobCancel(errors.Join(err,
			w.tell(ctx, job, true, db.NotificationNew{Variant: "error", Text: l10n.T("User sync cannot run: %s.", err.Error())})))
	}
	if err := w.started(ctx, job); err != nil {
		return err
	}
	res, err := w.sync(ctx)
	var throttled *directory.RetryableError
	switch {
	case errors.As(err, &throttled):
		// Not a failure: the directory asked us to come back later. A
		// snooze does not use up an attempt.
		return river.JobSnooze(max(throttled.RetryAfter, minSnooze))
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// Shutdown: River hands the job back; nothing to tell yet.
		return err
	case err != nil:
		final := job.Attempt >= job.MaxAttempts
		text := l10n.T("User sync from %s failed on attempt %d of %d and will be retried: %s.",
			w.directory.Name(), job.Attempt, job.MaxAttempts, describe(err, job.ID))
		variant := "warning"
		if final {
			text = l10n.T("User sync from %s failed on its last attempt (%d of %d): %s.",
				w.directory.Name(), job.Attempt, job.MaxAttempts, describe(err, job.ID))
			variant = "error"
		}
		return errors.Join(err, w.tell(ctx, job, final, db.NotificationNew{Variant: variant, Text: text}))
	}
	text := l10n.T("User sync from %s finished: %d users listed; %d created, %d updated (%d disabled upstream), %d deactivated as gone upstream",
		w.directory.Name(), res.Listed, res.Created, res.Updated, res.Disabled, res.Deactivated)
	if res.Skipped > 0 {
		text = text.And("; %d skipped for lack of a subject", res.Skipped)
	}
	return w.notify(ctx, job, true, db.NotificationNew{Variant: "success", Text: text.And(".")})
}

// sync lists the whole directory, upserts its users and then deactivates
// the synced users it did not list. Errors from the directory are
// returned as they are (a *directory.RetryableError when it throttles),
// wrapped so that their text is reportable.
func (w *SyncUsersWorker) sync(ctx context.Context) (syncResult, error) {
	// Every user listed by this run gets synced_at >= run; the ones left
	// below it were not listed. Clock skew between workers can only make a
	// run miss a deactivation, never deactivate a listed user.
	run := time.Now()
	var res syncResult
	batch := make([]db.DirectoryUser, 0, syncBatchSize)
	pos := make(map[string]int, syncBatchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		r, err := db.UserUpsertFromDirectory(ctx, w.pool, batch, run)
		res.Created += r.Created
		res.Updated += r.Updated
		res.Disabled += r.Disabled
		batch = batch[:0]
		clear(pos)
		return err
	}
	for u, err := range w.directory.Users(ctx) {
		if err != nil {
			return res, &reportable{err}
		}
		res.Listed++
		if u.Subject == "" {
			res.Skipped++
			continue
		}
		du := db.DirectoryUser{Active: u.Active, UserProfile: db.UserProfile{
			ID: u.Subject, Username: u.Username, Email: u.Email, Name: u.Name, Roles: u.Roles}}
		if du.Username == "" {
			du.Username = du.ID
		}
		// A directory may list a user twice when its pages shift during
		// the listing; one statement cannot upsert a row twice.
		if i, ok := pos[du.ID]; ok {
			batch[i] = du
			continue
		}
		pos[du.ID] = len(batch)
		batch = append(batch, du)
		if len(batch) == syncBatchSize {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	if err := flush(); err != nil {
		return res, err
	}
	if res.Listed == res.Skipped {
		synced, err := db.UserCountSyncedActive(ctx, w.pool)
		if err != nil {
			return res, err
		}
		if synced > 0 {
			return res, &reportable{fmt.Errorf("the directory listed no users; refusing to deactivate all %d synced users "+
				"(check the DIRECTORY_* settings and the sync client's permissions)", synced)}
		}
	}
	for {
		n, err := db.UserDeactivateUnsynced(ctx, w.pool, run, syncBatchSize)
		res.Deactivated += n
		if err != nil || n < syncBatchSize {
			return res, err
		}
	}
}

// started tells the admins waiting for job, who were not told yet, that it
// started; RequestedBy is among them.
func (w *SyncUsersWorker) started(ctx context.Context, job *river.Job[jobs.SyncUsersArgs]) error {
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if job.Args.RequestedBy != "" {
			if err := db.UserSyncRequestAdd(ctx, tx, job.ID, job.Args.RequestedBy); err != nil {
				return err
			}
		}
		ids, err := db.UserSyncRequestStart(ctx, tx, job.ID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := db.NotificationCreate(ctx, tx, db.NotificationNew{UserID: id, Variant: "info",
				Text: l10n.T("User sync from %s started.", w.directory.Name())}); err != nil {
				return err
			}
		}
		return nil
	})
}

// notify sends n to every admin waiting for job, in one transaction; when
// the job has ended (final), they stop waiting.
func (w *SyncUsersWorker) notify(ctx context.Context, job *river.Job[jobs.SyncUsersArgs], final bool, n db.NotificationNew) error {
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		list := db.UserSyncRequestList
		if final {
			list = db.UserSyncRequestFinish
		}
		ids, err := list(ctx, tx, job.ID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			n.UserID = id
			if _, err := db.NotificationCreate(ctx, tx, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// tell is notify for an attempt that is failing: the attempt may have run
// out of time, so telling the admins gets a little time of its own.
func (w *SyncUsersWorker) tell(ctx context.Context, job *river.Job[jobs.SyncUsersArgs], final bool, n db.NotificationNew) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := w.notify(ctx, job, final, n); err != nil {
		return fmt.Errorf("notify the admins: %w", err)
	}
	return nil
}
