package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/webhook"
	"github.com/auditd/auditd/workers"
)

// verifySignature is the receiver's check of docs/api.md#webhooks: a v1
// signature of t.body with the secret (there are two while a rotated
// secret's overlap lasts), sent within tolerance of now.
func verifySignature(secret, header string, body []byte, now time.Time, tolerance time.Duration) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(unix, 0)).Abs() > tolerance {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range sigs {
		if got, err := hex.DecodeString(sig); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// delivered is a request a receiver got.
type delivered struct {
	header http.Header
	body   []byte
}

// receiver is a webhook receiver on loopback (on ln, or a new listener
// when nil) that answers status(n) to its n-th request (from 1) and sends
// each request on the channel. It returns its URL.
func receiver(t *testing.T, ln net.Listener, status func(n int64) int) (string, <-chan delivered) {
	t.Helper()
	got := make(chan delivered, 100)
	var n atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- delivered{header: r.Header.Clone(), body: body}
		w.WriteHeader(status(n.Add(1)))
	}))
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/hooks/auditd", got
}

// subscribe creates a webhook subscription as root and returns it (with its secret).
func (b *testBundle) subscribe(t *testing.T, root string, body map[string]any) map[string]any {
	t.Helper()
	r := b.json(t, http.MethodPost, "/webhooks", root, body)
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	return details(r)
}

// attempts is subscription id's delivery log, newest first.
func (b *testBundle) attempts(t *testing.T, root, id string) []map[string]any {
	t.Helper()
	r := b.do(t, http.MethodGet, "/webhooks/"+id+"/deliveries", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	return items(t, r)
}

// next is the next delivery got receives.
func next(t *testing.T, got <-chan delivered) delivered {
	t.Helper()
	select {
	case d := <-got:
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery arrived")
		return delivered{}
	}
}

// webhookPayload decodes a json-format delivery.
func webhookPayload(t *testing.T, d delivered) webhook.Payload {
	t.Helper()
	var p webhook.Payload
	require.NoError(t, json.Unmarshal(d.body, &p), string(d.body))
	return p
}

func TestWebhookSignedDeliveries(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{webhookAllowPrivate: true, jobWait: 20 * time.Second})
	_, _, root := b.users(t)
	url, got := receiver(t, nil, func(int64) int { return http.StatusNoContent })
	hook := b.subscribe(t, root, map[string]any{"name": "QA system", "url": url,
		"events": []string{webhook.TaskAudited, webhook.CriticalFailure, webhook.Validated}})
	secret := hook["secret"].(string)
	require.True(t, strings.HasPrefix(secret, "whsec_"), secret)
	// Another campaign's subscription, and a disabled one, take nothing.
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/campaigns", root, map[string]any{"name": "Ventas"}).Status)
	b.subscribe(t, root, map[string]any{"name": "Ventas only", "url": url, "events": []string{webhook.TaskAudited}, "campaign": "Ventas"})
	b.subscribe(t, root, map[string]any{"name": "Off", "url": url, "events": []string{webhook.TaskAudited}, "enabled": false})
	// The secret is shown once.
	require.NotContains(t, b.do(t, http.MethodGet, "/webhooks/"+hook["id"].(string), root, nil).RawBody, secret)
	require.NotContains(t, b.do(t, http.MethodGet, "/webhooks", root, nil).RawBody, secret)

	b.startWorkers(t, workers.Deps{WebhookAllowPrivate: true})
	task := b.audited(t, root, chat("signed.txt"))[0]
	d := next(t, got)
	require.True(t, verifySignature(secret, d.header.Get(webhook.HeaderSignature), d.body, time.Now(), 5*time.Minute),
		d.header.Get(webhook.HeaderSignature))
	require.False(t, verifySignature("whsec_other", d.header.Get(webhook.HeaderSignature), d.body, time.Now(), 5*time.Minute))
	require.False(t, verifySignature(secret, d.header.Get(webhook.HeaderSignature), append(d.body, ' '), time.Now(), 5*time.Minute))
	require.Equal(t, webhook.TaskAudited, d.header.Get(webhook.HeaderEvent))
	p := webhookPayload(t, d)
	require.Equal(t, d.header.Get(webhook.HeaderDelivery), p.ID)
	require.Equal(t, webhook.TaskAudited, p.Type)
	require.Equal(t, task["uuid"], p.Data.Task.UUID)
	require.Equal(t, "default", p.Data.Task.Campaign)
	require.InDelta(t, 100, *p.Data.Task.Score, 0.001) // a good chat passes
	require.True(t, *p.Data.Task.Passed)
	require.Empty(t, p.Data.Task.FailedCriteria)
	// Neither the transcript nor what redaction removed.
	require.NotContains(t, string(d.body), "Telecable")
	require.NotContains(t, string(d.body), "53210987K")
	require.NotContains(t, string(d.body), "signed.txt")

	// The attempt is logged once the receiver has answered: a moment
	// after the delivery arrived.
	require.Eventually(t, func() bool { return len(b.attempts(t, root, hook["id"].(string))) > 0 }, 30*time.Second, 20*time.Millisecond)
	log := b.attempts(t, root, hook["id"].(string))
	require.Len(t, log, 1)
	require.Equal(t, p.ID, log[0]["delivery_id"])
	require.EqualValues(t, http.StatusNoContent, log[0]["status_code"])
	require.Equal(t, true, log[0]["ok"])
	require.EqualValues(t, 1, log[0]["attempt"])

	// Send test: one attempt, answered with it.
	r := b.do(t, http.MethodPost, "/webhooks/"+hook["id"].(string)+"/test", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	attempt := details(r)["attempt"].(map[string]any)
	require.Equal(t, true, attempt["ok"])
	d = next(t, got)
	require.Equal(t, webhook.Test, d.header.Get(webhook.HeaderEvent))
	require.True(t, verifySignature(secret, d.header.Get(webhook.HeaderSignature), d.body, time.Now(), 5*time.Minute))
	require.Len(t, b.attempts(t, root, hook["id"].(string)), 2)

	// Validating it is delivered too, inserted with the validation.
	r = b.json(t, http.MethodPost, "/validate-audit", root, map[string]any{"task_uuid": task["uuid"], "notes": "Revisado: DNI 53210987K.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d = next(t, got)
	require.Equal(t, webhook.Validated, d.header.Get(webhook.HeaderEvent))
	p = webhookPayload(t, d)
	require.Equal(t, "root", p.Data.Task.ValidatedBy)
	require.Equal(t, "validated", p.Data.Task.Status)
	require.NotContains(t, string(d.body), "Revisado") // a validation's notes are not sent

	// The audit's one delivery went to the one subscription that takes it:
	// nothing else arrived.
	select {
	case extra := <-got:
		t.Fatalf("unexpected delivery %s", extra.body)
	default:
	}
	var jobs int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'deliver_webhook'`).Scan(&jobs))
	require.Equal(t, 3, jobs)
}

// TestWebhookNotApplicable: a criterion judged not applicable is carried
// as such (not_applicable_criteria), never among the failed ones, in the
// json payload and in a Slack message.
func TestWebhookNotApplicable(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{webhookAllowPrivate: true, jobWait: 20 * time.Second})
	alice, _, root := b.users(t)
	jsonURL, jsonGot := receiver(t, nil, func(int64) int { return http.StatusNoContent })
	slackURL, slackGot := receiver(t, nil, func(int64) int { return http.StatusOK })
	b.subscribe(t, root, map[string]any{"name": "QA system", "url": jsonURL, "events": []string{webhook.Validated}})
	b.subscribe(t, root, map[string]any{"name": "QA channel", "url": slackURL, "events": []string{webhook.Validated}, "format": "slack"})
	b.startWorkers(t, workers.Deps{WebhookAllowPrivate: true})
	task := b.audited(t, alice, file("na.txt", []byte(goodChat)))[0]
	audit := task["audit"].(map[string]any)
	greeting, empathy := auditItem(t, audit, "greeting")["question"].(string), auditItem(t, audit, "empathy")["question"].(string)
	edit := editOf(t, task, map[string]bool{"greeting": false})
	edit["audit"] = append(edit["audit"].([]map[string]any), naItem(t, task, "empathy"))
	r := b.edit(t, alice, edit)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	r = b.json(t, http.MethodPost, "/validate-audit", alice, map[string]any{"task_uuid": task["uuid"], "notes": "Visto.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	p := webhookPayload(t, next(t, jsonGot))
	require.Equal(t, webhook.Validated, p.Type)
	require.Equal(t, []webhook.Criterion{{ID: "empathy", Question: empathy}}, p.Data.Task.NotApplicableCriteria)
	require.Equal(t, []webhook.Criterion{{ID: "greeting", Question: greeting}}, p.Data.Task.FailedCriteria)
	var slack struct{ Text string }
	d := next(t, slackGot)
	require.NoError(t, json.Unmarshal(d.body, &slack), string(d.body))
	require.Contains(t, slack.Text, "\nFailed criteria: "+greeting+"\n")
	require.Contains(t, slack.Text, "\nNot applicable: "+empathy+"\n")
}

func TestWebhookReceiverDownThenBack(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{webhookAllowPrivate: true})
	_, _, root := b.users(t)
	// An address where nothing listens: connections are refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	hook := b.subscribe(t, root, map[string]any{"name": "Flaky", "url": "http://" + addr + "/hook",
		"events": []string{webhook.TaskAudited}, "format": "slack"})
	id := hook["id"].(string)
	b.startWorkersWith(t, workers.Deps{WebhookAllowPrivate: true}, func(c *river.Config) {
		c.RetryPolicy = workers.Backoff{Max: 50 * time.Millisecond}
	})
	b.audited(t, root, chat("flaky.txt"))
	require.Eventually(t, func() bool { return len(b.attempts(t, root, id)) > 0 }, 30*time.Second, 20*time.Millisecond)
	refused := b.attempts(t, root, id)[0]
	require.Nil(t, refused["status_code"])
	require.Contains(t, refused["error"], "refused")

	// Back, answering 500 once, then 200.
	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	_, got := receiver(t, ln, func(n int64) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	first, second := next(t, got), next(t, got)
	require.Equal(t, first.header.Get(webhook.HeaderDelivery), second.header.Get(webhook.HeaderDelivery))
	require.True(t, verifySignature(hook["secret"].(string), second.header.Get(webhook.HeaderSignature), second.body, time.Now(), time.Minute))
	var slack map[string]any
	require.NoError(t, json.Unmarshal(second.body, &slack))
	require.Contains(t, slack["text"], "Task audited")

	require.Eventually(t, func() bool { return b.attempts(t, root, id)[0]["ok"] == true }, 30*time.Second, 20*time.Millisecond)
	log := b.attempts(t, root, id)
	require.GreaterOrEqual(t, len(log), 3)
	require.EqualValues(t, http.StatusOK, log[0]["status_code"])
	require.EqualValues(t, http.StatusInternalServerError, log[1]["status_code"])
	require.Contains(t, log[1]["error"], "500")
	for i, a := range log {
		require.Equal(t, first.header.Get(webhook.HeaderDelivery), a["delivery_id"])
		require.EqualValues(t, len(log)-i, a["attempt"])
	}
}

// A rotated secret: the new one is shown once; for webhook.SecretOverlap
// deliveries verify with either secret, then with the new one only. Time is
// the workers' webhook clock, moved by the test.
func TestWebhookSecretRotation(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{webhookAllowPrivate: true, jobWait: 20 * time.Second})
	alice, _, root := b.users(t)
	url, got := receiver(t, nil, func(int64) int { return http.StatusOK })
	hook := b.subscribe(t, root, map[string]any{"name": "CRM", "url": url, "events": []string{webhook.Validated}})
	id, old := hook["id"].(string), hook["secret"].(string)
	var ahead atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	b.startWorkers(t, workers.Deps{WebhookAllowPrivate: true, WebhookClock: clock})
	// test sends a test delivery and returns the signature the receiver got.
	test := func() delivered {
		t.Helper()
		r := b.do(t, http.MethodPost, "/webhooks/"+id+"/test", root, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return next(t, got)
	}
	verifies := func(secret string, d delivered) bool {
		return verifySignature(secret, d.header.Get(webhook.HeaderSignature), d.body, clock(), 5*time.Minute)
	}
	d := test()
	require.True(t, verifies(old, d))
	require.Equal(t, 1, strings.Count(d.header.Get(webhook.HeaderSignature), "v1="))

	r := b.do(t, http.MethodPost, "/webhooks/"+id+"/secret", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	rotated := details(r)
	fresh := rotated["secret"].(string)
	require.Regexp(t, `^whsec_[0-9a-f]{64}$`, fresh)
	require.NotEqual(t, old, fresh)
	at, err := time.Parse(time.RFC3339Nano, rotated["secret_rotated_at"].(string))
	require.NoError(t, err)
	until, err := time.Parse(time.RFC3339Nano, rotated["previous_secret_until"].(string))
	require.NoError(t, err)
	require.Equal(t, webhook.SecretOverlap, until.Sub(at))
	// Shown once: neither the new secret nor the old one is read again.
	for _, path := range []string{"/webhooks/" + id, "/webhooks"} {
		body := b.do(t, http.MethodGet, path, root, nil).RawBody
		require.NotContains(t, body, fresh)
		require.NotContains(t, body, old)
		require.Contains(t, body, "previous_secret_until")
	}

	// During the overlap, a receiver with either secret verifies; one with
	// another does not.
	for _, later := range []time.Duration{0, webhook.SecretOverlap - time.Hour} {
		ahead.Store(int64(later))
		d = test()
		require.Equal(t, 2, strings.Count(d.header.Get(webhook.HeaderSignature), "v1="), later)
		require.True(t, verifies(fresh, d), later)
		require.True(t, verifies(old, d), later)
		require.False(t, verifies("whsec_other", d), later)
	}
	// After it, only the new secret.
	ahead.Store(int64(webhook.SecretOverlap + time.Minute))
	d = test()
	require.Equal(t, 1, strings.Count(d.header.Get(webhook.HeaderSignature), "v1="))
	require.True(t, verifies(fresh, d))
	require.False(t, verifies(old, d))

	// Rotating again drops the oldest at once: the two latest sign.
	ahead.Store(0)
	r = b.do(t, http.MethodPost, "/webhooks/"+id+"/secret", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	third := details(r)["secret"].(string)
	d = test()
	require.True(t, verifies(third, d))
	require.True(t, verifies(fresh, d))
	require.False(t, verifies(old, d))

	// Admins only; a malformed or unknown id changes nothing.
	require.Equal(t, http.StatusForbidden, b.do(t, http.MethodPost, "/webhooks/"+id+"/secret", alice, nil).Status)
	r = b.do(t, http.MethodPost, "/webhooks/not-a-uuid/secret", root, nil)
	require.Equal(t, http.StatusBadRequest, r.Status, r.RawBody)
	require.Contains(t, r.RawBody, "path.id")
	require.Equal(t, http.StatusNotFound, b.do(t, http.MethodPost, "/webhooks/7e123b5b-bb91-41d6-afa5-6ffa224e0653/secret", root, nil).Status)
	d = test()
	require.True(t, verifies(third, d))
	require.True(t, verifies(fresh, d))
}

func TestWebhookInputsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t) // WEBHOOK_ALLOW_PRIVATE unset
	alice, bob, root := b.users(t)
	sup := b.issuer.token(t, "sue", "supervisor")
	hook := b.subscribe(t, root, map[string]any{"name": "CRM", "url": "https://crm.example.com/hooks", "events": []string{webhook.Validated}})
	id := hook["id"].(string)
	count := func() (n int) {
		require.NoError(t, b.pool.QueryRow(context.Background(),
			`SELECT count(*) FROM webhook_subscriptions WHERE name = 'CRM' AND url = 'https://crm.example.com/hooks' AND events = '{task.validated}'`).Scan(&n))
		var all int
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_subscriptions`).Scan(&all))
		return n*10 + all
	}
	before := count()
	good := func(change map[string]any) map[string]any {
		body := map[string]any{"name": "New", "url": "https://example.com/x", "events": []string{webhook.TaskAudited}}
		for k, v := range change {
			body[k] = v
		}
		return body
	}
	for _, c := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
		at     string
	}{
		{"ftp scheme", good(map[string]any{"url": "ftp://example.com/x"}), 400, CodeValidation, "body.url"},
		{"no scheme", good(map[string]any{"url": "example.com/x"}), 400, CodeValidation, "body.url"},
		{"no host", good(map[string]any{"url": "https:///x"}), 400, CodeValidation, "body.url"},
		{"user info", good(map[string]any{"url": "https://u:p@example.com/x"}), 400, CodeValidation, "body.url"},
		{"loopback", good(map[string]any{"url": "http://127.0.0.1:9000/x"}), 400, CodeValidation, "body.url"},
		{"localhost", good(map[string]any{"url": "http://localhost:9000/x"}), 400, CodeValidation, "body.url"},
		{"private", good(map[string]any{"url": "https://10.1.2.3/x"}), 400, CodeValidation, "body.url"},
		{"link-local", good(map[string]any{"url": "http://169.254.169.254/latest"}), 400, CodeValidation, "body.url"},
		{"IPv6 loopback", good(map[string]any{"url": "http://[::1]/x"}), 400, CodeValidation, "body.url"},
		{"unknown event", good(map[string]any{"events": []string{"task.exploded"}}), 400, CodeValidation, "body.events[0]"},
		{"no events", good(map[string]any{"events": []string{}}), 400, CodeValidation, "body.events"},
		{"repeated event", good(map[string]any{"events": []string{webhook.Validated, webhook.Validated}}), 400, CodeValidation, "body.events"},
		{"unknown campaign", good(map[string]any{"campaign": "Nope"}), 400, CodeValidation, "body.campaign"},
		{"unknown format", good(map[string]any{"format": "xml"}), 400, CodeValidation, "body.format"},
		{"name too long", good(map[string]any{"name": strings.Repeat("n", 81)}), 400, CodeValidation, "body.name"},
		{"blank name", good(map[string]any{"name": "   "}), 400, CodeValidation, "body.name"},
		{"duplicate name", good(map[string]any{"name": "crm"}), 409, CodeConflict, ""},
		{"no url", map[string]any{"name": "x", "events": []string{webhook.Validated}}, 400, CodeMissingFields, "body.url"},
		{"unknown field", good(map[string]any{"secret": "mine"}), 400, CodeValidation, "body.secret"},
	} {
		for _, op := range []struct{ method, path string }{{http.MethodPost, "/webhooks"}, {http.MethodPatch, "/webhooks/" + id}} {
			body := c.body
			if op.method == http.MethodPatch && (c.name == "no url" || c.name == "duplicate name") {
				continue // every field is optional when changing; its own name is no conflict (below)
			}
			r := b.json(t, op.method, op.path, root, body)
			requireError(t, r, c.status, c.code)
			if c.at != "" {
				require.Equal(t, c.at, detailsAt(r), "%s %s: %s", op.method, c.name, r.RawBody)
			}
			require.Equal(t, before, count(), "%s %s wrote something", op.method, c.name)
		}
	}
	// A PATCH to another's name conflicts too; one naming the subscription's own is fine.
	b.subscribe(t, root, map[string]any{"name": "Other", "url": "https://example.com/o", "events": []string{webhook.TaskAudited}})
	requireError(t, b.json(t, http.MethodPatch, "/webhooks/"+id, root, map[string]any{"name": "OTHER"}), 409, CodeConflict)
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/webhooks/"+id, root, map[string]any{"name": "CRM"}).Status)

	missing := "/webhooks/00000000-0000-4000-8000-000000000000"
	for _, op := range []struct{ method, path string }{
		{http.MethodGet, "/webhooks/%s"}, {http.MethodPatch, "/webhooks/%s"}, {http.MethodDelete, "/webhooks/%s"},
		{http.MethodGet, "/webhooks/%s/deliveries"}, {http.MethodPost, "/webhooks/%s/test"},
	} {
		body := map[string]any{"enabled": false}
		requireError(t, b.json(t, op.method, strings.Replace(op.path, "%s", "not-a-uuid", 1), root, body), 400, CodeValidation)
		requireError(t, b.json(t, op.method, strings.Replace(op.path, "/webhooks/%s", missing, 1), root, body), 404, CodeNotFound)
		for _, who := range []string{alice, bob, sup} {
			requireError(t, b.json(t, op.method, strings.Replace(op.path, "%s", id, 1), who, body), 403, CodeForbidden)
		}
	}
	for _, who := range []string{alice, bob, sup} {
		requireError(t, b.do(t, http.MethodGet, "/webhooks", who, nil), 403, CodeForbidden)
		requireError(t, b.json(t, http.MethodPost, "/webhooks", who, good(nil)), 403, CodeForbidden)
	}
	require.Equal(t, before+1, count()) // Other
	// Deleted, it is gone with its log.
	require.Equal(t, http.StatusOK, b.do(t, http.MethodDelete, "/webhooks/"+id, root, nil).Status)
	requireError(t, b.do(t, http.MethodGet, "/webhooks/"+id, root, nil), 404, CodeNotFound)
}

// The event types the API documents are the ones package webhook has.
func TestWebhookEventTypesDocumented(t *testing.T) {
	t.Parallel()
	b := setup(t)
	schema := b.server.OpenAPI().Components.Schemas.Map()
	for _, name := range []string{"CreateWebhookInputBody", "UpdateWebhookInputBody"} {
		s, ok := schema[name]
		require.True(t, ok, name)
		var enum []string
		for _, v := range s.Properties["events"].Items.Enum {
			enum = append(enum, v.(string))
		}
		require.Equal(t, webhook.Types(), enum, name)
	}
}

// TestWebhookTestDocumented: the OpenAPI document describes both answers of
// the "send test" operation, 200 with the attempt and 202 when the wait ran
// out, each with its envelope, beside its errors.
func TestWebhookTestDocumented(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, http.MethodGet, "/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	responses := r.Body["paths"].(map[string]any)["/webhooks/{id}/test"].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)
	for _, status := range []string{"200", "202", "400", "404"} {
		require.Contains(t, responses, status)
	}
	for _, status := range []string{"200", "202"} {
		schema := responses[status].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		require.Contains(t, schema["$ref"], "WebhookTest", status)
	}
}
