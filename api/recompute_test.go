package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/auditor/llm"
	"github.com/auditd/auditd/auditor/llm/llmtest"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/workers"
)

// modelServer is an OpenAI-compatible chat completions server on loopback
// that judges every criterion its request's schema asks for, as not met.
// Before answering it consults gate with the request's context and number
// (from 1): 0 to answer, an error status to answer with instead, or -1 to
// drop the request (a gate may block until the client gives up).
type modelServer struct {
	URL string

	mu       sync.Mutex
	gate     func(ctx context.Context, n int) int
	asked    [][]string // the criterion ids of each request
	answered int
}

func newModelServer(t *testing.T, gate func(ctx context.Context, n int) int) *modelServer {
	t.Helper()
	m := &modelServer{gate: gate}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		ids := llmtest.Criteria(raw)
		if ids == nil {
			http.Error(w, "not an audit request", http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.asked = append(m.asked, ids)
		gate, n := m.gate, len(m.asked)
		m.mu.Unlock()
		switch status := gate(r.Context(), n); {
		case status < 0:
			return
		case status > 0:
			w.Header().Set("Retry-After-Ms", "20")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":"scripted failure %d"}}`, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(llmtest.Verdicts(ids, false, "No consta en la conversación."))
		m.mu.Lock()
		m.answered++
		m.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

func (m *modelServer) counts() (asked [][]string, answered int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]string(nil), m.asked...), m.answered
}

func (m *modelServer) auditor(t *testing.T) *llm.Auditor {
	t.Helper()
	a, err := llm.New(llm.Config{BaseURL: m.URL, Model: "fake-judge"})
	require.NoError(t, err)
	return a
}

func TestRecomputeAuditsResumesAfterBeingKilled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	var chats []part
	for i := range 7 {
		chats = append(chats, file(fmt.Sprintf("chat%d.txt", i), []byte(goodChat+fmt.Sprintf("Cliente: Referencia %d.\n", i))))
	}
	t.Run("audited by the rules engine", func(t *testing.T) {
		b.startWorkers(t, workers.Deps{})
		b.audited(t, alice, chats...)
	})

	// Version 2 adds a criterion the current audits have no verdict for:
	// the recomputation asks the model for it, and only for it.
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	criteria := append(card.Criteria, scoring.Criterion{ID: "callback", Category: "CLOSING", Question: "¿Ofreció devolver la llamada?",
		Weight: 10, AppliesTo: scoring.Both, Rule: json.RawMessage(`{"any": ["le llamaremos"]}`)})
	r := b.json(t, http.MethodPut, "/campaigns/"+campaignID(t, b, alice)+"/scorecard", sue, map[string]any{"criteria": criteria})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	jobID := int64(details(r)["recompute_job_id"].(float64))

	// The model answers three requests and hangs on the fourth: in batches
	// of two, the first two tasks commit and the second batch never does.
	model := newModelServer(t, func(ctx context.Context, n int) int {
		if n == 4 {
			<-ctx.Done()
			return -1
		}
		return 0
	})
	deps := workers.Deps{Auditor: model.auditor(t), RecomputeBatch: 2, RecomputeNotifyEvery: 2}
	first := b.workerClient(t, deps, nil)
	require.NoError(t, first.Start(context.Background()))
	progress := func() workers.RecomputeProgress {
		var raw []byte
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT COALESCE(metadata->'output', '{}') FROM river_job WHERE id = $1`, jobID).Scan(&raw))
		var p workers.RecomputeProgress
		require.NoError(t, json.Unmarshal(raw, &p))
		return p
	}
	require.Eventually(t, func() bool {
		asked, _ := model.counts()
		return progress().Rescored == 2 && len(asked) == 4
	}, 30*time.Second, 10*time.Millisecond)

	// Killed mid-batch: the batch in progress is lost, the first is kept.
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, first.StopAndCancel(stopCtx))
	p := progress()
	require.False(t, p.Done)
	require.Equal(t, 7, p.Total)
	require.Equal(t, 2, p.Rescored)
	require.NotEmpty(t, p.After)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM audit_revisions WHERE source = 'recompute'`))

	// Started again, it carries on from there.
	b.startWorkers(t, deps)
	require.Eventually(t, func() bool { return progress().Done }, 60*time.Second, 20*time.Millisecond)
	p = progress()
	require.Equal(t, 7, p.Rescored)
	require.Zero(t, p.Failed)
	require.Equal(t, 7, b.count(t, `SELECT count(*) FROM audit_revisions WHERE source = 'recompute' AND scorecard_version = 2`))
	require.Equal(t, 7, b.count(t, `SELECT count(DISTINCT task_uuid) FROM audit_revisions WHERE source = 'recompute' AND scorecard_version = 2`),
		"every task exactly one recomputation")
	require.Zero(t, b.count(t, `SELECT count(*) FROM tasks t JOIN audit_revisions a ON a.task_uuid = t.uuid AND a.revision = t.audit_revision
		WHERE a.scorecard_version <> 2`), "every audit is current")

	// Asked for the two committed tasks once, for the two of the lost
	// batch twice, and for the other three once: nothing committed was
	// redone.
	asked, answered := model.counts()
	require.Len(t, asked, 9)
	require.Equal(t, 8, answered)
	for _, ids := range asked {
		require.Equal(t, []string{"callback"}, ids, "the model judges only the new criterion")
	}
	task := details(b.do(t, http.MethodGet, "/tasks?sort=file_name&order=asc&limit=1", alice, nil))["tasks"].([]any)[0].(map[string]any)
	audit := details(b.do(t, http.MethodGet, "/tasks/"+task["uuid"].(string), alice, nil))["audit"].(map[string]any)
	require.Equal(t, "No consta en la conversación.", auditItem(t, audit, "callback")["explanation"])
	require.Equal(t, 90.0, audit["score"], "90 of 100")

	// The publisher heard the progress and the end.
	var told []string
	for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", sue, nil)) {
		told = append(told, n["text"].(string))
	}
	require.Contains(t, told, "Recomputing the audits of campaign default against scorecard version 2: 2 of 7 done.")
	require.Contains(t, told, "The audits of campaign default were recomputed against scorecard version 2: 7 re-scored.")
}

func TestLLMAuditorInThePipeline(t *testing.T) {
	t.Parallel()

	t.Run("rate limited, then audited", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		alice, _, _ := b.users(t)
		model := newModelServer(t, func(_ context.Context, n int) int {
			if n == 1 {
				return http.StatusTooManyRequests
			}
			return 0
		})
		b.startWorkers(t, workers.Deps{Auditor: model.auditor(t)})
		task := b.audited(t, alice, file("good.txt", []byte(goodChat)))[0]
		audit := task["audit"].(map[string]any)
		require.Equal(t, "llm:fake-judge", audit["engine"])
		require.Equal(t, float64(0), audit["score"])
		require.Equal(t, 1, b.count(t, `SELECT (metadata->>'auditd_snoozes')::int FROM river_job WHERE kind = 'audit'`),
			"the job waited once as the server asked, without using an attempt")
		require.Equal(t, 1, b.count(t, `SELECT attempt FROM river_job WHERE kind = 'audit'`))
	})

	t.Run("a server error, then audited", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		alice, _, _ := b.users(t)
		model := newModelServer(t, func(_ context.Context, n int) int {
			if n == 1 {
				return http.StatusBadGateway
			}
			return 0
		})
		b.startWorkers(t, workers.Deps{Auditor: model.auditor(t)})
		b.audited(t, alice, file("good.txt", []byte(goodChat)))
		asked, answered := model.counts()
		require.Len(t, asked, 2)
		require.Equal(t, 1, answered)
	})

	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		alice, _, _ := b.users(t)
		var mended atomic.Bool
		model := newModelServer(t, func(context.Context, int) int {
			if mended.Load() {
				return 0
			}
			return http.StatusBadRequest
		})
		b.startWorkers(t, workers.Deps{Auditor: model.auditor(t)})
		task := uploaded(t, b.upload(t, alice, file("good.txt", []byte(goodChat))))[0]
		d := b.waitStatus(t, alice, task["uuid"].(string), "failed")
		require.Equal(t, "failed", d["status"])
		require.Contains(t, d["error"], "audit: llm: 400 Bad Request: scripted failure 400")
		require.Nil(t, d["audit"], "nothing stored")
		asked, _ := model.counts()
		require.Len(t, asked, 1, "a 400 is not retried")
		var told []string
		for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", alice, nil)) {
			told = append(told, n["text"].(string))
		}
		require.True(t, strings.HasPrefix(told[0], "The audit of good.txt failed: llm: 400"), told)

		// Once the model is mended, an admin retries the finished job (as
		// River UI does): the task is retried with it, and audited.
		mended.Store(true)
		var job int64
		require.Eventually(t, func() bool {
			return b.pool.QueryRow(t.Context(), `SELECT id FROM river_job WHERE kind = 'audit' AND finalized_at IS NOT NULL`).Scan(&job) == nil
		}, 10*time.Second, 20*time.Millisecond, "River records the job's end")
		root := b.issuer.token(t, "root", "admin")
		require.Equal(t, http.StatusOK, b.do(t, http.MethodPost, fmt.Sprintf("/admin/jobs/%d/retry", job), root, nil).Status)
		require.Eventually(t, func() bool {
			return details(b.do(t, http.MethodGet, "/tasks/"+task["uuid"].(string), alice, nil))["status"] == "audited"
		}, 30*time.Second, 20*time.Millisecond, "the task moves on")
	})
}

// TestHybridAuditorInThePipeline: a chat audited through the API and the
// workers by the rules, with only the criteria they are unsure of sent to
// a model on loopback.
func TestHybridAuditorInThePipeline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	model := newModelServer(t, func(context.Context, int) int { return 0 })
	// 0.9: the table is sure of most of this short chat; resolution, the
	// answer to a question with no phrase of its own, it is not.
	b.startWorkers(t, workers.Deps{Auditor: auditor.NewHybrid(model.auditor(t), 0.9), ReviewConfidence: 0.9})
	chat := "Agente: Hola, soy Marta.\nCliente: ¿A qué hora abren el sábado?\nAgente: Abrimos a las nueve.\nCliente: Gracias, adiós.\n"
	task := b.audited(t, alice, file("horario.txt", []byte(chat)))[0]
	audit := task["audit"].(map[string]any)
	require.Equal(t, "hybrid:fake-judge", audit["engine"])

	asked, answered := model.counts()
	require.Len(t, asked, 1, "one request for the whole audit")
	require.Equal(t, 1, answered)
	items := audit["items"].([]any)
	require.Less(t, len(asked[0]), len(items), "the criteria the rules were sure of were not sent")
	for _, raw := range items {
		it := raw.(map[string]any)
		id := it["criterion_id"].(string)
		if slices.Contains(asked[0], id) {
			require.Equal(t, "No consta en la conversación.", it["explanation"], id)
			require.Equal(t, llm.ConfidenceAbsence, it["confidence"], id)
			continue
		}
		require.GreaterOrEqual(t, it["confidence"], 0.9, "%s was the rules' to decide", id)
		require.NotEqual(t, true, it["needs_review"], id)
	}
}
