package asr_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers/asr"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// verbose is a verbose_json answer as OpenAI gives it.
const verbose = `{"task":"transcribe","language":"english","duration":2.99,"text":"He was not an ill-disposed young man.",
"segments":[{"id":0,"seek":0,"start":0.2,"end":1.1,"text":" He was not","tokens":[1,2],"temperature":0.0,"avg_logprob":-0.2,"compression_ratio":1.1,"no_speech_prob":0.01},
{"id":1,"seek":0,"start":1.1,"end":2.8,"text":" an ill-disposed young man.","tokens":[3],"temperature":0.0,"avg_logprob":-0.2,"compression_ratio":1.1,"no_speech_prob":0.01}]}`

func TestOpenAIRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	server := newFakeServer(t, asrtest.Answer{Status: 200, Body: verbose})
	wav := mediatest.LibriVox(t)[1]

	tr, err := server.engine(t).Transcribe(b.ctx, asr.Input{Path: wav.Path, Language: "en-GB", Duration: wav.Duration})
	require.NoError(t, err)
	require.Equal(t, transcript.Transcript{
		Text: "He was not an ill-disposed young man.",
		Segments: []transcript.Segment{
			{Start: ptr(0.2), End: ptr(1.1), Speaker: transcript.Unknown, Text: "He was not", Quality: ptr(math.Exp(-0.2) * (1 - 0.01))},
			{Start: ptr(1.1), End: ptr(2.8), Speaker: transcript.Unknown, Text: "an ill-disposed young man.", Quality: ptr(math.Exp(-0.2) * (1 - 0.01))},
		},
		Engine:   "openai:whisper-1",
		Language: "en-GB",
	}, tr)

	uploads := server.Uploads()
	require.Len(t, uploads, 1)
	u := uploads[0]
	require.Equal(t, "/v1/audio/transcriptions", u.Path)
	require.Equal(t, "Bearer sk-test", u.Auth)
	require.True(t, strings.HasPrefix(u.ContentType, "multipart/form-data; boundary="), u.ContentType)
	require.Equal(t, map[string]string{"model": "whisper-1", "language": "en", "response_format": "verbose_json", "temperature": "0"}, u.Fields)
	require.Equal(t, "audio.wav", u.FileName)
	require.Equal(t, "audio/wav", u.FileType)
	sent, err := os.ReadFile(wav.Path)
	require.NoError(t, err)
	require.Equal(t, sha256.Sum256(sent), sha256.Sum256(u.File), "the file arrives byte for byte")
	require.Greater(t, u.ContentLength, int64(len(sent)), "sent with its length, not chunked")
}

func ptr(f float64) *float64 { return &f }

func TestOpenAIBaseURL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wav := mediatest.LibriVox(t)[1].Path
	for _, suffix := range []string{"", "/", "/v1", "/v1/"} {
		server := newFakeServer(t)
		e, err := asr.NewOpenAI(asr.OpenAIConfig{BaseURL: server.URL + suffix, Model: "Systran/faster-whisper-small"})
		require.NoError(t, err)
		require.Equal(t, "openai:Systran/faster-whisper-small", e.Name())
		_, err = e.Transcribe(b.ctx, asr.Input{Path: wav})
		require.NoError(t, err)
		u := server.Uploads()[0]
		require.Equal(t, "/v1/audio/transcriptions", u.Path, "base URL %q", suffix)
		require.Empty(t, u.Auth, "no key, no Authorization header")
		require.NotContains(t, u.Fields, "language", "unknown language is not sent")
	}

	for _, tc := range []struct {
		config asr.OpenAIConfig
		err    string
	}{
		{asr.OpenAIConfig{BaseURL: "api.openai.com", Model: "whisper-1"}, `asr: openai base URL "api.openai.com" is not an http(s) URL`},
		{asr.OpenAIConfig{BaseURL: "ftp://example.com", Model: "whisper-1"}, `asr: openai base URL "ftp://example.com" is not an http(s) URL`},
		{asr.OpenAIConfig{BaseURL: "https://api.openai.com/v1"}, "asr: openai model is required (for example whisper-1)"},
		{asr.OpenAIConfig{BaseURL: "https://api.openai.com/v1", Model: "whisper-1", Timeout: -time.Second}, "asr: openai timeout -1s is negative"},
	} {
		_, err := asr.NewOpenAI(tc.config)
		require.EqualError(t, err, tc.err)
	}
}

func TestOpenAIRetryable(t *testing.T) {
	t.Parallel()
	wav := mediatest.LibriVox(t)[1].Path
	rateLimited := `{"error":{"message":"Rate limit reached for whisper-1","type":"requests","param":null,"code":"rate_limit_exceeded"}}`

	for _, tc := range []struct {
		name       string
		first      asrtest.Answer
		status     int
		retryAfter time.Duration
		message    string
	}{
		{"429RetryAfterSeconds", asrtest.Answer{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: rateLimited},
			429, 7 * time.Second, "openai transcription: 429 Too Many Requests: Rate limit reached for whisper-1 (retry after 7s)"},
		{"429RetryAfterMs", asrtest.Answer{Status: 429, Header: map[string]string{"Retry-After": "2", "Retry-After-Ms": "1500"}, Body: rateLimited},
			429, 1500 * time.Millisecond, "Rate limit reached for whisper-1"},
		{"503NoHint", asrtest.Answer{Status: 503, Body: "upstream connect error"},
			503, 0, "openai transcription: 503 Service Unavailable: upstream connect error"},
		{"408", asrtest.Answer{Status: 408, Body: `{"detail":"request took too long"}`},
			408, 0, "408 Request Timeout: request took too long"},
		{"500", asrtest.Answer{Status: 500, Body: ""},
			500, 0, "500 Internal Server Error: 500 Internal Server Error"},
		{"GarbageJSON", asrtest.Answer{Status: 200, Body: "<html><body>Welcome to nginx!</body></html>"},
			200, 0, "openai transcription: 200 OK: the answer is not a JSON transcript (invalid character '<' looking for beginning of value): <html><body>Welcome to nginx!</body></html>"},
		{"TruncatedJSON", asrtest.Answer{Status: 200, Body: verbose[:120]},
			200, 0, "the answer is not a JSON transcript (unexpected end of JSON input)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			server := newFakeServer(t, tc.first, asrtest.Answer{Status: 200, Body: verbose})
			engine := server.engine(t)

			// As the worker will: try, and on a retryable error wait as told
			// (River snoozes the job) and try again.
			var waits []time.Duration
			var tr transcript.Transcript
			for attempt := 1; ; attempt++ {
				require.LessOrEqual(t, attempt, 2)
				var err error
				tr, err = engine.Transcribe(b.ctx, asr.Input{Path: wav, Language: "en"})
				if err == nil {
					break
				}
				require.False(t, asr.Permanent(err))
				re, ok := errors.AsType[*asr.RetryableError](err)
				require.True(t, ok, "%v", err)
				require.Equal(t, tc.status, re.StatusCode)
				require.ErrorContains(t, err, tc.message)
				waits = append(waits, re.RetryAfter)
			}
			require.Equal(t, []time.Duration{tc.retryAfter}, waits)
			require.Len(t, tr.Segments, 2)
			require.Len(t, server.Uploads(), 2)
		})
	}

	t.Run("RetryAfterDate", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		server := newFakeServer(t, asrtest.Answer{Status: 503, Header: map[string]string{"Retry-After": date}, Body: "maintenance"})
		_, err := server.engine(t).Transcribe(b.ctx, asr.Input{Path: wav})
		re, ok := errors.AsType[*asr.RetryableError](err)
		require.True(t, ok, "%v", err)
		require.InDelta(t, time.Hour, re.RetryAfter, float64(5*time.Minute))
	})

	t.Run("ServerDown", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		server := newFakeServer(t)
		engine := server.engine(t)
		server.Close()
		_, err := engine.Transcribe(b.ctx, asr.Input{Path: wav})
		re, ok := errors.AsType[*asr.RetryableError](err)
		require.True(t, ok, "%v", err)
		require.Zero(t, re.StatusCode)
		require.ErrorContains(t, err, "connection refused")
	})

	t.Run("ClientTimeout", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		server := newFakeServer(t, asrtest.Answer{Hold: true})
		engine, err := asr.NewOpenAI(asr.OpenAIConfig{BaseURL: server.URL, Model: "whisper-1", Timeout: 200 * time.Millisecond})
		require.NoError(t, err)
		_, err = engine.Transcribe(b.ctx, asr.Input{Path: wav})
		re, ok := errors.AsType[*asr.RetryableError](err)
		require.True(t, ok, "%v", err)
		require.ErrorContains(t, re, "Client.Timeout exceeded")
		server.Arrived(t)
	})
}

func TestOpenAIRejected(t *testing.T) {
	t.Parallel()
	wav := mediatest.LibriVox(t)[1].Path

	for _, tc := range []struct {
		name    string
		answer  asrtest.Answer
		status  int
		message string
	}{
		{"OpenAIError", asrtest.Answer{Status: 400, Body: `{"error":{"message":"Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']","type":"invalid_request_error","param":"file","code":null}}`},
			400, "Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']"},
		{"BadKey", asrtest.Answer{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
			401, "Incorrect API key provided: sk-test."},
		{"WhisperCpp", asrtest.Answer{Status: 400, Body: `{"error":"failed to read WAV file"}`}, 400, "failed to read WAV file"},
		{"FastAPI", asrtest.Answer{Status: 404, Body: `{"detail":"Model 'whisper-9' is not installed locally."}`}, 404, "Model 'whisper-9' is not installed locally."},
		{"FastAPIValidation", asrtest.Answer{Status: 422, Body: `{"detail":[{"loc":["body","file"],"msg":"field required","type":"value_error.missing"}]}`},
			422, `[{"loc":["body","file"],"msg":"field required","type":"value_error.missing"}]`},
		{"PlainText", asrtest.Answer{Status: 413, Body: "Request Entity Too Large\n"}, 413, "Request Entity Too Large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			server := newFakeServer(t, tc.answer)
			// Through the whole pipeline, as the worker will call it.
			_, err := asr.Transcribe(b.ctx, server.engine(t), wav, asr.Options{Language: "en"})
			require.True(t, asr.Permanent(err), "%v", err)
			re, ok := errors.AsType[*asr.RejectedError](err)
			require.True(t, ok, "%v", err)
			require.Equal(t, tc.status, re.StatusCode)
			require.Equal(t, tc.message, re.Message)
			require.EqualError(t, err, "openai transcription: "+strconv.Itoa(tc.status)+" "+http.StatusText(tc.status)+": "+tc.message)
			require.Len(t, server.Uploads(), 1, "not retried")
		})
	}
}

func TestOpenAITextOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wav := mediatest.LibriVox(t)[1]
	server := newFakeServer(t,
		asrtest.Answer{Status: 400, Body: `{"error":{"message":"response_format 'verbose_json' is not compatible with model 'gpt-4o-transcribe'. Use 'json' or 'text' instead.","type":"invalid_request_error","param":"response_format","code":"unsupported_value"}}`},
		asrtest.Answer{Status: 200, Body: `{"text":"He was not an ill-disposed young man.","usage":{"type":"tokens","input_tokens":14,"output_tokens":10,"total_tokens":24}}`},
		asrtest.Answer{Status: 200, Body: `{"text":"Unless to be rather cold-hearted."}`},
	)
	engine := server.engine(t)

	tr, err := engine.Transcribe(b.ctx, asr.Input{Path: wav.Path, Duration: wav.Duration})
	require.NoError(t, err)
	require.Equal(t, []transcript.Segment{{Start: ptr(0), End: ptr(2.99), Speaker: transcript.Unknown, Text: "He was not an ill-disposed young man."}}, tr.Segments)

	// The engine remembers: the next call asks for json straight away.
	tr, err = engine.Transcribe(b.ctx, asr.Input{Path: wav.Path, Duration: wav.Duration})
	require.NoError(t, err)
	require.Equal(t, "Unless to be rather cold-hearted.", tr.Text)

	var formats []string
	for _, u := range server.Uploads() {
		formats = append(formats, u.Fields["response_format"])
	}
	require.Equal(t, []string{"verbose_json", "json", "json"}, formats)
}

func TestOpenAICancelled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	server := newFakeServer(t, asrtest.Answer{Hold: true})
	engine, wav := server.engine(t), mediatest.LibriVox(t)[1].Path
	ctx, cancel := context.WithCancel(b.ctx)
	done := make(chan error, 1)
	go func() {
		_, err := engine.Transcribe(ctx, asr.Input{Path: wav})
		done <- err
	}()
	server.Arrived(t)
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, asr.Permanent(err))
}

func TestOpenAIChunks(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		opts asr.Options
	}{
		{"ByDuration", asr.Options{MaxChunk: 10 * time.Second}},
		{"BySize", asr.Options{MaxChunkBytes: media.WAVHeaderSize + 10*media.BytesPerSecond}},
		{"Stricter", asr.Options{MaxChunk: 10 * time.Second, MaxChunkBytes: 25 << 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			server := newFakeServer(t)
			path, want := tones(t, b.dir, 0)
			tc.opts.Language = "es"
			tr, err := asr.Transcribe(b.ctx, server.engine(t), path, tc.opts)
			require.NoError(t, err)

			// The server timed each tone from the start of its chunk; put
			// back, every tone is whole, once, at its time in the recording.
			requireSpans(t, want, tr.Segments)
			require.Equal(t, "tone 300\ntone 400\ntone 500\ntone 600\ntone 700\ntone 800", tr.Text)
			require.Equal(t, "es", tr.Language)
			require.Equal(t, "openai:whisper-1", tr.Engine)

			uploads := server.Uploads()
			require.Len(t, uploads, 3, "27.5 s in chunks of at most 10 s")
			for _, u := range uploads {
				require.LessOrEqual(t, len(u.File), media.WAVHeaderSize+10*media.BytesPerSecond)
				require.Equal(t, "es", u.Fields["language"])
			}
		})
	}

	t.Run("StereoChunks", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		server := newFakeServer(t)
		// The agent's tones on the right, the customer's on the left, taking turns.
		var ts []mediatest.Tone
		var want []span
		for i := range 6 {
			start := time.Duration(500+2250*i) * time.Millisecond
			ch, speaker := i%2, transcript.Customer
			if ch == 1 {
				speaker = transcript.Agent
			}
			ts = append(ts, mediatest.Tone{Start: start, Length: 2 * time.Second, Hz: 300 + 100*i, Channel: ch})
			want = append(want, span{Speaker: speaker, Start: start.Seconds(), End: start.Seconds() + 2, Text: "tone " + strconv.Itoa(300+100*i)})
		}
		path := filepath.Join(b.dir, "call.wav")
		mediatest.Tones(t, path, 14*time.Second, ts...)
		tr, err := asr.Transcribe(b.ctx, server.engine(t), path, asr.Options{SplitStereo: true, AgentChannel: asr.Right, MaxChunk: 6 * time.Second})
		require.NoError(t, err)
		requireSpans(t, want, tr.Segments)
		require.Len(t, server.Uploads(), 6, "each side of 14 s in three chunks")
	})
}

// A Whisper-like server's verbose_json says how sure the model was of each
// segment: nonsense (a call in a language the model was not asked for,
// narrow-band noise) comes with a low avg_logprob and makes the
// transcript unreliable; a server that leaves the figures out gives no
// quality, and is judged on its speed alone.
func TestOpenAIQuality(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wav := mediatest.LibriVox(t)[1] // 2.99 s
	segment := func(start, end float64, text, figures string) string {
		return fmt.Sprintf(`{"id":0,"seek":0,"start":%g,"end":%g,"text":%q,"tokens":[1],"temperature":0.0%s}`, start, end, text, figures)
	}
	answer := func(segments ...string) asrtest.Answer {
		return asrtest.Answer{Status: 200, Body: `{"task":"transcribe","language":"english","duration":2.99,"text":"x","segments":[` +
			strings.Join(segments, ",") + `]}`}
	}
	for _, c := range []struct {
		name       string
		answer     asrtest.Answer
		score      *float64
		unreliable string
		doubtful   int
	}{
		{"confident", answer(segment(0.2, 1.1, " He was not", `,"avg_logprob":-0.21,"no_speech_prob":0.02`),
			segment(1.1, 2.8, " an ill-disposed young man.", `,"avg_logprob":-0.18,"no_speech_prob":0.01`)),
			ptr((3*math.Exp(-0.21)*0.98 + 4*math.Exp(-0.18)*0.99) / 7), "", 0},
		{"nonsense", answer(segment(0.0, 1.4, " What what are ya", `,"avg_logprob":-1.38,"no_speech_prob":0.21`),
			segment(1.4, 2.9, " ya what you.", `,"avg_logprob":-1.12,"no_speech_prob":0.35`)),
			ptr((4*math.Exp(-1.38)*0.79 + 3*math.Exp(-1.12)*0.65) / 7), transcript.LowQuality, 2},
		{"one doubtful segment", answer(segment(0.2, 1.1, " He was not", `,"avg_logprob":-0.1,"no_speech_prob":0.01`),
			segment(1.1, 2.8, " an ill-disposed young man.", `,"avg_logprob":-1.5,"no_speech_prob":0.5`)),
			ptr((3*math.Exp(-0.1)*0.99 + 4*math.Exp(-1.5)*0.5) / 7), transcript.LowQuality, 1},
		{"silence mistaken for words", answer(segment(0, 2.9, " Thank you.", `,"avg_logprob":-0.3,"no_speech_prob":0.92`)),
			ptr(math.Exp(-0.3) * (1 - 0.92)), transcript.LowQuality, 1},
		{"no figures", answer(segment(0.2, 2.8, " He was not an ill-disposed young man.", ``)), nil, "", 0},
		{"null figures", answer(segment(0.2, 2.8, " He was not an ill-disposed young man.", `,"avg_logprob":null,"no_speech_prob":null`)), nil, "", 0},
		{"a model repeating itself", answer(segment(0, 1.5, strings.Repeat(" thank you", 6), `,"avg_logprob":-0.05,"no_speech_prob":0.01`)),
			ptr(math.Exp(-0.05) * 0.99), transcript.TooFast, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			server := newFakeServer(t, c.answer)
			tr, err := asr.Transcribe(b.ctx, server.engine(t), wav.Path, asr.Options{WorkDir: t.TempDir(), QualityFloor: transcript.DefaultQualityFloor})
			require.NoError(t, err)
			q := tr.Quality
			require.NotNil(t, q)
			if c.score == nil {
				require.Nil(t, q.Score)
			} else {
				require.InDelta(t, *c.score, *q.Score, 1e-9)
			}
			require.Equal(t, c.unreliable, q.Unreliable)
			require.Equal(t, c.doubtful, q.DoubtfulSegments)
			require.Equal(t, transcript.DefaultQualityFloor, q.Floor)
			require.NotNil(t, q.WordsPerSecond)
		})
	}

	// A server that only speaks json: one segment spanning the audio,
	// without a quality.
	server := newFakeServer(t,
		asrtest.Answer{Status: 400, Body: `{"error":{"message":"response_format 'verbose_json' is not compatible with model 'gpt-4o-transcribe'.","param":"response_format"}}`},
		asrtest.Answer{Status: 200, Body: `{"text":"He was not an ill-disposed young man."}`})
	tr, err := asr.Transcribe(b.ctx, server.engine(t), wav.Path, asr.Options{WorkDir: t.TempDir(), QualityFloor: transcript.DefaultQualityFloor})
	require.NoError(t, err)
	require.Nil(t, tr.Segments[0].Quality)
	require.Nil(t, tr.Quality.Score)
	require.Empty(t, tr.Quality.Unreliable)
	require.InDelta(t, 7/2.99, *tr.Quality.WordsPerSecond, 0.05)
}
