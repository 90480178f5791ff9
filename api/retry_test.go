package api

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/workers"
	"github.com/auditd/auditd/workers/asr"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// TestTranscriptionRetryShownLive: while a speech server fails a call
// (503, then 429 with Retry-After, then an answer), the task tells analysts
// the attempts so far, why the last did not finish in words of ours (the
// server's explanation without its address) and when the next attempt is
// due, which is when River runs it; each change arrives as a task.updated
// event. The agent is told none of it, neither in the task nor in the
// events; once transcribed, the retry state is gone.
func TestTranscriptionRetryShownLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	// The second request waits for the test to look, then is told to wait.
	release := make(chan struct{})
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	var answered atomic.Int32
	server := asrtest.NewServerFunc(t, func(asrtest.Upload) asrtest.Answer {
		if answered.Add(1) > 1 {
			return asrtest.Answer{Status: http.StatusOK, Body: asrtest.Transcript}
		}
		<-release
		return asrtest.Answer{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"},
			Body: `{"error":{"message":"Rate limit reached for whisper-1"}}`}
	}, asrtest.Answer{Status: http.StatusServiceUnavailable, Body: `{"error":{"message":"Overloaded: see http://admin:hunter2@10.0.0.7:9000/status"}}`})
	engine, err := asr.NewOpenAI(asr.OpenAIConfig{BaseURL: server.URL, APIKey: "sk-secret", Model: "whisper-1"})
	require.NoError(t, err)
	alice := b.issuer.token(t, "alice", "quality")
	ana := b.issuer.claims("sub-ana")
	ana["preferred_username"], ana["roles"] = "ana", []string{"operator"}
	anaToken := b.issuer.sign(t, ana)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", anaToken, nil).Status)
	analystEvents, agentEvents := b.stream(t, alice), b.stream(t, anaToken)

	b.startWorkersWith(t, workers.Deps{Transcribe: workers.TranscribeConfig{Engine: engine},
		Backoff: workers.Backoff{Max: 2 * time.Second}}, func(c *river.Config) {
		c.RetryPolicy = workers.Backoff{Max: 2 * time.Second}
		c.Queues[jobs.QueueMedia] = river.QueueConfig{MaxWorkers: 1}
	})
	t.Cleanup(let) // before the workers stop, which wait for the request
	id := uploaded(t, b.upload(t, alice, field("language", "en"), field("operator", "ana"),
		file("call.wav", tone(t, "c.wav", 440, 2))))[0]["uuid"].(string)

	// The second request has arrived, unanswered: the first attempt's
	// failure is on the task, due when River ran it again.
	require.Equal(t, 1, server.Arrived(t))
	require.Equal(t, 2, server.Arrived(t))
	view := func(token string) map[string]any { return details(b.do(t, http.MethodGet, "/tasks/"+id, token, nil)) }
	retry := view(alice)["retry"].(map[string]any)
	require.Equal(t, map[string]any{"attempt": 1.0, "max_attempts": 5.0, "reason": "server_error",
		"error":           "the speech server answered 503 Service Unavailable: Overloaded: see (an address)",
		"next_attempt_at": retry["next_attempt_at"]}, retry)
	var scheduled time.Time
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT scheduled_at FROM river_job WHERE kind = 'transcribe'`).Scan(&scheduled))
	due, err := time.Parse(time.RFC3339Nano, retry["next_attempt_at"].(string))
	require.NoError(t, err)
	require.True(t, due.Equal(scheduled), "the task says %s, River ran it at %s", due, scheduled)
	require.NotContains(t, view(anaToken), "retry", "not shown to the agent")
	let()

	b.waitStatus(t, alice, id, "audited")
	require.NotContains(t, view(alice), "retry", "gone once transcribed")

	// Live: the analyst was sent each retry, the agent none.
	var reasons []string
	for ev := range eventsUntil(t, analystEvents, id, "audited") {
		if r, ok := ev["retry"].(map[string]any); ok {
			reasons = append(reasons, r["reason"].(string)+": "+r["error"].(string))
		}
	}
	require.Equal(t, []string{
		"server_error: the speech server answered 503 Service Unavailable: Overloaded: see (an address)",
		"busy: the speech server is busy (429 Too Many Requests): Rate limit reached for whisper-1",
	}, reasons)
	for ev := range eventsUntil(t, agentEvents, id, "audited") {
		require.NotContains(t, ev, "retry")
	}
}

// eventsUntil yields the data of c's task.updated events about task id
// until one says it is status.
func eventsUntil(t *testing.T, c *sseClient, id, status string) func(func(map[string]any) bool) {
	return func(yield func(map[string]any) bool) {
		for {
			ev := c.next(t)
			if ev.Type != "task.updated" || ev.Data["uuid"] != id {
				continue
			}
			if !yield(ev.Data) || ev.Data["status"] == status {
				return
			}
		}
	}
}
