//go:build faults

package faults

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

// kills is how many times TestWorkersKilledUnderLoad kills a worker.
const kills = 20

// Worker processes killed with SIGKILL twenty times in a row, each in the
// middle of a transcription, an audit or an e-mail, while uploads and
// validations go on: every task ends audited exactly once (one transition,
// one engine revision, one transcript) and validated, and every validation
// e-mail goes out at least once. E-mails a killed worker had handed over
// before it died go out again with the same Message-ID: they are counted
// and reported.
func TestWorkersKilledUnderLoad(t *testing.T) {
	t.Parallel()
	// Every engine request takes a moment: the kill lands while it runs.
	ai := newFakeAI(t, func(string, int) reply { return reply{delay: 300 * time.Millisecond} })
	mailServer := smtptest.New(t)
	s := newStack(t, dbtest.URL(t), time.Minute, append(engines(ai), "SMTP_URL="+mailServer.URL,
		"WORKER_CONCURRENCY=4", "TRANSCRIBE_CONCURRENCY=2",
		// A dead worker's jobs are rescued after 25 s (audits: the LLM's 3 × 3 s
		// and 30 s) and retried at most 1 s later.
		"TRANSCRIBE_TIMEOUT_MAX=20s", "JOB_RESCUE_AFTER=25s", "JOB_RETRY_MAX_DELAY=1s",
		"LLM_TIMEOUT=3s", "MAIL_TIMEOUT=5s")...)
	s.start("serve")
	files := newContent(t)

	var uuids []string
	isCall := map[string]bool{}
	upload := func(n int) {
		name, data := fmt.Sprintf("chat-%d.txt", n), files.chat(n)
		if n%2 == 0 {
			name, data = fmt.Sprintf("call-%d.wav", n), files.call(n)
		}
		r, err := s.upload(name, data)
		require.NoError(t, err)
		uuid := uploaded(t, r)
		uuids = append(uuids, uuid)
		isCall[uuid] = n%2 == 0
	}

	// An analyst validates every task once it is audited.
	stop := make(chan struct{})
	validatorDone := s.background(func() error { return validateAudited(s, stop) })

	// The kills: each waits for work of its kind to be under way.
	killed := map[string]int{}
	for i := range kills {
		upload(2 * i)
		upload(2*i + 1)
		drain(ai.arrived)
		drain(mailServer.Received())
		kind := []string{"transcription", "audit", "e-mail"}[i%3]
		if kind == "e-mail" {
			mailServer.HoldReplies() // the server has the message; the worker never hears so
		}
		w := s.start("work")
		switch kind {
		case "e-mail":
			select {
			case <-mailServer.Received():
			case <-time.After(2 * time.Minute):
				t.Fatalf("kill %d: no e-mail was sent within 2 minutes", i+1)
			}
		default:
			awaitRequest(t, ai, map[string]string{"transcription": "asr", "audit": "llm"}[kind])
		}
		w.Kill(t)
		mailServer.Release()
		killed[kind]++
	}

	// One worker that is left alone finishes everything.
	final := s.start("work")
	total := len(uuids)
	s.await(2*time.Minute, func() bool {
		return s.count(`SELECT count(*) FROM validations WHERE email_status = 'sent'`) == total
	}, "every validation e-mail sent")
	close(stop)
	require.NoError(t, <-validatorDone)
	final.Stop(t)

	s.requireNoLoss(uuids, "validated")
	require.Equal(t, total, s.count(`SELECT count(*) FROM validations`))
	ids := mailServer.MessageIDs()
	require.Len(t, ids, total, "one distinct e-mail per validation")
	for _, id := range ids {
		uuid := strings.TrimSuffix(strings.TrimPrefix(strings.Trim(id, "<>"), "validation-"), "@"+strings.Split(s.addr, ":")[0])
		require.Contains(t, uuids, uuid, "e-mail %s is for no task", id)
	}
	duplicates := len(mailServer.Messages()) - len(ids)
	rescued := s.count(`SELECT count(*) FROM river_job WHERE kind IN ('transcribe', 'audit', 'send_validation_email') AND attempt > 1`)
	t.Logf("REPORT kills: %d (%v); tasks: %d (%d calls), each audited once; e-mails: %d sent for %d validations, %d duplicates; jobs run more than once: %d",
		kills, killed, total, total/2, len(mailServer.Messages()), total, duplicates, rescued)
}

// validateAudited validates every audited task until stop, as an analyst
// would, and returns the first unexpected answer.
func validateAudited(s *stack, stop <-chan struct{}) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		rows, err := s.pool.Query(context.Background(), `SELECT uuid::text, kind = 'call' FROM tasks WHERE status = 'audited'`)
		if err != nil {
			return err
		}
		type task struct {
			UUID   string
			IsCall bool
		}
		tasks, err := pgx.CollectRows(rows, pgx.RowToStructByPos[task])
		if err != nil {
			return err
		}
		for _, task := range tasks {
			r, err := s.validate(task.UUID, task.IsCall)
			if err != nil {
				return err
			}
			if r.Status != http.StatusOK {
				return fmt.Errorf("validate %s: %d %v", task.UUID, r.Status, r.Body)
			}
		}
	}
}

// awaitRequest waits for the next request of kind (asr, llm) at the fake.
func awaitRequest(t *testing.T, ai *fakeAI, kind string) {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case k := <-ai.arrived:
			if k == kind {
				return
			}
		case <-timeout:
			t.Fatalf("no %s request within 2 minutes", kind)
		}
	}
}

// drain empties a channel of announcements from earlier processes.
func drain[T any](c <-chan T) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}
