package bulk_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/bulk"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

func TestForbidden(t *testing.T) {
	t.Parallel()
	task := db.Task{NewTask: db.NewTask{UUID: "t1", OperatorID: "ana"}}
	analyst := db.User{ID: "maria", Roles: []string{"quality"}, Active: true}
	lead := db.User{ID: "sue", Roles: []string{"offline_access", "supervisor"}, Active: true}
	for _, action := range bulk.Actions() {
		require.Empty(t, bulk.Forbidden(lead, action, task), action)
	}
	require.Empty(t, bulk.Forbidden(analyst, bulk.Validate, task))
	require.Equal(t, "the requester (maria) no longer has the supervisor role, which assign needs",
		bulk.Forbidden(analyst, bulk.Assign, task))
	gone := lead
	gone.Active = false
	require.Equal(t, "the requester (sue) is deactivated", bulk.Forbidden(gone, bulk.Retry, task))
	agent := db.User{ID: "ana", Roles: []string{"operator"}, Active: true}
	require.Contains(t, bulk.Forbidden(agent, bulk.Retry, task), "no longer has the quality role")
	require.Equal(t, role.Supervisor, bulk.LeastRole(bulk.Assign))
	require.Equal(t, role.Quality, bulk.LeastRole(bulk.Reaudit))
}

func TestSkip(t *testing.T) {
	t.Parallel()
	in := func(status string) db.Task { return db.Task{NewTask: db.NewTask{Status: status}} }
	cases := []struct {
		action, status, skip string
	}{
		{bulk.Reaudit, db.TaskAudited, ""},
		{bulk.Reaudit, db.TaskValidated, "it is validated: its audit can no longer change"},
		{bulk.Reaudit, db.TaskFailed, "it has failed: retry it instead"},
		{bulk.Reaudit, db.TaskTranscribing, "it is transcribing: its first audit is still to come"},
		{bulk.Retry, db.TaskFailed, ""},
		{bulk.Retry, db.TaskAudited, "it is audited: only a failed task can be retried"},
		{bulk.Validate, db.TaskAudited, ""},
		{bulk.Validate, db.TaskValidated, "it is validated already"},
		{bulk.Validate, db.TaskQueued, "it is queued: only an audited task can be validated"},
		{bulk.Assign, db.TaskValidated, ""},
	}
	for _, c := range cases {
		require.Equal(t, c.skip, bulk.Skip(c.action, db.BulkParams{AssigneeID: "maria"}, in(c.status)), "%s %s", c.action, c.status)
	}
	mine := in(db.TaskAudited)
	mine.AssigneeID = "maria"
	require.Equal(t, "it is assigned to maria already", bulk.Skip(bulk.Assign, db.BulkParams{AssigneeID: "maria"}, mine))
	require.Empty(t, bulk.Skip(bulk.Assign, db.BulkParams{AssigneeID: "pedro"}, mine))
	require.True(t, bulk.Irreversible(bulk.Validate))
	require.False(t, bulk.Irreversible(bulk.Assign))
}

// The requester's notice says how the action ended, in their language.
func TestNotice(t *testing.T) {
	t.Parallel()
	a := db.BulkAction{BulkProgress: db.BulkProgress{ID: "b1", Action: bulk.Reaudit, Status: db.BulkDone, RequestedBy: "maria",
		Done: 1250, Succeeded: 1180, Skipped: 70}}
	n := bulk.Notice(a)
	require.Equal(t, "maria", n.UserID)
	require.Equal(t, "success", n.Variant)
	require.Equal(t, "/tasks?bulk=b1", n.Link)
	require.Equal(t, "Bulk action “re-audit” on 1,250 tasks finished: 1,180 succeeded, 70 skipped, 0 failed.", n.Text.In("en"))
	require.Equal(t, "La acción masiva «reauditar» sobre 1.250 tareas ha terminado: 1.180 correctas, 70 omitidas, 0 fallidas.", n.Text.In("es"))
	a.Status, a.Error = db.BulkFailed, "the database is unavailable"
	require.Equal(t, "error", bulk.Notice(a).Variant)
	require.Contains(t, bulk.Notice(a).Text.In("es"), "se ha detenido tras 1.250 tareas")
	a.Status = db.BulkCancelled
	require.Equal(t, "info", bulk.Notice(a).Variant)
}
