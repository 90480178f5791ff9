package workers

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
)

// RemindCalibrationsWorker reminds the analysts of calibration sessions
// falling due who have still to answer (jobs.RemindCalibrationsArgs).
type RemindCalibrationsWorker struct {
	river.WorkerDefaults[jobs.RemindCalibrationsArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker: the analysts are marked reminded and
// their notifications written in one transaction, so each is reminded
// once, whatever runs at the same time.
func (w *RemindCalibrationsWorker) Work(ctx context.Context, _ *river.Job[jobs.RemindCalibrationsArgs]) error {
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		due, err := db.CalibrationRemind(ctx, tx, jobs.CalibrationReminderLead)
		if err != nil {
			return err
		}
		for _, r := range due {
			text := l10n.T("Calibration session “%s” is due on %s (UTC) and your answers are still to send.",
				r.Session.Name, r.DueAt.UTC().Format("2006-01-02 15:04"))
			if _, err := db.NotificationCreate(ctx, tx, db.CalibrationNotice(r.UserID, r.Session.ID, "warning", text)); err != nil {
				return err
			}
		}
		return nil
	})
}
