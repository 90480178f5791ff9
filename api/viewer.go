package api

import (
	"context"
	"fmt"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/visibility"
)

// viewerOf returns the caller's view (db.ViewerOf): what every surface
// that shows audits answers with, and asks before showing one.
func viewerOf(ctx context.Context, q db.DBTX) (visibility.Viewer, error) {
	p := principal(ctx)
	return db.ViewerOf(ctx, q, p.User.ID, p.Role)
}

// summaryFor is task's summary as v may see it (db.Task.SummaryFor):
// without its audit when it is hidden from them, without its retry state
// below quality.
func summaryFor(v visibility.Viewer, task db.Task) TaskSummary {
	return taskSummaryOf(task.SummaryFor(v))
}

// notBlind is CONFLICT when the caller calibrates the task blind (an open
// calibration session they have still to answer): until they submit, they
// may neither read its audit's revisions nor change, decide or validate
// it, since each answer (or its e-mail) would show them the audit.
func notBlind(ctx context.Context, q db.DBTX, taskUUID string) error {
	blind, err := db.CalibrationBlindFor(ctx, q, taskUUID, principal(ctx).User.ID)
	if err != nil {
		return err
	}
	if blind != nil {
		return Errorf(CodeConflict, fmt.Sprintf("the audit of task %s is hidden from you until you submit your answers to calibration session %q",
			taskUUID, blind.Name))
	}
	return nil
}
