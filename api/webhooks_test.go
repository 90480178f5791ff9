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

// verifySignature is the receiver's check of docs/api.md#webhooks: the
// signature of t.body with the secret, sent within tolerance of now.
func verifySignature(secret, header string, body []byte, now time.Time, tolerance time.Duration) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(unix, 0)).Abs() > tolerance {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	got, err := hex.DecodeString(sig)
	return err == nil && hmac.Equal(got, mac.Sum(nil))
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
	b := setup(t, setupOpts{webhookAllowPrivate: true})
	_, _, root := b.users(t)
	url, got := receiver(t, nil, func(int64) int { return http.StatusNoContent })
	hook := b.subscribe(t, root, map[string]any{"name": "QA system", "url": url,
		"events": []string{webhook.TaskAudited, webhook.CriticalFailure}})
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

	// The audit's one delivery went to the one subscription that takes it:
	// nothing else arrived (the test came after it).
	select {
	case extra := <-got:
		t.Fatalf("unexpected delivery %s", extra.body)
	default:
	}
	var jobs int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'deliver_webhook'`).Scan(&jobs))
	require.Equal(t, 2, jobs)
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
