package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/workers"
	"github.com/auditd/auditd/workers/asr"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// TestDetectedLanguage: a call uploaded without a language, in a campaign
// that lets the server detect it, is sent to an OpenAI-compatible server
// with no language field, and the language it answers with (verbose_json
// "language": "spanish") becomes the task's and the transcript's; a
// campaign that does not (the default) sends its own language, and so does
// an upload that gives one.
func TestDetectedLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{client: ClientConfig{Speech: intake.Speech{Engine: "openai"}}})
	server := asrtest.NewServerFunc(t, func(asrtest.Upload) asrtest.Answer {
		return asrtest.Answer{Status: http.StatusOK, Body: `{"task":"transcribe","language":"spanish","duration":2,"text":"Buenos días.",
			"segments":[{"start":0.2,"end":1.5,"text":" Buenos días."}]}`}
	})
	engine, err := asr.NewOpenAI(asr.OpenAIConfig{BaseURL: server.URL, Model: "whisper-1"})
	require.NoError(t, err)
	boss := b.issuer.token(t, "boss", "supervisor")
	r := b.do(t, http.MethodPost, "/campaigns", boss, strings.NewReader(`{"name":"anywhere","language":"en","detect_language":true}`),
		"Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.Equal(t, true, details(r)["detect_language"])

	id := uploaded(t, b.upload(t, boss, field("campaign", "anywhere"), file("a.wav", tone(t, "a.wav", 440, 2))))[0]
	require.Equal(t, "", details(b.do(t, http.MethodGet, "/tasks/"+id["uuid"].(string), boss, nil))["language"], "none until the server says")
	other := uploaded(t, b.upload(t, boss, file("b.wav", tone(t, "b.wav", 450, 2))))[0]
	given := uploaded(t, b.upload(t, boss, field("campaign", "anywhere"), field("language", "pt-BR"),
		file("c.wav", tone(t, "c.wav", 460, 2))))[0]
	b.startWorkersWith(t, workers.Deps{Transcribe: workers.TranscribeConfig{Engine: engine}}, func(c *river.Config) {
		c.Queues[jobs.QueueMedia] = river.QueueConfig{MaxWorkers: 1}
	})

	d := b.waitStatus(t, boss, id["uuid"].(string), "audited")
	require.Equal(t, "es", d["language"])
	require.Equal(t, "es", d["transcript"].(map[string]any)["language"])
	require.Equal(t, "es", b.waitStatus(t, boss, other["uuid"].(string), "audited")["language"], "the default campaign's")
	require.Equal(t, "pt-BR", b.waitStatus(t, boss, given["uuid"].(string), "audited")["language"])

	sent := map[string]string{}
	for _, u := range server.Uploads() {
		lang, ok := u.Fields["language"]
		if !ok {
			lang = "(none)"
		}
		sent[lang] += "x"
	}
	require.Equal(t, map[string]string{"(none)": "x", "es": "x", "pt": "x"}, sent, "one request each, mono")
}
