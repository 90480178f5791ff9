package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

// disputeBundle is a bundle with workers that e-mail through a loopback
// SMTP server; its analyst alice (quality) and supervisor sue, who is
// among the default campaign's supervisors and reads in Spanish.
type disputeBundle struct {
	*testBundle
	alice, sue string
}

func setupDisputes(t *testing.T) disputeBundle {
	t.Helper()
	b, alice := setupMail(t, smtptest.New(t), setupOpts{jobWait: 20 * time.Second})
	c := b.issuer.claims("sue")
	c["email"], c["roles"], c["locale"] = "sue@example.test", []string{"supervisor"}, "es-ES"
	sue := b.issuer.sign(t, c)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", sue, nil).Status)
	r := b.json(t, http.MethodPatch, "/campaigns/"+campaignID(t, b, alice), sue, map[string]any{"supervisor_emails": []string{"sue@example.test"}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	return disputeBundle{testBundle: b, alice: alice, sue: sue}
}

// validatedChat uploads a chat of agent (a username), has alice audit and
// validate it, and returns its id.
func (b disputeBundle) validatedChat(t *testing.T, name, agent string) string {
	t.Helper()
	id := b.auditedChat(t, b.alice, file(name, []byte(goodChat)), field("language", "es"), field("operator", agent))
	r := b.validateJSON(t, b.alice, map[string]any{"task_uuid": id, "notes": "Bien.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	return id
}

// notes returns the texts of the notifications of token's user.
func (b disputeBundle) notes(t *testing.T, token string) string {
	t.Helper()
	var out []string
	for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", token, nil)) {
		out = append(out, n["text"].(string))
	}
	return strings.Join(out, "\n")
}

func (b disputeBundle) events(t *testing.T, uuid string) []string {
	t.Helper()
	return dbtest.Strings(t, b.pool, `SELECT type FROM events WHERE (type LIKE 'dispute.%' OR type = 'audit.acknowledged')
		AND data->>'task_uuid' = $1 ORDER BY id`, uuid)
}

func claim(id, comment string) map[string]any {
	return map[string]any{"criterion_id": id, "comment": comment}
}

func decision(id, d, reason string) map[string]any {
	return map[string]any{"criterion_id": id, "decision": d, "reason": reason}
}

func TestDisputeAcceptedBecomesARevision(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	other := b.agent(t, "sub-olga", "olga", "olga@example.test")
	qb := b.issuer.token(t, "qb", "quality")
	task := b.validatedChat(t, "chat-dispute.txt", "ana")

	d := details(b.do(t, http.MethodGet, "/tasks/"+task, ana, nil))
	fb := d["feedback"].(map[string]any)
	require.Equal(t, true, fb["can_dispute"], fb)
	require.Equal(t, true, fb["can_acknowledge"], fb)
	require.EqualValues(t, 7, fb["dispute_window_days"])
	before := d["audit"].(map[string]any)
	empathy := auditItem(t, before, "empathy")
	// Only the agent may: to the validator the task's feedback offers nothing.
	fb = details(b.do(t, http.MethodGet, "/tasks/"+task, b.alice, nil))["feedback"].(map[string]any)
	require.Equal(t, false, fb["can_dispute"])

	r := b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": task,
		"items": []any{claim("empathy", "  Dije «lo siento mucho» en el turno 3.\r\n ")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	disp := details(r)
	id := disp["id"].(string)
	require.Equal(t, "open", disp["status"])
	require.Equal(t, "alice", disp["validator_id"])
	require.EqualValues(t, 1, disp["audit_revision"])
	it := disp["items"].([]any)[0].(map[string]any)
	require.Equal(t, "Dije «lo siento mucho» en el turno 3.", it["comment"])
	require.Equal(t, empathy["question"], it["question"])
	require.Equal(t, empathy["complies"], it["complies"])

	// The validator and the campaign's supervisor are told, each in their language.
	require.Contains(t, b.notes(t, b.alice), "ana disputes the evaluation of chat-dispute.txt, which you validated (1 of its criteria).")
	require.Contains(t, b.notes(t, b.sue), "ana impugna la evaluación de chat-dispute.txt (1 de sus criterios); espera la resolución de un supervisor.")

	// One open dispute at a time; no acknowledgement meanwhile.
	requireError(t, b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": task,
		"items": []any{claim("greeting", "Saludé.")}}), http.StatusConflict, CodeConflict)
	requireError(t, b.do(t, http.MethodPost, "/tasks/"+task+"/acknowledgement", ana, nil), http.StatusConflict, CodeConflict)

	// Who sees it: the agent, the validator, supervisors; not another
	// agent nor another analyst's list.
	for tok, n := range map[string]int{ana: 1, b.alice: 1, b.sue: 1, qb: 0, other: 0} {
		require.Len(t, items(t, b.do(t, http.MethodGet, "/disputes", tok, nil)), n)
	}
	// Filtered by agent and campaign (the dashboard's pickers): an agent
	// naming another agent gets nothing of theirs.
	campID, anaID := campaignID(t, b.testBundle, b.alice), url.QueryEscape(disp["agent_id"].(string))
	for q, n := range map[string]int{"?agent_id=" + anaID: 1, "?agent_id=olga": 0, "?campaign_id=" + campID: 1,
		"?campaign_id=00000000-0000-4000-8000-000000000000": 0, "?agent_id=" + anaID + "&campaign_id=" + campID: 1} {
		require.Len(t, items(t, b.do(t, http.MethodGet, "/disputes"+q, b.sue, nil)), n, q)
	}
	require.Len(t, items(t, b.do(t, http.MethodGet, "/disputes?agent_id="+anaID, other, nil)), 0)
	require.Len(t, items(t, b.do(t, http.MethodGet, "/disputes?agent_id=olga", ana, nil)), 0)
	requireError(t, b.do(t, http.MethodGet, "/disputes?campaign_id=x", b.sue, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/disputes/"+id, other, nil), http.StatusNotFound, CodeNotFound)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/disputes/"+id, ana, nil).Status)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/disputes/"+id, qb, nil).Status)
	// Only supervisors resolve.
	for _, tok := range []string{ana, b.alice} {
		requireError(t, b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", tok, map[string]any{
			"items": []any{decision("empathy", "accept", "Cierto.")}}), http.StatusForbidden, CodeForbidden)
	}

	// A scorecard published since (every weight doubled) is not what the
	// resolution is scored against: only the disputed verdict changes.
	camp := "/campaigns/" + campaignID(t, b.testBundle, b.alice)
	card := details(b.do(t, http.MethodGet, camp+"/scorecard", b.sue, nil))
	criteria := card["criteria"].([]any)
	for _, c := range criteria {
		c.(map[string]any)["weight"] = c.(map[string]any)["weight"].(float64) * 2
	}
	r = b.json(t, http.MethodPut, camp+"/scorecard", b.sue, map[string]any{"criteria": criteria})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)

	r = b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", b.sue, map[string]any{
		"items": []any{decision("empathy", "accept", "Cierto: mostró empatía en el turno 3.")}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	disp = details(r)
	require.Equal(t, "accepted", disp["status"])
	require.Equal(t, "applied", disp["edit_status"], disp)
	require.EqualValues(t, 2, disp["revision"])
	require.NotEqual(t, disp["score_before"], disp["score_after"])
	require.Equal(t, "accept", disp["items"].([]any)[0].(map[string]any)["decision"])

	// The new revision: the verdict reversed with the reason, the score
	// recomputed, the task still validated, the history kept.
	d = details(b.do(t, http.MethodGet, "/tasks/"+task, ana, nil))
	require.Equal(t, "validated", d["status"])
	after := d["audit"].(map[string]any)
	require.EqualValues(t, 2, after["revision"])
	require.Equal(t, "sue", after["updated_by"])
	require.EqualValues(t, 1, after["scorecard_version"], "scored against the disputed revision's scorecard")
	require.Equal(t, before["possible"], after["possible"])
	item := auditItem(t, after, "empathy")
	require.Equal(t, !empathy["complies"].(bool), item["complies"])
	require.Equal(t, "Cierto: mostró empatía en el turno 3.", item["explanation"])
	require.Equal(t, disp["score_after"], after["score"])
	require.Len(t, d["revisions"].([]any), 2)
	require.EqualValues(t, 1, d["validation"].(map[string]any)["audit_revision"], "the validation names what it validated")
	fb = d["feedback"].(map[string]any)
	var steps []string
	for _, s := range fb["steps"].([]any) {
		steps = append(steps, s.(map[string]any)["step"].(string))
	}
	require.Equal(t, []string{"opened", "accepted"}, steps)
	require.Equal(t, true, fb["can_acknowledge"])
	require.Contains(t, b.notes(t, ana), "Your dispute of chat-dispute.txt was accepted by User sue for 1 of its 1 criteria; the audit gets a new revision.")
	require.Contains(t, b.notes(t, b.alice), "User sue accepted the dispute of chat-dispute.txt for 1 of its 1 criteria")

	// Resolved once: a second resolution is refused.
	requireError(t, b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", b.sue, map[string]any{
		"items": []any{decision("empathy", "reject", "No.")}}), http.StatusConflict, CodeConflict)
	// A decided criterion is not disputed again.
	r = b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": task, "items": []any{claim("empathy", "Otra vez.")}})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Equal(t, "body.items[0].criterion_id", detailsAt(r))

	// Acknowledged once, and then not disputed.
	r = b.do(t, http.MethodPost, "/tasks/"+task+"/acknowledgement", ana, nil)
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.EqualValues(t, 2, details(r)["audit_revision"])
	requireError(t, b.do(t, http.MethodPost, "/tasks/"+task+"/acknowledgement", ana, nil), http.StatusConflict, CodeConflict)
	requireError(t, b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": task,
		"items": []any{claim("greeting", "Saludé.")}}), http.StatusConflict, CodeConflict)
	require.Contains(t, b.notes(t, b.alice), "ana acknowledged the evaluation of chat-dispute.txt.")
	require.Equal(t, []string{"dispute.opened", "dispute.accepted", "audit.acknowledged"}, b.events(t, task))
	// Each for the agent, and for quality and above.
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM events WHERE (type LIKE 'dispute.%' OR type = 'audit.acknowledged')
		AND user_id = 'sub-ana' AND min_rank = 2`))
}

func TestDisputeRejected(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	task := b.validatedChat(t, "chat-reject.txt", "ana")
	r := b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": task,
		"items": []any{claim("empathy", "Fui empático."), claim("greeting", "Saludé bien.")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["id"].(string)
	r = b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", b.sue, map[string]any{
		"items": []any{decision("greeting", "reject", "El saludo no nombra la empresa."), decision("empathy", "reject", "No lo veo.")}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	disp := details(r)
	require.Equal(t, "rejected", disp["status"])
	require.Nil(t, disp["revision"])
	require.Equal(t, "No lo veo.", disp["items"].([]any)[0].(map[string]any)["reason"])
	d := details(b.do(t, http.MethodGet, "/tasks/"+task, ana, nil))
	require.EqualValues(t, 1, d["audit"].(map[string]any)["revision"], "nothing changed")
	require.Contains(t, b.notes(t, ana), "Your dispute of chat-reject.txt was rejected by User sue; the task shows the replies.")
	require.Equal(t, []string{"dispute.opened", "dispute.rejected"}, b.events(t, task))
	require.Zero(t, b.count(t, `SELECT count(*) FROM audit_edits`))
}

func TestDisputeRefusals(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	olga := b.agent(t, "sub-olga", "olga", "olga@example.test")
	task := b.validatedChat(t, "chat-refusals.txt", "ana")
	audited := b.auditedChat(t, b.alice, file("chat-audited.txt", []byte(goodChat+"\nAgente: Adiós.")), field("operator", "ana"))
	missing := "00000000-0000-4000-8000-000000000000"
	body := func(uuid string, items ...any) map[string]any {
		return map[string]any{"task_uuid": uuid, "items": items}
	}
	good := claim("empathy", "Fui empático.")

	// Bad input on every field: each located, nothing stored.
	for _, tc := range []struct {
		body any
		code string
		at   string
	}{
		{map[string]any{"items": []any{good}}, CodeMissingFields, "body.task_uuid"},
		{map[string]any{"task_uuid": task}, CodeMissingFields, "body.items"},
		{body("not-a-uuid", good), CodeValidation, "body.task_uuid"},
		{body(task), CodeValidation, "body.items"},
		{map[string]any{"task_uuid": task, "items": []any{}}, CodeValidation, "body.items"},
		{map[string]any{"task_uuid": nil, "items": []any{good}}, CodeValidation, "body.task_uuid"},
		{body(task, map[string]any{"criterion_id": nil, "comment": "x"}), CodeValidation, "body.items[0].criterion_id"},
		{body(task, map[string]any{"criterion_id": "empathy", "comment": nil}), CodeValidation, "body.items[0].comment"},
		{body(task, map[string]any{"comment": "x"}), CodeMissingFields, "body.items[0].criterion_id"},
		{body(task, map[string]any{"criterion_id": "empathy"}), CodeMissingFields, "body.items[0].comment"},
		{body(task, claim("", "x")), CodeValidation, "body.items[0].criterion_id"},
		{body(task, claim("empathy", "")), CodeValidation, "body.items[0].comment"},
		{body(task, claim("empathy", " \t\r\n ")), CodeValidation, "body.items[0].comment"},
		{body(task, claim("empathy", strings.Repeat("a", 2001))), CodeValidation, "body.items[0].comment"},
		{body(task, claim(strings.Repeat("a", 65), "x")), CodeValidation, "body.items[0].criterion_id"},
		{body(task, claim("no_such_criterion", "x")), CodeValidation, "body.items[0].criterion_id"},
		{body(task, good, claim("empathy", "otra")), CodeValidation, "body.items[1].criterion_id"},
		{body(task, map[string]any{"criterion_id": "empathy", "comment": "x", "decision": "accept"}), CodeValidation, "body.items[0].decision"},
		{map[string]any{"task_uuid": task, "items": []any{good}, "status": "accepted"}, CodeValidation, "body.status"},
		{map[string]any{"task_uuid": task, "items": "empathy"}, CodeValidation, "body.items"},
	} {
		r := b.json(t, http.MethodPost, "/disputes", ana, tc.body)
		requireError(t, r, http.StatusBadRequest, tc.code)
		require.Equal(t, tc.at, detailsAt(r), r.RawBody)
	}
	require.Zero(t, b.count(t, `SELECT count(*) FROM disputes`))

	// Someone else's task, or none: the same 404; not validated: 409.
	none := b.json(t, http.MethodPost, "/disputes", ana, body(missing, good))
	requireError(t, none, http.StatusNotFound, CodeNotFound)
	for _, tok := range []string{olga, b.alice, b.sue} {
		r := b.json(t, http.MethodPost, "/disputes", tok, body(task, good))
		requireError(t, r, http.StatusNotFound, CodeNotFound)
		require.Equal(t, strings.ReplaceAll(none.Body["message"].(string), missing, task), r.Body["message"])
		r = b.do(t, http.MethodPost, "/tasks/"+task+"/acknowledgement", tok, nil)
		requireError(t, r, http.StatusNotFound, CodeNotFound)
	}
	r := b.json(t, http.MethodPost, "/disputes", ana, body(audited, good))
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], "once it is validated")
	requireError(t, b.do(t, http.MethodPost, "/tasks/"+audited+"/acknowledgement", ana, nil), http.StatusConflict, CodeConflict)
	requireError(t, b.do(t, http.MethodPost, "/tasks/not-a-uuid/acknowledgement", ana, nil), http.StatusBadRequest, CodeValidation)

	// The window: the campaign's, checked at PATCH; closed, or 0 days.
	camp := "/campaigns/" + campaignID(t, b.testBundle, b.alice)
	for _, v := range []any{-1, 91, "7", 1.5, true} {
		r := b.json(t, http.MethodPatch, camp, b.sue, map[string]any{"dispute_window_days": v})
		require.Contains(t, []int{http.StatusBadRequest}, r.Status, "%v: %s", v, r.RawBody)
		require.Equal(t, "body.dispute_window_days", detailsAt(r), r.RawBody)
	}
	requireError(t, b.json(t, http.MethodPatch, camp, b.alice, map[string]any{"dispute_window_days": 3}), http.StatusForbidden, CodeForbidden)
	_, err := b.pool.Exec(context.Background(), `UPDATE validations SET validated_at = now() - interval '8 days' WHERE task_uuid = $1`, task)
	require.NoError(t, err)
	r = b.json(t, http.MethodPost, "/disputes", ana, body(task, good))
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], "window to dispute this evaluation closed")
	require.Equal(t, map[string]any{"reason": "window_closed"}, r.Body["details"])
	fb := details(b.do(t, http.MethodGet, "/tasks/"+task, ana, nil))["feedback"].(map[string]any)
	require.Equal(t, false, fb["can_dispute"])
	require.Equal(t, "window_closed", fb["why_not"].(map[string]any)["code"])
	r = b.json(t, http.MethodPatch, camp, b.sue, map[string]any{"dispute_window_days": 10})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.EqualValues(t, 10, details(r)["dispute_window_days"])
	r = b.json(t, http.MethodPatch, camp, b.sue, map[string]any{"dispute_window_days": 0})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	r = b.json(t, http.MethodPost, "/disputes", ana, body(task, good))
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], "does not take disputes")
	require.Zero(t, b.count(t, `SELECT count(*) FROM disputes`))
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, camp, b.sue, map[string]any{"dispute_window_days": 30}).Status)

	// Resolutions: bad input on every field.
	r = b.json(t, http.MethodPost, "/disputes", ana, body(task, good, claim("greeting", "Saludé.")))
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["id"].(string)
	res := "/disputes/" + id + "/resolution"
	acc := decision("empathy", "accept", "Sí.")
	rej := decision("greeting", "reject", "No.")
	for _, tc := range []struct {
		body any
		code string
		at   string
	}{
		{map[string]any{}, CodeMissingFields, "body.items"},
		{map[string]any{"items": []any{}}, CodeValidation, "body.items"},
		{map[string]any{"items": nil}, CodeValidation, "body.items"},
		{map[string]any{"items": []any{map[string]any{"criterion_id": "empathy", "decision": nil, "reason": "x"}, rej}}, CodeValidation, "body.items[0].decision"},
		{map[string]any{"items": []any{map[string]any{"criterion_id": "empathy", "decision": "accept", "reason": nil}, rej}}, CodeValidation, "body.items[0].reason"},
		{map[string]any{"items": []any{map[string]any{"decision": "accept", "reason": "x"}, rej}}, CodeMissingFields, "body.items[0].criterion_id"},
		{map[string]any{"items": []any{map[string]any{"criterion_id": "empathy", "reason": "x"}, rej}}, CodeMissingFields, "body.items[0].decision"},
		{map[string]any{"items": []any{map[string]any{"criterion_id": "empathy", "decision": "accept"}, rej}}, CodeMissingFields, "body.items[0].reason"},
		{map[string]any{"items": []any{decision("empathy", "maybe", "x"), rej}}, CodeValidation, "body.items[0].decision"},
		{map[string]any{"items": []any{decision("empathy", "accept", ""), rej}}, CodeValidation, "body.items[0].reason"},
		{map[string]any{"items": []any{decision("empathy", "accept", "  \n "), rej}}, CodeValidation, "body.items[0].reason"},
		{map[string]any{"items": []any{decision("empathy", "accept", strings.Repeat("a", 2001)), rej}}, CodeValidation, "body.items[0].reason"},
		{map[string]any{"items": []any{acc, rej, decision("closing", "accept", "x")}}, CodeValidation, "body.items[2].criterion_id"},
		{map[string]any{"items": []any{acc, rej, acc}}, CodeValidation, "body.items[2].criterion_id"},
		{map[string]any{"items": []any{acc}}, CodeValidation, "body.items"},
		{map[string]any{"items": []any{acc, rej}, "status": "accepted"}, CodeValidation, "body.status"},
	} {
		r := b.json(t, http.MethodPost, res, b.sue, tc.body)
		requireError(t, r, http.StatusBadRequest, tc.code)
		require.Equal(t, tc.at, detailsAt(r), r.RawBody)
	}
	requireError(t, b.json(t, http.MethodPost, "/disputes/"+missing+"/resolution", b.sue, map[string]any{"items": []any{acc, rej}}),
		http.StatusNotFound, CodeNotFound)
	requireError(t, b.json(t, http.MethodPost, "/disputes/x/resolution", b.sue, map[string]any{"items": []any{acc, rej}}),
		http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/disputes?status=closed", b.sue, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/disputes?limit=501", b.sue, nil), http.StatusBadRequest, CodeValidation)
	require.Equal(t, "open", details(b.do(t, http.MethodGet, "/disputes/"+id, ana, nil))["status"], "nothing was resolved")
	require.Zero(t, b.count(t, `SELECT count(*) FROM audit_edits`))
}

// TestDisputeOwnCase: a supervisor audited as an agent may dispute their
// evaluation but not resolve the dispute; another supervisor does.
func TestDisputeOwnCase(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	task := b.validatedChat(t, "chat-own-case.txt", "sue")
	r := b.json(t, http.MethodPost, "/disputes", b.sue, map[string]any{"task_uuid": task, "items": []any{claim("empathy", "Fui empática.")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["id"].(string)
	body := map[string]any{"items": []any{decision("empathy", "accept", "Sí.")}}
	r = b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", b.sue, body)
	requireError(t, r, http.StatusForbidden, CodeForbidden)
	require.Contains(t, r.Body["message"], "another supervisor resolves it")
	require.Equal(t, "open", details(b.do(t, http.MethodGet, "/disputes/"+id, b.sue, nil))["status"])
	require.Zero(t, b.count(t, `SELECT count(*) FROM audit_edits`))
	c := b.issuer.claims("sam")
	c["roles"] = []string{"supervisor"}
	sam := b.issuer.sign(t, c)
	r = b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", sam, body)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "accepted", details(r)["status"])
}

func TestDisputeResolutionsRace(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	root := b.issuer.token(t, "root", "admin")
	task := b.validatedChat(t, "chat-race.txt", "ana")
	r := b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": task, "items": []any{claim("empathy", "Fui empático.")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	res := "/disputes/" + details(r)["id"].(string) + "/resolution"

	var wg sync.WaitGroup
	answers := make([]response, 2)
	for i, tc := range []struct{ tok, d string }{{b.sue, "accept"}, {root, "reject"}} {
		wg.Go(func() {
			answers[i] = b.json(t, http.MethodPost, res, tc.tok, map[string]any{"items": []any{decision("empathy", tc.d, "Decidido.")}})
		})
	}
	wg.Wait()
	statuses := []int{answers[0].Status, answers[1].Status}
	require.ElementsMatch(t, []int{http.StatusOK, http.StatusConflict}, statuses, answers)
	for _, a := range answers {
		if a.Status == http.StatusConflict {
			requireError(t, a, http.StatusConflict, CodeConflict)
			require.Contains(t, a.Body["message"], "already")
		}
	}
	require.LessOrEqual(t, b.count(t, `SELECT count(*) FROM audit_edits`), 1)
	require.Len(t, b.events(t, task), 2, "opened, and one resolution")
}

func TestDisputeNotApplicable(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	task := b.validatedChat(t, "chat-na.txt", "ana")
	na := func(id, comment string) map[string]any {
		c := claim(id, comment)
		c["not_applicable"] = true
		return c
	}

	// The agent claims that verification does not apply.
	r := b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": task,
		"items": []any{na("verification", "Solo informé de la factura."), claim("resolution", "Lo resolví.")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	disp := details(r)
	id := disp["id"].(string)
	claimed := disp["items"].([]any)[0].(map[string]any)
	require.Equal(t, true, claimed["claims_not_applicable"])
	require.NotContains(t, disp["items"].([]any)[1].(map[string]any), "claims_not_applicable")

	// Only an accepted criterion becomes not applicable.
	bad := decision("resolution", "reject", "No.")
	bad["not_applicable"] = true
	r = b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", b.sue, map[string]any{
		"items": []any{decision("verification", "accept", "Cierto."), bad}})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Equal(t, "body.items[1].not_applicable", detailsAt(r))

	// Accepted: verification not applicable, as claimed; resolution, which
	// the agent claimed met, made not applicable by the resolver.
	setNA := decision("resolution", "accept", "No había nada que resolver.")
	setNA["not_applicable"] = true
	r = b.json(t, http.MethodPost, "/disputes/"+id+"/resolution", b.sue, map[string]any{
		"items": []any{decision("verification", "accept", "Cierto: no hizo falta verificar."), setNA}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	disp = details(r)
	require.Equal(t, "applied", disp["edit_status"], disp)
	for _, it := range disp["items"].([]any) {
		require.Equal(t, true, it.(map[string]any)["accepted_not_applicable"], it)
	}
	after := details(b.do(t, http.MethodGet, "/tasks/"+task, ana, nil))["audit"].(map[string]any)
	for _, c := range []string{"verification", "resolution"} {
		item := auditItem(t, after, c)
		require.Equal(t, true, item["not_applicable"], c)
		require.Equal(t, true, item["complies"], c)
	}
	require.EqualValues(t, 55, after["possible"], "90 less verification's 15 and resolution's 20")
}
