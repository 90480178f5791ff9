package api

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/role"
)

func TestEveryJSONBodyIsReadInBoundedTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	streamed := map[string]bool{"upload-tasks": true, "validate-audit": true}
	n := 0
	for _, rt := range routes(t, b.server) {
		if rt.op.RequestBody == nil {
			continue
		}
		if streamed[rt.op.OperationID] {
			// Bounded by BodyTimeouts, and documented so.
			require.NotNil(t, rt.op.Responses["408"], rt.String())
			continue
		}
		n++
		require.Equal(t, bodyReadTimeout, rt.op.BodyReadTimeout, rt.String())
	}
	require.Positive(t, n)
}

func TestSlowBodyIsARequestTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t)
	type slowInput struct {
		Body struct {
			Text string `json:"text"`
		}
	}
	// The probe's bound is short so the test does not wait 10 s; the
	// answer is the same for every operation.
	op := operation(http.MethodPost, "/probe-slow", "probe-slow", "slow", role.None)
	op.BodyReadTimeout = 100 * time.Millisecond
	huma.Register(b.server.api, op, func(ctx context.Context, in *slowInput) (*Output[string], error) { return ok(in.Body.Text), nil })

	body, w := io.Pipe()
	t.Cleanup(func() { _ = w.Close() })
	go func() { _, _ = w.Write([]byte(`{"text":`)) }() // and never the rest
	r := b.do(t, http.MethodPost, "/probe-slow", b.issuer.token(t, "slow", "quality"), body, "Content-Type", "application/json")
	requireError(t, r, http.StatusRequestTimeout, CodeRequestTimeout)
}
