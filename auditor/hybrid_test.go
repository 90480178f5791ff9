package auditor_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/auditor/llm"
	"github.com/auditd/auditd/auditor/llm/llmtest"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// model is an OpenAI-compatible chat completions server on loopback that
// answers every criterion it is asked about as met, quoting quote, or
// with the status given.
type model struct {
	url    string
	mu     sync.Mutex
	bodies [][]byte
}

func newModel(t *testing.T, status int, quote string) *model {
	t.Helper()
	m := &model{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.bodies = append(m.bodies, body)
		m.mu.Unlock()
		if status != http.StatusOK {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error": {"message": "overloaded"}}`))
			return
		}
		out := map[string]any{}
		for _, id := range llmtest.Criteria(body) {
			out[id] = map[string]any{"complies": true, "explanation": "The agent apologised.", "evidence": quote}
		}
		content, _ := json.Marshal(out)
		_, _ = w.Write(llmtest.Completion(string(content)))
	}))
	t.Cleanup(srv.Close)
	m.url = srv.URL
	return m
}

func (m *model) requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies...)
}

func (m *model) hybrid(t *testing.T) *auditor.Hybrid {
	t.Helper()
	a, err := llm.New(llm.Config{BaseURL: m.url, Model: "judge", Attempts: 2})
	require.NoError(t, err)
	return auditor.NewHybrid(a, 0.8)
}

// threeCriteria: a greeting the rules find, empathy they are unsure of
// when nothing is said, and respect they are sure of.
func threeCriteria() scoring.Scorecard {
	c := func(id, question, rule string) scoring.Criterion {
		return scoring.Criterion{ID: id, Category: "SKILLS", Question: question, Weight: 1, AppliesTo: scoring.Both,
			Rule: json.RawMessage(rule)}
	}
	return scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{
		c("greeting", "Did the agent greet?", `{"any": ["hello"], "speaker": "agent"}`),
		c("empathy", "Did the agent show empathy?", `{"any": ["sorry"], "speaker": "agent", "absence_confidence": 0.5}`),
		c("respect", "Was the agent respectful?", `{"none": ["idiot"], "speaker": "agent", "absence_confidence": 0.9}`),
	}}
}

func chatOf(lines ...string) transcript.Transcript {
	var t transcript.Transcript
	for i, l := range lines {
		speaker := transcript.Agent
		if i%2 == 1 {
			speaker = transcript.Customer
		}
		t.Segments = append(t.Segments, transcript.Segment{Speaker: speaker, Text: l})
	}
	return t
}

func TestHybridAsksOnlyAboutWhatTheRulesAreUnsureOf(t *testing.T) {
	t.Parallel()
	m := newModel(t, http.StatusOK, "That must be awful")
	h := m.hybrid(t)
	require.Equal(t, "hybrid:judge", h.Name())
	require.Equal(t, 2*2*time.Minute, h.MaxDuration(), "the model's bound: its attempts × LLM_TIMEOUT")

	chat := chatOf("Hello, how can I help?", "My flat flooded.", "That must be awful. I have booked a plumber.")
	vs, err := h.Audit(context.Background(), threeCriteria(), scoring.Chat, chat, "en")
	require.NoError(t, err)
	reqs := m.requests()
	require.Len(t, reqs, 1)
	require.Equal(t, []string{"empathy"}, llmtest.Criteria(reqs[0]), "only the unsure criterion, fewer tokens")
	require.Contains(t, string(reqs[0]), "Did the agent show empathy?")
	require.NotContains(t, string(reqs[0]), "Did the agent greet?")

	require.Equal(t, []string{"greeting", "empathy", "respect"}, []string{vs[0].CriterionID, vs[1].CriterionID, vs[2].CriterionID},
		"in scorecard order")
	require.Equal(t, scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.95}, vs[0].Assessment, "the rules' verdict")
	require.Equal(t, scoring.Verdict{CriterionID: "empathy", Complies: true, Explanation: "The agent apologised.",
		Evidence:   "That must be awful",
		Assessment: scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: llm.ConfidenceEvidence}}, vs[1], "the model's verdict")
	require.Equal(t, scoring.BasisAbsence, vs[2].Basis, "the rules were sure: kept")

	// When the rules are sure of everything, the model is not asked.
	vs, err = h.Audit(context.Background(), threeCriteria(), scoring.Chat, chatOf("Hello, so sorry to hear that."), "en")
	require.NoError(t, err)
	require.Len(t, m.requests(), 1)
	require.True(t, vs[1].Complies)
}

func TestHybridKeepsTheModelsErrors(t *testing.T) {
	t.Parallel()
	chat := chatOf("Hello.")

	_, err := newModel(t, http.StatusServiceUnavailable, "").hybrid(t).Audit(context.Background(), threeCriteria(), scoring.Chat, chat, "en")
	var later interface{ RetryDelay() time.Duration }
	require.ErrorAs(t, err, &later, "a server down is retried later, as with the llm engine")

	bad := newModel(t, http.StatusOK, "words nobody said")
	_, err = bad.hybrid(t).Audit(context.Background(), threeCriteria(), scoring.Chat, chat, "en")
	var final interface{ Permanent() bool }
	require.ErrorAs(t, err, &final)
	require.True(t, final.Permanent(), "an answer that quotes nothing said is refused, never stored")
	require.Len(t, bad.requests(), 2, "asked again with the problems, up to its attempts")
	require.ErrorContains(t, err, "is not in the transcript")
}
