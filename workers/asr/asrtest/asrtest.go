// Package asrtest is an OpenAI-compatible transcription server on loopback
// for the tests of the openai engine and of what drives it: it answers what
// a test scripts, request by request, and then a fixed transcript (or what
// the test computes from each upload).
package asrtest

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Transcript is the verbose_json answer of every request the script does
// not cover: two segments, "Good morning." from 0.4 to 1.6 s and "How can I
// help?" from 2.0 to 3.9 s.
const Transcript = `{"task":"transcribe","language":"english","duration":4.1,"text":"Good morning. How can I help?",
"segments":[{"start":0.4,"end":1.6,"text":" Good morning."},{"start":2.0,"end":3.9,"text":" How can I help?"}]}`

// Answer is one scripted answer.
type Answer struct {
	Status int
	Header map[string]string
	Body   string
	// Hold keeps the request open, unanswered, until the client goes away.
	Hold bool
}

// Upload is what the server received in one request.
type Upload struct {
	Path, Auth, ContentType string
	ContentLength           int64
	// Fields are the form's fields other than the file.
	Fields             map[string]string
	FileName, FileType string
	File               []byte
}

// Server implements POST /v1/audio/transcriptions.
type Server struct {
	*httptest.Server
	arrived chan int
	// answer answers what the script does not cover.
	answer func(Upload) Answer

	mu       sync.Mutex
	script   []Answer
	received []Upload
}

// NewServer starts a server that answers script first, then Transcript; it
// is closed when tb ends.
func NewServer(tb testing.TB, script ...Answer) *Server {
	tb.Helper()
	return NewServerFunc(tb, func(Upload) Answer { return Answer{Status: http.StatusOK, Body: Transcript} }, script...)
}

// NewServerFunc starts a server that answers script first, then what
// answer makes of each upload; it is closed when tb ends.
func NewServerFunc(tb testing.TB, answer func(Upload) Answer, script ...Answer) *Server {
	tb.Helper()
	s := &Server{script: script, answer: answer, arrived: make(chan int, 100)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	u := Upload{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type"),
		ContentLength: r.ContentLength, Fields: map[string]string{}}
	for k, v := range r.MultipartForm.Value {
		u.Fields[k] = v[0]
	}
	if f, h, err := r.FormFile("file"); err == nil {
		u.FileName, u.FileType = h.Filename, h.Header.Get("Content-Type")
		u.File, _ = io.ReadAll(f)
	}
	s.mu.Lock()
	s.received = append(s.received, u)
	n := len(s.received)
	var a *Answer
	if len(s.script) > 0 {
		a = &s.script[0]
		s.script = s.script[1:]
	}
	s.mu.Unlock()
	s.arrived <- n
	if a == nil {
		computed := s.answer(u)
		a = &computed
	}

	w.Header().Set("Content-Type", "application/json")
	if a.Hold {
		<-r.Context().Done()
		return
	}
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

// Arrived waits for the next request to come in, before it is answered,
// and returns its number (from 1). It fails the test after a minute.
func (s *Server) Arrived(tb testing.TB) int {
	tb.Helper()
	select {
	case n := <-s.arrived:
		return n
	case <-time.After(time.Minute):
		tb.Fatal("asrtest: no request within a minute")
		return 0
	}
}

// Requests returns the form fields of every request so far; "file" is the
// uploaded file's name, type and size.
func (s *Server) Requests() []map[string]string {
	var out []map[string]string
	for _, u := range s.Uploads() {
		fields := maps.Clone(u.Fields)
		if u.FileName != "" || u.File != nil {
			fields["file"] = fmt.Sprintf("%s (%s, %d bytes)", u.FileName, u.FileType, len(u.File))
		}
		out = append(out, fields)
	}
	return out
}

// Uploads returns every request so far.
func (s *Server) Uploads() []Upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Upload(nil), s.received...)
}
