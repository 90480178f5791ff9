package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/llm"
	"github.com/auditd/auditd/auditor/llm/llmtest"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers"
)

// reply is one scripted answer of the fake server.
type reply struct {
	status int
	header map[string]string
	body   string
}

// fakeLLM is an OpenAI-compatible chat completions server on loopback that
// answers with scripted replies in order (the last one repeats) and keeps
// every request it got.
type fakeLLM struct {
	url string

	mu       sync.Mutex
	replies  []reply
	requests []seen
}

type seen struct {
	path, auth string
	body       map[string]any
}

func newFakeLLM(t *testing.T, replies ...reply) *fakeLLM {
	t.Helper()
	f := &fakeLLM{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s := seen{path: r.URL.Path, auth: r.Header.Get("Authorization")}
		_ = json.Unmarshal(raw, &s.body)
		f.mu.Lock()
		f.requests = append(f.requests, s)
		rep := f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
		f.mu.Unlock()
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// script replaces the replies still to come.
func (f *fakeLLM) script(replies ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = replies
}

func (f *fakeLLM) seen() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.requests...)
}

// completion is a chat completion whose message is content.
func completion(content string) reply {
	return reply{status: http.StatusOK, body: string(llmtest.Completion(content))}
}

// verdictsJSON answers every id as complying, with the evidence given for
// some (else empty); skip leaves ids out.
func verdictsJSON(ids []string, evidence map[string]string, skip ...string) string {
	out := map[string]any{}
	for _, id := range ids {
		if slices.Contains(skip, id) {
			continue
		}
		out[id] = map[string]any{"complies": true, "explanation": "Cumple: " + id, "evidence": evidence[id]}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

const chat = `Agente: Buenos dias, gracias por contactar con Telecable, le atiende Marta.
Cliente: Hola, me han cobrado dos veces la factura de este mes.
Agente: Vaya, lo siento mucho, entiendo su preocupacion. Para ayudarle, me indica su DNI?
Cliente: Si, 53210987K.
Agente: Gracias. Ya esta solucionado, le devolvemos el importe en 48 horas.
Agente: Hay algo mas en lo que pueda ayudarle?
Cliente: No, nada mas.
Agente: Gracias a usted, que tenga un buen dia.
`

type testBundle struct {
	card     scoring.Scorecard
	ids      []string // the criteria that apply to a chat
	chat     transcript.Transcript
	fake     *fakeLLM
	auditor  *llm.Auditor
	evidence map[string]string
}

func setup(t *testing.T, config llm.Config, replies ...reply) *testBundle {
	t.Helper()
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	tr, _, err := transcript.ParseChat([]byte(chat))
	require.NoError(t, err)
	b := &testBundle{card: card, chat: tr,
		evidence: map[string]string{"greeting": "buenos días, gracias por contactar con Telecable, le atiende Marta"}}
	for _, c := range card.Applicable(scoring.Chat) {
		b.ids = append(b.ids, c.ID)
	}
	if len(replies) == 0 {
		replies = []reply{completion(verdictsJSON(b.ids, b.evidence))}
	}
	b.fake = newFakeLLM(t, replies...)
	config.BaseURL = b.fake.url
	if config.Model == "" {
		config.Model = "test-model"
	}
	b.auditor, err = llm.New(config)
	require.NoError(t, err)
	return b
}

func (b *testBundle) audit(t *testing.T) ([]scoring.Verdict, error) {
	t.Helper()
	return b.auditor.Audit(context.Background(), b.card, scoring.Chat, b.chat, "es")
}

// messages returns the messages of request i.
func (b *testBundle) messages(t *testing.T, i int) []map[string]any {
	t.Helper()
	reqs := b.fake.seen()
	require.Greater(t, len(reqs), i)
	var out []map[string]any
	for _, m := range reqs[i].body["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

func TestValidAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{APIKey: "sk-test"})
	verdicts, err := b.audit(t)
	require.NoError(t, err)
	require.Len(t, verdicts, len(b.ids))
	for i, v := range verdicts {
		require.Equal(t, b.ids[i], v.CriterionID, "in scorecard order")
		require.True(t, v.Complies)
		require.Equal(t, "Cumple: "+v.CriterionID, v.Explanation)
	}
	require.Equal(t, b.evidence["greeting"], verdicts[0].Evidence, "a quote differing only in accents and case is found")
	_, err = scoring.Score(b.card, scoring.Chat, verdicts, 85)
	require.NoError(t, err, "the verdicts can be scored as they are")

	reqs := b.fake.seen()
	require.Len(t, reqs, 1)
	req := reqs[0]
	require.Equal(t, "/v1/chat/completions", req.path)
	require.Equal(t, "Bearer sk-test", req.auth)
	require.Equal(t, "test-model", req.body["model"])
	require.Contains(t, req.body, "temperature")
	require.Equal(t, 0.0, req.body["temperature"])

	format := req.body["response_format"].(map[string]any)
	require.Equal(t, "json_schema", format["type"])
	js := format["json_schema"].(map[string]any)
	require.Equal(t, true, js["strict"])
	require.NotEmpty(t, js["name"])
	schema := js["schema"].(map[string]any)
	require.Equal(t, false, schema["additionalProperties"])
	var required []string
	for _, id := range schema["required"].([]any) {
		required = append(required, id.(string))
	}
	require.Equal(t, b.ids, required, "exactly the criteria that apply to a chat")
	require.NotContains(t, schema["properties"], "recording_notice")
	greeting := schema["properties"].(map[string]any)["greeting"].(map[string]any)
	require.ElementsMatch(t, []any{"complies", "explanation", "evidence"}, greeting["required"])
	require.Equal(t, false, greeting["additionalProperties"])

	msgs := b.messages(t, 0)
	require.Len(t, msgs, 2)
	require.Equal(t, "system", msgs[0]["role"])
	require.Contains(t, msgs[0]["content"], "auditas una conversación de chat", "the prompt is in the campaign's language")
	user := msgs[1]["content"].(string)
	for _, c := range b.card.Applicable(scoring.Chat) {
		require.Contains(t, user, c.Question)
		if c.Guidance != "" {
			require.Contains(t, user, c.Guidance)
		}
	}
	require.Contains(t, user, "[1] Agente: Buenos dias, gracias por contactar con Telecable, le atiende Marta.")
	require.Contains(t, user, "[2] Cliente: Hola, me han cobrado")
	require.Contains(t, user, "crítico: sí")
}

func TestEnglishPrompt(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{})
	_, err := b.auditor.Audit(context.Background(), b.card, scoring.Chat, b.chat, "en-GB")
	require.NoError(t, err)
	msgs := b.messages(t, 0)
	require.Contains(t, msgs[0]["content"], "auditing a chat conversation")
	require.Contains(t, msgs[1]["content"], "explain why in one or two sentences in English")
	require.Empty(t, b.fake.seen()[0].auth, "no key, no Authorization header")
}

func TestMalformedJSONThenValid(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{})
	b.fake.script(completion(`{"greeting": {"complies": tru`), completion(verdictsJSON(b.ids, nil)))
	verdicts, err := b.audit(t)
	require.NoError(t, err)
	require.Len(t, verdicts, len(b.ids))

	require.Len(t, b.fake.seen(), 2)
	msgs := b.messages(t, 1)
	require.Len(t, msgs, 4, "the bad answer and the problems are fed back")
	require.Equal(t, "assistant", msgs[2]["role"])
	require.Equal(t, `{"greeting": {"complies": tru`, msgs[2]["content"])
	require.Equal(t, "user", msgs[3]["role"])
	require.Contains(t, msgs[3]["content"], "Tu respuesta no es válida")
	require.Contains(t, msgs[3]["content"], "not valid JSON")
}

func TestMissingCriterionFailsClearly(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{Attempts: 3})
	b.fake.script(completion(verdictsJSON(b.ids, nil, "farewell")))
	verdicts, err := b.audit(t)
	require.Nil(t, verdicts, "nothing to store")
	var invalid *llm.InvalidAnswerError
	require.ErrorAs(t, err, &invalid)
	require.Equal(t, 3, invalid.Attempts)
	require.Contains(t, err.Error(), "criteria without a verdict: farewell")
	require.True(t, workers.ErrPermanent(err), "the job fails instead of retrying")
	require.Len(t, b.fake.seen(), 3, "asked three times in all")
	last := b.messages(t, 2)
	require.Len(t, last, 6, "each follow-up keeps the conversation")
	require.Contains(t, last[5]["content"], "farewell")
}

func TestQuoteNotInTranscriptThenValid(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{})
	invented := map[string]string{"greeting": "Buenos días, le atiende Pedro"}
	b.fake.script(completion(verdictsJSON(b.ids, invented)), completion(verdictsJSON(b.ids, b.evidence)))
	verdicts, err := b.audit(t)
	require.NoError(t, err)
	require.Equal(t, b.evidence["greeting"], verdicts[0].Evidence)
	followUp := b.messages(t, 1)[3]["content"].(string)
	require.Contains(t, followUp, `the evidence of "greeting" is not in the transcript`)
	require.Contains(t, followUp, "le atiende Pedro")
}

func TestAnswerProblemsAreEachReported(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{Attempts: 1})
	answer := strings.TrimSuffix(verdictsJSON(b.ids, nil, "empathy", "farewell"), "}") +
		`,"empathy":{"complies":"yes","explanation":"","evidence":"x"},"farewell":{"complies":true,"explanation":"ok","evidence":"","score":3},` +
		`"bonus":{"complies":true,"explanation":"?","evidence":""},"greeting":{"complies":true,"explanation":"twice","evidence":""}}`
	b.fake.script(completion(answer))
	_, err := b.audit(t)
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`the verdict of "empathy" needs complies`,
		`the verdict of "empathy" needs an explanation`,
		`the evidence of "empathy" is not in the transcript`,
		`the verdict of "farewell" has a field "score"`,
		`"bonus" is not the id of a criterion to judge`,
		`criterion "greeting" has more than one verdict`,
	} {
		require.Contains(t, msg, want)
	}
}

func TestRefusalAndCutOffAnswersAreRetried(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{})
	refusal := `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I cannot help with that."},"finish_reason":"stop"}]}`
	cut := `{"choices":[{"message":{"role":"assistant","content":"{\"greeting\": {\"compl"},"finish_reason":"length"}]}`
	b.fake.script(reply{status: 200, body: refusal}, reply{status: 200, body: cut}, completion(verdictsJSON(b.ids, nil)))
	_, err := b.audit(t)
	require.NoError(t, err)
	require.Contains(t, b.messages(t, 1)[3]["content"], "you refused to answer (I cannot help with that.)")
	require.Contains(t, b.messages(t, 2)[5]["content"], "cut off at the token limit")
}

func TestRateLimitedThenSuccess(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{})
	b.fake.script(
		reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "7"},
			body: `{"error":{"message":"Rate limit reached for requests","type":"requests"}}`},
		completion(verdictsJSON(b.ids, nil)),
	)
	_, err := b.audit(t)
	var retry *llm.RetryableError
	require.ErrorAs(t, err, &retry)
	require.Equal(t, http.StatusTooManyRequests, retry.StatusCode)
	require.Equal(t, 7*time.Second, retry.RetryDelay(), "the worker snoozes the job as long as the server asked")
	require.Contains(t, err.Error(), "Rate limit reached")
	require.False(t, workers.ErrPermanent(err))

	verdicts, err := b.audit(t)
	require.NoError(t, err, "the retry succeeds")
	require.Len(t, verdicts, len(b.ids))
}

func TestServerErrorThenSuccess(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{})
	b.fake.script(
		reply{status: http.StatusInternalServerError, header: map[string]string{"Retry-After-Ms": "250"}, body: `upstream overloaded`},
		reply{status: http.StatusOK, body: `<html>bad gateway</html>`},
		completion(verdictsJSON(b.ids, nil)),
	)
	_, err := b.audit(t)
	var retry *llm.RetryableError
	require.ErrorAs(t, err, &retry)
	require.Equal(t, 250*time.Millisecond, retry.RetryDelay())
	require.Contains(t, err.Error(), "upstream overloaded")

	_, err = b.audit(t)
	require.ErrorAs(t, err, &retry, "a 200 that is not a chat completion is retried too")
	require.Zero(t, retry.RetryDelay())
	require.Contains(t, err.Error(), "bad gateway")

	_, err = b.audit(t)
	require.NoError(t, err)
}

func TestBadRequestFails(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{}, reply{status: http.StatusBadRequest,
		body: `{"error":{"message":"Invalid schema for response_format 'audit_verdicts'","type":"invalid_request_error","param":"response_format"}}`})
	_, err := b.audit(t)
	var rejected *llm.RejectedError
	require.ErrorAs(t, err, &rejected)
	require.Equal(t, "Invalid schema for response_format 'audit_verdicts'", rejected.Message)
	require.True(t, workers.ErrPermanent(err))
	require.Len(t, b.fake.seen(), 1, "not asked again")
}

func TestUnreachableServerIsRetryable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	a, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"})
	require.NoError(t, err)
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	_, err = a.Audit(context.Background(), card, scoring.Chat, transcript.Transcript{Text: "hola"}, "es")
	var retry *llm.RetryableError
	require.ErrorAs(t, err, &retry)
	require.False(t, workers.ErrPermanent(err))
}

func TestLongTranscriptIsTruncatedToTheBudget(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 400 {
		lines = append(lines, fmt.Sprintf("Cliente: mensaje numero %d sobre la factura y el cargo duplicado", i))
	}
	long := "Agente: Buenos dias, le atiende Marta.\n" + strings.Join(lines, "\n") + "\nAgente: Que tenga un buen dia, adios.\n"
	tr, _, err := transcript.ParseChat([]byte(long))
	require.NoError(t, err)
	const budget = 6000
	b := setup(t, llm.Config{ContextChars: budget})
	// Evidence from a turn the model never saw is still checked against
	// the whole transcript.
	evidence := map[string]string{"greeting": "Buenos dias, le atiende Marta", "empathy": "mensaje numero 200 sobre la factura"}
	b.fake.script(completion(verdictsJSON(b.ids, evidence)))
	_, err = b.auditor.Audit(context.Background(), b.card, scoring.Chat, tr, "es")
	require.NoError(t, err)

	msgs := b.messages(t, 0)
	system, user := msgs[0]["content"].(string), msgs[1]["content"].(string)
	require.LessOrEqual(t, utf8.RuneCountInString(system)+utf8.RuneCountInString(user), budget)
	require.Contains(t, user, "[1] Agente: Buenos dias, le atiende Marta.", "the opening is kept")
	require.Contains(t, user, "Agente: Que tenga un buen dia, adios.", "the closing is kept")
	require.Contains(t, user, "turnos omitidos para ajustarse al contexto")
	require.NotContains(t, user, "mensaje numero 200 ")
}

func TestBudgetTooSmallForTheScorecard(t *testing.T) {
	t.Parallel()
	b := setup(t, llm.Config{ContextChars: llm.MinContextChars})
	card := b.card
	card.Criteria = append([]scoring.Criterion(nil), card.Criteria...)
	for i := range card.Criteria {
		card.Criteria[i].Guidance = strings.Repeat("Pauta larga. ", 40)
	}
	_, err := b.auditor.Audit(context.Background(), card, scoring.Chat, b.chat, "es")
	require.ErrorContains(t, err, "LLM_CONTEXT_CHARS")
	require.Empty(t, b.fake.seen(), "nothing was sent")
}

func TestNewChecksItsConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config llm.Config
		want   string
	}{
		{llm.Config{BaseURL: "localhost:8000", Model: "m"}, `llm: base URL "localhost:8000" is not an http(s) URL`},
		{llm.Config{BaseURL: "http://127.0.0.1:8000/v1"}, "llm: a model is required"},
		{llm.Config{BaseURL: "http://127.0.0.1:8000", Model: "m", ContextChars: 100}, "below 4000"},
		{llm.Config{BaseURL: "http://127.0.0.1:8000", Model: "m", Timeout: -time.Second}, "must not be negative"},
	} {
		_, err := llm.New(tc.config)
		require.ErrorContains(t, err, tc.want)
	}
	a, err := llm.New(llm.Config{BaseURL: "https://api.openai.com/v1/", Model: "gpt-4o-mini"})
	require.NoError(t, err)
	require.Equal(t, "llm:gpt-4o-mini", a.Name())
}

func TestContextEndsTheRequest(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(block); srv.Close() })
	a, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"})
	require.NoError(t, err)
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.Audit(ctx, card, scoring.Chat, transcript.Transcript{Text: "hola"}, "es")
		done <- err
	}()
	cancel()
	require.True(t, errors.Is(<-done, context.Canceled))
}
