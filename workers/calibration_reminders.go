package workers

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/calibration"
	"github.com/auditd/auditd/jobs"
)

// RemindCalibrationsWorker reminds the analysts of calibration sessions
// falling due who have still to answer (jobs.RemindCalibrationsArgs).
type RemindCalibrationsWorker struct {
	river.WorkerDefaults[jobs.RemindCalibrationsArgs]
	pool *pgxpool.Pool
}

// Work implements river.Worker: calibration.Remind marks the analysts
// reminded and writes their notifications in one transaction, so each is
// reminded once, whatever runs at the same time.
func (w *RemindCalibrationsWorker) Work(ctx context.Context, _ *river.Job[jobs.RemindCalibrationsArgs]) error {
	return calibration.Remind(ctx, w.pool, jobs.CalibrationReminderLead)
}
