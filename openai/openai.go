// Package openai holds what the engines that talk to OpenAI-compatible
// servers (speech recognition in package asr, the llm auditor) share: the
// endpoint built from a configured base URL, which answers are worth
// retrying, how long the server asked to wait, and the server's own
// explanation of an error.
package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Endpoint returns the URL of path (such as "/chat/completions") on the
// server at baseURL, which may end with the /v1 that OpenAI's SDKs put in
// it or not: "https://api.openai.com" and "http://127.0.0.1:8000/v1/" both
// work. A query string is kept. It returns an error when baseURL is not an
// http(s) URL.
func Endpoint(baseURL, path string) (string, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/v1") {
		u.Path += "/v1"
	}
	u.Path += path
	u.RawPath = ""
	return u.String(), nil
}

// Retryable reports whether an answer with status may succeed when sent
// again: 408 Request Timeout, 429 Too Many Requests and every 5xx. Any other
// 4xx gets the same answer again.
func Retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// RetryAfter reads how long a server asked to wait: retry-after-ms
// (OpenAI, Azure), else Retry-After in seconds or as an HTTP date. Zero
// when it did not say or the date has passed.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if s, err := strconv.Atoi(v); err == nil {
		return max(time.Duration(s)*time.Second, 0)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// Message is the explanation a server gave for an error.
type Message struct {
	Message string
	// Param is the request field the server blamed, when it said.
	Param string
}

// ServerMessage extracts the explanation from an error answer: OpenAI's
// {"error":{"message":…,"param":…}}, {"error":"…"} (whisper.cpp),
// {"detail":"…"} (FastAPI servers), {"message":"…"}, else the start of the
// body, else the status line.
func ServerMessage(body []byte, status string) Message {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		var nested struct {
			Message string `json:"message"`
			Param   string `json:"param"`
		}
		var text string
		switch {
		case json.Unmarshal(e.Error, &nested) == nil && nested.Message != "":
			return Message{Message: nested.Message, Param: nested.Param}
		case json.Unmarshal(e.Error, &text) == nil && text != "":
			return Message{Message: text}
		case json.Unmarshal(e.Detail, &text) == nil && text != "":
			return Message{Message: text}
		case len(e.Detail) > 0 && string(e.Detail) != "null":
			return Message{Message: string(e.Detail)}
		case e.Message != "":
			return Message{Message: e.Message}
		}
	}
	if s := Snippet(body); s != "" {
		return Message{Message: s}
	}
	return Message{Message: status}
}

// Snippet returns the start of body on one line, for error messages.
func Snippet(body []byte) string {
	const n = 200
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(body), "?")), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}

// RetryableError is a failure the server may not repeat: the network, a
// timeout, 408, 429 or 5xx, or a 2xx answer that cannot be read. The job
// that met it waits (RetryDelay) and tries again.
type RetryableError struct {
	// Service names what was asked, as the message starts: "llm",
	// "openai transcription".
	Service string
	// StatusCode is the HTTP status; zero when no answer came.
	StatusCode int
	// RetryAfter is how long the server asked to wait (Retry-After or
	// retry-after-ms); zero when it did not say.
	RetryAfter time.Duration
	// Err says what went wrong.
	Err error
}

// Error implements error.
func (e *RetryableError) Error() string {
	msg := e.Service + ": "
	if e.StatusCode != 0 {
		msg += strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode) + ": "
	}
	msg += e.Err.Error()
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %v)", e.RetryAfter)
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *RetryableError) Unwrap() error { return e.Err }

// RetryDelay is how long to wait before trying again: the server's
// Retry-After, or zero.
func (e *RetryableError) RetryDelay() time.Duration { return e.RetryAfter }
