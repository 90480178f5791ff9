package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"html"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/pipeline"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/web"
	"github.com/auditd/auditd/workers"
	"github.com/auditd/auditd/workers/mail"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

// Environment of the worker process TestValidationEmailResentAfterWorkerKilled
// starts from this test binary.
const (
	workerProcessDB    = "AUDITD_TEST_WORKER_DB"
	workerProcessSMTP  = "AUDITD_TEST_WORKER_SMTP"
	workerProcessBlobs = "AUDITD_TEST_WORKER_BLOBS"
)

// TestMain runs the tests, or, started with workerProcessDB set, a worker
// process that works jobs until it is killed.
func TestMain(m *testing.M) {
	if os.Getenv(workerProcessDB) != "" {
		if err := runWorkerProcess(); err != nil {
			fmt.Fprintln(os.Stderr, "worker process:", err)
			os.Exit(2)
		}
		return
	}
	os.Exit(m.Run())
}

// runWorkerProcess works the default queue with the real workers, sending
// e-mails to the SMTP server given, and never returns unless it fails.
func runWorkerProcess() error {
	ctx := context.Background()
	pool, err := db.Open(ctx, os.Getenv(workerProcessDB), 5*time.Second)
	if err != nil {
		return err
	}
	store, err := storage.Open(ctx, os.Getenv(workerProcessBlobs))
	if err != nil {
		return err
	}
	// Much longer than the test: the process is killed mid-attempt.
	mailer, err := mail.New(mail.Config{URL: os.Getenv(workerProcessSMTP), From: "auditd@example.test", Timeout: time.Hour})
	if err != nil {
		return err
	}
	ws := river.NewWorkers()
	workers.Register(ws, workers.Deps{Pool: pool, Store: store, Auditor: &auditor.Rules{}, Mailer: mailer, DashboardURL: testPublicURL + web.AppPrefix})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Workers: ws, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}},
		FetchCooldown: 10 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond,
	})
	if err != nil {
		return err
	}
	if err := client.Start(ctx); err != nil {
		return err
	}
	select {}
}

const testPublicURL = "https://auditd.example.test"

// smtpMailer sends to srv.
func smtpMailer(t *testing.T, srv *smtptest.Server, timeout time.Duration) *mail.Mailer {
	t.Helper()
	m, err := mail.New(mail.Config{URL: srv.URL, From: "auditd@example.test", Timeout: timeout})
	require.NoError(t, err)
	return m
}

// laterRetry retries a failed job after 1.5 s: soon, but after a request
// waiting for the first attempt has seen it.
type laterRetry struct{}

func (laterRetry) NextRetry(*rivertype.JobRow) time.Time {
	return time.Now().Add(1500 * time.Millisecond)
}

// setupMail returns a bundle whose workers e-mail through srv (retrying a
// failed job after 1.5 s), and its quality user's token.
func setupMail(t *testing.T, srv *smtptest.Server, opts setupOpts) (*testBundle, string) {
	t.Helper()
	b := setup(t, opts)
	b.startWorkersWith(t, workers.Deps{Mailer: smtpMailer(t, srv, 10*time.Second), DashboardURL: testPublicURL + web.AppPrefix},
		func(c *river.Config) { c.RetryPolicy = laterRetry{} })
	alice, _, _ := b.users(t)
	return b, alice
}

// agent signs in an operator with an e-mail address and returns the token.
func (b *testBundle) agent(t *testing.T, sub, username, email string) string {
	t.Helper()
	c := b.issuer.claims(sub)
	c["preferred_username"], c["email"], c["roles"] = username, email, []string{"operator"}
	tok := b.issuer.sign(t, c)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", tok, nil).Status)
	return tok
}

// auditedChat uploads one chat and waits for the workers to audit it.
func (b *testBundle) auditedChat(t *testing.T, token string, parts ...part) string {
	t.Helper()
	id := uploaded(t, b.upload(t, token, parts...))[0]["uuid"].(string)
	b.waitStatus(t, token, id, "audited")
	return id
}

// auditCall stores for a queued call the audit the pipeline would store for
// a call that met every criterion: calls need speech recognition to be
// audited for real, which these tests are not about.
func (b *testBundle) auditCall(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	task, err := db.TaskGetByUUID(ctx, b.pool, id)
	require.NoError(t, err)
	card, err := db.ScorecardCurrent(ctx, b.pool, task.CampaignID)
	require.NoError(t, err)
	var verdicts []scoring.Verdict
	for _, c := range card.Applicable(db.TaskCall) {
		verdicts = append(verdicts, scoring.Verdict{CriterionID: c.ID, Complies: true, Explanation: "Cumple: " + c.ID})
	}
	result, err := scoring.Score(card.Scorecard, db.TaskCall, verdicts, 85)
	require.NoError(t, err)
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: id, Result: result, Source: db.AuditByEngine, Engine: "rules"}, 0); err != nil {
			return err
		}
		_, err := db.TaskTransition(ctx, tx, id, db.TaskChange{To: pipeline.Audited})
		return err
	}))
}

func (b *testBundle) validateJSON(t *testing.T, token string, body map[string]any) response {
	t.Helper()
	return b.json(t, http.MethodPost, "/validate-audit", token, body)
}

func (b *testBundle) validateForm(t *testing.T, token string, parts []part, headers ...string) response {
	t.Helper()
	body, ct := multipartBody(t, parts...)
	return b.do(t, http.MethodPost, "/validate-audit", token, body, append([]string{"Content-Type", ct}, headers...)...)
}

// received is a delivered message, parsed.
type received struct {
	msg         smtptest.Message
	header      map[string][]string
	subject     string
	text, html  string
	attachments map[string][]byte
}

func parseReceived(t *testing.T, m smtptest.Message) received {
	t.Helper()
	h := m.Header()
	subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	require.NoError(t, err)
	parts, err := m.Parts()
	require.NoError(t, err)
	r := received{msg: m, header: h, subject: subject, attachments: map[string][]byte{}}
	for _, p := range parts {
		switch {
		case p.FileName != "":
			r.attachments[p.FileName] = p.Body
		case p.ContentType == "text/plain":
			r.text = strings.ReplaceAll(string(p.Body), "\r\n", "\n")
		case p.ContentType == "text/html":
			r.html = strings.ReplaceAll(string(p.Body), "\r\n", "\n")
		}
	}
	return r
}

// header returns the raw header section of a message.
func (r received) rawHeader() string {
	head, _, _ := bytes.Cut(r.msg.Data, []byte("\r\n\r\n"))
	return string(head)
}

func (b *testBundle) emailJobs(t *testing.T) int {
	return b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'send_validation_email'")
}

func TestValidateAudit(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second, validation: ValidationOptions{
		To: []string{"qa-lead@example.test", "SUP@example.test"}, Bcc: []string{"archive@example.test"}}})
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	sup := b.issuer.token(t, "sue", "supervisor")
	r := b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Sales", "language": "en",
		"supervisor_emails": []string{"sup@example.test", "boss@example.test"}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)

	// A call (default campaign, Spanish) validated with JSON.
	call := uploaded(t, b.upload(t, alice, file("llamada-0142.wav", tone(t, "a.wav", 440, 1)), field("operator", "ana")))[0]["uuid"].(string)
	b.auditCall(t, call)
	r = b.do(t, http.MethodGet, "/tasks/"+call+"/validation-recipients", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, map[string]any{"sent_to": []any{"ana@example.test", "qa-lead@example.test", "SUP@example.test"},
		"bcc": []any{"archive@example.test"}, "to_validator": false, "to_agent": true}, details(r), "who the validation below writes to")
	notes := "Buen trato.\nRevisar el cierre <b>pronto</b> & avisar."
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": call, "notes": notes, "isCall": true})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, true, r.Body["success"])
	require.Equal(t, "OK", r.Body["code"])
	d := details(r)
	require.Equal(t, "llamada", d["type"])
	require.Equal(t, call, d["task_uuid"])
	require.Equal(t, []any{"ana@example.test", "qa-lead@example.test", "SUP@example.test"}, d["sent_to"])
	require.Equal(t, []any{"archive@example.test"}, d["bcc"])
	require.Equal(t, "sent", d["email_status"])
	at, err := time.Parse(time.RFC3339Nano, d["validated_at"].(string))
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(d["validated_at"].(string), "Z"), "UTC")
	require.WithinDuration(t, time.Now(), at, time.Minute)

	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	m := parseReceived(t, msgs[0])
	require.ElementsMatch(t, []string{"ana@example.test", "qa-lead@example.test", "SUP@example.test", "archive@example.test"}, m.msg.Rcpt)
	require.Empty(t, m.header["Bcc"], "blind copies are in the envelope only")
	require.NotContains(t, string(m.msg.Data), "archive@")
	require.Contains(t, m.header["To"][0], "ana@example.test")
	require.Equal(t, "Auditoría validada: llamada-0142.wav · 100,00 · aprobada", m.subject)
	require.Equal(t, "<validation-"+call+"@auditd.example.test>", m.header["Message-Id"][0])
	require.Contains(t, m.text, "Llamada: llamada-0142.wav")
	require.Contains(t, m.text, notes)
	require.Contains(t, m.text, testPublicURL+"/app/tasks/"+call)
	require.Contains(t, m.text, "Agente: User sub-ana <ana@example.test>")
	require.Contains(t, m.html, "Buen trato.\nRevisar el cierre &lt;b&gt;pronto&lt;/b&gt; &amp; avisar.")
	require.NotContains(t, m.html, "<b>pronto")
	require.Contains(t, m.html, `href="`+testPublicURL+"/app/tasks/"+call+`"`)

	detail := details(b.do(t, http.MethodGet, "/tasks/"+call, alice, nil))
	for _, it := range detail["audit"].(map[string]any)["items"].([]any) {
		item := it.(map[string]any)
		require.Contains(t, m.text, item["question"].(string))
		require.Contains(t, m.text, item["explanation"].(string))
		require.Contains(t, m.html, html.EscapeString(item["question"].(string)))
	}
	require.Equal(t, "validated", detail["status"])
	v := detail["validation"].(map[string]any)
	require.Equal(t, notes, v["notes"])
	require.Equal(t, "alice", v["validator_id"])
	require.Equal(t, "User alice", v["validator_name"], "no x-username: the token's name")
	require.Equal(t, float64(1), v["audit_revision"])
	require.Equal(t, []any{"archive@example.test"}, v["bcc"])
	email := v["email"].(map[string]any)
	require.Equal(t, "sent", email["status"])
	require.Equal(t, float64(1), email["attempts"])
	require.Equal(t, "validation-"+call+"@auditd.example.test", email["message_id"])
	history := detail["history"].([]any)
	require.Equal(t, "validated", history[len(history)-1].(map[string]any)["to"])
	require.Contains(t, texts(items(t, b.do(t, http.MethodGet, "/notifications", alice, nil))),
		"You validated llamada-0142.wav; its result is being e-mailed to ana@example.test, qa-lead@example.test, SUP@example.test.")

	// The agent reads the validation of their task, without the blind copies.
	v = details(b.do(t, http.MethodGet, "/tasks/"+call, ana, nil))["validation"].(map[string]any)
	require.NotContains(t, v, "bcc")
	require.Equal(t, notes, v["notes"])

	// A chat of an English campaign, validated with a form and attachments.
	chat := b.auditedChat(t, alice, file("rude.txt", []byte(rudeChat)), field("campaign", "Sales"), field("operator", "ana"))
	pdf := make([]byte, 300_000)
	_, _ = rand.Read(pdf)
	form := []part{field("task_uuid", chat), field("notes", "Needs coaching."), field("isCall", "0"),
		{field: "attachment", name: `C:\reports\informe.pdf`, content: pdf}, {field: "more", name: "notas.txt", content: []byte("hola\n")}}
	r = b.validateForm(t, alice, form, "x-username", "Alicia QA")
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d = details(r)
	require.Equal(t, "chat", d["type"])
	require.Equal(t, []any{"ana@example.test", "sup@example.test", "boss@example.test", "qa-lead@example.test"}, d["sent_to"],
		"the agent, the campaign's supervisors, then VALIDATION_TO without the one already there")
	msgs = srv.Messages()
	require.Len(t, msgs, 2)
	m = parseReceived(t, msgs[1])
	require.Equal(t, "Audit validated: rude.txt · 0.00 · failed", m.subject)
	require.Contains(t, m.text, "Validated by Alicia QA on ")
	require.Contains(t, m.text, "Needs coaching.")
	require.Contains(t, m.text, "Critical criteria not met")
	require.Contains(t, m.html, "<li>informe.pdf (293 KiB)</li>")
	require.Equal(t, map[string][]byte{"informe.pdf": pdf, "notas.txt": []byte("hola\n")}, m.attachments,
		"attachments arrive byte-identical, under their names without directories")
	v = details(b.do(t, http.MethodGet, "/tasks/"+chat, alice, nil))["validation"].(map[string]any)
	require.Equal(t, "Alicia QA", v["validator_name"])
	atts := v["attachments"].([]any)
	require.Len(t, atts, 2)
	require.Equal(t, "informe.pdf", atts[0].(map[string]any)["name"])
	require.Equal(t, float64(len(pdf)), atts[0].(map[string]any)["size"])
	require.NotContains(t, atts[0], "blob_key")

	// The same requests again answer with the recorded validations and send nothing.
	again := b.validateForm(t, alice, form)
	require.Equal(t, http.StatusOK, again.Status, again.RawBody)
	require.Equal(t, d, details(again))
	again = b.validateJSON(t, alice, map[string]any{"task_uuid": call, "notes": notes, "isCall": true})
	require.Equal(t, http.StatusOK, again.Status, again.RawBody)
	require.Equal(t, at.Format(time.RFC3339Nano), details(again)["validated_at"])
	require.Len(t, srv.Messages(), 2)
	require.Equal(t, 2, b.emailJobs(t))
	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM validations"))

	// A different validation of a validated task is a conflict.
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": call, "notes": "Otra cosa.", "isCall": true})
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], "validated already")
	require.Equal(t, call, r.Body["details"].(map[string]any)["task_uuid"])
	require.Len(t, srv.Messages(), 2)
}

// TestValidationEmailNotApplicable: each edition of the e-mail (the agent
// reads English, the fixed recipient the campaign's Spanish) says a
// criterion judged not applicable as such, neither met nor failed, and
// shows the score computed without it.
func TestValidationEmailNotApplicable(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second, validation: ValidationOptions{To: []string{"qa-lead@example.test"}}})
	c := b.issuer.claims("sub-ana")
	c["preferred_username"], c["email"], c["roles"], c["locale"] = "ana", "ana@example.test", []string{"operator"}, "en-GB"
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil).Status)
	task := b.audited(t, alice, file("na.txt", []byte(goodChat)), field("operator", "ana"))[0]
	edit := editOf(t, task, map[string]bool{"greeting": false})
	edit["audit"] = append(edit["audit"].([]map[string]any), naItem(t, task, "empathy"))
	r := b.edit(t, alice, edit)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	audit := details(r)
	greeting, empathy := auditItem(t, audit, "greeting"), auditItem(t, audit, "empathy")
	// Out of the score: 75 possible of the chat's 90.
	require.Equal(t, float64(75), audit["possible"])
	score, withEmpathy := audit["score"].(float64), 100*(90-greeting["weight"].(float64))/90
	require.InDelta(t, 100*(75-greeting["weight"].(float64))/75, score, 0.005)
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": task["uuid"], "notes": "Visto.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	msgs := srv.Messages()
	require.Len(t, msgs, 2, "one edition a language")
	line := func(text, question string) string {
		for l := range strings.Lines(text) {
			if strings.Contains(l, question) {
				return l
			}
		}
		t.Fatalf("no line of %q in\n%s", question, text)
		return ""
	}
	for _, m := range msgs {
		got := parseReceived(t, m)
		en := strings.HasPrefix(got.subject, "Audit validated")
		decimal, na, notMet, leftOut, cell := ",", "[No aplica] ", "[NO cumple] ",
			"Fuera de la puntuación: 1 criterio no aplicable\n", ">No aplica</td>"
		if en {
			decimal, na, notMet, leftOut, cell = ".", "[N/A] ", "[NOT met] ",
				"Left out of the score: 1 criterion not applicable\n", ">N/A</td>"
			require.Equal(t, []string{"ana@example.test"}, got.msg.Rcpt)
		} else {
			require.Equal(t, []string{"qa-lead@example.test"}, got.msg.Rcpt)
		}
		require.True(t, strings.HasPrefix(line(got.text, empathy["question"].(string)), na), na)
		require.True(t, strings.HasPrefix(line(got.text, greeting["question"].(string)), notMet), notMet)
		require.Contains(t, got.text, leftOut)
		require.Contains(t, got.html, cell)
		shown := strings.Replace(fmt.Sprintf("%.2f / 100", score), ".", decimal, 1)
		require.Contains(t, got.text, shown)
		require.Contains(t, got.html, shown)
		require.NotContains(t, got.text, strings.Replace(fmt.Sprintf("%.2f / 100", withEmpathy), ".", decimal, 1))
	}
}

func TestValidationRecipients(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	id := uploaded(t, b.upload(t, alice, file("c.txt", []byte(goodChat))))[0]["uuid"].(string)
	path := "/tasks/" + id + "/validation-recipients"

	// No agent, no supervisors, no fixed recipients: the validator alone.
	r := b.do(t, http.MethodGet, path, alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, map[string]any{"sent_to": []any{"alice@example.test"}, "bcc": []any{}, "to_validator": true, "to_agent": false}, details(r))

	// … and nobody at all when the validator's token has no e-mail.
	claims := b.issuer.claims("nomail")
	delete(claims, "email")
	r = b.do(t, http.MethodGet, path, b.issuer.sign(t, claims), nil)
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], "add the campaign's supervisor e-mails")

	requireError(t, b.do(t, http.MethodGet, path, b.issuer.token(t, "olga", "operator"), nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+uuid.NewString()+"/validation-recipients", alice, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/tasks/not-a-uuid/validation-recipients", alice, nil), http.StatusBadRequest, CodeValidation)
}

func TestValidateAuditErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{validation: ValidationOptions{MaxAttachments: 2, MaxAttachmentBytes: 1000}})
	alice, bob, _ := b.users(t)
	// No workers: the chat stays transcribed.
	chat := uploaded(t, b.upload(t, alice, file("chat.txt", []byte(goodChat))))[0]["uuid"].(string)
	form := func(extra ...part) []part {
		return append([]part{field("task_uuid", chat), field("notes", "ok"), field("isCall", "false")}, extra...)
	}
	expired := b.issuer.claims("alice")
	expired["exp"] = time.Now().Add(-time.Minute).Unix()

	cases := []struct {
		name     string
		do       func(t *testing.T) response
		status   int
		code     string
		contains string
	}{
		{"no authorization header", func(t *testing.T) response {
			return b.do(t, http.MethodPost, "/validate-audit", "", strings.NewReader(`{}`), "Content-Type", "application/json")
		}, http.StatusUnauthorized, CodeMissingAuthHeader, "Authorization"},
		{"invalid token", func(t *testing.T) response {
			return b.validateJSON(t, "not-a-token", map[string]any{"task_uuid": chat, "notes": "ok", "isCall": false})
		}, http.StatusUnauthorized, CodeUnauthorized, "invalid or expired"},
		{"expired token", func(t *testing.T) response {
			return b.validateJSON(t, b.issuer.sign(t, expired), map[string]any{"task_uuid": chat, "notes": "ok", "isCall": false})
		}, http.StatusUnauthorized, CodeUnauthorized, "invalid or expired"},
		{"operator", func(t *testing.T) response {
			return b.validateJSON(t, bob, map[string]any{"task_uuid": chat, "notes": "ok", "isCall": false})
		}, http.StatusForbidden, CodeForbidden, "quality"},
		{"every field missing", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{})
		}, http.StatusBadRequest, CodeMissingFields, "task_uuid, notes, isCall"},
		{"no body at all", func(t *testing.T) response {
			return b.do(t, http.MethodPost, "/validate-audit", alice, nil)
		}, http.StatusBadRequest, CodeMissingFields, "task_uuid, notes, isCall"},
		{"blank notes and a null", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": " \n\t ", "isCall": nil})
		}, http.StatusBadRequest, CodeMissingFields, "missing or empty: notes, isCall"},
		{"form without isCall", func(t *testing.T) response {
			return b.validateForm(t, alice, []part{field("task_uuid", chat), field("notes", "ok")})
		}, http.StatusBadRequest, CodeMissingFields, ": isCall"},
		{"malformed uuid", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": "not-a-uuid", "notes": "ok", "isCall": false})
		}, http.StatusBadRequest, CodeValidation, "must be a UUID"},
		{"malformed uuid in a form", func(t *testing.T) response {
			return b.validateForm(t, alice, []part{field("task_uuid", chat+"0"), field("notes", "ok"), field("isCall", "false")})
		}, http.StatusBadRequest, CodeValidation, "must be a UUID"},
		{"isCall not a boolean", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "ok", "isCall": "yes"})
		}, http.StatusBadRequest, CodeValidation, "must be a boolean"},
		{"isCall not a boolean in a form", func(t *testing.T) response {
			return b.validateForm(t, alice, []part{field("task_uuid", chat), field("notes", "ok"), field("isCall", "maybe")})
		}, http.StatusBadRequest, CodeValidation, "true or false"},
		{"isCall not matching the task", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "ok", "isCall": true})
		}, http.StatusBadRequest, CodeValidation, "is a chat"},
		{"unknown field", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "ok", "isCall": false, "score": 100})
		}, http.StatusBadRequest, CodeValidation, `unknown field "score"`},
		{"notes too long", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": strings.Repeat("a", maxNotes+1), "isCall": false})
		}, http.StatusBadRequest, CodeValidation, "at most 10000 characters"},
		{"not JSON", func(t *testing.T) response {
			return b.do(t, http.MethodPost, "/validate-audit", alice, strings.NewReader(`{"task_uuid":`), "Content-Type", "application/json")
		}, http.StatusBadRequest, CodeValidation, "not a JSON object"},
		{"unknown task", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": "2b1f0c4e-3d5a-4b6c-8d7e-9f0a1b2c3d4e", "notes": "ok", "isCall": false})
		}, http.StatusNotFound, CodeNotFound, "no task 2b1f0c4e-3d5a-4b6c-8d7e-9f0a1b2c3d4e"},
		{"task not audited", func(t *testing.T) response {
			return b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "ok", "isCall": false})
		}, http.StatusConflict, CodeConflict, "is transcribed: only an audited task can be validated"},
		{"task not audited, with an attachment", func(t *testing.T) response {
			return b.validateForm(t, alice, form(part{field: "a", name: "a.txt", content: []byte("a")}))
		}, http.StatusConflict, CodeConflict, "only an audited task"},
		{"plain text body", func(t *testing.T) response {
			return b.do(t, http.MethodPost, "/validate-audit", alice, strings.NewReader("task_uuid="+chat), "Content-Type", "text/plain")
		}, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "application/json or multipart/form-data"},
		{"too many attachments", func(t *testing.T) response {
			return b.validateForm(t, alice, form(part{field: "a", name: "1.txt", content: []byte("1")},
				part{field: "a", name: "2.txt", content: []byte("2")}, part{field: "a", name: "3.txt", content: []byte("3")}))
		}, http.StatusRequestEntityTooLarge, CodePayloadTooLarge, `at most 2 attachments per validation; "3.txt" is one more`},
		{"attachments too large", func(t *testing.T) response {
			return b.validateForm(t, alice, form(part{field: "a", name: "1.bin", content: make([]byte, 600)},
				part{field: "a", name: "2.bin", content: make([]byte, 600)}))
		}, http.StatusRequestEntityTooLarge, CodePayloadTooLarge, `limit of 1000 B per validation; "2.bin" goes over it`},
		{"a field as a file", func(t *testing.T) response {
			return b.validateForm(t, alice, []part{field("task_uuid", chat), {field: "notes", name: "notes.txt", content: []byte("ok")}})
		}, http.StatusBadRequest, CodeValidation, `"notes" is a file part`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.do(t)
			requireError(t, r, tc.status, tc.code)
			require.Contains(t, r.Body["message"], tc.contains)
		})
	}

	r := b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "", "isCall": false})
	var locations []string
	for _, d := range r.Body["details"].([]any) {
		locations = append(locations, d.(map[string]any)["location"].(string))
	}
	require.Equal(t, []string{"body.notes"}, locations)

	// None of them recorded anything, queued an e-mail or kept a file.
	require.Zero(t, b.count(t, "SELECT count(*) FROM validations"))
	require.Zero(t, b.emailJobs(t))
	require.Zero(t, b.count(t, "SELECT count(*) FROM events WHERE type LIKE 'validation.%'"))
	require.Equal(t, "transcribed", details(b.do(t, http.MethodGet, "/tasks/"+chat, alice, nil))["status"])
	require.Len(t, b.blobs(t), 1, "only the chat's own file")
}

func TestValidationEmailRetriedAfterTemporaryRefusal(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	srv.Refuse(451)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second})
	chat := b.auditedChat(t, alice, file("good.txt", []byte(goodChat)))

	r := b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "Bien.", "isCall": false})
	requireError(t, r, http.StatusBadGateway, CodeEmailSendError)
	require.Contains(t, r.Body["message"], "the validation is recorded")
	require.Contains(t, r.Body["message"], "will be retried")
	d := r.Body["details"].(map[string]any)
	require.Equal(t, true, d["validation_recorded"])
	require.Equal(t, true, d["will_retry"])
	require.Equal(t, float64(1), d["email_attempts"])
	require.Contains(t, d["email_error"], "451")
	require.Equal(t, "pending", d["email_status"])
	require.Equal(t, chat, d["task_uuid"])
	require.Equal(t, "chat", d["type"])
	require.Equal(t, []any{"alice@example.test"}, d["sent_to"], "no agent, supervisors or fixed recipients: the validator")
	require.NotEmpty(t, d["validated_at"])
	require.Equal(t, "validated", details(b.do(t, http.MethodGet, "/tasks/"+chat, alice, nil))["status"])

	// The retry delivers it, once.
	var email map[string]any
	require.Eventually(t, func() bool {
		v := details(b.do(t, http.MethodGet, "/tasks/"+chat, alice, nil))["validation"].(map[string]any)
		email = v["email"].(map[string]any)
		return email["status"] == "sent"
	}, 30*time.Second, 20*time.Millisecond)
	require.Equal(t, float64(2), email["attempts"])
	require.NotContains(t, email, "error", "cleared by the delivery")
	require.Eventually(t, func() bool {
		return b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'send_validation_email' AND state = 'completed'") == 1
	}, 10*time.Second, 10*time.Millisecond)
	require.Len(t, srv.Messages(), 1)
	require.Contains(t, texts(items(t, b.do(t, http.MethodGet, "/notifications", alice, nil))),
		"The validation e-mail for good.txt was delivered after 2 attempts.")
}

func TestValidationEmailPermanentRefusal(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	srv.Refuse(550)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second})
	chat := b.auditedChat(t, alice, file("good.txt", []byte(goodChat)))

	body := map[string]any{"task_uuid": chat, "notes": "Bien.", "isCall": false}
	r := b.validateJSON(t, alice, body)
	requireError(t, r, http.StatusBadGateway, CodeEmailSendError)
	require.Contains(t, r.Body["message"], "it will not be retried")
	d := r.Body["details"].(map[string]any)
	require.Equal(t, false, d["will_retry"])
	require.Equal(t, "failed", d["email_status"])
	require.Contains(t, d["email_error"], "550")

	// Not retried; the validator is told; the task stays validated.
	require.Eventually(t, func() bool {
		return b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'send_validation_email' AND state = 'cancelled' AND attempt = 1") == 1
	}, 10*time.Second, 10*time.Millisecond)
	notes := items(t, b.do(t, http.MethodGet, "/notifications", alice, nil))
	require.Equal(t, "error", notes[0]["variant"])
	require.Contains(t, notes[0]["text"], "The validation e-mail for good.txt was refused")
	require.Contains(t, notes[0]["text"], "550")
	detail := details(b.do(t, http.MethodGet, "/tasks/"+chat, alice, nil))
	require.Equal(t, "validated", detail["status"])
	email := detail["validation"].(map[string]any)["email"].(map[string]any)
	require.Equal(t, "failed", email["status"])
	require.Equal(t, float64(1), email["attempts"])
	require.Empty(t, srv.Messages())

	// Sending the same validation again changes nothing.
	r = b.validateJSON(t, alice, body)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "failed", details(r)["email_status"])
	require.Equal(t, 1, b.emailJobs(t))
}

func TestValidationEmailPendingWhenTheServerHangs(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	srv.Hang()
	b, alice := setupMail(t, srv, setupOpts{}) // requests wait 300 ms
	chat := b.auditedChat(t, alice, file("good.txt", []byte(goodChat)))

	r := b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "Bien.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "pending", details(r)["email_status"])
	require.Equal(t, chat, details(r)["task_uuid"])

	srv.Release()
	select {
	case m := <-srv.Received():
		require.Equal(t, "<validation-"+chat+"@auditd.example.test>", m.Header().Get("Message-Id"))
	case <-time.After(30 * time.Second):
		t.Fatal("the e-mail never arrived")
	}
	require.Eventually(t, func() bool {
		v := details(b.do(t, http.MethodGet, "/tasks/"+chat, alice, nil))["validation"].(map[string]any)
		return v["email"].(map[string]any)["status"] == "sent"
	}, 30*time.Second, 20*time.Millisecond)
	require.Len(t, srv.Messages(), 1)
}

func TestValidationHeaderInjectionNeutralised(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second})
	// An agent whose token carries a header in its e-mail claim.
	b.agent(t, "sub-eve", "eve", "eve@example.test\r\nBcc: evil@example.test")
	chat := b.auditedChat(t, alice, file("good.txt", []byte(goodChat)), field("operator", "eve"))

	notes := "Todo bien.\r\nBcc: evil@example.test\r\nSubject: hacked\r\n\r\n<script>alert(1)</script>"
	// The file name comes RFC 2231-encoded, the only way a header can carry
	// line breaks in a multipart part's header.
	var body bytes.Buffer
	boundary := "b0undary"
	for _, p := range []struct{ disposition, content string }{
		{`form-data; name="task_uuid"`, chat},
		{`form-data; name="notes"`, notes},
		{`form-data; name="isCall"`, "false"},
		{`form-data; name="file"; filename*=UTF-8''a%0D%0ABcc%3A%20evil%40example.test%0D%0A%0D%0Ax.txt`, "contenido"},
	} {
		fmt.Fprintf(&body, "--%s\r\nContent-Disposition: %s\r\n\r\n%s\r\n", boundary, p.disposition, p.content)
	}
	fmt.Fprintf(&body, "--%s--\r\n", boundary)
	r := b.do(t, http.MethodPost, "/validate-audit", alice, &body, "Content-Type", "multipart/form-data; boundary="+boundary,
		"x-username", "Alicia")
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, []any{"alice@example.test"}, details(r)["sent_to"], "the agent's address does not parse: left out")

	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	m := parseReceived(t, msgs[0])
	require.Equal(t, []string{"alice@example.test"}, m.msg.Rcpt)
	head := m.rawHeader()
	require.NotContains(t, head, "evil@")
	require.NotContains(t, head, "hacked")
	require.Empty(t, m.header["Bcc"])
	require.Equal(t, "Auditoría validada: good.txt · 100,00 · aprobada", m.subject)
	require.Contains(t, m.text, "Todo bien.\nBcc: evil@example.test\nSubject: hacked\n\n<script>alert(1)</script>",
		"the notes are body text, never headers")
	require.Contains(t, m.html, "&lt;script&gt;alert(1)&lt;/script&gt;")
	require.NotContains(t, m.html, "<script>")
	require.Equal(t, map[string][]byte{"aBcc_ evil@example.testx.txt": []byte("contenido")}, m.attachments,
		"line breaks dropped from the name (and the colon made safe by the mailer)")
	parts, err := m.msg.Parts()
	require.NoError(t, err)
	require.Len(t, parts, 3, "text, HTML and the attachment: no part was split or added")
	require.NotContains(t, m.text, "eve@example.test", "an address that does not parse is not shown")
}

func TestValidateAuditStoreFailureIsInternal(t *testing.T) {
	t.Parallel()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("blobs"))
	fake := gofakes3.New(backend).Server()
	// Once armed, the store takes one more object and then fails every write,
	// as a bucket does when its server breaks mid-request.
	var armed atomic.Bool
	var allowed atomic.Int32
	s3 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && armed.Load() && allowed.Add(-1) < 0 {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>disk on fire at /srv/s3</Message></Error>`)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(s3.Close)
	b := setup(t, setupOpts{jobWait: 20 * time.Second,
		blobURL: "s3://blobs?region=us-east-1&anonymous=true&use_path_style=true&endpoint=" + url.QueryEscape(s3.URL)})
	b.startWorkers(t, workers.Deps{DashboardURL: testPublicURL + web.AppPrefix})
	alice, _, _ := b.users(t)
	chat := b.auditedChat(t, alice, file("good.txt", []byte(goodChat)))
	events := b.count(t, "SELECT count(*) FROM events")

	allowed.Store(1)
	armed.Store(true)
	r := b.validateForm(t, alice, []part{field("task_uuid", chat), field("notes", "Bien."), field("isCall", "false"),
		{field: "a", name: "1.txt", content: []byte("uno")}, {field: "a", name: "2.txt", content: []byte("dos")}})
	requireError(t, r, http.StatusInternalServerError, CodeInternal)
	require.Equal(t, internalMessage, r.Body["message"])
	require.NotContains(t, r.Body, "details")
	for _, leak := range []string{"fire", "/srv", "InternalError", "uploads/", "s3", "2.txt"} {
		require.NotContains(t, r.RawBody, leak)
	}

	// Nothing was recorded, and the file the store took is deleted.
	armed.Store(false)
	require.Zero(t, b.count(t, "SELECT count(*) FROM validations"))
	require.Zero(t, b.emailJobs(t))
	require.Equal(t, events, b.count(t, "SELECT count(*) FROM events"))
	require.Equal(t, "audited", details(b.do(t, http.MethodGet, "/tasks/"+chat, alice, nil))["status"])
	var keys []string
	for o, err := range b.store.List(context.Background(), "uploads/") {
		require.NoError(t, err)
		keys = append(keys, o.Key)
	}
	task, err := db.TaskGetByUUID(context.Background(), b.pool, chat)
	require.NoError(t, err)
	require.Equal(t, []string{task.BlobKey}, keys)

	// With the store back, the same validation goes through.
	r = b.validateForm(t, alice, []part{field("task_uuid", chat), field("notes", "Bien."), field("isCall", "false")})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
}

// TestValidationEmailResentAfterWorkerKilled kills a worker process after
// the SMTP server took the e-mail but before the worker heard so: nothing
// recorded the attempt, River rescues the job, and another worker sends the
// e-mail again. Delivery is at least once; the second copy carries the same
// Message-ID, so a receiver that drops duplicates keeps one.
func TestValidationEmailResentAfterWorkerKilled(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	srv.HoldReplies()
	b := setup(t)
	rescue := func(c *river.Config) {
		c.JobTimeout, c.RescueStuckJobsAfter, c.RetryPolicy = time.Second, time.Second, laterRetry{}
	}
	deps := workers.Deps{Mailer: smtpMailer(t, srv, time.Second), DashboardURL: testPublicURL + web.AppPrefix}
	// A leader that works nothing, so the process about to die is not the
	// leader (whose leadership would outlive it by a while).
	_, leader := b.startWorkersWith(t, deps, func(c *river.Config) {
		rescue(c)
		c.Queues = map[string]river.QueueConfig{"idle": {MaxWorkers: 1}}
	})
	require.Eventually(t, func() bool { return b.count(t, "SELECT count(*) FROM river_leader") == 1 }, 30*time.Second, 10*time.Millisecond)

	worker := exec.Command(os.Args[0], "-test.run=^$")
	worker.Env = append(os.Environ(), workerProcessDB+"="+b.pool.Config().ConnString(), workerProcessSMTP+"="+srv.URL,
		workerProcessBlobs+"=file://"+b.blobDir)
	worker.Stdout, worker.Stderr = t.Output(), t.Output()
	require.NoError(t, worker.Start())
	t.Cleanup(func() {
		_ = worker.Process.Kill()
		_ = worker.Wait()
	})

	alice, _, _ := b.users(t)
	chat := b.auditedChat(t, alice, file("good.txt", []byte(goodChat)))
	r := b.validateJSON(t, alice, map[string]any{"task_uuid": chat, "notes": "Bien.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "pending", details(r)["email_status"])
	select {
	case <-srv.Received():
	case <-time.After(30 * time.Second):
		t.Fatal("the worker process never sent the e-mail")
	}
	require.NoError(t, worker.Process.Kill())
	_ = worker.Wait()
	srv.Release()

	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'send_validation_email' AND state = 'running'"))
	v, err := db.ValidationGet(context.Background(), b.pool, chat)
	require.NoError(t, err)
	require.Equal(t, db.EmailPending, v.EmailStatus)
	require.Zero(t, v.EmailAttempts, "the attempt died before it was recorded")

	// Once the job has been running longer than its timeout, a new leader's
	// rescuer hands it back and a worker sends it again.
	require.Eventually(t, func() bool {
		return b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'send_validation_email' AND attempted_at < now() - interval '3 seconds'") == 1
	}, 30*time.Second, 50*time.Millisecond)
	require.NoError(t, leader.Stop(context.Background()))
	b.startWorkersWith(t, deps, rescue)
	require.Eventually(t, func() bool {
		v, err = db.ValidationGet(context.Background(), b.pool, chat)
		require.NoError(t, err)
		return v.EmailStatus == db.EmailSent
	}, 60*time.Second, 50*time.Millisecond)
	require.Equal(t, 2, v.EmailAttempts, "the lost attempt counts")

	msgs := srv.Messages()
	require.Len(t, msgs, 2, "sent twice: at least once")
	require.Equal(t, msgs[0].Rcpt, msgs[1].Rcpt)
	require.Equal(t, []string{"<validation-" + chat + "@auditd.example.test>"}, srv.MessageIDs(), "one message to a receiver that drops duplicates")
}

func TestValidateAuditRacingRequestsRecordOne(t *testing.T) {
	t.Parallel()
	b := setup(t) // no workers: the e-mail stays pending
	alice, _, _ := b.users(t)
	call := uploaded(t, b.upload(t, alice, file("a.wav", tone(t, "a.wav", 440, 1))))[0]["uuid"].(string)
	b.auditCall(t, call)

	const n = 4
	type result struct {
		status int
		body   map[string]any
		err    error
	}
	results := make(chan result, n)
	body := `{"task_uuid":"` + call + `","notes":"Bien.","isCall":true}`
	for range n {
		go func() {
			var r result
			req, err := http.NewRequest(http.MethodPost, b.http.URL+"/validate-audit", strings.NewReader(body))
			if err != nil {
				results <- result{err: err}
				return
			}
			req.Header.Set("Authorization", "Bearer "+alice)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				results <- result{err: err}
				return
			}
			defer res.Body.Close()
			r.status, r.err = res.StatusCode, json.NewDecoder(res.Body).Decode(&r.body)
			results <- r
		}()
	}
	var validatedAt []any
	for range n {
		r := <-results
		require.NoError(t, r.err)
		require.Equal(t, http.StatusOK, r.status, r.body)
		validatedAt = append(validatedAt, r.body["details"].(map[string]any)["validated_at"])
	}
	for _, at := range validatedAt {
		require.Equal(t, validatedAt[0], at, "every request answers with the one validation")
	}
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM validations"))
	require.Equal(t, 1, b.emailJobs(t))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM events WHERE type = 'validation.created'"))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM task_transitions WHERE to_status = 'validated'"))
}
