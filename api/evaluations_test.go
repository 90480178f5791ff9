package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers/mail/smtptest"
)

// agentIn signs in an operator with an e-mail address, a locale and a
// zoneinfo claim, and returns the token.
func (b *testBundle) agentIn(t *testing.T, sub, email, locale, zone string) string {
	t.Helper()
	c := b.issuer.claims(sub)
	c["preferred_username"], c["email"], c["roles"], c["locale"], c["zoneinfo"] = sub, email, []string{"operator"}, locale, zone
	tok := b.issuer.sign(t, c)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", tok, nil).Status)
	return tok
}

// ownChat is a good chat of its own (a task is found again by its content).
func ownChat(word string) []byte {
	return []byte(goodChat + "\nCliente: Mi referencia es " + word + ".\n")
}

// evaluationNotes returns the notifications of token's user that are of kind evaluation.
func (b *testBundle) evaluationNotes(t *testing.T, token string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", token, nil)) {
		if n["kind"] == "evaluation" {
			out = append(out, n)
		}
	}
	return out
}

// TestEvaluationToldToItsAgent: validating tells the agent in the
// dashboard, in their language, linking to the task, when the e-mail goes to
// them; each recipient's e-mail is in their language and time zone, its
// categories translated.
func TestEvaluationToldToItsAgent(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second})
	c := b.issuer.claims("sue")
	c["email"], c["roles"], c["locale"] = "sue@example.test", []string{"supervisor"}, "es-ES"
	sue := b.issuer.sign(t, c)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", sue, nil).Status)
	r := b.json(t, http.MethodPatch, "/campaigns/"+campaignID(t, b, alice), sue, map[string]any{"supervisor_emails": []string{"sue@example.test"}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	ana := b.agentIn(t, "ana", "ana@example.test", "en-GB", "America/New_York")
	bo := b.agentIn(t, "bo", "", "en", "")

	id := b.auditedChat(t, alice, file("chat-ana.txt", []byte(goodChat)), field("language", "es"), field("operator", "ana"))
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": id, "notes": "Good work.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	at, err := time.Parse(time.RFC3339Nano, details(r)["validated_at"].(string))
	require.NoError(t, err)

	msgs := srv.Messages()
	require.Len(t, msgs, 2, "one e-mail per language and time zone")
	en, es := parseReceived(t, msgs[0]), parseReceived(t, msgs[1])
	require.Equal(t, []string{"ana@example.test"}, en.msg.Rcpt)
	require.Equal(t, "Audit validated: chat-ana.txt · 100.00 · passed", en.subject)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	require.Contains(t, en.text, "Validated by User alice on "+at.In(ny).Format("2006-01-02 15:04")+" America/New_York")
	require.Contains(t, en.text, "[Met] Opening · ")
	require.Contains(t, en.html, "<td style=\"padding:4px 8px;vertical-align:top\">Closing</td>")
	require.NotContains(t, en.text+en.html, "OPENING", "categories are named, not coded")
	require.Equal(t, []string{"sue@example.test"}, es.msg.Rcpt)
	require.Contains(t, es.subject, "Auditoría validada: chat-ana.txt")
	require.Contains(t, es.text, "Validada por User alice el "+at.UTC().Format("2006-01-02 15:04")+" UTC", "DEFAULT_TIME_ZONE: UTC")
	require.Contains(t, es.text, "[Cumple] Apertura · ")
	require.Equal(t, "<validation-"+id+"@auditd.example.test>", en.header["Message-Id"][0], "the first keeps the validation's Message-ID")
	require.Equal(t, "<validation-"+id+".es.UTC@auditd.example.test>", es.header["Message-Id"][0])

	notes := b.evaluationNotes(t, ana)
	require.Len(t, notes, 1)
	require.Equal(t, "Your evaluation of chat-ana.txt was validated: 100.00, passed (passing score 85.00). "+
		"Acknowledge it, or dispute it from the task.", notes[0]["text"])
	require.Equal(t, "/tasks/"+id, notes[0]["link"])
	require.Equal(t, id, notes[0]["task_uuid"])
	require.Equal(t, "info", notes[0]["variant"])
	for _, other := range []string{alice, sue, bo} {
		require.Empty(t, b.evaluationNotes(t, other), "only the task's agent")
	}

	// An agent without an address is not told by e-mail (to_agent is false),
	// nor in the dashboard: the validate dialog said they would not be.
	id = b.auditedChat(t, alice, file("chat-bo.txt", ownChat("bo")), field("language", "es"), field("operator", "bo"))
	require.Equal(t, false, details(b.do(t, http.MethodGet, "/tasks/"+id+"/validation-recipients", alice, nil))["to_agent"])
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": id, "notes": "Bien.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Empty(t, b.evaluationNotes(t, bo))
	require.Len(t, b.evaluationNotes(t, ana), 1)
}

// TestTimeZoneOfAUser: from the token's zoneinfo claim unless the user
// chose one; a zone that is not one is refused where it is, changing nothing.
func TestTimeZoneOfAUser(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	c := b.issuer.claims("lucia")
	c["zoneinfo"] = "Europe/Madrid"
	lucia := b.issuer.sign(t, c)
	me := details(b.do(t, http.MethodGet, "/users/me", lucia, nil))
	require.Equal(t, "Europe/Madrid", me["time_zone"])
	require.Equal(t, false, me["time_zone_chosen"])
	require.Equal(t, "UTC", me["default_time_zone"])

	c = b.issuer.claims("mateo")
	c["zoneinfo"] = "Mars/Olympus_Mons"
	me = details(b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil))
	require.Equal(t, "", me["time_zone"], "a claim that names no zone is ignored: the default applies")

	for body, location := range map[string]string{
		`{"time_zone":"Mars/Olympus_Mons"}`:               "body.time_zone",
		`{"time_zone":"Local"}`:                           "body.time_zone",
		`{"time_zone":"../../etc/passwd"}`:                "body.time_zone",
		`{"time_zone":"` + strings.Repeat("A", 65) + `"}`: "body.time_zone",
		`{"locale":"es","time_zone":"CEST"}`:              "body.time_zone",
	} {
		r := b.do(t, http.MethodPatch, "/users/me", lucia, strings.NewReader(body))
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, location, detailsAt(r), body)
	}
	me = details(b.do(t, http.MethodGet, "/users/me", lucia, nil))
	require.Equal(t, "Europe/Madrid", me["time_zone"], "nothing changed")
	require.Equal(t, "", me["locale"], "not even the valid field beside a bad one")
	requireError(t, b.do(t, http.MethodPatch, "/users/me", lucia, strings.NewReader(`{}`)), http.StatusBadRequest, CodeMissingFields)

	r := b.do(t, http.MethodPatch, "/users/me", lucia, strings.NewReader(`{"time_zone":"America/Bogota"}`))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "America/Bogota", details(r)["time_zone"])
	require.Equal(t, true, details(r)["time_zone_chosen"])
	require.Equal(t, "", details(r)["locale"], "a field left out is left as it is")
	r = b.do(t, http.MethodPatch, "/users/me", lucia, strings.NewReader(`{"locale":"es"}`))
	require.Equal(t, "America/Bogota", details(r)["time_zone"])
	require.Equal(t, "America/Bogota", details(b.do(t, http.MethodGet, "/users/me", lucia, nil))["time_zone"], "the claim no longer changes it")
}

// TestMyEvaluations: an agent lists their own validated evaluations with
// their acknowledgement and disputes, never another agent's nor what is
// not validated; the caller's tasks whatever their role.
func TestMyEvaluations(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	olga := b.agent(t, "sub-olga", "olga", "olga@example.test")
	validated := func(name, agent string) string {
		t.Helper()
		id := b.auditedChat(t, b.alice, file(name, ownChat(name)), field("language", "es"), field("operator", agent))
		r := b.validateJSON(t, b.alice, map[string]any{"task_uuid": id, "notes": "Bien.", "isCall": false})
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return id
	}
	first, second, olgas := validated("ana-1.txt", "ana"), validated("ana-2.txt", "ana"), validated("olga-1.txt", "olga")
	b.auditedChat(t, b.alice, file("ana-3.txt", ownChat("ana-3")), field("language", "es"), field("operator", "ana"))

	require.Equal(t, http.StatusCreated, b.do(t, http.MethodPost, "/tasks/"+first+"/acknowledgement", ana, nil).Status)
	r := b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": second, "items": []any{claim("empathy", "Lo dije.")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)

	list := func(token, query string) map[string]any {
		t.Helper()
		r := b.do(t, http.MethodGet, "/users/me/evaluations"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return details(r)
	}
	page := list(ana, "")
	require.EqualValues(t, 2, page["total"], "validated ones only")
	got := page["items"].([]any)
	require.Len(t, got, 2)
	newest, oldest := got[0].(map[string]any), got[1].(map[string]any)
	require.Equal(t, second, newest["task_uuid"], "newest validation first")
	require.Equal(t, "ana-2.txt", newest["file_name"])
	require.Nil(t, newest["acknowledged_at"])
	require.Len(t, newest["disputes"], 1)
	require.Equal(t, "open", newest["disputes"].([]any)[0].(map[string]any)["status"])
	require.Equal(t, first, oldest["task_uuid"])
	require.NotNil(t, oldest["acknowledged_at"])
	require.Equal(t, []any{}, oldest["disputes"])
	require.NotNil(t, oldest["score"])
	require.NotNil(t, oldest["passed"])
	require.Equal(t, "chat", oldest["kind"])
	require.NotEmpty(t, oldest["validator_name"])

	olgaPage := list(olga, "")
	require.EqualValues(t, 1, olgaPage["total"], "never another agent's")
	require.Equal(t, olgas, olgaPage["items"].([]any)[0].(map[string]any)["task_uuid"])
	require.EqualValues(t, 0, list(b.alice, "")["total"], "a validator is the agent of none")
	require.Equal(t, []any{}, list(b.alice, "")["items"])
	page = list(ana, "?skip=1&limit=1")
	require.EqualValues(t, 2, page["total"])
	require.Equal(t, first, page["items"].([]any)[0].(map[string]any)["task_uuid"])

	for query, location := range map[string]string{"?limit=0": "query.limit", "?limit=201": "query.limit", "?skip=-1": "query.skip"} {
		r := b.do(t, http.MethodGet, "/users/me/evaluations"+query, ana, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, location, detailsAt(r), query)
	}
	requireError(t, b.do(t, http.MethodGet, "/users/me/evaluations?operator=sub-olga", ana, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/users/me/evaluations", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
}
