package api

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// saveView saves a view as token and returns it.
func (b *testBundle) saveView(t *testing.T, token, name, query string) map[string]any {
	t.Helper()
	r := b.json(t, http.MethodPost, "/views", token, map[string]any{"name": name, "query": query})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	return details(r)
}

// viewNames lists token's views by their names, as GET /views orders them.
func (b *testBundle) viewNames(t *testing.T, token string) []string {
	t.Helper()
	return column(items(t, b.do(t, http.MethodGet, "/views", token, nil)), "name")
}

func TestViewsCreateListRenameDelete(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)

	// Stored canonically: the list's order, defaults and empty ones left
	// out, one encoding.
	for query, want := range map[string]string{
		"order=asc&sort=score&operator=ana&status=audited": "status=audited&operator=ana&sort=score&order=asc",
		"?kind=chat":                            "kind=chat",
		"sort=created_at&order=desc&status=&q=": "",
		"":                                      "",
		"q=a b&campaign=ventas%20norte":         "campaign=ventas+norte&q=a+b",
		"failed_criterion=empathy&min_score=50&max_score=84.5&passed=false&needs_review=true": "passed=false&needs_review=true&min_score=50&max_score=84.5&failed_criterion=empathy",
		"from=2024-05-01&to=2024-06-01T00:00:00Z&sort=file_name":                              "from=2024-05-01&to=2024-06-01T00%3A00%3A00Z&sort=file_name",
	} {
		v := b.saveView(t, alice, fmt.Sprintf("canonical %.60s", query), query)
		require.Equal(t, want, v["query"], query)
		// What is stored is what GET /tasks takes.
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks?"+want, alice, nil).Status, want)
		require.Equal(t, http.StatusOK, b.do(t, http.MethodDelete, "/views/"+v["id"].(string), alice, nil).Status)
	}

	failed := b.saveView(t, alice, "  Failed this week ", "status=audited&passed=false")
	require.Equal(t, "Failed this week", failed["name"], "the name is trimmed")
	require.NotEmpty(t, failed["created_at"])
	id := failed["id"].(string)
	b.saveView(t, alice, "ana, lowest first", "operator=ana&sort=score&order=asc")
	b.saveView(t, alice, "Calls", "kind=call")
	require.Equal(t, []string{"ana, lowest first", "Calls", "Failed this week"}, b.viewNames(t, alice), "by name, ignoring case")
	r := b.do(t, http.MethodGet, "/views", alice, nil)
	require.Equal(t, float64(maxViews), details(r)["max"])

	got := details(b.do(t, http.MethodGet, "/views/"+id, alice, nil))
	require.Equal(t, "status=audited&passed=false", got["query"])

	// Renamed, then its query replaced; each alone leaves the other.
	r = b.json(t, http.MethodPatch, "/views/"+id, alice, map[string]any{"name": "Failed audits"})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "Failed audits", details(r)["name"])
	require.Equal(t, "status=audited&passed=false", details(r)["query"])
	r = b.json(t, http.MethodPatch, "/views/"+id, alice, map[string]any{"query": "order=asc&passed=false"})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "Failed audits", details(r)["name"])
	require.Equal(t, "passed=false&order=asc", details(r)["query"])
	// A name in another case is the same view's own: allowed.
	r = b.json(t, http.MethodPatch, "/views/"+id, alice, map[string]any{"name": "FAILED audits", "query": ""})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "", details(r)["query"])
	require.Equal(t, []string{"ana, lowest first", "Calls", "FAILED audits"}, b.viewNames(t, alice))

	r = b.do(t, http.MethodDelete, "/views/"+id, alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "FAILED audits", details(r)["name"], "the view as it was")
	requireError(t, b.do(t, http.MethodGet, "/views/"+id, alice, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodDelete, "/views/"+id, alice, nil), http.StatusNotFound, CodeNotFound)
	require.Equal(t, []string{"ana, lowest first", "Calls"}, b.viewNames(t, alice))
	requireError(t, b.do(t, http.MethodGet, "/views/not-a-uuid", alice, nil), http.StatusBadRequest, CodeValidation)
}

func TestViewsRefuseBadFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	existing := b.saveView(t, alice, "Mine", "kind=chat")
	before := b.count(t, "SELECT count(*) FROM saved_views")

	long := strings.Repeat("x", 2048)
	cases := []struct {
		name, query string
		status      int
		code        string
		// loc is where the error is; says, what its message says.
		loc, says string
		// list: GET /tasks refuses the query too (the rules are its own).
		list bool
	}{
		{"", "", 400, CodeValidation, "body.name", "", false},
		{"   ", "", 400, CodeValidation, "body.name", "blank", false},
		{strings.Repeat("n", 81), "", 400, CodeValidation, "body.name", "", false},
		{"tab\there", "", 400, CodeValidation, "body.name", "control character", false},
		{"line\nbreak", "", 400, CodeValidation, "body.name", "control character", false},
		{"bell\u0007", "", 400, CodeValidation, "body.name", "control character", false},
		{"Mine", "", 409, CodeConflict, "", `"Mine" already`, false},
		{"MINE", "", 409, CodeConflict, "", `"MINE" already`, false},
		{"q", "statuss=audited", 400, CodeValidation, "body.query", `"statuss": is not a parameter of the task list`, false},
		{"q", "status=lost", 400, CodeValidation, "body.query", `"status": expected value to be one of`, true},
		{"q", "kind=fax", 400, CodeValidation, "body.query", `"kind"`, true},
		{"q", "sort=rank", 400, CodeValidation, "body.query", `"sort"`, true},
		{"q", "order=up", 400, CodeValidation, "body.query", `"order"`, true},
		{"q", "passed=maybe", 400, CodeValidation, "body.query", `"passed"`, true},
		{"q", "from=yesterday", 400, CodeValidation, "body.query", `"from": must be an RFC 3339 time or a date`, true},
		{"q", "to=2024-13-40", 400, CodeValidation, "body.query", `"to"`, true},
		{"q", "min_score=101", 400, CodeValidation, "body.query", `"min_score": must be a score from 0 to 100`, true},
		{"q", "max_score=x", 400, CodeValidation, "body.query", `"max_score"`, true},
		{"q", "q=" + long, 400, CodeValidation, "body.query", `"q": expected length <= 200`, true},
		{"q", "campaign=" + strings.Repeat("c", 201), 400, CodeValidation, "body.query", `"campaign"`, true},
		{"q", "failed_criterion=" + strings.Repeat("f", 65), 400, CodeValidation, "body.query", `"failed_criterion"`, true},
		{"q", "q=a%00b", 400, CodeValidation, "body.query", `"q": holds a NUL`, true},
		{"q", "q=a%0Ab", 400, CodeValidation, "body.query", `"q": holds a NUL, a control character`, true},
		{"q", "q=%ff", 400, CodeValidation, "body.query", `"q": holds a NUL, a control character or invalid UTF-8`, true},
		{"q", "q=100%zz", 400, CodeValidation, "body.query", "not URL-encoded", true},
		{"q", "status=audited&status=failed", 400, CodeValidation, "body.query", `"status": is given 2 times`, false},
		{"q", "cursor=abc", 400, CodeValidation, "body.query", `"cursor": places a page`, false},
		{"q", "skip=10", 400, CodeValidation, "body.query", `"skip": places a page`, false},
		{"q", "limit=20&kind=call", 400, CodeValidation, "body.query", `"limit": places a page`, false},
		{"q", strings.Repeat("status=audited&", 700), 400, CodeValidation, "body.query", "", false},
	}
	for _, tc := range cases {
		r := b.json(t, http.MethodPost, "/views", alice, map[string]any{"name": tc.name, "query": tc.query})
		what := fmt.Sprintf("%.40q %.60q", tc.name, tc.query)
		requireError(t, r, tc.status, tc.code)
		if tc.loc != "" {
			require.Contains(t, r.RawBody, `"location":"`+tc.loc+`"`, what)
		}
		require.Contains(t, r.Body["message"], tc.says, what)
		requireNoEcho(t, r)
		if tc.list {
			requireError(t, b.do(t, http.MethodGet, "/tasks?"+tc.query, alice, nil), http.StatusBadRequest, CodeValidation)
		}
		// The same name or query as a change of the existing view.
		r = b.json(t, http.MethodPatch, "/views/"+existing["id"].(string), alice, map[string]any{"name": tc.name})
		if tc.name != "q" {
			if tc.code == CodeConflict {
				// Its own name in any case is no conflict.
				require.Equal(t, http.StatusOK, r.Status, r.RawBody)
				continue
			}
			requireError(t, r, tc.status, tc.code)
			continue
		}
		r = b.json(t, http.MethodPatch, "/views/"+existing["id"].(string), alice, map[string]any{"query": tc.query})
		requireError(t, r, tc.status, tc.code)
		require.Contains(t, r.Body["message"], tc.says, what)
	}
	// A NUL in the JSON text itself, and bodies that are not a view.
	r := b.do(t, http.MethodPost, "/views", alice, strings.NewReader(`{"name":"x","query":"q=a\u0000b"}`), "Content-Type", "application/json")
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"body.query"`)
	requireError(t, b.json(t, http.MethodPost, "/views", alice, map[string]any{"name": "x"}), http.StatusBadRequest, CodeMissingFields)
	requireError(t, b.json(t, http.MethodPost, "/views", alice, map[string]any{"name": "x", "query": "", "user_id": "bob"}),
		http.StatusBadRequest, CodeValidation)
	requireError(t, b.json(t, http.MethodPatch, "/views/"+existing["id"].(string), alice, map[string]any{}),
		http.StatusBadRequest, CodeMissingFields)

	require.Equal(t, before, b.count(t, "SELECT count(*) FROM saved_views"), "nothing stored on any error")
	got := details(b.do(t, http.MethodGet, "/views/"+existing["id"].(string), alice, nil))
	require.Equal(t, "kind=chat", got["query"], "the view is as it was")
}

func TestViewsAreTheirOwners(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	theirs := b.saveView(t, alice, "Alice's", "kind=call")["id"].(string)
	b.saveView(t, bob, "Alice's", "kind=chat") // names are per user
	const missing = "00000000-0000-4000-8000-000000000000"

	for _, token := range []string{bob, root} { // an admin is no exception
		for _, req := range []struct {
			method string
			body   any
		}{{http.MethodGet, nil}, {http.MethodPatch, map[string]any{"name": "Mine now"}}, {http.MethodDelete, nil}} {
			other := b.json(t, req.method, "/views/"+theirs, token, req.body)
			none := b.json(t, req.method, "/views/"+missing, token, req.body)
			requireError(t, other, http.StatusNotFound, CodeNotFound)
			require.Equal(t, none.Body["message"], other.Body["message"], req.method)
			require.Equal(t, none.Body["details"], other.Body["details"], req.method)
		}
	}
	require.Equal(t, []string{"Alice's"}, b.viewNames(t, bob), "bob sees his own only")
	require.Empty(t, b.viewNames(t, root))
	got := details(b.do(t, http.MethodGet, "/views/"+theirs, alice, nil))
	require.Equal(t, "Alice's", got["name"], "untouched")
	require.Equal(t, "kind=call", got["query"])
}

func TestViewsLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	for i := range maxViews - 3 {
		b.saveView(t, alice, fmt.Sprintf("view %02d", i), "")
	}
	// Racing saves cannot pass the limit together.
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = b.json(t, http.MethodPost, "/views", alice, map[string]any{"name": fmt.Sprintf("race %d", i), "query": ""}).Status
		})
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		require.Contains(t, []int{http.StatusCreated, http.StatusConflict}, s)
		if s == http.StatusCreated {
			created++
		}
	}
	require.Equal(t, 3, created)
	require.Len(t, b.viewNames(t, alice), maxViews)

	r := b.json(t, http.MethodPost, "/views", alice, map[string]any{"name": "one too many", "query": ""})
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], "you have 50 saved views, the most one may keep")
	require.Equal(t, maxViews, b.count(t, "SELECT count(*) FROM saved_views WHERE user_id = 'alice'"))
	// Others keep their own count, and a deleted view makes room.
	b.saveView(t, bob, "one too many", "")
	id := items(t, b.do(t, http.MethodGet, "/views", alice, nil))[0]["id"].(string)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodDelete, "/views/"+id, alice, nil).Status)
	b.saveView(t, alice, "one too many", "")
}
