package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStrictUnmarshal(t *testing.T) {
	t.Parallel()
	type inner struct {
		Weight int `json:"weight"`
	}
	var into struct {
		Language string  `json:"language"`
		Criteria []inner `json:"criteria"`
	}
	for body, want := range map[string]string{
		`{"language":"es","Language":"../../etc"}`:                 `body.Language: the key "language" is given twice, as "language" and "Language"; keys are case-sensitive, give it once`,
		`{"language":"es","language":"en"}`:                        `body.language: the key "language" is given twice; give it once`,
		`{"criteria":[{"weight":1},{"weight":2,"WEIGHT":3}]}`:      `body.criteria[1].WEIGHT: the key "weight" is given twice, as "weight" and "WEIGHT"; keys are case-sensitive, give it once`,
		`{"language":"e\u0000s"}`:                                  `body.language: the text holds a NUL character (\u0000), which is not allowed`,
		`{"criteria":[{"weight":1},{"we\u0000ight":2}]}`:           `body.criteria[1]: a key holds a NUL character`,
		"{\"language\":\"\xff\"}":                                  `body: the body is not valid UTF-8 text`,
		`{"criteria":[{"weight":1e999}]}`:                          `body.criteria.weight: the number 1e999 is out of range or not of the kind expected here`,
		`{"criteria":[{"weight":"heavy"}]}`:                        `body.criteria.weight: expected a value of another type here, not a string`,
		`{"criteria":[{"weight":1},`:                               `body: the body is not valid JSON: it ends early`,
		`{"language" "es"}`:                                        `body.language: the body is not valid JSON here`,
		`{"language":"es"} {"language":"en"}`:                      `body: the body is not valid JSON`,
		`{"criteria":[{"weight":1}],"nested":{"a":{"b":1,"B":2}}}`: `body.nested.a.B: the key "b" is given twice, as "b" and "B"; keys are case-sensitive, give it once`,
	} {
		err := strictUnmarshal([]byte(body), &into)
		require.EqualError(t, err, want, body)
		require.NotContains(t, err.Error(), "Go value", body)
	}
	require.NoError(t, strictUnmarshal([]byte(`{"language":"es","criteria":[{"weight":1},{"weight":2}],"x":{"language":1}}`), &into),
		"the same key in different objects is no duplicate")
	require.Equal(t, []inner{{1}, {2}}, into.Criteria)
}

// TestEveryJSONBodyIsStrict walks every operation of the OpenAPI document
// that reads a JSON body: a key given twice (exactly or in another case), a
// key in another case alone and a NUL in a value are each a 400
// VALIDATION_ERROR naming the key, before anything is stored.
func TestEveryJSONBodyIsStrict(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := b.issuer.token(t, "strict-root", "admin")
	o := objects{task: "00000000-0000-4000-8000-000000000001", notification: "00000000-0000-4000-8000-000000000002", campaign: "1"}
	reg := b.server.OpenAPI().Components.Schemas
	stored := func() (n int) {
		require.NoError(t, b.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM campaigns) + (SELECT count(*) FROM scorecards)
			+ (SELECT count(*) FROM tasks) + (SELECT count(*) FROM notifications)`).Scan(&n))
		return n
	}
	before := stored()
	swept := 0
	for _, rt := range routes(t, b.server) {
		if rt.op.RequestBody == nil || rt.op.RequestBody.Content["application/json"] == nil {
			continue
		}
		s := rt.op.RequestBody.Content["application/json"].Schema
		if s.Ref != "" {
			s = reg.SchemaFromRef(s.Ref)
		}
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range s.Properties {
				if !yield(n) {
					return
				}
			}
		})
		require.NotEmpty(t, names, "%s reads a JSON object", rt)
		swept++
		key := names[0]
		other := strings.ToUpper(key[:1]) + key[1:]
		for body, named := range map[string]string{
			`{"` + key + `": null, "` + other + `": null}`: other,
			`{"` + key + `": null, "` + key + `": null}`:   key,
			`{"` + other + `": null}`:                      other,
			`{"` + key + `": "a\u0000b"}`:                  key,
		} {
			r := b.do(t, rt.method, o.fill(rt.path), root, strings.NewReader(body), "Content-Type", "application/json")
			requireError(t, r, http.StatusBadRequest, CodeValidation)
			require.Contains(t, r.RawBody, `body.`+named, "%s %s: the error names the key", rt, body)
			require.NotContains(t, r.RawBody, "Go value", rt.String())
			requireNoEcho(t, r)
		}
	}
	require.GreaterOrEqual(t, swept, 8, "the operations with JSON bodies were swept")
	require.Equal(t, before, stored(), "nothing was stored")
}

// requireNoEcho checks that an error's details repeat no object or body
// back, only short scalar values.
func requireNoEcho(t *testing.T, r response) {
	t.Helper()
	details, _ := r.Body["details"].([]any)
	for _, d := range details {
		switch v := d.(map[string]any)["value"].(type) {
		case nil, bool, float64:
		case string:
			require.LessOrEqual(t, len(v), maxEchoedValue, r.RawBody)
		default:
			require.Failf(t, "an error echoes the request", "%s", r.RawBody)
		}
	}
}

// TestEveryQueryParameterRefusesBadText walks every query parameter of the
// OpenAPI document: a NUL, a control character or invalid UTF-8 in it is a
// 400 VALIDATION_ERROR naming the parameter, never a 500.
func TestEveryQueryParameterRefusesBadText(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := b.issuer.token(t, "strict-root", "admin")
	o := objects{task: "00000000-0000-4000-8000-000000000001", notification: "00000000-0000-4000-8000-000000000002", campaign: "00000000-0000-4000-8000-000000000003"}
	swept := 0
	for _, rt := range routes(t, b.server) {
		if rt.path == "/notifications/events" {
			continue // a stream; its parameters are checked the same way below
		}
		for _, p := range rt.op.Parameters {
			if p.In != "query" {
				continue
			}
			swept++
			for _, bad := range []string{"a%00b", "%ff", "a%0Ab"} {
				r := b.do(t, rt.method, o.fill(rt.path)+"?"+p.Name+"="+bad, root, nil)
				requireError(t, r, http.StatusBadRequest, CodeValidation)
				require.Contains(t, r.RawBody, `"query.`+p.Name+`"`, "%s ?%s=%s", rt, p.Name, bad)
			}
		}
	}
	require.GreaterOrEqual(t, swept, 10, "the query parameters were swept")
	r := b.do(t, http.MethodGet, "/notifications/events?last_event_id=%00", root, nil)
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/tasks?q=%zz", root, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/tasks/a%00b", root, nil), http.StatusBadRequest, CodeValidation)
}

// An id is written one way: the other notations Huma's uuid format takes
// (urn:uuid:…, braces, bare hexadecimal) are a 400 naming the field, in
// every path and query parameter and in bodies, never a 500 or a second
// name for the same object.
func TestEveryIDTakesOneNotation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := b.issuer.token(t, "uuid-root", "admin")
	const id = "00000000-0000-4000-8000-000000000001"
	notations := []string{"urn:uuid:" + id, "%7B" + id + "%7D", strings.ReplaceAll(id, "-", "")}
	swept := 0
	for _, rt := range routes(t, b.server) {
		for _, p := range rt.op.Parameters {
			if p.Schema == nil || p.Schema.Format != "uuid" {
				continue
			}
			swept++
			for _, bad := range notations {
				path, query := rt.path, ""
				if p.In == "path" {
					path = strings.ReplaceAll(path, "{"+p.Name+"}", bad)
				} else {
					query = "?" + p.Name + "=" + bad
				}
				r := b.do(t, rt.method, objects{task: id, notification: id, campaign: id}.fill(path)+query, root, strings.NewReader("{}"))
				// MISSING_FIELDS where the empty body lacks what the operation needs.
				require.Equal(t, http.StatusBadRequest, r.Status, "%s %s=%s: %s", rt, p.Name, bad, r.RawBody)
				require.Contains(t, r.RawBody, `"`+p.In+`.`+p.Name+`"`, "%s %s=%s", rt, p.Name, bad)
				require.Contains(t, r.RawBody, "8-4-4-4-12", "%s %s=%s", rt, p.Name, bad)
			}
		}
	}
	require.GreaterOrEqual(t, swept, 5, "the id parameters were swept")
	for path, body := range map[string]string{"/compute-audit-results": `, "answers": []`, "/validate-audit": ""} {
		r := b.do(t, http.MethodPost, path, root, strings.NewReader(`{"task_uuid": "urn:uuid:`+id+`"`+body+`}`), "Content-Type", "application/json")
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, `"body.task_uuid"`, path)
	}
}
