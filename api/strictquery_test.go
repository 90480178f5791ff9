package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnknownQueryParameters sends every operation of the OpenAPI document
// (so that one added later is covered) query parameters it does not
// declare, beside one it does when it has any: each answers 400 naming
// every unknown one, located at it, and nothing else happens.
func TestUnknownQueryParameters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, root := b.users(t)
	id := uploaded(t, b.upload(t, alice, file("a.txt", chatNumbered(1))))[0]["uuid"].(string)
	tasks := b.count(t, `SELECT count(*) FROM tasks`)
	fill := strings.NewReplacer("{uuid}", id, "{id}", id, "{n}", "1", "{version}", "1")
	swept := 0
	for _, rt := range routes(t, b.server) {
		query := "zz_unknown=1&Status=queued"
		var known []string
		for _, p := range rt.op.Parameters {
			if p.In == "query" {
				known = append(known, p.Name)
			}
		}
		if len(known) > 0 {
			query = known[0] + "=&" + query
		}
		header := bearer(root)
		if !rt.secured() {
			header = nil
		}
		r := b.send(t, rt.method, fill.Replace(rt.path)+"?"+query, header)
		where := rt.String()
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		msg := r.Body["message"].(string)
		require.Contains(t, msg, `unknown query parameters "Status", "zz_unknown"`, where)
		require.Contains(t, msg, rt.method+" "+rt.path, where)
		if len(known) > 0 {
			require.Contains(t, msg, "takes "+strings.Join(known, ", "), where)
		} else {
			require.Contains(t, msg, "takes no query parameter", where)
		}
		var at []string
		for _, d := range r.Body["details"].([]any) {
			at = append(at, d.(map[string]any)["location"].(string))
		}
		require.Equal(t, []string{"query.Status", "query.zz_unknown"}, at, where)
		swept++
	}
	require.Greater(t, swept, 30)
	require.Equal(t, tasks, b.count(t, `SELECT count(*) FROM tasks`), "nothing was done")

	// One unknown parameter is named alone; a list's declared ones are
	// still read, and the former filter external_id is named.
	r := b.do(t, http.MethodGet, "/tasks?external_id=crm-1", alice, nil)
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], `unknown query parameter "external_id": GET /tasks takes status, kind, campaign`)
	require.Equal(t, []string{id}, b.listed(t, alice, "status=transcribed&limit=5"))
	// Before the token is checked, nothing is told of the parameters.
	requireError(t, b.do(t, http.MethodGet, "/tasks?zz_unknown=1", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
}
