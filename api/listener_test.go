package api

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// What net/http answers by itself, before any handler, is in the error
// model too: JSON with a code from the table, a request id, no-store, and a
// message of ours; a client's malformed request is never a 5xx.
func TestNetHTTPErrorsInTheErrorModel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	addr := strings.TrimPrefix(b.http.URL, "http://")
	for _, c := range []struct {
		name, raw string
		status    int
		code      string
	}{
		{"space in the target", "GET /users/me? x HTTP/1.1\r\nHost: a\r\n\r\n", 400, CodeValidation},
		{"malformed request line", "NONSENSE\r\n\r\n", 400, CodeValidation},
		{"bad header name", "GET /health HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n", 400, CodeValidation},
		{"no Host", "GET /health HTTP/1.1\r\n\r\n", 400, CodeValidation},
		{"control character in a header value", "GET /health HTTP/1.1\r\nHost: a\r\nX-A: b\x01c\r\n\r\n", 400, CodeValidation},
		{"unknown transfer coding", "POST /notifications HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 400, CodeValidation},
		{"unknown HTTP version", "GET /health HTTP/3.7\r\nHost: a\r\n\r\n", 400, CodeValidation},
		{"headers too large", "GET /health HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 431, CodeHeadersTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer conn.Close()
			go func() { _, _ = io.WriteString(conn, c.raw) }()
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err)
			defer res.Body.Close()
			raw, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			r := response{Status: res.StatusCode, Header: res.Header, RawBody: string(raw)}
			require.NoError(t, json.Unmarshal(raw, &r.Body), r.RawBody)
			requireError(t, r, c.status, c.code)
			require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
			require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
			require.NotContains(t, r.RawBody, "Bad Request")
		})
	}
	// Well-formed requests are untouched, plain-text answers included.
	r := b.do(t, http.MethodGet, "/health", "", nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
}

func TestNetHTTPErrorRecognised(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]int{
		"HTTP/1.1 400 Bad Request" + netHTTPErrorHeaders + "400 Bad Request":                               400,
		"HTTP/1.1 431 Request Header Fields Too Large" + netHTTPErrorHeaders + "431":                       431,
		"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n": 0,
		"HTTP/1.1 200 OK" + netHTTPErrorHeaders:                                                            0,
		"HTTP/1.1 400 Bad Request\r\nDate: x" + netHTTPErrorHeaders:                                        0,
		`{"HTTP/1.1 400"}`: 0,
		"HTTP/1.1 4":       0,
	} {
		status, ok := netHTTPError([]byte(raw))
		require.Equal(t, want != 0, ok, raw)
		require.Equal(t, want, map[bool]int{true: status}[ok], raw)
	}
}
