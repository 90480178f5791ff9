//go:build faults

package faults

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
)

// The speech and language servers slow, failing with 5xx or answering
// garbage: the task's job retries what may pass (or fails at once what
// cannot), then the task fails with an error that says what happened;
// nothing hangs, and nothing the server said is stored.
func TestEngineFaults(t *testing.T) {
	t.Parallel()
	unavailable := reply{status: http.StatusServiceUnavailable, body: `{"error":{"message":"overloaded"}}`}
	cases := []struct {
		name string
		// engine is the faulty one: asr (a call is uploaded) or llm (a chat).
		engine   string
		answer   reply
		settings []string
		// wantError is in the failed task's error.
		wantError string
		// requests is how many the engine gets: River's attempts (5), the
		// audit's snoozes for a server that asks to wait (10), the LLM
		// auditor's re-asks of a model that answered nonsense (3).
		requests int
	}{
		{name: "speech server failing", engine: "asr", answer: unavailable, wantError: "503", requests: 5},
		{name: "speech server slow", engine: "asr", answer: reply{delay: time.Minute},
			settings: []string{"TRANSCRIBE_TIMEOUT_MAX=12s", "JOB_RESCUE_AFTER=20s"}, wantError: "timed out", requests: 5},
		{name: "speech server talking nonsense", engine: "asr", answer: reply{status: http.StatusOK, body: "<html>Welcome to nginx!</html>"},
			wantError: "not a JSON transcript", requests: 5},
		{name: "language model failing", engine: "llm", answer: unavailable, wantError: "503", requests: 15},
		{name: "language model slow", engine: "llm", answer: reply{delay: time.Minute},
			settings: []string{"LLM_TIMEOUT=1s"}, wantError: "no answer within 1s", requests: 15},
		{name: "language model talking nonsense", engine: "llm", answer: reply{status: http.StatusOK,
			body: `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The agent was great."}}]}`},
			wantError: "no valid answer", requests: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ai := newFakeAI(t, func(kind string, _ int) reply {
				if kind == tc.engine {
					return tc.answer
				}
				return reply{}
			})
			s := newStack(t, dbtest.URL(t), time.Minute, append(append(engines(ai), "JOB_RETRY_MAX_DELAY=1s"), tc.settings...)...)
			s.start("all")
			files := newContent(t)
			name, data := "chat.txt", files.chat(1)
			if tc.engine == "asr" {
				name, data = "call.wav", files.call(1)
			}
			r, err := s.upload(name, data)
			require.NoError(t, err)
			uuid := uploaded(t, r)

			s.await(4*time.Minute, func() bool {
				return s.count(`SELECT count(*) FROM tasks WHERE status = 'failed'`) == 1
			}, "the task failed")
			task, err := s.request(http.MethodGet, "/tasks/"+uuid, "", nil)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, task.Status)
			details := task.Body["details"].(map[string]any)
			require.Equal(t, "failed", details["status"])
			require.Contains(t, details["error"], tc.wantError)
			require.Equal(t, tc.requests, ai.requests(tc.engine))
			require.Equal(t, 0, s.count(`SELECT count(*) FROM audit_revisions`), "no audit stored")
			if tc.engine == "asr" {
				require.Equal(t, 0, s.count(`SELECT count(*) FROM transcripts`), "no transcript stored")
			}
			// The uploader is told.
			require.Equal(t, 1, s.count(`SELECT count(*) FROM notifications WHERE user_id = 'qa-admin' AND variant = 'error' AND task_uuid = $1`, uuid))
			t.Logf("REPORT %s: %d requests, then failed: %s", tc.name, ai.requests(tc.engine), details["error"])
		})
	}
}
