// Package llm is the "llm" auditor engine (AUDITOR_ENGINE=llm): it asks a
// model behind any OpenAI-compatible chat completions endpoint (OpenAI,
// Azure OpenAI's v1 API, vLLM, llama.cpp's server, Ollama, LocalAI) to judge
// a transcript against a scorecard, and trusts nothing it answers until Go
// has checked it.
//
// # Request
//
// One POST /v1/chat/completions per answer, at temperature 0, with a
// response_format of type json_schema (strict) built from the criteria that
// apply: an object with one required property per criterion id, each
// {complies: boolean, explanation: string, evidence: string}, no other
// properties. The prompt is in the campaign's language (Spanish for "es",
// English otherwise) and gives each criterion's id, category, question,
// whether it is critical, and its guidance, then the transcript one turn a
// line with its time (calls) or turn number (chats) and speaker.
//
// # Validation
//
// Every answer is checked against the schema and the criteria: a JSON
// object, exactly one verdict per applicable criterion id and nothing else,
// complies a boolean, an explanation that is not empty, and evidence that
// is either empty (the judgement rests on something not being said) or a
// quote found in the transcript, compared as words after the rules
// engine's normalisation (transcript.NormalWords: case, accents and punctuation
// ignored; "..." or "…" may elide words between parts found in order). An
// answer that fails is sent back to the model with the list of problems as
// a follow-up message, up to Config.Attempts answers in all; then Audit
// returns an *InvalidAnswerError and nothing is stored.
//
// # Long transcripts
//
// The prompt must fit Config.ContextChars characters. A transcript that
// does not is truncated: its first turns (about 60% of the room left) and
// its last turns (the rest) are kept, since openings and closings carry
// most criteria, and a marker in their place tells the model how many turns
// were left out; a single turn longer than a quarter of the room keeps its
// start and end. Evidence is still checked against the whole transcript.
//
// # Errors
//
// A network failure, a timeout, 408, 429 and 5xx answers, and a 2xx answer
// that is not a chat completion are *RetryableError, carrying the server's
// Retry-After: the worker snoozes the job that long. Any other 4xx is a
// *RejectedError with the server's own message: the task fails with it.
package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/auditd/auditd/openai"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Defaults of Config.
const (
	DefaultContextChars = 48000
	DefaultTimeout      = 2 * time.Minute
	DefaultAttempts     = 3
)

// MinContextChars is the smallest context budget New accepts: room for the
// instructions, a scorecard and some of a transcript.
const MinContextChars = 4000

// maxAnswer bounds the answer read from the server.
const maxAnswer = 4 << 20

// Config configures the engine.
type Config struct {
	// BaseURL is the server (LLM_BASE_URL), with or without /v1. Required.
	BaseURL string
	// APIKey is sent as a bearer token (LLM_API_KEY); local servers often need none.
	APIKey string
	// Model is the model to ask (LLM_MODEL). Required.
	Model string
	// ContextChars is how many characters the prompt may take
	// (LLM_CONTEXT_CHARS); longer transcripts are truncated. Defaults to
	// DefaultContextChars, about 12,000 tokens.
	ContextChars int
	// Timeout bounds one request (LLM_TIMEOUT). Defaults to DefaultTimeout.
	Timeout time.Duration
	// Attempts is how many answers one audit asks for while they are not
	// valid. Defaults to DefaultAttempts.
	Attempts int
}

// Auditor is the engine; it implements auditor.Engine. Create it with New.
type Auditor struct {
	endpoint string
	apiKey   string
	model    string
	budget   int
	attempts int
	client   *http.Client
}

// New validates c and returns the engine, or an error naming the setting at fault.
func New(c Config) (*Auditor, error) {
	endpoint, err := openai.Endpoint(c.BaseURL, "/chat/completions")
	if err != nil {
		return nil, fmt.Errorf("llm: base URL %w", err)
	}
	if strings.TrimSpace(c.Model) == "" {
		return nil, errors.New("llm: a model is required")
	}
	c.ContextChars = cmp.Or(c.ContextChars, DefaultContextChars)
	if c.ContextChars < MinContextChars {
		return nil, fmt.Errorf("llm: a context budget of %d characters is below %d", c.ContextChars, MinContextChars)
	}
	if c.Timeout < 0 || c.Attempts < 0 {
		return nil, errors.New("llm: the timeout and the attempts must not be negative")
	}
	return &Auditor{
		endpoint: endpoint,
		apiKey:   c.APIKey,
		model:    c.Model,
		budget:   c.ContextChars,
		attempts: cmp.Or(c.Attempts, DefaultAttempts),
		client:   &http.Client{Timeout: cmp.Or(c.Timeout, DefaultTimeout)},
	}, nil
}

// MaxDuration is the longest an audit may take: every attempt's request
// taking its whole timeout.
func (a *Auditor) MaxDuration() time.Duration {
	return time.Duration(a.attempts) * a.client.Timeout
}

// Name implements auditor.Engine: "llm:" and the model.
func (a *Auditor) Name() string { return "llm:" + a.model }

// Audit implements auditor.Engine: one verdict per criterion of card that
// applies to kind, explained in lang. Errors: *RetryableError,
// *RejectedError, *InvalidAnswerError (see the package documentation), an
// error when the scorecard alone does not fit the context budget, or
// ctx's error.
func (a *Auditor) Audit(ctx context.Context, card scoring.Scorecard, kind string, t transcript.Transcript, lang string) ([]scoring.Verdict, error) {
	criteria := card.Applicable(kind)
	if len(criteria) == 0 {
		return nil, nil
	}
	w := wordingFor(lang)
	prompt, err := userPrompt(w, criteria, t, a.budget-len([]rune(w.system(kind))))
	if err != nil {
		return nil, err
	}
	messages := []message{{Role: "system", Content: w.system(kind)}, {Role: "user", Content: prompt}}
	format := responseFormat(criteria)
	quotes := transcript.NewQuotes(t)
	var last *InvalidAnswerError
	for range a.attempts {
		content, err := a.complete(ctx, messages, format)
		if err != nil {
			return nil, err
		}
		verdicts, problems := check(content, criteria, quotes)
		if len(problems) == 0 {
			return verdicts, nil
		}
		last = &InvalidAnswerError{Attempts: a.attempts, Problems: problems}
		messages = append(messages, message{Role: "assistant", Content: content.text},
			message{Role: "user", Content: w.retry(problems)})
	}
	return nil, last
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []message      `json:"messages"`
	Temperature    float64        `json:"temperature"`
	ResponseFormat map[string]any `json:"response_format"`
}

// answer is the model's message: its text, or why there is none.
type answer struct {
	text string
	// refusal is the model's refusal, if it refused.
	refusal string
	// truncated: the model stopped at its token limit.
	truncated bool
}

// complete asks for one answer.
func (a *Auditor) complete(ctx context.Context, messages []message, format map[string]any) (answer, error) {
	body, err := json.Marshal(chatRequest{Model: a.model, Messages: messages, Temperature: 0, ResponseFormat: format})
	if err != nil {
		return answer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.endpoint, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if a.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+a.apiKey)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return answer{}, ctx.Err()
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			err = fmt.Errorf("no answer within %s (LLM_TIMEOUT)", a.client.Timeout)
		}
		return answer{}, &RetryableError{Service: "llm", Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	switch {
	case ctx.Err() != nil:
		return answer{}, ctx.Err()
	case err != nil:
		return answer{}, &RetryableError{Service: "llm", StatusCode: resp.StatusCode, Err: fmt.Errorf("reading the answer: %w", err)}
	case openai.Retryable(resp.StatusCode):
		return answer{}, &RetryableError{Service: "llm", StatusCode: resp.StatusCode, RetryAfter: openai.RetryAfter(resp.Header, time.Now()),
			Err: errors.New(openai.ServerMessage(raw, resp.Status).Message)}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return answer{}, &RejectedError{StatusCode: resp.StatusCode, Message: openai.ServerMessage(raw, resp.Status).Message}
	case len(raw) > maxAnswer:
		return answer{}, &RetryableError{Service: "llm", StatusCode: resp.StatusCode, Err: fmt.Errorf("the answer is larger than %d bytes", maxAnswer)}
	}
	var completion struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &completion); err != nil || len(completion.Choices) == 0 {
		// The server accepted the request: what garbles its answer (a
		// proxy's page, a cut transfer) is most often passing.
		return answer{}, &RetryableError{Service: "llm", StatusCode: resp.StatusCode,
			Err: fmt.Errorf("the answer is not a chat completion: %s", openai.Snippet(raw))}
	}
	c := completion.Choices[0]
	out := answer{truncated: c.FinishReason == "length"}
	if c.Message.Content != nil {
		out.text = *c.Message.Content
	}
	if c.Message.Refusal != nil {
		out.refusal = *c.Message.Refusal
	}
	return out, nil
}

// responseFormat is the json_schema response format for criteria: one
// required property per criterion id.
func responseFormat(criteria []scoring.Criterion) map[string]any {
	props := make(map[string]any, len(criteria))
	required := make([]string, len(criteria))
	for i, c := range criteria {
		required[i] = c.ID
		props[c.ID] = map[string]any{
			"type":        "object",
			"description": c.Question,
			"properties": map[string]any{
				"complies":    map[string]any{"type": "boolean"},
				"explanation": map[string]any{"type": "string"},
				"evidence":    map[string]any{"type": "string"},
			},
			"required":             []string{"complies", "explanation", "evidence"},
			"additionalProperties": false,
		}
	}
	return map[string]any{
		"type": "json_schema",
		"json_schema": map[string]any{
			"name":   "audit_verdicts",
			"strict": true,
			"schema": map[string]any{
				"type":                 "object",
				"properties":           props,
				"required":             required,
				"additionalProperties": false,
			},
		},
	}
}

// check validates an answer against the criteria and the transcript and
// returns its verdicts in criteria order, or the problems found, each a
// sentence the model can act on.
func check(a answer, criteria []scoring.Criterion, quotes transcript.Quotes) ([]scoring.Verdict, []string) {
	switch {
	case a.refusal != "":
		return nil, []string{"you refused to answer (" + a.refusal + "); the audit is part of quality assurance and needs a verdict per criterion"}
	case a.truncated:
		return nil, []string{"the answer was cut off at the token limit; keep explanations and quotes short"}
	}
	dec := json.NewDecoder(strings.NewReader(a.text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, []string{"the answer is not a JSON object: " + snippet(a.text)}
	}
	byID := make(map[string]scoring.Criterion, len(criteria))
	for _, c := range criteria {
		byID[c.ID] = c
	}
	var problems []string
	got := map[string]scoring.Verdict{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, []string{"the answer is not valid JSON: " + err.Error()}
		}
		id, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, []string{"the answer is not valid JSON: " + err.Error()}
		}
		c, known := byID[id]
		_, dup := got[id]
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("%q is not the id of a criterion to judge", id))
			continue
		case dup:
			problems = append(problems, fmt.Sprintf("criterion %q has more than one verdict", id))
			continue
		}
		v, vp := verdictOf(c, raw, quotes)
		problems = append(problems, vp...)
		got[id] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, []string{"the answer is not valid JSON: " + err.Error()}
	}
	if dec.More() {
		return nil, []string{"the answer has more than one JSON value"}
	}
	var missing []string
	verdicts := make([]scoring.Verdict, 0, len(criteria))
	for _, c := range criteria {
		v, ok := got[c.ID]
		if !ok {
			missing = append(missing, c.ID)
		}
		verdicts = append(verdicts, v)
	}
	if len(missing) > 0 {
		problems = append(problems, "criteria without a verdict: "+strings.Join(missing, ", "))
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return verdicts, nil
}

// verdictOf reads and checks one criterion's verdict.
func verdictOf(c scoring.Criterion, raw json.RawMessage, quotes transcript.Quotes) (scoring.Verdict, []string) {
	v := scoring.Verdict{CriterionID: c.ID}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return v, []string{fmt.Sprintf("the verdict of %q is not an object {complies, explanation, evidence}", c.ID)}
	}
	var problems []string
	for name := range fields {
		if name != "complies" && name != "explanation" && name != "evidence" {
			problems = append(problems, fmt.Sprintf("the verdict of %q has a field %q; only complies, explanation and evidence are allowed", c.ID, name))
		}
	}
	if err := json.Unmarshal(fields["complies"], &v.Complies); err != nil || string(fields["complies"]) == "null" {
		problems = append(problems, fmt.Sprintf("the verdict of %q needs complies: true or false", c.ID))
	}
	if err := json.Unmarshal(fields["explanation"], &v.Explanation); err != nil || strings.TrimSpace(v.Explanation) == "" {
		problems = append(problems, fmt.Sprintf("the verdict of %q needs an explanation", c.ID))
	}
	if err := json.Unmarshal(fields["evidence"], &v.Evidence); err != nil {
		problems = append(problems, fmt.Sprintf("the verdict of %q needs evidence: a quote, or an empty string", c.ID))
	}
	v.Explanation, v.Evidence = strings.TrimSpace(v.Explanation), strings.TrimSpace(v.Evidence)
	if _, found := quotes.Find(v.Evidence); v.Evidence != "" && !found {
		problems = append(problems, fmt.Sprintf("the evidence of %q is not in the transcript: %q; quote the transcript word for word, from one turn, or leave it empty", c.ID, v.Evidence))
	}
	v.Basis, v.Confidence = scoring.BasisAbsence, ConfidenceAbsence
	if v.Evidence != "" {
		v.Basis, v.Confidence = scoring.BasisEvidence, ConfidenceEvidence
	}
	return v, problems
}

// The confidence of a validated verdict of the model: with a quote found in
// the transcript (evidence), or resting on something not being said
// (absence). Both are above the default review threshold: the model is what
// an uncertain verdict is sent to.
const (
	ConfidenceEvidence = 0.9
	ConfidenceAbsence  = 0.85
)

func snippet(s string) string { return openai.Snippet([]byte(s)) }

// RetryableError is a failure worth retrying after a while (see
// openai.RetryableError).
type RetryableError = openai.RetryableError

// RejectedError is a request the server refused with a 4xx status other
// than 408 and 429 (a bad key, an unknown model, a schema it does not
// support): sending it again gets the same answer.
type RejectedError struct {
	StatusCode int
	// Message is the server's explanation.
	Message string
}

// Error implements error.
func (e *RejectedError) Error() string {
	return fmt.Sprintf("llm: %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// Permanent reports that retrying cannot help.
func (*RejectedError) Permanent() bool { return true }

// InvalidAnswerError is what Audit returns when every answer the model gave
// failed validation.
type InvalidAnswerError struct {
	// Attempts is how many answers were asked for.
	Attempts int
	// Problems are those of the last answer.
	Problems []string
}

// Error implements error.
func (e *InvalidAnswerError) Error() string {
	return fmt.Sprintf("llm: the model gave no valid answer in %d attempts; the last one: %s",
		e.Attempts, strings.Join(e.Problems, "; "))
}

// Permanent reports that retrying the job cannot help: the model was
// already asked again with its mistakes pointed out.
func (*InvalidAnswerError) Permanent() bool { return true }
