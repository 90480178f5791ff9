// Package asrtest is an OpenAI-compatible transcription server on loopback
// for the tests of what drives the openai engine: it answers what a test
// scripts, request by request, and then a fixed transcript.
package asrtest

import (
	"fmt"
	"io"
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

// Server implements POST /v1/audio/transcriptions.
type Server struct {
	*httptest.Server
	arrived chan int

	mu       sync.Mutex
	script   []Answer
	received []map[string]string
}

// NewServer starts a server that answers script first; it is closed when
// tb ends.
func NewServer(tb testing.TB, script ...Answer) *Server {
	tb.Helper()
	s := &Server{script: script, arrived: make(chan int, 100)}
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
	fields := map[string]string{}
	for k, v := range r.MultipartForm.Value {
		fields[k] = v[0]
	}
	if f, h, err := r.FormFile("file"); err == nil {
		n, _ := io.Copy(io.Discard, f)
		fields["file"] = fmt.Sprintf("%s (%s, %d bytes)", h.Filename, h.Header.Get("Content-Type"), n)
	}
	s.mu.Lock()
	s.received = append(s.received, fields)
	n := len(s.received)
	var a *Answer
	if len(s.script) > 0 {
		a = &s.script[0]
		s.script = s.script[1:]
	}
	s.mu.Unlock()
	s.arrived <- n

	w.Header().Set("Content-Type", "application/json")
	switch {
	case a != nil && a.Hold:
		<-r.Context().Done()
	case a != nil:
		for k, v := range a.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.Status)
		_, _ = io.WriteString(w, a.Body)
	default:
		_, _ = io.WriteString(w, Transcript)
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]string(nil), s.received...)
}
