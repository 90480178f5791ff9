package db

import (
	"context"

	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// ViewerOf returns the view of user, of role r, as the visibility rules
// read it: the tasks they calibrate blind (open calibration sessions they
// have still to answer; analysts only) and, below quality, the campaigns
// that hide automatic audits from agents.
func ViewerOf(ctx context.Context, q DBTX, user string, r role.Role) (visibility.Viewer, error) {
	v := visibility.Viewer{User: user, Role: r}
	var err error
	if r >= role.Quality {
		v.Blind, err = texts(q.Query(ctx, `
			SELECT DISTINCT t.task_uuid::text FROM calibration_session_tasks t
			JOIN calibration_sessions s ON s.id = t.session_id AND s.status = 'open'
			JOIN calibration_session_analysts a ON a.session_id = s.id AND a.user_id = $1 AND a.submitted_at IS NULL
			ORDER BY 1`, user))
		return v, err
	}
	v.Hiding, err = texts(q.Query(ctx, `SELECT id::text FROM campaigns WHERE NOT operator_sees_automatic ORDER BY 1`))
	return v, err
}
