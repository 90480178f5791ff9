package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stalled returns a request body that delivers body up to the middle of
// the first occurrence of mid, and then nothing, like a client whose link
// went down.
func stalled(t *testing.T, body, mid []byte) io.Reader {
	t.Helper()
	i := bytes.Index(body, mid)
	require.Positive(t, i)
	r, w := io.Pipe()
	t.Cleanup(func() { _ = w.Close() })
	go func() { _, _ = w.Write(body[:i+len(mid)/2]) }()
	return r
}

// trickle returns a request body that delivers body a chunk every 10ms,
// like a slow link, and then ends; when endless, it goes on sending
// filler bytes instead of ending.
func trickle(t *testing.T, body []byte, chunk int, endless bool) io.Reader {
	t.Helper()
	r, w := io.Pipe()
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		_ = w.Close()
	})
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		filler := bytes.Repeat([]byte("x"), chunk)
		for len(body) > 0 || endless {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			next := filler
			if len(body) > 0 {
				next, body = body[:min(chunk, len(body))], body[min(chunk, len(body)):]
			}
			if _, err := w.Write(next); err != nil {
				return
			}
		}
		_ = w.Close()
	}()
	return r
}

// post sends a POST on a connection of its own and reads the answer while
// the body is still being written: a server that answers early and closes
// the connection may reset it, and an http.Client then reports its own
// failed write rather than the answer.
func (b *testBundle) post(t *testing.T, path, token, contentType string, body io.Reader) response {
	t.Helper()
	conn, err := net.Dial("tcp", b.http.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	req, err := http.NewRequest(http.MethodPost, b.http.URL+path, body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", contentType)
	go func() { _ = req.Write(conn) }()
	res, err := http.ReadResponse(bufio.NewReader(conn), req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	r := response{Status: res.StatusCode, Header: res.Header, RawBody: string(raw)}
	require.NoError(t, json.Unmarshal(raw, &r.Body), string(raw))
	return r
}

func TestUploadThatStallsIsARequestTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{bodyTimeouts: BodyTimeouts{Idle: 200 * time.Millisecond, Total: time.Minute}})
	quality := b.issuer.token(t, "qa", "quality")
	second := tone(t, "b.wav", 450, 1)
	// The first file arrives whole (and is stored), the second half-way.
	body, ct := multipartBody(t, file("a.wav", tone(t, "a.wav", 440, 1)), file("b.wav", second))
	r := b.do(t, http.MethodPost, "/tasks/upload", quality, stalled(t, body.Bytes(), second), "Content-Type", ct)
	requireError(t, r, http.StatusRequestTimeout, CodeRequestTimeout)
	require.Contains(t, r.Body["message"], "nothing arrived for 200ms")
	require.Contains(t, r.Body["message"], `"b.wav"`)
	require.Equal(t, "b.wav", r.Body["details"].(map[string]any)["file"])
	b.requireNothingStored(t)
}

func TestUploadThatTricklesIsBoundedAsAWhole(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{bodyTimeouts: BodyTimeouts{Idle: 5 * time.Second, Total: 300 * time.Millisecond}})
	quality := b.issuer.token(t, "qa", "quality")
	wav := tone(t, "a.wav", 440, 1)
	body, ct := multipartBody(t, file("a.wav", wav))
	// Never idle, never done: a byte stream without end inside the file.
	cut := body.Bytes()[:bytes.Index(body.Bytes(), wav)+len(wav)/2]
	r := b.post(t, "/tasks/upload", quality, ct, trickle(t, cut, 64, true))
	requireError(t, r, http.StatusRequestTimeout, CodeRequestTimeout)
	require.Contains(t, r.Body["message"], "did not arrive within 300ms")
	require.Contains(t, r.Body["message"], `"a.wav"`)
	b.requireNothingStored(t)
}

func TestSlowUploadThatNeverStallsSucceeds(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{bodyTimeouts: BodyTimeouts{Idle: 400 * time.Millisecond, Total: time.Minute}})
	quality := b.issuer.token(t, "qa", "quality")
	body, ct := multipartBody(t, file("a.wav", tone(t, "a.wav", 440, 1)))
	// 100 chunks, one per 10ms tick: at least 1s in all, longer than the
	// idle bound, which each chunk extends.
	r := b.do(t, http.MethodPost, "/tasks/upload", quality, trickle(t, body.Bytes(), body.Len()/100+1, false), "Content-Type", ct)
	require.Len(t, uploaded(t, r), 1)
}

func TestValidationThatStallsIsARequestTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{bodyTimeouts: BodyTimeouts{Idle: 200 * time.Millisecond, Total: time.Minute}})
	quality := b.issuer.token(t, "qa", "quality")
	id := uploaded(t, b.upload(t, quality, file("call.wav", tone(t, "call.wav", 440, 1))))[0]["uuid"].(string)
	b.auditCall(t, id)
	blobs := b.blobs(t)
	requireNothingWritten := func(t *testing.T) {
		t.Helper()
		require.Zero(t, b.count(t, "SELECT count(*) FROM validations"))
		require.Zero(t, b.count(t, "SELECT count(*) FROM river_job WHERE kind = 'send_validation_email'"))
		require.Equal(t, 1, b.count(t, "SELECT count(*) FROM tasks WHERE uuid = $1 AND status = 'audited'", id))
		require.Equal(t, blobs, b.blobs(t))
	}
	fields := []part{field("task_uuid", id), field("notes", "Buena llamada"), field("isCall", "true")}

	// An attachment half sent.
	pdf := []byte("%PDF-1.4 " + strings.Repeat("evidence ", 2000))
	body, ct := multipartBody(t, append(fields, part{field: "attachment", name: "evidence.pdf", content: pdf})...)
	r := b.do(t, http.MethodPost, "/validate-audit", quality, stalled(t, body.Bytes(), pdf), "Content-Type", ct)
	requireError(t, r, http.StatusRequestTimeout, CodeRequestTimeout)
	require.Contains(t, r.Body["message"], `"evidence.pdf"`)
	requireNothingWritten(t)

	// A JSON body half sent.
	js := []byte(`{"task_uuid":"` + id + `","notes":"Buena llamada","isCall":true}`)
	r = b.do(t, http.MethodPost, "/validate-audit", quality, stalled(t, js, []byte(`"notes"`)), "Content-Type", "application/json")
	requireError(t, r, http.StatusRequestTimeout, CodeRequestTimeout)
	require.Contains(t, r.Body["message"], "nothing arrived for 200ms")
	requireNothingWritten(t)

	// Sent whole, the same validation is recorded.
	r = b.validateForm(t, quality, append(fields, part{field: "attachment", name: "evidence.pdf", content: pdf}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM validations"))
}
