package asr_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// fakeServer is asrtest's transcription server which, unless a test scripts
// its answers, "recognises" the tones of the uploaded WAV (see
// mediatest.Listen) and answers verbose_json with one segment per tone,
// timed from the start of the upload, as a real server times a chunk.
type fakeServer struct{ *asrtest.Server }

func newFakeServer(t *testing.T, script ...asrtest.Answer) fakeServer {
	t.Helper()
	return fakeServer{asrtest.NewServerFunc(t, recognise, script...)}
}

// recognise answers with the tones heard in the upload.
func recognise(u asrtest.Upload) asrtest.Answer {
	heard, err := mediatest.Listen(u.File)
	if err != nil {
		return asrtest.Answer{Status: http.StatusBadRequest, Body: fmt.Sprintf(`{"error":{"message":%q,"param":"file"}}`, err.Error())}
	}
	type segment struct {
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Text  string  `json:"text"`
	}
	answer := struct {
		Task     string    `json:"task"`
		Language string    `json:"language"`
		Text     string    `json:"text"`
		Segments []segment `json:"segments"`
	}{Task: "transcribe", Language: "english", Segments: []segment{}}
	for _, h := range heard {
		text := fmt.Sprintf(" tone %d", h.Hz)
		answer.Text += text
		answer.Segments = append(answer.Segments, segment{Start: h.Start, End: h.End, Text: text})
	}
	body, err := json.Marshal(answer)
	if err != nil {
		return asrtest.Answer{Status: http.StatusInternalServerError, Body: fmt.Sprintf(`{"error":{"message":%q}}`, err.Error())}
	}
	return asrtest.Answer{Status: http.StatusOK, Body: string(body)}
}
