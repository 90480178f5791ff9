package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/metrics"
)

// TestClientCancellationIsNoServerError: a request the client canceled
// (a page left, a search typed on), whose work then failed with the
// request's context, is logged at INFO as 499 and counted so, not as an
// ERROR 500 "context canceled"; a real failure still is one.
func TestClientCancellationIsNoServerError(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	h := withRequest(log, metrics.New())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := r.Context().Err()
		if err == nil {
			err = fmt.Errorf("query: %w", errBroken)
		}
		writeError(w, r, translate(r.Context(), fmt.Errorf("list tasks: %w", err)))
	}))

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, http.MethodGet, "/tasks", nil))
	require.Contains(t, logs.String(), `level=INFO msg="request canceled by the client"`)
	require.Contains(t, logs.String(), "status=499")
	require.NotContains(t, logs.String(), "level=ERROR")

	logs.Reset()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/tasks", nil))
	require.Equal(t, http.StatusInternalServerError, rec.Code)
	require.Contains(t, logs.String(), `level=ERROR msg="internal error"`)
	require.Contains(t, logs.String(), "status=500")
}

var errBroken = errors.New("connection reset")
