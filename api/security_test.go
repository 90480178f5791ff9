package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/workers"
)

// publicPaths are the only operations a request without a token may reach.
var publicPaths = map[string]bool{"/health": true, "/ready": true, "/client-config": true}

// route is one operation of the OpenAPI document.
type route struct {
	method, path string
	op           *huma.Operation
}

func (r route) String() string { return r.method + " " + r.path }

// secured reports whether the operation needs a bearer token.
func (r route) secured() bool { return !isPublic(r.op) }

// minRole is the role the operation declares (operation's metaRole).
func (r route) minRole() role.Role {
	need, _ := r.op.Metadata[metaRole].(role.Role)
	return need
}

// routes walks every operation of the API's OpenAPI document, so a route
// added later is swept without anyone remembering to list it.
func routes(t testing.TB, s *Server) []route {
	t.Helper()
	var out []route
	for path, item := range s.OpenAPI().Paths {
		for method, op := range map[string]*huma.Operation{
			http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPut: item.Put,
			http.MethodPatch: item.Patch, http.MethodDelete: item.Delete, http.MethodHead: item.Head,
		} {
			if op != nil {
				out = append(out, route{method: method, path: path, op: op})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	require.Greater(t, len(out), 30, "the OpenAPI document lists the operations")
	return out
}

// objects are the ids a swept request puts in its path.
type objects struct {
	task, notification, campaign, view string
}

// fill replaces the path parameters of path with o's ids.
func (o objects) fill(path string) string {
	id := o.campaign
	switch {
	case strings.HasPrefix(path, "/notifications/"):
		id = o.notification
	case strings.HasPrefix(path, "/views/") && o.view != "":
		id = o.view
	case strings.HasPrefix(path, "/admin/jobs/"):
		id = "987654321" // no such job: nothing real is retried or cancelled
	}
	return strings.NewReplacer("{uuid}", o.task, "{id}", id, "{n}", "1", "{version}", "1").Replace(path)
}

// send makes a request without following the body of an event stream.
func (b *testBundle) send(t *testing.T, method, path string, header http.Header) response {
	t.Helper()
	req, err := http.NewRequest(method, b.http.URL+path, strings.NewReader("{}"))
	require.NoError(t, err)
	if header != nil {
		req.Header = header.Clone()
	}
	req.Header.Set("Content-Type", "application/json")
	return roundTrip(t, req)
}

// roundTrip sends req and reads its response; an event stream's body is
// left unread (it does not end).
func roundTrip(t *testing.T, req *http.Request) response {
	t.Helper()
	return roundTripWith(t, http.DefaultClient, req)
}

// roundTripWith is roundTrip through client.
func roundTripWith(t *testing.T, client *http.Client, req *http.Request) response {
	t.Helper()
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	r := response{Status: res.StatusCode, Header: res.Header}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		return r
	}
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	r.RawBody = string(raw)
	r.Body = map[string]any{}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// sweepBundle is a bundle with one audited chat whose agent is opa, and a
// notification and a saved view of opa's.
func sweepBundle(t *testing.T) (*testBundle, objects, map[string]string) {
	t.Helper()
	b := setup(t)
	b.startWorkers(t, workers.Deps{})
	tokens := map[string]string{}
	for _, who := range []struct{ sub, role string }{
		{"opa", "operator"}, {"opb", "operator"}, {"qa", "quality"}, {"qb", "quality"}, {"root", "admin"},
	} {
		tokens[who.sub] = b.issuer.token(t, who.sub, who.role)
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", tokens[who.sub], nil).Status)
	}
	task := uploaded(t, b.upload(t, tokens["qa"], file("good.txt", []byte(goodChat)),
		field("language", "es"), field("operator", "opa")))[0]["uuid"].(string)
	b.waitStatus(t, tokens["qa"], task, "audited")
	o := objects{task: task, notification: b.notify(t, tokens["opa"], map[string]any{
		"text": "yours", "variant": "info", "user_id": "opa"})}
	o.campaign = campaignID(t, b, tokens["qa"])
	o.view = b.saveView(t, tokens["opa"], "opa's audits", "status=audited")["id"].(string)
	return b, o, tokens
}

func TestSecuritySweep(t *testing.T) {
	t.Parallel()
	b, o, tokens := sweepBundle(t)
	all := routes(t, b.server)

	t.Run("unauthenticated", func(t *testing.T) {
		for _, rt := range all {
			if !rt.secured() {
				require.True(t, publicPaths[rt.path], "%s is public but not in the list of public routes", rt)
				continue
			}
			r := b.send(t, rt.method, o.fill(rt.path), nil)
			requireError(t, r, http.StatusUnauthorized, CodeMissingAuthHeader)
			require.Equal(t, "no-store", r.Header.Get("Cache-Control"), rt.String())
			require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer", rt.String())
		}
	})

	t.Run("roles", func(t *testing.T) {
		// Fresh users of each role who own nothing: a request at or above
		// the route's role must get past authorization (any answer but 401
		// and 403), one below it must be 403 before the handler runs. An
		// admin may delete anyone's notification: give them one that does
		// not exist, so the other subtests keep theirs.
		o := o
		o.notification = "00000000-0000-4000-8000-000000000000"
		for r := role.None; r <= role.Admin; r++ {
			tok := b.issuer.token(t, "sweep-"+r.String(), r.String())
			for _, rt := range all {
				if !rt.secured() {
					continue
				}
				res := b.send(t, rt.method, o.fill(rt.path), bearer(tok))
				// Answers and errors alike are never cached.
				require.Equal(t, "no-store", res.Header.Get("Cache-Control"), "%s as %s", rt, r)
				if r < rt.minRole() {
					requireError(t, res, http.StatusForbidden, CodeForbidden)
					require.Contains(t, res.Body["message"], rt.minRole().String(), rt.String())
				} else {
					require.NotContains(t, []int{http.StatusUnauthorized, http.StatusForbidden}, res.Status,
						"%s as %s: %s", rt, r, res.RawBody)
				}
			}
		}
	})

	t.Run("query token only on the event stream", func(t *testing.T) {
		q := "?access_token=" + url.QueryEscape(tokens["root"])
		for _, rt := range all {
			if !rt.secured() {
				continue
			}
			res := b.send(t, rt.method, o.fill(rt.path)+q, nil)
			if rt.path == "/notifications/events" {
				require.Equal(t, http.StatusOK, res.Status, res.RawBody)
				continue
			}
			requireError(t, res, http.StatusUnauthorized, CodeMissingAuthHeader)
		}
	})

	t.Run("someone else's objects", func(t *testing.T) {
		// Operators see only the tasks where they are the agent; quality
		// and above see every task by design. Notifications are their
		// owner's (and any admin's). Someone else's object answers exactly
		// as an object that does not exist, so ids cannot be probed.
		swept := 0
		missing := objects{task: "00000000-0000-4000-8000-000000000000", notification: "00000000-0000-4000-8000-000000000000",
			view: "00000000-0000-4000-8000-000000000000"}
		for _, rt := range all {
			if !strings.Contains(rt.path, "{uuid}") && !strings.HasPrefix(rt.path, "/notifications/{") && !strings.HasPrefix(rt.path, "/views/{") {
				continue
			}
			if rt.minRole() > role.Operator || rt.path == "/notifications/events" {
				continue
			}
			swept++
			theirs := b.send(t, rt.method, o.fill(rt.path), bearer(tokens["opb"]))
			none := b.send(t, rt.method, missing.fill(rt.path), bearer(tokens["opb"]))
			requireError(t, theirs, http.StatusNotFound, CodeNotFound)
			require.Equal(t, none.Body["code"], theirs.Body["code"], rt.String())
			require.Equal(t, strings.ReplaceAll(none.Body["message"].(string), missing.task, o.task),
				theirs.Body["message"], rt.String())
			// The owner does read it (writes are left alone: the checks
			// below need the notification as it was).
			if rt.method == http.MethodGet && rt.path != "/tasks/{uuid}/audio" { // a chat has no recording
				mine := b.send(t, rt.method, o.fill(rt.path), bearer(tokens["opa"]))
				require.NotEqual(t, http.StatusNotFound, mine.Status, "%s: %s", rt, mine.RawBody)
			}
		}
		require.GreaterOrEqual(t, swept, 8, "tasks, revisions, audio, notifications and views are swept")
		// Lists and ids in bodies and queries.
		r := b.do(t, http.MethodGet, "/tasks", tokens["opb"], nil)
		require.Empty(t, details(r)["tasks"])
		r = b.do(t, http.MethodGet, "/tasks?operator=opa", tokens["opb"], nil)
		require.Empty(t, details(r)["tasks"])
		requireError(t, b.do(t, http.MethodGet, "/notifications?user_id=opa", tokens["opb"], nil), http.StatusForbidden, CodeForbidden)
		requireError(t, b.do(t, http.MethodDelete, "/notifications?user_id=opa", tokens["opb"], nil), http.StatusForbidden, CodeForbidden)
		requireError(t, b.json(t, http.MethodPost, "/notifications", tokens["opb"],
			map[string]any{"text": "spoof", "variant": "info", "user_id": "opa"}), http.StatusForbidden, CodeForbidden)
		require.Empty(t, items(t, b.do(t, http.MethodGet, "/views", tokens["opb"], nil)))
		// opa's notification and view are untouched by all of that.
		view := details(b.do(t, http.MethodGet, "/views/"+o.view, tokens["opa"], nil))
		require.Equal(t, "opa's audits", view["name"])
		require.Equal(t, "status=audited", view["query"])
		list := items(t, b.do(t, http.MethodGet, "/notifications", tokens["opa"], nil))
		require.Equal(t, []string{"yours"}, texts(list))
		require.Equal(t, false, list[0]["read"])
	})

	t.Run("deactivated user", func(t *testing.T) {
		tok := b.issuer.token(t, "gone", "admin")
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", tok, nil).Status)
		_, err := b.pool.Exec(context.Background(), "UPDATE users SET active = false WHERE id = 'gone'")
		require.NoError(t, err)
		for _, rt := range all {
			if !rt.secured() {
				continue
			}
			res := b.send(t, rt.method, o.fill(rt.path), bearer(tok))
			requireError(t, res, http.StatusUnauthorized, CodeUnauthorized)
		}
	})

	t.Run("mass assignment", func(t *testing.T) {
		// Fields a client must not set are refused (422/400 naming them) and
		// nothing is stored.
		forged := map[string]any{"id": "00000000-0000-4000-8000-00000000abcd", "read": true,
			"created_at": "2000-01-01T00:00:00Z", "created_by": "qb", "status": "validated",
			"uploaded_by": "qb", "score": 100, "revision": 99, "edited_by": "qb", "scorecard_version": 7}
		with := func(body map[string]any, fields ...string) map[string]any {
			out := map[string]any{}
			for k, v := range body {
				out[k] = v
			}
			for _, f := range fields {
				out[f] = forged[f]
			}
			return out
		}
		count := func(q string, args ...any) int {
			var n int
			require.NoError(t, b.pool.QueryRow(context.Background(), q, args...).Scan(&n))
			return n
		}

		note := map[string]any{"text": "forged", "variant": "info", "user_id": "qa"}
		for _, f := range []string{"id", "read", "created_at", "created_by"} {
			r := b.json(t, http.MethodPost, "/notifications", tokens["qa"], with(note, f))
			require.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, r.Status, r.RawBody)
			require.Contains(t, r.RawBody, f, r.RawBody)
		}
		require.Zero(t, count(`SELECT count(*) FROM notifications WHERE text = 'forged'`))

		settings := map[string]any{"passing_score": 70}
		for _, f := range []string{"id", "created_at", "created_by", "scorecard_version"} {
			r := b.json(t, http.MethodPatch, "/campaigns/"+o.campaign, tokens["root"], with(settings, f))
			require.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, r.Status, r.RawBody)
		}
		require.Zero(t, count(`SELECT count(*) FROM campaigns WHERE name = 'Renamed'`))

		task := b.do(t, http.MethodGet, "/tasks/"+o.task, tokens["qa"], nil)
		edit := editOf(t, details(task), map[string]bool{"empathy": false})
		for _, f := range []string{"status", "score", "revision", "edited_by"} {
			r := b.edit(t, tokens["qb"], with(edit, f))
			require.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, r.Status, r.RawBody)
		}
		require.Zero(t, count(`SELECT count(*) FROM audit_edits`))

		for _, f := range []string{"status", "uploaded_by", "score", "id"} {
			r := b.upload(t, tokens["qb"], file("forged.txt", []byte(goodChat)), field(f, "x"))
			requireError(t, r, http.StatusBadRequest, CodeValidation)
		}
		require.Zero(t, count(`SELECT count(*) FROM tasks WHERE file_name = 'forged.txt'`))

		view := map[string]any{"name": "forged", "query": ""}
		for _, f := range []string{"id", "created_at", "user_id"} {
			body := with(view, f)
			body["user_id"] = "qa"
			if f != "user_id" {
				delete(body, "user_id")
			}
			r := b.json(t, http.MethodPost, "/views", tokens["qb"], body)
			require.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, r.Status, r.RawBody)
			require.Contains(t, r.RawBody, f, r.RawBody)
		}
		require.Zero(t, count(`SELECT count(*) FROM saved_views WHERE name = 'forged'`))

		// Without the forged fields the same requests succeed, so the
		// refusals above were for those fields.
		b.saveView(t, tokens["qb"], "forged", "")
		b.notify(t, tokens["qa"], note)
		// (202 when its recomputation outlasts the short wait of these tests)
		require.Contains(t, []int{http.StatusOK, http.StatusAccepted}, b.edit(t, tokens["qb"], edit).Status)
		uploaded(t, b.upload(t, tokens["qb"], file("forged.txt", []byte(goodChat))))
		require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/campaigns/"+o.campaign, tokens["root"], settings).Status)
	})
}

// TestDocumentedRolesTable holds the table of who may do what
// (docs/security.md) to the operations' declared roles: every operation is
// in it once, with its role.
func TestDocumentedRolesTable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	readme, err := os.ReadFile("../docs/security.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(readme), "| operation | least role | narrowed to |\n|---|---|---|\n")
	require.True(t, ok, "docs/security.md has no roles table")
	table, _, _ = strings.Cut(table, "\n\n")
	row := regexp.MustCompile("^\\| `([A-Z]+) (\\S+)` \\| ([^|]+) \\|")
	inDocs := map[string]string{}
	for line := range strings.SplitSeq(table, "\n") {
		m := row.FindStringSubmatch(line)
		require.NotNil(t, m, "not a row of the table: %q", line)
		_, dup := inDocs[m[1]+" "+m[2]]
		require.False(t, dup, "%s %s twice", m[1], m[2])
		inDocs[m[1]+" "+m[2]] = strings.TrimSpace(m[3])
	}
	inCode := map[string]string{}
	for _, rt := range routes(t, b.server) {
		who := "anyone, no token"
		switch {
		case !rt.secured():
		case rt.minRole() == role.None:
			who = "any signed-in user"
		default:
			who = rt.minRole().String()
		}
		inCode[rt.String()] = who
	}
	require.Equal(t, inCode, inDocs)
}
