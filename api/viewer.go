package api

import (
	"context"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/visibility"
)

// viewerOf returns the caller's view (db.ViewerOf): what every surface
// that shows audits answers with, and asks before showing one.
func viewerOf(ctx context.Context, q db.DBTX) (visibility.Viewer, error) {
	p := principal(ctx)
	return db.ViewerOf(ctx, q, p.User.ID, p.Role)
}

// summaryFor is task's summary as v may see it: without its audit when it
// is hidden from them (visibility.Viewer.AuditHidden).
func summaryFor(v visibility.Viewer, task db.Task) db.TaskSummary {
	if v.AuditHidden(task.Row()) {
		return task.Summary().WithoutAudit()
	}
	return task.Summary()
}
