// Package workers holds one River worker per job kind of package jobs, and
// the engines those workers drive.
package workers

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/db"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/ingest"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/webhook"
	"github.com/auditd/auditd/workers/directory"
	"github.com/auditd/auditd/workers/mail"
)

// Deps are what the workers need.
type Deps struct {
	// Pool is the database.
	Pool *pgxpool.Pool
	// EventRetention is how long events are kept for streams to resume from.
	EventRetention time.Duration
	// Directory lists the users to sync; nil when none is configured.
	Directory directory.Provider
	// UserSyncInterval is how often users are synced from Directory.
	UserSyncInterval time.Duration
	// Store holds the uploaded files.
	Store *storage.Store
	// Auditor judges transcripts against scorecards.
	Auditor auditor.Engine
	// ReviewConfidence is the confidence below which an automatic verdict
	// needs an analyst's review (AUDIT_REVIEW_CONFIDENCE).
	ReviewConfidence float64
	// Transcribe configures the transcription of calls.
	Transcribe TranscribeConfig
	// RecomputeBatch is how many audits recompute_audits re-scores in one
	// transaction. Defaults to 100.
	RecomputeBatch int
	// RecomputeNotifyEvery is how many audits recompute_audits handles
	// between two progress notifications to the publisher. Defaults to 1000.
	RecomputeNotifyEvery int
	// Mailer sends the validation e-mails (SMTP, or the outbox).
	Mailer *mail.Mailer
	// DashboardURL is where users reach the dashboard (PUBLIC_URL and the
	// dashboard's prefix): e-mails link to its tasks and their Message-IDs
	// carry its host.
	DashboardURL string
	// DefaultTimeZone is the zone of the times e-mailed to an address
	// of no user with one (DEFAULT_TIME_ZONE). Defaults to UTC.
	DefaultTimeZone *time.Location
	// Backoff is how long failed jobs wait before they run again.
	Backoff Backoff
	// BulkBatch is how many tasks a bulk action's job handles in one
	// transaction. Defaults to 100.
	BulkBatch int
	// BulkResultsDays is how many days after a bulk action ends its
	// per-task results are kept (BULK_RESULTS_DAYS). Defaults to 90.
	BulkResultsDays int
	// BulkResultsBatch is how many per-task results of bulk actions one
	// transaction deletes. Defaults to 1000.
	BulkResultsBatch int
	// ForgetBatch is how many tasks retention and erasure handle in one
	// transaction. Defaults to 200.
	ForgetBatch int
	// ValidationTo and ValidationBcc receive every validation e-mail
	// (VALIDATION_TO, VALIDATION_BCC), bulk validations' included.
	ValidationTo, ValidationBcc []string
	// SamplingInterval is how often the sampling rules run
	// (SAMPLING_INTERVAL). Defaults to jobs.SamplingInterval.
	SamplingInterval time.Duration
	// WebhookAllowPrivate lets webhooks reach loopback and private
	// addresses (WEBHOOK_ALLOW_PRIVATE).
	WebhookAllowPrivate bool
	// WebhookClock is the time deliveries are signed at and a rotated
	// secret's overlap (webhook.SecretOverlap) is judged by. Defaults to
	// time.Now; tests move it.
	WebhookClock func() time.Time
	// Speech is what the speech engine transcribes: an ingested call in
	// another language is refused, as an uploaded one is.
	Speech intake.Speech
	// UploadMaxFileBytes caps each ingested file as it caps an uploaded one
	// (UPLOAD_MAX_FILE_BYTES). Defaults to 512 MiB.
	UploadMaxFileBytes int64
	// Logger receives what the workers note on the way (an address left
	// out of a validation's recipients). Defaults to slog.Default().
	Logger *slog.Logger
}

// Register adds every worker of the service to ws.
func Register(ws *river.Workers, d Deps) {
	river.AddWorker(ws, &CanaryWorker{})
	river.AddWorker(ws, &PruneEventsWorker{pool: d.Pool, retention: d.EventRetention})
	river.AddWorker(ws, &SettleTasksWorker{pool: d.Pool})
	river.AddWorker(ws, &FoldTaskStatsWorker{pool: d.Pool})
	river.AddWorker(ws, &PruneRateBucketsWorker{pool: d.Pool})
	river.AddWorker(ws, &SyncUsersWorker{pool: d.Pool, directory: d.Directory})
	river.AddWorker(ws, &SweepBlobsWorker{pool: d.Pool, store: d.Store})
	cards := newScorecards()
	audit := &AuditWorker{pool: d.Pool, auditor: d.Auditor, cards: cards, review: d.ReviewConfidence, backoff: d.Backoff}
	river.AddWorker(ws, audit)
	river.AddWorker(ws, &TranscribeWorker{pool: d.Pool, store: d.Store, cfg: d.Transcribe, backoff: d.Backoff})
	river.AddWorker(ws, &RedactRecordingWorker{pool: d.Pool, store: d.Store, workDir: d.Transcribe.WorkDir,
		log: cmp.Or(d.Logger, slog.Default())})
	river.AddWorker(ws, &RecomputeAuditWorker{pool: d.Pool, auditor: d.Auditor, cards: cards, review: d.ReviewConfidence, backoff: d.Backoff})
	river.AddWorker(ws, &RecomputeAuditsWorker{pool: d.Pool, auditor: d.Auditor, review: d.ReviewConfidence, backoff: d.Backoff,
		batch:       cmp.Or(d.RecomputeBatch, defaultRecomputeBatch),
		notifyEvery: cmp.Or(d.RecomputeNotifyEvery, defaultRecomputeNotifyEvery)})
	river.AddWorker(ws, &BulkActionWorker{pool: d.Pool, audit: audit, backoff: d.Backoff,
		batch: cmp.Or(d.BulkBatch, defaultBulkBatch), to: d.ValidationTo, bcc: d.ValidationBcc,
		log: cmp.Or(d.Logger, slog.Default())})
	river.AddWorker(ws, &PruneBulkResultsWorker{pool: d.Pool, days: cmp.Or(d.BulkResultsDays, defaultBulkResultsDays),
		batch: cmp.Or(d.BulkResultsBatch, defaultBulkResultsBatch)})
	river.AddWorker(ws, &ApplySamplingWorker{pool: d.Pool})
	river.AddWorker(ws, &RemindCalibrationsWorker{pool: d.Pool})
	river.AddWorker(ws, &RemindCoachingWorker{pool: d.Pool})
	river.AddWorker(ws, &SendValidationEmailWorker{pool: d.Pool, store: d.Store, mailer: d.Mailer, dashboardURL: d.DashboardURL,
		zone: cmp.Or(d.DefaultTimeZone, time.UTC)})
	forget := forgetter{pool: d.Pool, batch: cmp.Or(d.ForgetBatch, defaultForgetBatch)}
	river.AddWorker(ws, &ApplyRetentionWorker{forgetter: forget})
	river.AddWorker(ws, &ErasePersonWorker{forgetter: forget})
	river.AddWorker(ws, &DeleteBlobsWorker{store: d.Store})
	river.AddWorker(ws, &DeliverWebhookWorker{pool: d.Pool, client: webhook.NewClient(d.WebhookAllowPrivate),
		dashboardURL: d.DashboardURL, now: clockOr(d.WebhookClock)})
	river.AddWorker(ws, &DispatchIngestWorker{pool: d.Pool})
	river.AddWorker(ws, &PollIngestSourceWorker{poller: ingest.Poller{
		Intake: intake.Deps{Deps: db.Deps{Pool: d.Pool}, Store: d.Store, Speech: d.Speech, Log: cmp.Or(d.Logger, slog.Default())},
		Limits: intake.Limits{MaxFileBytes: cmp.Or(d.UploadMaxFileBytes, 512<<20), MaxFiles: 1}}})
}

// clockOr is now, or time.Now when nil.
func clockOr(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// Periodic returns the jobs River's leader inserts on a schedule. They run
// on start too: the schedule lives in the leader's memory, so a leader
// restarted more often than an interval would otherwise never run them.
func Periodic(d Deps) []*river.PeriodicJob {
	periodic := []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.PruneEventsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "prune_events", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(15*time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.SweepBlobsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "sweep_blobs", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.SettleTasksArgs{}, nil },
			&river.PeriodicJobOpts{ID: "settle_tasks", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(jobs.FoldInterval),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.FoldTaskStatsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "fold_task_stats", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(jobs.PruneRateBucketsInterval),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.PruneRateBucketsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "prune_rate_buckets", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(jobs.RetentionInterval),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.ApplyRetentionArgs{}, nil },
			&river.PeriodicJobOpts{ID: "apply_retention", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(jobs.PruneBulkResultsInterval),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.PruneBulkResultsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "prune_bulk_results", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(jobs.CalibrationReminderInterval),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.RemindCalibrationsArgs{}, nil },
			&river.PeriodicJobOpts{ID: "remind_calibrations", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(jobs.IngestDispatchInterval),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.DispatchIngestArgs{}, nil },
			&river.PeriodicJobOpts{ID: "dispatch_ingest", RunOnStart: true}),
	}
	periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(cmp.Or(d.SamplingInterval, jobs.SamplingInterval)),
		func() (river.JobArgs, *river.InsertOpts) { return jobs.ApplySamplingArgs{}, nil },
		&river.PeriodicJobOpts{ID: "apply_sampling", RunOnStart: true}))
	if d.Directory != nil {
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(d.UserSyncInterval),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.SyncUsersArgs{}, nil },
			&river.PeriodicJobOpts{ID: "sync_users", RunOnStart: true}))
	}
	return periodic
}

// CanaryWorker completes canary jobs.
type CanaryWorker struct {
	river.WorkerDefaults[jobs.CanaryArgs]
}

// Work implements river.Worker.
func (w *CanaryWorker) Work(ctx context.Context, job *river.Job[jobs.CanaryArgs]) error {
	return nil
}
