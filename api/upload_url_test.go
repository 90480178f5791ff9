package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// linkServer serves signed links on loopback: a recording, one by another
// name, an expired link, redirects, a file too large, and one not audio.
func linkServer(t *testing.T, wav []byte) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/calls/signed.wav", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("X-Amz-Signature") != "ok" {
			http.Error(w, "<Error><Code>AccessDenied</Code></Error>", http.StatusForbidden)
			return
		}
		_, _ = w.Write(wav)
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="call-42.wav"`)
		_, _ = w.Write(wav)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/calls/signed.wav?X-Amz-Signature=ok", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://example.com/call.wav", http.StatusFound)
	})
	mux.HandleFunc("/huge.wav", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(1<<40))
		_, _ = w.Write(wav)
	})
	mux.HandleFunc("/page.wav", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(append([]byte("RIFF"), make([]byte, 500)...))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestUploadByURL(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{uploadURLAllowPrivate: true}) // the links are on loopback
	alice, _, _ := b.users(t)
	wav := tone(t, "x.wav", 440, 1)
	srv := linkServer(t, wav)

	r := b.json(t, http.MethodPost, "/tasks/upload", alice, map[string]any{"url": srv.URL + "/calls/signed.wav?X-Amz-Signature=ok",
		"campaign": "default", "language": "en", "direction": "inbound", "external_id": "cust-1", "call_id": "pbx-1", "queue": "billing", "started_at": "2024-05-02T10:00:00Z"})
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	task := uploaded(t, r)[0]
	require.Equal(t, "signed.wav", task["file_name"])
	require.Equal(t, "call", task["kind"])
	require.Equal(t, false, task["duplicate"])
	got := details(b.do(t, http.MethodGet, "/tasks/"+task["uuid"].(string), alice, nil))
	require.Equal(t, "inbound", got["direction"])
	require.Equal(t, "cust-1", got["customer_ref"], "external_id is customer_ref's former name")
	require.Equal(t, "pbx-1", got["call_id"])
	require.Equal(t, "billing", got["queue"])
	require.EqualValues(t, len(wav), got["size_bytes"])

	// The same content again, through a redirect and under another name:
	// the earlier task.
	for _, link := range []string{"/moved", "/download"} {
		r = b.json(t, http.MethodPost, "/tasks/upload", alice, map[string]any{"url": srv.URL + link})
		require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
		require.Equal(t, true, uploaded(t, r)[0]["duplicate"])
		require.Equal(t, task["uuid"], uploaded(t, r)[0]["uuid"])
	}
	require.Equal(t, "call-42.wav", uploaded(t, r)[0]["file_name"], "the Content-Disposition's name")

	for _, c := range []struct {
		name, link string
		status     int
		code, says string
	}{
		{"expired link", "/calls/signed.wav?X-Amz-Signature=old", 400, CodeValidation, "the URL answered 403 Forbidden (a signed link may have expired)"},
		{"not found", "/nothing.wav", 400, CodeValidation, "the URL answered 404 Not Found"},
		{"redirect loop", "/loop", 400, CodeValidation, "redirected more than 5 times"},
		{"redirect to ftp", "/to-ftp", 400, CodeValidation, `it redirected to a URL refused: the URL must be http or https, not "ftp"`},
		{"too large", "/huge.wav", 413, CodePayloadTooLarge, "larger than the limit of 512 MiB per file"},
		{"not audio", "/page.wav", 415, CodeUnsupportedMediaType, `"page.wav" is neither a supported recording`},
	} {
		r := b.json(t, http.MethodPost, "/tasks/upload", alice, map[string]any{"url": srv.URL + c.link})
		requireError(t, r, c.status, c.code)
		require.Contains(t, r.Body["message"], c.says, c.name)
		require.NotContains(t, r.RawBody, "127.0.0.1", "%s: the link is not quoted back", c.name)
	}
	var tasks int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks`).Scan(&tasks))
	require.Equal(t, 1, tasks)
	require.Len(t, b.blobs(t), 1, "the refused files' blobs are gone")
}

func TestUploadByURLRefused(t *testing.T) {
	t.Parallel()
	b := setup(t) // UPLOAD_URL_ALLOW_PRIVATE unset
	alice, bob, _ := b.users(t)
	srv := linkServer(t, tone(t, "x.wav", 440, 1))
	for _, c := range []struct {
		name   string
		body   string
		status int
		code   string
		at     string
		says   string
	}{
		{"loopback", `{"url": "` + srv.URL + `/download"}`, 400, CodeValidation, "body.url", "loopback, private or link-local; set UPLOAD_URL_ALLOW_PRIVATE=true"},
		{"localhost", `{"url": "http://localhost:8080/x.wav"}`, 400, CodeValidation, "body.url", "is this machine"},
		{"private", `{"url": "https://10.0.0.7/x.wav"}`, 400, CodeValidation, "body.url", "loopback, private or link-local"},
		{"metadata service", `{"url": "http://169.254.169.254/latest/meta-data/"}`, 400, CodeValidation, "body.url", "loopback, private or link-local"},
		{"IPv6 loopback", `{"url": "http://[::1]/x.wav"}`, 400, CodeValidation, "body.url", "loopback"},
		{"file scheme", `{"url": "file:///etc/passwd"}`, 400, CodeValidation, "body.url", `must be http or https, not "file"`},
		{"ftp scheme", `{"url": "ftp://example.com/x.wav"}`, 400, CodeValidation, "body.url", "must be http or https"},
		{"no host", `{"url": "https:///x.wav"}`, 400, CodeValidation, "body.url", "no host"},
		{"user info", `{"url": "https://u:p@example.com/x.wav"}`, 400, CodeValidation, "body.url", "user name or password"},
		{"no url", `{"campaign": "default"}`, 400, CodeMissingFields, "body.url", "no url"},
		{"blank url", `{"url": "  "}`, 400, CodeMissingFields, "body.url", "no url"},
		{"url not a string", `{"url": 42}`, 400, CodeValidation, "body.url", "must be a string"},
		{"unknown field", `{"url": "https://example.com/x.wav", "files": "x"}`, 400, CodeValidation, "body.files", `unknown field "files"`},
		{"not an object", `["https://example.com/x.wav"]`, 400, CodeValidation, "body", "not a JSON object"},
		{"not JSON", `url=https://example.com/x.wav`, 400, CodeValidation, "body", "not valid JSON"},
		{"a key twice", `{"url": "https://example.com/x.wav", "queue": "a", "Queue": "b"}`, 400, CodeValidation, "body.Queue", "given twice"},
		{"a null", `{"url": "https://example.com/x.wav", "queue": null}`, 400, CodeValidation, "body.queue", "must be a string"},
		{"former and new name", `{"url": "https://example.com/x.wav", "external_id": "a", "customer_ref": "b"}`, 400, CodeValidation, "", "given twice"},
		{"unknown campaign", `{"url": "https://example.com/x.wav", "campaign": "Nope"}`, 400, CodeValidation, "body.campaign", "names no campaign"},
		{"bad direction", `{"url": "https://example.com/x.wav", "direction": "sideways"}`, 400, CodeValidation, "body.direction", "inbound or outbound"},
		{"bad started_at", `{"url": "https://example.com/x.wav", "started_at": "today"}`, 400, CodeValidation, "body.started_at", "RFC 3339"},
		{"bad language", `{"url": "https://example.com/x.wav", "language": "??"}`, 400, CodeValidation, "body.language", "BCP 47"},
		{"file_name with a line break", `{"url": "https://example.com/x.wav", "file_name": "a\nb.wav"}`, 400, CodeValidation, "body.file_name", "one line"},
		{"body too large", `{"url": "https://example.com/x.wav", "external_id": "` + strings.Repeat("x", 20000) + `"}`, 413, CodePayloadTooLarge, "", "larger than 16 KiB"},
	} {
		r := b.do(t, http.MethodPost, "/tasks/upload", alice, strings.NewReader(c.body), "Content-Type", "application/json")
		requireError(t, r, c.status, c.code)
		if c.at != "" {
			require.Equal(t, c.at, detailsAt(r), "%s: %s", c.name, r.RawBody)
		}
		require.Contains(t, r.Body["message"], c.says, c.name)
	}
	// An agent may not upload, by URL either.
	r := b.do(t, http.MethodPost, "/tasks/upload", bob, strings.NewReader(`{"url": "https://example.com/x.wav"}`), "Content-Type", "application/json")
	requireError(t, r, http.StatusForbidden, CodeForbidden)
	var tasks int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks`).Scan(&tasks))
	require.Zero(t, tasks)
}
