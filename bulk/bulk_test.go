package bulk_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/bulk"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
)

// en and es are what r says in English and in Spanish.
func en(r db.BulkReason) string { t, _ := bulk.Text(r); return t.In("en") }
func es(r db.BulkReason) string { t, _ := bulk.Text(r); return t.In("es") }

func TestForbidden(t *testing.T) {
	t.Parallel()
	task := db.Task{NewTask: db.NewTask{UUID: "t1", OperatorID: "ana"}}
	analyst := db.User{ID: "maria", Roles: []string{"quality"}, Active: true}
	lead := db.User{ID: "sue", Roles: []string{"offline_access", "supervisor"}, Active: true}
	for _, action := range bulk.Actions() {
		require.Zero(t, bulk.Forbidden(lead, action, task), action)
	}
	require.Zero(t, bulk.Forbidden(analyst, bulk.Validate, task))
	for _, action := range []string{bulk.Assign, bulk.Unassign} {
		why := bulk.Forbidden(analyst, action, task)
		require.Equal(t, db.BulkReason{Code: bulk.RequesterRole, Params: db.BulkReasonParams{Requester: "maria", Role: "supervisor", Action: action}}, why)
	}
	require.Equal(t, "the requester (maria) no longer has the supervisor role, which “unassign” needs",
		en(bulk.Forbidden(analyst, bulk.Unassign, task)))
	require.Equal(t, "quien la pidió (maria) ya no tiene el rol supervisor, que «desasignar» necesita",
		es(bulk.Forbidden(analyst, bulk.Unassign, task)))
	gone := lead
	gone.Active = false
	require.Equal(t, "the requester (sue) is deactivated", en(bulk.Forbidden(gone, bulk.Retry, task)))
	agent := db.User{ID: "ana", Roles: []string{"operator"}, Active: true}
	require.Contains(t, en(bulk.Forbidden(agent, bulk.Retry, task)), "no longer has the quality role")
	require.Equal(t, role.Supervisor, bulk.LeastRole(bulk.Assign))
	require.Equal(t, role.Supervisor, bulk.LeastRole(bulk.Unassign))
	require.Equal(t, role.Quality, bulk.LeastRole(bulk.Reaudit))
}

func TestSkip(t *testing.T) {
	t.Parallel()
	in := func(status pipeline.Status) db.Task { return db.Task{NewTask: db.NewTask{Status: status}} }
	cases := []struct {
		action        string
		status        pipeline.Status
		skip, spanish string
	}{
		{bulk.Reaudit, pipeline.Audited, "", ""},
		{bulk.Reaudit, pipeline.Validated, "it is validated: its audit can no longer change", "está validada: su auditoría ya no puede cambiar"},
		{bulk.Reaudit, pipeline.Failed, "it has failed: retry it instead", "ha fallado: reinténtala en su lugar"},
		{bulk.Reaudit, pipeline.Transcribing, "it is transcribing: its first audit is still to come",
			"está en estado «transcribiendo»: su primera auditoría aún no se ha hecho"},
		{bulk.Retry, pipeline.Failed, "", ""},
		{bulk.Retry, pipeline.Audited, "it is audited: only a failed task can be retried",
			"está en estado «auditada»: solo se puede reintentar una tarea fallida"},
		{bulk.Validate, pipeline.Audited, "", ""},
		{bulk.Validate, pipeline.Validated, "it is validated already", "ya está validada"},
		{bulk.Validate, pipeline.Queued, "it is queued: only an audited task can be validated",
			"está en estado «en cola»: solo se puede validar una tarea auditada"},
		{bulk.Assign, pipeline.Validated, "", ""},
		{bulk.Unassign, pipeline.Audited, "it is not assigned to anyone", "no está asignada a nadie"},
	}
	for _, c := range cases {
		why := bulk.Skip(c.action, db.BulkParams{AssigneeID: "maria"}, in(c.status))
		require.Equal(t, c.skip, en(why), "%s %s", c.action, c.status)
		require.Equal(t, c.spanish, es(why), "%s %s", c.action, c.status)
		require.Equal(t, c.skip, bulk.Message(why), "stored in English")
	}
	mine := in(pipeline.Audited)
	mine.AssigneeID = "maria"
	require.Equal(t, "it is assigned to maria already", en(bulk.Skip(bulk.Assign, db.BulkParams{AssigneeID: "maria"}, mine)))
	require.Zero(t, bulk.Skip(bulk.Assign, db.BulkParams{AssigneeID: "pedro"}, mine))
	require.Zero(t, bulk.Skip(bulk.Unassign, db.BulkParams{}, mine))
	pending := in(pipeline.Audited)
	pending.PendingCriteria = []string{"no_forbidden_phrases"}
	why := bulk.Skip(bulk.Validate, db.BulkParams{}, pending)
	require.Equal(t, bulk.PendingVerdicts, why.Code)
	require.Equal(t, "1 verdict(s) of its audit await an analyst's confirmation (no_forbidden_phrases): confirm or change them, "+
		"or validate it alone accepting them", en(why))
	require.Equal(t, "1 veredicto(s) de su auditoría esperan la confirmación de un analista (no_forbidden_phrases): confírmalos o "+
		"cámbialos, o valídala sola aceptándolos", es(why))
	require.Zero(t, bulk.Skip(bulk.Assign, db.BulkParams{AssigneeID: "pedro"}, pending), "only validating waits for them")
	score, pass := 90.0, 85.0
	reaudited := db.BulkReason{Code: bulk.Reaudited, Params: db.BulkReasonParams{Revision: 2, Score: &score, Passed: new(false),
		PassingScore: &pass, ScorecardVersion: 1, Pending: []string{"no_forbidden_phrases"}}}
	require.Equal(t, "revision 2: pending review of 1 verdict(s) (no_forbidden_phrases), against scorecard version 1", bulk.Message(reaudited))
	require.True(t, bulk.Irreversible(bulk.Validate))
	require.False(t, bulk.Irreversible(bulk.Assign))
	require.False(t, bulk.Irreversible(bulk.Unassign))
}

// Every code is written in both languages, from its parameters; a code
// this version does not know is not (the stored message stands).
func TestText(t *testing.T) {
	t.Parallel()
	score, pass, passed := 91.5, 85.0, true
	cases := []struct {
		why         db.BulkReason
		english, es string
	}{
		{db.BulkReason{Code: bulk.Reaudited, Params: db.BulkReasonParams{Revision: 3, Score: &score, Passed: &passed, PassingScore: &pass, ScorecardVersion: 2}},
			"revision 3: 91.50, passed (passing score 85.00), against scorecard version 2",
			"revisión 3: 91,50, aprobada (nota de aprobado 85,00), con la versión 2 del formulario"},
		{db.BulkReason{Code: bulk.Retried, Params: db.BulkReasonParams{Status: pipeline.Transcribed}}, "sent back to transcribed", "devuelta al estado «transcrita»"},
		{db.BulkReason{Code: bulk.Unassigned, Params: db.BulkReasonParams{AssigneeID: "maria"}}, "no longer assigned to maria", "ya no está asignada a maria"},
		{db.BulkReason{Code: bulk.Validated, Params: db.BulkReasonParams{Recipients: []string{"a@example.com", "b@example.com"}}},
			"validated; the result is being e-mailed to a@example.com, b@example.com",
			"validada; el resultado se está enviando por correo a a@example.com, b@example.com"},
		{db.BulkReason{Code: bulk.NoRecipients, Params: db.BulkReasonParams{Campaign: "Ventas"}},
			`nobody to e-mail the validation to: the agent's address is unknown, campaign "Ventas" has no supervisor e-mails, no VALIDATION_TO is configured, and the requester has no e-mail address; add the campaign's supervisor e-mails`,
			`no hay a quién enviar la validación por correo: se desconoce la dirección del agente, la campaña "Ventas" no tiene correos de supervisores, no hay VALIDATION_TO configurado y quien la pidió no tiene dirección de correo; añade los correos de supervisores de la campaña`},
		{db.BulkReason{Code: bulk.Refused, Params: db.BulkReasonParams{Error: "task 100% changed"}}, "task 100% changed", "task 100% changed"},
		{db.BulkReason{Code: bulk.AuditFailed, Params: db.BulkReasonParams{Error: "the model said %d"}},
			"the audit engine refused it: the model said %d", "el motor de auditoría la ha rechazado: the model said %d"},
		{db.BulkReason{Code: bulk.NotAuditedYet, Params: db.BulkReasonParams{Status: "paused"}},
			"it is paused: its first audit is still to come", "está en estado «paused»: su primera auditoría aún no se ha hecho"},
	}
	for _, c := range cases {
		require.Equal(t, c.english, en(c.why), c.why.Code)
		require.Equal(t, c.es, es(c.why), c.why.Code)
	}
	_, ok := bulk.Text(db.BulkReason{Code: "from_a_later_version"})
	require.False(t, ok)
	_, ok = bulk.Text(db.BulkReason{})
	require.False(t, ok)
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
