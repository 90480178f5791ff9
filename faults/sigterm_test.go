//go:build faults

package faults

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
)

// SIGTERM to a process that serves and works, under load: requests in
// flight are answered, transcriptions in flight are handed back (without
// using up an attempt), the process exits cleanly, nothing is half-written,
// and the next process finishes the work.
func TestStopUnderLoad(t *testing.T) {
	t.Parallel()
	// Transcriptions take longer than the stop allows: they are in flight
	// when the signal comes, and must be handed back.
	ai := newFakeAI(t, func(kind string, _ int) reply {
		if kind == "asr" {
			return reply{delay: time.Hour}
		}
		return reply{}
	})
	s := newStack(t, dbtest.URL(t), time.Minute, append(engines(ai), "AUDITOR_ENGINE=rules",
		"TRANSCRIBE_CONCURRENCY=2", "SHUTDOWN_TIMEOUT=6s")...)
	first := s.start("all")
	files := newContent(t)

	// Four clients upload calls and chats until the server goes away.
	var mu sync.Mutex
	var accepted []string
	var afterStop int // uploads refused at connect once the server stopped listening
	// Uploads that got no answer: sent as the server closed its listener
	// or an idle connection, never read (their file names, which are unique).
	var unanswered []string
	var failures []error
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			for n := c; ; n += 4 {
				name, data := fmt.Sprintf("chat-%d.txt", n), files.chat(n)
				if n%2 == 0 {
					name, data = fmt.Sprintf("call-%d.wav", n), files.call(n)
				}
				r, err := s.upload(name, data)
				mu.Lock()
				switch {
				case errors.Is(err, syscall.ECONNREFUSED):
					afterStop++
				case err != nil:
					unanswered = append(unanswered, name)
				case r.Status == http.StatusAccepted:
					accepted = append(accepted, r.Body["details"].(map[string]any)["tasks"].([]any)[0].(map[string]any)["uuid"].(string))
				default:
					failures = append(failures, fmt.Errorf("upload %d: %d %v", n, r.Status, r.Body))
				}
				mu.Unlock()
				if errors.Is(err, syscall.ECONNREFUSED) {
					return
				}
			}
		})
	}

	awaitRequest(t, ai, "asr")
	awaitRequest(t, ai, "asr") // both transcription slots busy
	first.Stop(t)              // SIGTERM; requires a clean exit
	wg.Wait()
	require.Empty(t, failures)
	require.Equal(t, 4, afterStop, "each client stopped at a closed port")
	// A request the server took was answered: one that was not left nothing.
	for _, name := range unanswered {
		require.Equal(t, 0, s.count(`SELECT count(*) FROM tasks WHERE file_name = $1`, name),
			"%s was taken by the server but never answered", name)
	}
	require.Equal(t, 0, s.count(`SELECT count(*) FROM river_job WHERE state = 'running'`), "no job left running")
	handedBack := s.count(`SELECT count(*) FROM river_job 
		WHERE kind = 'transcribe' AND state <> 'completed' AND attempted_at IS NOT NULL AND errors IS NULL`)
	require.GreaterOrEqual(t, handedBack, 2, "the transcriptions in flight were handed back without using an attempt")

	// The next process finishes everything, once.
	ai.setAnswer(func(string, int) reply { return reply{} })
	second := s.start("all")
	s.await(2*time.Minute, func() bool {
		return s.count(`SELECT count(*) FROM tasks WHERE status = 'audited'`) == len(accepted)
	}, "every accepted upload audited")
	second.Stop(t)
	s.requireNoLoss(accepted, "audited")
	t.Logf("REPORT SIGTERM under load: %d uploads accepted and answered, %d sent as it closed and never read (nothing stored), %d transcriptions handed back, all audited once by the next process",
		len(accepted), len(unanswered), handedBack)
}
