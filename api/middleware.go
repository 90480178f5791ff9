package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/auditd/auditd/metrics"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	loggerKey
	principalKey
)

// validRequestID accepts a caller's X-Request-Id only if it is safe to log and echo.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// newRequestID returns a fresh request id: 12 random bytes in hex.
func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// logger returns the request's logger (carrying its request id), or the
// default logger outside a request.
func logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// withRequest gives every request an id (the caller's X-Request-Id when it
// is sane), echoes it, logs the request when it ends, and turns a panic into
// an INTERNAL_ERROR response logged with its stack. Every response is
// marked nosniff: what clients uploaded (a recording, a chat's text inside
// JSON) is never taken for HTML or script by a browser. Every response is
// Cache-Control: no-store (answers, errors, event streams, /metrics, River
// UI, the docs, the dashboard's index.html): answers carry personal data and
// change with every write, so no browser or shared cache may keep them. Only
// the dashboard's content-hashed files replace it with a long cache.
func withRequest(base *slog.Logger, m *metrics.Metrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := r.Header.Get("X-Request-Id")
			if !validRequestID.MatchString(id) {
				id = newRequestID()
			}
			w.Header().Set("X-Request-Id", id)
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Cache-Control", "no-store")
			l := base.With("request_id", id)
			ctx := context.WithValue(context.WithValue(r.Context(), requestIDKey, id), loggerKey, l)
			r = r.WithContext(ctx)
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)

			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					l.ErrorContext(ctx, "panic", "panic", p, "stack", string(debug.Stack()))
					if ww.Status() == 0 {
						writeError(ww, r, Errorf(CodeInternal, internalMessage))
					}
				}
				status := ww.Status()
				if status == 0 {
					status = http.StatusOK
				}
				if status >= 500 && errors.Is(ctx.Err(), context.Canceled) {
					// The client went away (a page left, a search typed
					// on) and what failed was its request's context: no
					// server error, logged and counted as nginx's 499.
					status = statusClientClosed
				}
				route := chi.RouteContext(ctx).RoutePattern()
				elapsed := time.Since(start)
				m.ObserveHTTP(route, r.Method, status, elapsed)
				l.LogAttrs(ctx, levelFor(status), "request",
					slog.String("method", r.Method), slog.String("path", r.URL.Path),
					slog.String("route", route), slog.Int("status", status),
					slog.Int("bytes", ww.BytesWritten()),
					slog.Duration("duration", elapsed))
			}()
			next.ServeHTTP(ww, r)
		})
	}
}

// strictURL refuses a request whose path, query parameter names or values
// hold a NUL, another control character or invalid UTF-8 once decoded, or
// whose query is not URL-encoded: no parameter of the API takes one, and
// Postgres cannot store a NUL. The error names the parameter.
func strictURL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if badText(r.URL.Path) {
			writeError(w, r, Errorf(CodeValidation, "the path holds a NUL, a control character or invalid UTF-8").
				WithDetail("path", "invalid character", nil))
			return
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			writeError(w, r, Errorf(CodeValidation, "the query string is not URL-encoded name=value pairs joined by &").
				WithDetail("query", "malformed query string", nil))
			return
		}
		for _, name := range slices.Sorted(maps.Keys(q)) {
			if badText(name) || slices.ContainsFunc(q[name], badText) {
				writeError(w, r, Errorf(CodeValidation, fmt.Sprintf("the query parameter %q holds a NUL, a control character or invalid UTF-8", name)).
					WithDetail("query."+name, "invalid character", nil))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// badText reports whether s is not text a parameter may hold: invalid
// UTF-8, or a control character.
func badText(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl)
}

// statusClientClosed is the status logged and counted for a request its
// client canceled before the answer (nginx's 499); nobody receives it.
const statusClientClosed = 499

func levelFor(status int) slog.Level {
	if status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}
