package asr

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/auditd/auditd/openai"
	"github.com/auditd/auditd/transcript"
)

// maxAnswer bounds the answer read from a transcription server. A verbose
// transcript of the longest chunk worth sending is a few hundred kilobytes.
const maxAnswer = 16 << 20

// OpenAIConfig configures an OpenAI engine.
type OpenAIConfig struct {
	// BaseURL is the server (ASR_BASE_URL), with or without the /v1 that the
	// OpenAI SDKs put in it: "https://api.openai.com",
	// "http://127.0.0.1:8000/v1". A query string is kept. Required.
	BaseURL string
	// APIKey is sent as a bearer token (ASR_API_KEY); local servers often
	// need none.
	APIKey string
	// Model is the model the server should use (ASR_MODEL), such as
	// "whisper-1" or "Systran/faster-whisper-small". Required.
	Model string
	// Timeout bounds one request, from the first byte sent to the last byte
	// of the answer. Defaults to 10 minutes, room for a 10-minute chunk on a
	// CPU-only server.
	Timeout time.Duration
}

// OpenAI is the engine for any server that implements OpenAI's
// POST /v1/audio/transcriptions: OpenAI, Azure OpenAI's v1 API,
// speaches/faster-whisper-server, whisper.cpp's server, vLLM, LocalAI. It
// asks for verbose_json, whose segments carry times and the model's
// avg_logprob and no_speech_prob (a segment's quality: segmentQuality),
// and falls back to json (the text as one segment spanning the input,
// without a quality) for the models that only offer that, remembering the
// refusal. Create it with NewOpenAI.
type OpenAI struct {
	endpoint string
	apiKey   string
	model    string
	client   *http.Client
	// textOnly is set once the server has refused verbose_json, which
	// spares every later call a refused upload.
	textOnly atomic.Bool
}

// NewOpenAI validates c and returns the engine. It returns an error naming
// the setting at fault.
func NewOpenAI(c OpenAIConfig) (*OpenAI, error) {
	endpoint, err := openai.Endpoint(c.BaseURL, "/audio/transcriptions")
	if err != nil {
		return nil, fmt.Errorf("asr: openai base URL %w", err)
	}
	if strings.TrimSpace(c.Model) == "" {
		return nil, errors.New("asr: openai model is required (for example whisper-1)")
	}
	if c.Timeout < 0 {
		return nil, fmt.Errorf("asr: openai timeout %v is negative", c.Timeout)
	}
	return &OpenAI{
		endpoint: endpoint,
		apiKey:   c.APIKey,
		model:    c.Model,
		client:   &http.Client{Timeout: cmp.Or(c.Timeout, 10*time.Minute)},
	}, nil
}

// Name implements Engine: "openai:" and the model.
func (o *OpenAI) Name() string { return "openai:" + o.model }

// Transcribe implements Engine. Errors:
//   - *RetryableError for a network failure, a timeout, 408, 429 and 5xx
//     answers (with the server's Retry-After), and a 2xx answer that is
//     not a transcript (see RetryableError);
//   - *RejectedError for any other answer, with the server's message;
//   - ctx's error when it ends.
func (o *OpenAI) Transcribe(ctx context.Context, in Input) (transcript.Transcript, error) {
	if !o.textOnly.Load() {
		t, err := o.transcribe(ctx, in, "verbose_json")
		rejected, ok := errors.AsType[*RejectedError](err)
		if !ok || rejected.StatusCode != http.StatusBadRequest || !rejected.aboutFormat() {
			return t, err
		}
		o.textOnly.Store(true)
	}
	return o.transcribe(ctx, in, "json")
}

// transcribe makes one request asking for format.
func (o *OpenAI) transcribe(ctx context.Context, in Input, format string) (transcript.Transcript, error) {
	req, err := o.request(ctx, in, format)
	if err != nil {
		return transcript.Transcript{}, err
	}
	resp, err := o.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return transcript.Transcript{}, ctx.Err()
		}
		return transcript.Transcript{}, &RetryableError{Service: "openai transcription", Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	switch {
	case ctx.Err() != nil:
		return transcript.Transcript{}, ctx.Err()
	case err != nil:
		return transcript.Transcript{}, &RetryableError{Service: "openai transcription", StatusCode: resp.StatusCode, Err: fmt.Errorf("reading the answer: %w", err)}
	case openai.Retryable(resp.StatusCode):
		return transcript.Transcript{}, &RetryableError{Service: "openai transcription",
			StatusCode: resp.StatusCode,
			RetryAfter: openai.RetryAfter(resp.Header, time.Now()),
			Err:        errors.New(openai.ServerMessage(body, resp.Status).Message),
		}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		m := openai.ServerMessage(body, resp.Status)
		return transcript.Transcript{}, &RejectedError{StatusCode: resp.StatusCode, Message: m.Message, param: m.Param}
	case len(body) > maxAnswer:
		return transcript.Transcript{}, &RetryableError{Service: "openai transcription", StatusCode: resp.StatusCode, Err: fmt.Errorf("the answer is larger than %d bytes", maxAnswer)}
	}
	return o.parse(body, in)
}

// request builds the multipart upload. The WAV file is streamed from disk
// between the form's head and tail, with the exact Content-Length, which
// every server accepts (some refuse chunked uploads).
func (o *OpenAI) request(ctx context.Context, in Input, format string) (*http.Request, error) {
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var head bytes.Buffer
	form := multipart.NewWriter(&head)
	fields := [][2]string{{"model", o.model}, {"response_format", format}, {"temperature", "0"}}
	if lang := transcript.PrimaryLanguage(in.Language); lang != "" {
		fields = append(fields, [2]string{"language", lang})
	}
	for _, kv := range fields {
		if err := form.WriteField(kv[0], kv[1]); err != nil {
			f.Close()
			return nil, err
		}
	}
	part := textproto.MIMEHeader{}
	// Servers tell the format by the file name's extension.
	part.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	part.Set("Content-Type", "audio/wav")
	if _, err := form.CreatePart(part); err != nil {
		f.Close()
		return nil, err
	}
	n := head.Len()
	if err := form.Close(); err != nil {
		f.Close()
		return nil, err
	}
	tail := bytes.Clone(head.Bytes()[n:])
	head.Truncate(n)

	body := io.MultiReader(&head, f, bytes.NewReader(tail))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, readCloser{body, f})
	if err != nil {
		f.Close()
		return nil, err
	}
	req.ContentLength = int64(n) + st.Size() + int64(len(tail))
	req.Header.Set("Content-Type", form.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	if o.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.apiKey)
	}
	return req, nil
}

// readCloser reads the multipart body and closes the file in it; the HTTP
// client closes a request's body once sent, even on failure.
type readCloser struct {
	io.Reader
	io.Closer
}

// parse reads a verbose_json or json answer.
func (o *OpenAI) parse(body []byte, in Input) (transcript.Transcript, error) {
	var answer struct {
		Text     string `json:"text"`
		Language string `json:"language"`
		Segments []struct {
			Start        float64  `json:"start"`
			End          float64  `json:"end"`
			Text         string   `json:"text"`
			AvgLogprob   *float64 `json:"avg_logprob"`
			NoSpeechProb *float64 `json:"no_speech_prob"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return transcript.Transcript{}, &RetryableError{Service: "openai transcription", StatusCode: http.StatusOK,
			Err: fmt.Errorf("the answer is not a JSON transcript (%v): %s", err, openai.Snippet(body))}
	}
	t := transcript.Transcript{Text: strings.TrimSpace(answer.Text), Engine: o.Name(), Language: in.Language}
	if t.Language == "" {
		// Sent none: the language the server detected.
		t.Language = languageCode(answer.Language)
	}
	for _, s := range answer.Segments {
		start, end := s.Start, s.End
		t.Segments = append(t.Segments, transcript.Segment{Start: &start, End: &end, Speaker: transcript.Unknown,
			Text: strings.TrimSpace(s.Text), Quality: segmentQuality(s.AvgLogprob, s.NoSpeechProb)})
	}
	if len(answer.Segments) == 0 && t.Text != "" {
		start, end := 0.0, in.Duration.Seconds()
		t.Segments = []transcript.Segment{{Start: &start, End: &end, Speaker: transcript.Unknown, Text: t.Text}}
	}
	return t, nil
}

// segmentQuality is a verbose_json segment's quality: the mean
// probability of its tokens (exp of avg_logprob: 0.37 at -1, the
// threshold under which Whisper itself distrusts a segment) times the
// probability that it holds speech at all (1 − no_speech_prob, 0 when
// absent). Nil when the server gave no avg_logprob (some servers leave
// it out, or answer with NaN as null).
func segmentQuality(avgLogprob, noSpeech *float64) *float64 {
	if avgLogprob == nil || math.IsNaN(*avgLogprob) {
		return nil
	}
	q := math.Exp(min(*avgLogprob, 0))
	if noSpeech != nil && !math.IsNaN(*noSpeech) {
		q *= 1 - min(max(*noSpeech, 0), 1)
	}
	return &q
}

// isLanguageCode matches the ISO 639 codes some servers answer with;
// OpenAI answers with English names ("english"), which are not BCP 47.
var isLanguageCode = regexp.MustCompile(`^[a-z]{2,3}$`).MatchString

// RetryableError is a failure worth retrying after a while (see
// openai.RetryableError).
type RetryableError = openai.RetryableError

// RejectedError is a request the transcription server refused with a 4xx
// status other than 408 and 429: sending it again gets the same answer.
type RejectedError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Message is the server's explanation.
	Message string
	// param is the request field the server blamed, when it said.
	param string
}

// Error implements error.
func (e *RejectedError) Error() string {
	return fmt.Sprintf("openai transcription: %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// aboutFormat reports whether the server refused the response format.
func (e *RejectedError) aboutFormat() bool {
	return e.param == "response_format" || strings.Contains(strings.ToLower(e.Message), "response_format")
}
