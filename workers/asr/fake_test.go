package asr_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/auditd/auditd/media/mediatest"
)

// fakeServer implements POST /v1/audio/transcriptions on loopback. Unless a
// test scripts its answers, it "recognises" the tones of the uploaded WAV
// (see mediatest.Listen) and answers verbose_json with one segment per tone,
// timed from the start of the upload, as a real server times a chunk.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	received []upload
	script   []answer
}

// upload is what the server received in one request.
type upload struct {
	Path, Auth, ContentType string
	ContentLength           int64
	Fields                  map[string]string
	FileName, FileType      string
	File                    []byte
}

// answer is one scripted response.
type answer struct {
	status int
	header map[string]string
	body   string
	// wait, when set, is closed by the handler on arrival, and the handler
	// then holds the request until the client gives up on it.
	wait chan struct{}
}

func newFakeServer(t *testing.T, script ...answer) *fakeServer {
	t.Helper()
	f := &fakeServer{script: script}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	u := upload{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type"),
		ContentLength: r.ContentLength, Fields: map[string]string{}}
	if r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"method"}}`, http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	for k, v := range r.MultipartForm.Value {
		u.Fields[k] = v[0]
	}
	file, header, err := r.FormFile("file")
	if err != nil {
		http.Error(w, `{"error":{"message":"file is required","param":"file"}}`, http.StatusBadRequest)
		return
	}
	u.FileName, u.FileType = header.Filename, header.Header.Get("Content-Type")
	u.File, _ = io.ReadAll(file)

	f.mu.Lock()
	f.received = append(f.received, u)
	var a *answer
	if len(f.script) > 0 {
		a = &f.script[0]
		f.script = f.script[1:]
	}
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	switch {
	case a != nil && a.wait != nil:
		close(a.wait)
		<-r.Context().Done()
	case a != nil:
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	default:
		f.recognise(w, u)
	}
}

// recognise answers with the tones heard in the upload.
func (f *fakeServer) recognise(w http.ResponseWriter, u upload) {
	heard, err := mediatest.Listen(u.File)
	if err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q,"param":"file"}}`, err.Error()), http.StatusBadRequest)
		return
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
	_ = json.NewEncoder(w).Encode(answer)
}

// uploads returns what the server received so far.
func (f *fakeServer) uploads() []upload {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]upload(nil), f.received...)
}
