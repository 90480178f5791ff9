package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUserNames(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	bobID := details(b.do(t, http.MethodGet, "/users/me", bob, nil))["id"].(string)

	r := b.do(t, http.MethodGet, "/users/names?q=BO", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d := details(r)
	require.Equal(t, []any{map[string]any{"id": bobID, "username": "bob", "name": d["items"].([]any)[0].(map[string]any)["name"],
		"role": "operator", "active": true}}, d["items"])
	require.EqualValues(t, 1, d["total"])
	require.NotContains(t, r.RawBody, "@", "no e-mail is shown")

	// The ids a filter holds are named; an unknown one is not listed.
	d = details(b.do(t, http.MethodGet, "/users/names?id=nobody&id="+bobID, root, nil))
	require.Len(t, d["items"], 1)
	require.Equal(t, bobID, d["items"].([]any)[0].(map[string]any)["id"])
	d = details(b.do(t, http.MethodGet, "/users/names?limit=2", root, nil))
	require.Len(t, d["items"], 2)
	require.EqualValues(t, 3, d["total"])

	requireError(t, b.do(t, http.MethodGet, "/users/names", bob, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodGet, "/users/names", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodGet, "/users/names?limit=0", alice, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/users/names?limit=51", alice, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/users/names?id="+strings.Repeat("x&id=", 50)+"x", alice, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/users/names?q="+strings.Repeat("a", 256), alice, nil), http.StatusBadRequest, CodeValidation)
}

func TestCriteriaByQuestion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, bob, _ := b.users(t)
	sup := b.issuer.token(t, "sup", "supervisor")
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Otra"}).Status)
	camps := b.do(t, http.MethodGet, "/campaigns", bob, nil).Body["details"].([]any)
	require.Len(t, camps, 2)
	var names []any
	for _, c := range camps {
		names = append(names, c.(map[string]any)["name"])
	}

	greeting := func(query string) map[string]any {
		t.Helper()
		r := b.do(t, http.MethodGet, "/criteria"+query, bob, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		for _, c := range r.Body["details"].([]any) {
			if c := c.(map[string]any); c["id"] == "greeting" {
				return c
			}
		}
		return nil
	}
	en := greeting("?lang=en-GB")
	require.Equal(t, "Did the agent greet the customer and give their own name at the start?", en["question"])
	require.Equal(t, "OPENING", en["category"])
	require.ElementsMatch(t, names, en["campaigns"], "each criterion once, with every campaign that has it")
	require.Equal(t, "¿El agente saludó y se presentó con su nombre al inicio?", greeting("?lang=es&campaign=Otra")["question"])
	require.Equal(t, []any{"Otra"}, greeting("?lang=es&campaign=Otra")["campaigns"])
	require.Nil(t, greeting("?campaign=Nope"), "a campaign without a scorecard has no criteria")

	requireError(t, b.do(t, http.MethodGet, "/criteria", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodGet, "/criteria?lang="+strings.Repeat("e", 36), bob, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/criteria?campaign="+strings.Repeat("c", 201), bob, nil), http.StatusBadRequest, CodeValidation)
}
