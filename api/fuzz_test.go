package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fuzzBoundary is the multipart boundary of the fuzzed bodies: the seeds
// use it, so the fuzzer starts from bodies the parser reads.
const fuzzBoundary = "fuzzboundary"

// fuzzBundle is a bundle with one chat task (transcribed, not audited:
// no workers run) and a quality user's token. Uploads and edits reach
// every check of their body before the task's status refuses them.
func fuzzBundle(f *testing.F) (b *testBundle, task, token string) {
	b = setup(f)
	token = b.issuer.token(f, "fuzzer", "quality")
	body, ct := multipartBody(f, file("chat.txt", []byte(goodChat)))
	req, err := http.NewRequest(http.MethodPost, b.http.URL+"/tasks/upload", body)
	require.NoError(f, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", ct)
	res, err := http.DefaultClient.Do(req)
	require.NoError(f, err)
	defer res.Body.Close()
	require.Equal(f, http.StatusAccepted, res.StatusCode)
	require.NoError(f, b.pool.QueryRow(context.Background(), "SELECT uuid::text FROM tasks").Scan(&task))
	return b, task, token
}

// requireAnswer holds a response to the error model: no 5xx, and an error
// is {success: false, code, message} with the status of its code.
func requireAnswer(t *testing.T, r response) {
	t.Helper()
	require.Less(t, r.Status, 500, r.RawBody)
	if r.Status < 400 {
		require.Equal(t, true, r.Body["success"], r.RawBody)
		return
	}
	code, _ := r.Body["code"].(string)
	require.Equal(t, codeStatus[code], r.Status, r.RawBody)
	requireError(t, r, r.Status, code)
}

// counts are the rows and blobs a refused request must not add.
func (b *testBundle) counts(t *testing.T) []int {
	var tasks, validations, edits int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		"SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM validations), (SELECT count(*) FROM audit_edits)").
		Scan(&tasks, &validations, &edits))
	return []int{tasks, validations, edits, len(b.blobs(t))}
}

func multipartSeed(parts ...string) []byte {
	var s strings.Builder
	for _, p := range parts {
		s.WriteString("--" + fuzzBoundary + "\r\n" + p + "\r\n")
	}
	s.WriteString("--" + fuzzBoundary + "--\r\n")
	return []byte(s.String())
}

// FuzzComputeAuditRequest posts arbitrary JSON (TASK stands for the task's
// uuid) to POST /compute-audit-results through the real handler.
func FuzzComputeAuditRequest(f *testing.F) {
	for _, seed := range []string{
		`{"task_uuid":"TASK","file_name":"chat.txt","isCall":false,"audit":[{"category":"COMPLIANCE","question":"q","complies":true,"explanation":"x"}]}`,
		`{"task_uuid":"TASK","file_name":"chat.txt","isCall":true,"audit":[]}`,
		`{"task_uuid":"TASK","audit":null}`, `{}`, `[]`, `null`, ``, `{"task_uuid":"not-a-uuid"}`,
		`{"task_uuid":"TASK","file_name":"","isCall":"no","audit":[{"complies":"yes"}]}`,
	} {
		f.Add([]byte(seed))
	}
	b, task, token := fuzzBundle(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		before := b.counts(t)
		r := b.do(t, http.MethodPost, "/compute-audit-results", token,
			bytes.NewReader(bytes.ReplaceAll(body, []byte("TASK"), []byte(task))), "Content-Type", "application/json")
		requireAnswer(t, r)
		require.GreaterOrEqual(t, r.Status, 400, "the task is not audited: nothing can be edited")
		require.Equal(t, before, b.counts(t))
	})
}

// FuzzValidateAuditRequest posts arbitrary JSON or multipart bodies (TASK
// stands for the task's uuid) to POST /validate-audit.
func FuzzValidateAuditRequest(f *testing.F) {
	f.Add(false, []byte(`{"task_uuid":"TASK","notes":"ok","isCall":false}`))
	f.Add(false, []byte(`{"task_uuid":"TASK","notes":"","isCall":"false"}`))
	f.Add(false, []byte(`{}`))
	f.Add(true, multipartSeed(`Content-Disposition: form-data; name="task_uuid"`+"\r\n\r\nTASK",
		`Content-Disposition: form-data; name="notes"`+"\r\n\r\nfine",
		`Content-Disposition: form-data; name="isCall"`+"\r\n\r\n0",
		`Content-Disposition: form-data; name="attachments"; filename="a.pdf"`+"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4"))
	f.Add(true, multipartSeed(`Content-Disposition: form-data; name="isCall"`+"\r\n\r\nmaybe"))
	f.Add(true, []byte("--"+fuzzBoundary+"\r\nContent-Disposition: form-data; name=\"notes\"\r\n\r\nunterminated"))
	b, task, token := fuzzBundle(f)
	f.Fuzz(func(t *testing.T, multipart bool, body []byte) {
		ct := "application/json"
		if multipart {
			ct = "multipart/form-data; boundary=" + fuzzBoundary
		}
		before := b.counts(t)
		r := b.do(t, http.MethodPost, "/validate-audit", token,
			bytes.NewReader(bytes.ReplaceAll(body, []byte("TASK"), []byte(task))), "Content-Type", ct)
		requireAnswer(t, r)
		require.GreaterOrEqual(t, r.Status, 400, "the task is not audited: nothing can be validated")
		require.Equal(t, before, b.counts(t), "a refused validation leaves no rows and no attachments")
	})
}

// FuzzUpload posts arbitrary multipart bodies to POST /tasks/upload: an
// upload is taken whole (its tasks and blobs) or not at all.
func FuzzUpload(f *testing.F) {
	f.Add(multipartSeed(`Content-Disposition: form-data; name="files"; filename="a.txt"`+"\r\n\r\nAgente: hola\nCliente: buenas",
		`Content-Disposition: form-data; name="language"`+"\r\n\r\nes"))
	f.Add(multipartSeed(`Content-Disposition: form-data; name="files"; filename="a.json"`+"\r\n\r\n"+`[{"speaker":"Agent","text":"hi"}]`,
		`Content-Disposition: form-data; name="campaign"`+"\r\n\r\nnope"))
	f.Add(multipartSeed(`Content-Disposition: form-data; name="files"; filename="x.wav"` + "\r\n\r\nRIFF\x24\x00\x00\x00WAVEfmt "))
	f.Add(multipartSeed(`Content-Disposition: form-data; name="status"` + "\r\n\r\naudited"))
	f.Add(multipartSeed(`Content-Disposition: form-data; name="files"; filename="../../etc/passwd"` + "\r\n\r\nA: b"))
	f.Add(multipartSeed())
	f.Add([]byte("--" + fuzzBoundary + "\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nA: b"))
	b, _, token := fuzzBundle(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		before := b.counts(t)
		r := b.do(t, http.MethodPost, "/tasks/upload", token, bytes.NewReader(body),
			"Content-Type", "multipart/form-data; boundary="+fuzzBoundary)
		requireAnswer(t, r)
		after := b.counts(t)
		if r.Status >= 400 {
			require.Equal(t, before, after, "a refused upload leaves no tasks and no blobs")
			return
		}
		created := len(details(r)["tasks"].([]any))
		require.Positive(t, created)
		require.LessOrEqual(t, after[0]-before[0], created, "duplicates are not new tasks")
	})
}

// fuzzIDs seeds, beside fuzzBundle's task, a calibration session, and
// returns what stands for real ids in FuzzEveryOperation's inputs: TASK a
// task's uuid, CAMPAIGN a campaign's id, USER a user's id, SESSION a
// calibration session's id.
func fuzzIDs(f *testing.F, b *testBundle, task string) *strings.Replacer {
	ctx := context.Background()
	var campaign, session string
	require.NoError(f, b.pool.QueryRow(ctx, "SELECT campaign_id::text FROM tasks WHERE uuid = $1", task).Scan(&campaign))
	require.NoError(f, b.pool.QueryRow(ctx, `INSERT INTO calibration_sessions (name, created_by) VALUES ('fz', 'fuzzer')
		RETURNING id::text`).Scan(&session))
	return strings.NewReplacer("TASK", task, "CAMPAIGN", campaign, "USER", "fuzzer", "SESSION", session)
}

// fuzzValues are what the seeds of FuzzEveryOperation put in path
// parameters, queries and bodies: each placeholder of fuzzIDs, numbers at
// the edges of int32, int64 and float64 and past a stored precision, digits
// of other scripts, and control and bidirectional characters.
var fuzzValues = []string{"TASK", "CAMPAIGN", "USER", "SESSION", "2147483648", "2147483647", "9223372036854775808",
	"-1", "0", "1e308", "99.999999", "NaN", "-Inf", "0x10", "１２３", "٣٤٥", "۱۲", "\u202eevil\u202c", "a\u0000b", "\u200b7\r\n"}

// FuzzEveryOperation sends arbitrary path parameters, query strings and
// bodies to every operation of the OpenAPI document (op picks one, in a
// fixed order; a route added later is fuzzed without being listed), as
// each role (who picks one): whatever arrives, the answer is no 5xx and
// every error is in the error model. The placeholders of fuzzIDs stand for
// real ids, so handlers get past their lookups.
func FuzzEveryOperation(f *testing.F) {
	b, task, _ := fuzzBundle(f)
	ids := fuzzIDs(f, b, task)
	all := routes(f, b.server)
	sort.Slice(all, func(i, j int) bool { return all[i].String() < all[j].String() })
	tokens := []string{"", b.issuer.token(f, "fz-op", "operator"), b.issuer.token(f, "fz-qa", "quality"),
		b.issuer.token(f, "fz-sup", "supervisor"), b.issuer.token(f, "fz-root", "admin"), b.issuer.token(f, "fz-none")}
	for i := range all {
		f.Add(uint8(i), uint8(4), "TASK", "", []byte(`{}`))
		f.Add(uint8(i), uint8(4), "default", "limit=5&skip=1", []byte(`{"text":"x","variant":"info","read":true}`))
		f.Add(uint8(i), uint8(1), "1", "operator=fz-op&status=audited", []byte(`[]`))
		f.Add(uint8(i), uint8(3), "urn:uuid:TASK", "q=%00&from=2024-13-40", []byte("{\"a\":1e999,\"A\":null}"))
		v := fuzzValues[i%len(fuzzValues)]
		n := fuzzValues[(i+4)%len(fuzzValues)]
		f.Add(uint8(i), uint8(4), v, "limit="+url.QueryEscape(n)+"&campaign_id=CAMPAIGN&user=USER&min_score="+url.QueryEscape(v),
			[]byte(fmt.Sprintf(`{"task_uuid":"TASK","campaign_id":"CAMPAIGN","user_id":"USER","session_id":"SESSION",`+
				`"task_uuids":["TASK"],"analysts":["USER"],"share":%[1]s,"passing_score":%[2]s,"name":%[3]s,"text":%[3]s}`,
				fuzzNumber(v), fuzzNumber(n), fuzzString(v))))
	}
	f.Fuzz(func(t *testing.T, op, who uint8, param, query string, body []byte) {
		rt := all[int(op)%len(all)]
		if rt.path == "/notifications/events" && len(body) > 0 {
			return // a stream stays open: fuzzed with no body only, and closed at once
		}
		path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllLiteralString(rt.path, url.PathEscape(ids.Replace(param)))
		u, err := url.Parse(b.http.URL + path)
		if err != nil {
			return
		}
		u.RawQuery = ids.Replace(query)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, rt.method, u.String(), strings.NewReader(ids.Replace(string(body))))
		if err != nil {
			return
		}
		if tok := tokens[int(who)%len(tokens)]; tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		req.Header.Set("Content-Type", "application/json")
		r := roundTrip(t, req)
		if strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
			require.Equal(t, http.StatusOK, r.Status)
			return
		}
		if rt.path == "/admin/canary" && r.Status == http.StatusServiceUnavailable {
			return // right: no worker runs beside this server
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			requireAnswer(t, r)
		} else {
			require.Less(t, r.Status, 400, "%s: an error not in the error model: %s", rt, r.RawBody)
		}
	})
}

// fuzzNumber is s as a JSON number when it is one, else as a string: a
// body that decodes, so the fuzzer reaches the handler's own checks.
func fuzzNumber(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	return fuzzString(s)
}

// fuzzString is s as a JSON string.
func fuzzString(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}
