package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers"
)

func TestIngestSourceThroughTheAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, root := b.users(t)
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("call%d.wav", i))
		require.NoError(t, os.WriteFile(p, tone(t, "t.wav", 400+100*i, 1), 0o644))
		require.NoError(t, os.WriteFile(strings.TrimSuffix(p, ".wav")+".json",
			fmt.Appendf(nil, `{"agent": "1001", "direction": "outbound", "call_id": "c-%d"}`, i), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.wav"), []byte("RIFF not really"), 0o644))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Chtimes(filepath.Join(dir, e.Name()), old, old))
	}

	r := b.json(t, http.MethodPost, "/ingest-sources", root, map[string]any{"name": " PBX ", "kind": "directory",
		"location": dir + "/", "agents": map[string]string{"1001": "alice"}, "poll_seconds": 3600})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	src := details(r)
	id := src["id"].(string)
	require.Equal(t, "PBX", src["name"])
	require.Equal(t, dir, src["location"], "cleaned")
	require.Equal(t, true, src["enabled"])
	require.EqualValues(t, 60, src["sidecar_wait_seconds"])
	require.Equal(t, false, src["credentials"])

	b.startWorkers(t, workers.Deps{})
	r = b.do(t, http.MethodPost, "/ingest-sources/"+id+"/poll", root, nil)
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Eventually(t, func() bool {
		return details(b.do(t, http.MethodGet, "/ingest-sources/"+id, root, nil))["polled_at"] != nil &&
			details(b.do(t, http.MethodGet, "/ingest-sources/"+id+"/objects", root, nil))["total"].(float64) == 7
	}, 60*time.Second, 50*time.Millisecond)
	src = details(b.do(t, http.MethodGet, "/ingest-sources/"+id, root, nil))
	require.EqualValues(t, 3, src["taken"])
	require.EqualValues(t, 3, src["skipped"], "the sidecars")
	require.EqualValues(t, 1, src["failed"])

	// Paged, newest first, and by status.
	page := details(b.do(t, http.MethodGet, "/ingest-sources/"+id+"/objects?status=taken&limit=2", root, nil))
	require.EqualValues(t, 3, page["total"])
	first := page["items"].([]any)
	require.Len(t, first, 2)
	page = details(b.do(t, http.MethodGet, "/ingest-sources/"+id+"/objects?status=taken&limit=2&skip=2", root, nil))
	rest := page["items"].([]any)
	require.Len(t, rest, 1)
	keys := map[string]bool{}
	for _, o := range append(first, rest...) {
		m := o.(map[string]any)
		keys[m["key"].(string)] = true
		task := details(b.do(t, http.MethodGet, "/tasks/"+m["task_uuid"].(string), root, nil))
		require.Equal(t, "outbound", task["direction"], task)
		require.Equal(t, "alice", task["operator_id"], "mapped from the platform's 1001")
	}
	require.Equal(t, map[string]bool{"call0.wav": true, "call1.wav": true, "call2.wav": true}, keys)
	failed := items(t, b.do(t, http.MethodGet, "/ingest-sources/"+id+"/objects?status=failed", root, nil))
	require.Len(t, failed, 1)
	require.Equal(t, "bad.wav", failed[0]["key"])
	require.Contains(t, failed[0]["reason"], `"bad.wav" is neither a supported recording`)

	// Polled again, nothing more. The periodic dispatcher may have polled
	// the new source too, when the workers started: count from here.
	polls := func() (n int) {
		require.NoError(t, b.pool.QueryRow(context.Background(),
			`SELECT count(*) FROM river_job WHERE kind = 'poll_ingest_source' AND state = 'completed'`).Scan(&n))
		return n
	}
	before := polls()
	r = b.do(t, http.MethodPost, "/ingest-sources/"+id+"/poll", root, nil)
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Eventually(t, func() bool { return polls() > before }, 60*time.Second, 50*time.Millisecond)
	require.EqualValues(t, 7, details(b.do(t, http.MethodGet, "/ingest-sources/"+id+"/objects", root, nil))["total"])
}

func TestIngestSourceSecretsNeverShown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, root := b.users(t)
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer srv.Close()
	location := "s3://calls/genesys/?region=eu-west-1&use_path_style=true&endpoint=" + url.QueryEscape(srv.URL)
	r := b.json(t, http.MethodPost, "/ingest-sources", root, map[string]any{"name": "Genesys", "kind": "s3",
		"location": location, "access_key_id": "AKIAVERYSECRETID", "secret_access_key": "very-secret-key-123"})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["id"].(string)
	require.Equal(t, true, details(r)["credentials"])
	for _, rr := range []response{r,
		b.do(t, http.MethodGet, "/ingest-sources", root, nil),
		b.do(t, http.MethodGet, "/ingest-sources/"+id, root, nil),
		b.json(t, http.MethodPatch, "/ingest-sources/"+id, root, map[string]any{"enabled": false}),
	} {
		require.NotContains(t, rr.RawBody, "AKIAVERYSECRETID")
		require.NotContains(t, rr.RawBody, "very-secret-key-123")
	}
	// A change that does not give credentials keeps them; clearing forgets.
	var keyID string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT access_key_id FROM ingest_sources WHERE id = $1`, id).Scan(&keyID))
	require.Equal(t, "AKIAVERYSECRETID", keyID)
	r = b.json(t, http.MethodPatch, "/ingest-sources/"+id, root, map[string]any{"clear_credentials": true})
	require.Equal(t, false, details(r)["credentials"])
	// The delete's answer shows none either.
	r = b.json(t, http.MethodPatch, "/ingest-sources/"+id, root, map[string]any{"access_key_id": "AKIAOTHER", "secret_access_key": "other-secret"})
	require.Equal(t, true, details(r)["credentials"], r.RawBody)
	r = b.do(t, http.MethodDelete, "/ingest-sources/"+id, root, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.NotContains(t, r.RawBody, "other-secret")
}

func TestIngestSourceInputsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	sup := b.issuer.token(t, "sue", "supervisor")
	dir := t.TempDir()
	file := filepath.Join(dir, "file.wav")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	r := b.json(t, http.MethodPost, "/ingest-sources", root, map[string]any{"name": "Folder", "kind": "directory", "location": dir})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["id"].(string)
	count := func() (n int) {
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM ingest_sources
			WHERE name = 'Folder' AND location = $1 AND poll_seconds = 60 AND enabled AND access_key_id = ''`, dir).Scan(&n))
		var all int
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM ingest_sources`).Scan(&all))
		return n*10 + all
	}
	before := count()
	good := func(change map[string]any) map[string]any {
		body := map[string]any{"name": "New", "kind": "s3", "location": "s3://bucket/prefix?region=eu-west-1"}
		for k, v := range change {
			body[k] = v
		}
		return body
	}
	for _, c := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
		at     string
		says   string
	}{
		{"unknown kind", good(map[string]any{"kind": "ftp"}), 400, CodeValidation, "body.kind", ""},
		{"unknown scheme", good(map[string]any{"location": "gs://bucket/x"}), 400, CodeValidation, "body.location", "must start with s3://"},
		{"not a URL", good(map[string]any{"location": "s3://bu cket/%zz"}), 400, CodeValidation, "body.location", "cannot be read"},
		{"no bucket", good(map[string]any{"location": "s3:///prefix"}), 400, CodeValidation, "body.location", "names no bucket"},
		{"user info", good(map[string]any{"location": "s3://key:secret@bucket/x"}), 400, CodeValidation, "body.location", "may not hold credentials"},
		{"unknown parameter", good(map[string]any{"location": "s3://bucket/x?regoin=eu"}), 400, CodeValidation, "body.location", `"regoin" is not one of`},
		{"bad boolean", good(map[string]any{"location": "s3://bucket/x?use_path_style=maybe"}), 400, CodeValidation, "body.location", "must be true or false"},
		{"bad endpoint", good(map[string]any{"location": "s3://bucket/x?endpoint=minio:9000"}), 400, CodeValidation, "body.location", "endpoint must be an http or https URL"},
		{"relative directory", good(map[string]any{"kind": "directory", "location": "recordings"}), 400, CodeValidation, "body.location", "absolute path"},
		{"missing directory", good(map[string]any{"kind": "directory", "location": dir + "/nope"}), 400, CodeValidation, "body.location", "does not exist"},
		{"file, not directory", good(map[string]any{"kind": "directory", "location": file}), 400, CodeValidation, "body.location", "is a file, not a directory"},
		{"directory with a URL", good(map[string]any{"kind": "directory"}), 400, CodeValidation, "body.location", "absolute path"},
		{"key without secret", good(map[string]any{"access_key_id": "AKIA"}), 400, CodeValidation, "body.secret_access_key", "together"},
		{"secret without key", good(map[string]any{"secret_access_key": "s"}), 400, CodeValidation, "body.secret_access_key", "together"},
		{"credentials of a directory", good(map[string]any{"kind": "directory", "location": dir, "access_key_id": "A", "secret_access_key": "s"}), 400, CodeValidation, "body.access_key_id", "no credentials"},
		{"unknown campaign", good(map[string]any{"campaign": "Nope"}), 400, CodeValidation, "body.campaign", "names no campaign"},
		{"bad language", good(map[string]any{"language": "spanish!"}), 400, CodeValidation, "body.language", "BCP 47"},
		{"interval too short", good(map[string]any{"poll_seconds": 9}), 400, CodeValidation, "body.poll_seconds", ""},
		{"interval too long", good(map[string]any{"poll_seconds": 86401}), 400, CodeValidation, "body.poll_seconds", ""},
		{"interval not a number", good(map[string]any{"poll_seconds": "often"}), 400, CodeValidation, "body.poll_seconds", ""},
		{"negative wait", good(map[string]any{"sidecar_wait_seconds": -1}), 400, CodeValidation, "body.sidecar_wait_seconds", ""},
		{"blank agent", good(map[string]any{"agents": map[string]string{"1001": ""}}), 400, CodeValidation, "body.agents.1001", "1 to 200"},
		{"control in agent", good(map[string]any{"agents": map[string]string{"1001": "ana\n"}}), 400, CodeValidation, "body.agents.1001", "one line"},
		{"name too long", good(map[string]any{"name": strings.Repeat("n", 81)}), 400, CodeValidation, "body.name", ""},
		{"blank name", good(map[string]any{"name": "  "}), 400, CodeValidation, "body.name", ""},
		{"duplicate name", good(map[string]any{"name": "FOLDER"}), 409, CodeConflict, "", "exists already"},
		{"no location", map[string]any{"name": "x", "kind": "s3"}, 400, CodeMissingFields, "body.location", ""},
		{"unknown field", good(map[string]any{"secret": "mine"}), 400, CodeValidation, "body.secret", ""},
	} {
		for _, op := range []struct{ method, path string }{{http.MethodPost, "/ingest-sources"}, {http.MethodPatch, "/ingest-sources/" + id}} {
			if op.method == http.MethodPatch && (c.name == "no location" || c.name == "duplicate name") {
				continue // every field is optional when changing; its own name is no conflict
			}
			r := b.json(t, op.method, op.path, root, c.body)
			requireError(t, r, c.status, c.code)
			if c.at != "" {
				require.Equal(t, c.at, detailsAt(r), "%s %s: %s", op.method, c.name, r.RawBody)
			}
			require.Contains(t, r.Body["message"], c.says, "%s %s", op.method, c.name)
			require.NotContains(t, r.RawBody, "gocloud", "no library text")
			require.Equal(t, before, count(), "%s %s wrote something", op.method, c.name)
		}
	}
	if os.Geteuid() != 0 { // root reads any directory
		locked := filepath.Join(dir, "locked")
		require.NoError(t, os.Mkdir(locked, 0o000))
		r := b.json(t, http.MethodPost, "/ingest-sources", root, good(map[string]any{"kind": "directory", "location": locked}))
		requireError(t, r, 400, CodeValidation)
		require.Contains(t, r.Body["message"], "cannot be read")
	}

	missing := "/ingest-sources/00000000-0000-4000-8000-000000000000"
	for _, op := range []struct{ method, path string }{
		{http.MethodGet, "/ingest-sources/%s"}, {http.MethodPatch, "/ingest-sources/%s"}, {http.MethodDelete, "/ingest-sources/%s"},
		{http.MethodGet, "/ingest-sources/%s/objects"}, {http.MethodPost, "/ingest-sources/%s/poll"},
	} {
		body := map[string]any{"enabled": false}
		if op.method == http.MethodGet || op.method == http.MethodDelete {
			body = nil
		}
		requireError(t, b.json(t, op.method, strings.Replace(op.path, "%s", "not-a-uuid", 1), root, body), 400, CodeValidation)
		requireError(t, b.json(t, op.method, strings.Replace(op.path, "/ingest-sources/%s", missing, 1), root, body), 404, CodeNotFound)
		for _, who := range []string{alice, bob, sup} {
			requireError(t, b.json(t, op.method, strings.Replace(op.path, "%s", id, 1), who, body), 403, CodeForbidden)
		}
	}
	for _, q := range []string{"status=gone", "limit=0", "limit=501", "skip=-1", "limit=x"} {
		requireError(t, b.do(t, http.MethodGet, "/ingest-sources/"+id+"/objects?"+q, root, nil), 400, CodeValidation)
	}
	for _, who := range []string{alice, bob, sup} {
		requireError(t, b.do(t, http.MethodGet, "/ingest-sources", who, nil), 403, CodeForbidden)
		requireError(t, b.json(t, http.MethodPost, "/ingest-sources", who, good(nil)), 403, CodeForbidden)
	}
	require.Equal(t, before, count())
}
