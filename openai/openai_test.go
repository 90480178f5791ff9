package openai_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/openai"
)

func TestEndpoint(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{
		"https://api.openai.com":                "https://api.openai.com/v1/chat/completions",
		"http://127.0.0.1:8000/v1/":             "http://127.0.0.1:8000/v1/chat/completions",
		"https://x.openai.azure.com/openai/v1":  "https://x.openai.azure.com/openai/v1/chat/completions",
		"http://proxy.local/llm?api-version=v1": "http://proxy.local/llm/v1/chat/completions?api-version=v1",
	} {
		got, err := openai.Endpoint(base, "/chat/completions")
		require.NoError(t, err, base)
		require.Equal(t, want, got, base)
	}
	for _, bad := range []string{"", "api.openai.com", "ftp://x", "http://"} {
		_, err := openai.Endpoint(bad, "/chat/completions")
		require.ErrorContains(t, err, "is not an http(s) URL", bad)
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]bool{408: true, 429: true, 500: true, 503: true, 400: false, 401: false, 404: false, 422: false} {
		require.Equal(t, want, openai.Retryable(status), status)
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	require.Equal(t, 1500*time.Millisecond, openai.RetryAfter(h("Retry-After-Ms", "1500", "Retry-After", "9"), now))
	require.Equal(t, 9*time.Second, openai.RetryAfter(h("Retry-After", "9"), now))
	require.Equal(t, 30*time.Second, openai.RetryAfter(h("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat)), now))
	require.Zero(t, openai.RetryAfter(h("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)), now))
	require.Zero(t, openai.RetryAfter(h("Retry-After", "soon"), now))
	require.Zero(t, openai.RetryAfter(h(), now))
}

func TestServerMessage(t *testing.T) {
	t.Parallel()
	require.Equal(t, openai.Message{Message: "bad schema", Param: "response_format"},
		openai.ServerMessage([]byte(`{"error":{"message":"bad schema","param":"response_format"}}`), "400 Bad Request"))
	require.Equal(t, "model not loaded", openai.ServerMessage([]byte(`{"error":"model not loaded"}`), "").Message)
	require.Equal(t, "Not Found", openai.ServerMessage([]byte(`{"detail":"Not Found"}`), "").Message)
	require.Equal(t, `[{"loc":["body"]}]`, openai.ServerMessage([]byte(`{"detail":[{"loc":["body"]}]}`), "").Message)
	require.Equal(t, "nope", openai.ServerMessage([]byte(`{"message":"nope"}`), "").Message)
	require.Equal(t, "<html> Bad Gateway </html>", openai.ServerMessage([]byte("<html>\n Bad Gateway\n</html>"), "").Message)
	require.Equal(t, "502 Bad Gateway", openai.ServerMessage(nil, "502 Bad Gateway").Message)
	long := openai.Snippet([]byte(strings.Repeat("é", 500)))
	require.Equal(t, strings.Repeat("é", 200)+"…", long)
}
