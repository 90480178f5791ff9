package api

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/workers"
)

// bulkDeps are the workers of these tests: pages of two tasks, so that
// every selection takes several.
var bulkDeps = workers.Deps{BulkBatch: 2}

// chat is a chat of its own (goodChat with a last line naming it), in a
// file called name.
func chat(name string) part {
	return file(name, []byte(goodChat+"Cliente: Adios, soy "+strings.TrimSuffix(name, ".txt")+".\n"))
}

// uploadChats uploads the chats named (with fields, such as the agent) and
// returns their ids, in order.
func (b *testBundle) uploadChats(t *testing.T, token string, fields []part, names ...string) []string {
	t.Helper()
	parts := append([]part{field("language", "es")}, fields...)
	for _, n := range names {
		parts = append(parts, chat(n))
	}
	var ids []string
	for _, task := range uploaded(t, b.upload(t, token, parts...)) {
		ids = append(ids, task["uuid"].(string))
	}
	return ids
}

// bulkAction starts a bulk action and returns it as the 202 shows it.
func (b *testBundle) bulkAction(t *testing.T, token string, body map[string]any) map[string]any {
	t.Helper()
	r := b.json(t, http.MethodPost, "/bulk-actions", token, body)
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Equal(t, "ACCEPTED", r.Body["code"])
	return details(r)
}

// bulkEnded waits for bulk action id to end and returns it.
func (b *testBundle) bulkEnded(t *testing.T, token, id string) map[string]any {
	t.Helper()
	var a map[string]any
	require.Eventually(t, func() bool {
		r := b.do(t, http.MethodGet, "/bulk-actions/"+id, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		a = details(r)
		return a["status"] != "queued" && a["status"] != "running"
	}, 60*time.Second, 20*time.Millisecond)
	return a
}

// bulkResults returns the results of bulk action id ("outcome: message"
// by task id), read two at a time with query added.
func (b *testBundle) bulkResults(t *testing.T, token, id, query string) map[string]string {
	t.Helper()
	out := map[string]string{}
	cursor := ""
	for {
		r := b.do(t, http.MethodGet, "/bulk-actions/"+id+"/items?limit=2"+query+cursor, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		for _, it := range details(r)["items"].([]any) {
			item := it.(map[string]any)
			out[item["task_uuid"].(string)] = fmt.Sprint(item["outcome"], ": ", item["message"])
		}
		next, _ := details(r)["next"].(string)
		if next == "" {
			return out
		}
		cursor = "&cursor=" + next
	}
}

// tally is a bulk action's counts.
func tally(a map[string]any) string {
	return fmt.Sprintf("%v %v: matched %v, %v succeeded, %v skipped, %v failed", a["action"], a["status"], a["matched"],
		a["succeeded"], a["skipped"], a["failed"])
}

// audit is task id's current audit as GET /tasks/{uuid} shows it.
func (b *testBundle) currentAudit(t *testing.T, token, id string) map[string]any {
	t.Helper()
	r := b.do(t, http.MethodGet, "/tasks/"+id, token, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	return details(r)["audit"].(map[string]any)
}

// fail takes transcribed chat id to failed, as an audit that gave up does,
// and drops its audit job (run by hand, it would retry the task itself).
func (b *testBundle) fail(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `DELETE FROM river_job WHERE kind = 'audit' AND args->>'task_uuid' = $1`, id)
	require.NoError(t, err)
	_, err = db.TaskTransition(ctx, b.pool, id, db.TaskChange{From: []pipeline.Status{pipeline.Transcribed},
		To: pipeline.Failed, Error: "engine down", Attempt: 5})
	require.NoError(t, err)
}

func TestBulkReaudit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, bulkDeps)
	alice, _, _ := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	ids := b.uploadChats(t, alice, nil, "alpha.txt", "bravo.txt", "charlie.txt", "delta.txt")
	for _, id := range ids {
		b.waitStatus(t, alice, id, "audited")
	}
	r := b.validateJSON(t, alice, map[string]any{"task_uuid": ids[3], "notes": "Revisada.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	call := uploaded(t, b.upload(t, alice, file("call.wav", tone(t, "call.wav", 440, 1))))[0]["uuid"].(string)
	// A new scorecard; its own recomputation re-scores the audits first.
	b.publish(t, sue, reviewCriteria...)
	require.Eventually(t, func() bool {
		for _, id := range ids[:3] {
			if b.currentAudit(t, alice, id)["scorecard_version"] != float64(2) {
				return false
			}
		}
		return true
	}, 30*time.Second, 20*time.Millisecond)

	t.Run("selection", func(t *testing.T) {
		a := b.bulkAction(t, alice, map[string]any{"action": "reaudit", "task_uuids": []string{ids[0], ids[1], ids[3], call}, "confirm": true})
		require.Equal(t, "queued", a["status"])
		require.EqualValues(t, 4, a["matched"])
		require.Equal(t, "alice", a["requested_by"])
		require.NotNil(t, a["job_id"])
		a = b.bulkEnded(t, alice, a["id"].(string))
		require.Equal(t, "reaudit done: matched 4, 2 succeeded, 2 skipped, 0 failed", tally(a))
		results := b.bulkResults(t, alice, a["id"].(string), "")
		require.Len(t, results, 4)
		require.Regexp(t, `^succeeded: revision 3: \d+\.\d\d, (passed|did not pass) \(passing score 85\.00\), against scorecard version 2$`, results[ids[0]])
		require.Equal(t, "skipped: it is validated: its audit can no longer change", results[ids[3]])
		require.Equal(t, "skipped: it is queued: its first audit is still to come", results[call])
		// A new engine revision against the current scorecard.
		for _, id := range ids[:2] {
			audit := b.currentAudit(t, alice, id)
			require.Equal(t, float64(3), audit["revision"])
			require.Equal(t, "engine", audit["source"])
			require.Equal(t, "rules", audit["engine"])
			require.Equal(t, float64(2), audit["scorecard_version"])
			require.Len(t, audit["items"], 3, "the criteria of version 2")
		}
		require.Equal(t, float64(2), b.currentAudit(t, alice, ids[2])["revision"], "not selected")
		// Only one outcome.
		skipped := b.bulkResults(t, alice, a["id"].(string), "&outcome=skipped")
		require.Equal(t, map[string]string{ids[3]: results[ids[3]], call: results[call]}, skipped)
	})

	t.Run("filter", func(t *testing.T) {
		a := b.bulkAction(t, alice, map[string]any{"action": "reaudit", "filter": "status=audited&file_name=a&campaign=default", "confirm": true})
		require.Equal(t, "status=audited&campaign=default&file_name=a", a["filter"], "canonical: in the list's order")
		require.Nil(t, a["matched"], "counted by the job")
		require.Nil(t, a["task_uuids"])
		a = b.bulkEnded(t, alice, a["id"].(string))
		// alpha, bravo, charlie (delta is validated; the call is queued).
		require.Equal(t, "reaudit done: matched 3, 3 succeeded, 0 skipped, 0 failed", tally(a))
		require.Len(t, b.bulkResults(t, alice, a["id"].(string), "&outcome=succeeded"), 3)
		require.Equal(t, float64(4), b.currentAudit(t, alice, ids[0])["revision"])
		require.Equal(t, float64(3), b.currentAudit(t, alice, ids[2])["revision"])
		// The requester is told, in their language.
		notes := texts(items(t, b.do(t, http.MethodGet, "/notifications?limit=500", alice, nil)))
		require.Contains(t, notes, "Bulk action “re-audit” on 3 tasks finished: 3 succeeded, 0 skipped, 0 failed.")
	})

	// Every chat where the customer said a word, re-audited in one action.
	t.Run("words", func(t *testing.T) {
		a := b.bulkAction(t, alice, map[string]any{"action": "reaudit", "filter": "q=charlie", "confirm": true})
		a = b.bulkEnded(t, alice, a["id"].(string))
		require.Equal(t, "reaudit done: matched 1, 1 succeeded, 0 skipped, 0 failed", tally(a))
		require.Equal(t, float64(4), b.currentAudit(t, alice, ids[2])["revision"])
		require.Equal(t, float64(4), b.currentAudit(t, alice, ids[1])["revision"], "bravo not said")
	})
}

func TestBulkRetry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	ctx := context.Background()
	// No workers yet: the chats stay transcribed, and then fail; d is
	// left transcribed, its audit job gone.
	mine := b.uploadChats(t, alice, nil, "a.txt", "d.txt")
	ana := b.uploadChats(t, alice, []part{field("operator", "ana")}, "b.txt", "c.txt")
	_, err := b.pool.Exec(ctx, `DELETE FROM river_job WHERE kind = 'audit'`)
	require.NoError(t, err)
	for _, id := range append([]string{mine[0]}, ana...) {
		b.fail(t, id)
	}

	selection := b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": mine})
	filter := b.bulkAction(t, alice, map[string]any{"action": "retry", "filter": "operator=ana&status=failed"})
	require.Equal(t, "status=failed&operator=ana", filter["filter"])
	// Failed after the request, but uploaded after it too: not part of it.
	late := b.uploadChats(t, alice, []part{field("operator", "ana")}, "late.txt")[0]
	b.fail(t, late)

	b.startWorkers(t, bulkDeps)
	a := b.bulkEnded(t, alice, selection["id"].(string))
	require.Equal(t, "retry done: matched 2, 1 succeeded, 1 skipped, 0 failed", tally(a))
	require.Equal(t, map[string]string{mine[0]: "succeeded: sent back to transcribed",
		mine[1]: "skipped: it is transcribed: only a failed task can be retried"}, b.bulkResults(t, alice, a["id"].(string), ""))
	a = b.bulkEnded(t, alice, filter["id"].(string))
	require.Equal(t, "retry done: matched 2, 2 succeeded, 0 skipped, 0 failed", tally(a))
	require.Equal(t, map[string]string{ana[0]: "succeeded: sent back to transcribed", ana[1]: "succeeded: sent back to transcribed"},
		b.bulkResults(t, alice, a["id"].(string), ""))
	// Retried as POST /tasks/{uuid}/retry retries: audited again.
	for _, id := range append([]string{mine[0]}, ana...) {
		b.waitStatus(t, alice, id, "audited")
	}
	require.Equal(t, "failed", details(b.do(t, http.MethodGet, "/tasks/"+late, alice, nil))["status"])
}

func TestBulkAssign(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, bulkDeps)
	alice, bob, _ := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	for _, who := range []string{"maria", "pedro"} {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", b.issuer.token(t, who, "quality"), nil).Status)
	}
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt", "c.txt")

	// Assigning work is a supervisor's.
	r := b.json(t, http.MethodPost, "/bulk-actions", alice, map[string]any{"action": "assign", "task_uuids": ids, "assignee": "maria"})
	requireError(t, r, http.StatusForbidden, CodeForbidden)
	require.Contains(t, r.Body["message"], "supervisor")
	// To an analyst only.
	r = b.json(t, http.MethodPost, "/bulk-actions", sue, map[string]any{"action": "assign", "task_uuids": ids, "assignee": "bob"})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, "body.assignee")
	require.Contains(t, r.Body["message"], "not an analyst")
	_ = bob

	a := b.bulkAction(t, sue, map[string]any{"action": "assign", "task_uuids": ids[:2], "assignee": "maria"})
	require.Equal(t, "maria", a["assignee_id"])
	require.Equal(t, "assign done: matched 2, 2 succeeded, 0 skipped, 0 failed", tally(b.bulkEnded(t, sue, a["id"].(string))))
	a = b.bulkAction(t, sue, map[string]any{"action": "assign", "task_uuids": []string{ids[0], ids[2]}, "assignee": "maria"})
	require.Equal(t, "assign done: matched 2, 1 succeeded, 1 skipped, 0 failed", tally(b.bulkEnded(t, sue, a["id"].(string))))
	require.Equal(t, map[string]string{ids[0]: "skipped: it is assigned to maria already", ids[2]: "succeeded: assigned to maria"},
		b.bulkResults(t, sue, a["id"].(string), ""))

	// Maria is told, once per bulk action, with a link to her queue; the
	// assignment is dated, without a due date.
	notes := items(t, b.do(t, http.MethodGet, "/notifications", b.issuer.token(t, "maria", "quality"), nil))
	require.Equal(t, []string{"1 tasks were assigned to you for review.", "2 tasks were assigned to you for review."}, texts(notes))
	require.Equal(t, "/reviews", notes[0]["link"])
	assigned := details(b.do(t, http.MethodGet, "/tasks/"+ids[2], alice, nil))
	require.NotEmpty(t, assigned["assigned_at"])
	require.Nil(t, assigned["due_at"])

	// The list filters by assignee, and shows it.
	list := details(b.do(t, http.MethodGet, "/tasks?assignee=maria", alice, nil))
	require.EqualValues(t, 3, list["total"])
	require.Equal(t, "maria", list["tasks"].([]any)[0].(map[string]any)["assignee_id"])
	require.Equal(t, "maria", details(b.do(t, http.MethodGet, "/tasks/"+ids[1], alice, nil))["assignee_id"])

	// Reassigned by filter.
	a = b.bulkAction(t, sue, map[string]any{"action": "assign", "filter": "assignee=maria", "assignee": "pedro"})
	require.Equal(t, "assign done: matched 3, 3 succeeded, 0 skipped, 0 failed", tally(b.bulkEnded(t, sue, a["id"].(string))))
	require.EqualValues(t, 0, details(b.do(t, http.MethodGet, "/tasks?assignee=maria", alice, nil))["total"])
	require.EqualValues(t, 3, details(b.do(t, http.MethodGet, "/tasks?assignee=pedro", alice, nil))["total"])
}

func TestBulkValidate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, bulkDeps)
	alice, _, _ := b.users(t)
	b.agent(t, "ana", "ana", "ana@example.com")
	// A validator without an e-mail address: a task whose agent has none
	// either has nobody to e-mail (the default campaign has no
	// supervisors' addresses, and no VALIDATION_TO is set).
	c := b.issuer.claims("vera")
	c["email"], c["roles"] = "", []string{"quality"}
	vera := b.issuer.sign(t, c)
	ana := b.uploadChats(t, alice, []part{field("operator", "ana")}, "a.txt", "b.txt", "c.txt")
	ghost := b.uploadChats(t, alice, []part{field("operator", "ghost")}, "g.txt")[0]
	for _, id := range append(ana, ghost) {
		b.waitStatus(t, alice, id, "audited")
	}
	r := b.validateJSON(t, alice, map[string]any{"task_uuid": ana[2], "notes": "Ya revisada.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	a := b.bulkAction(t, vera, map[string]any{"action": "validate", "task_uuids": []string{ana[0], ghost, ana[2]},
		"notes": "Revisión  semanal.\u0007", "confirm": true})
	require.Equal(t, "Revisión  semanal.", a["notes"], "control characters dropped, as POST /validate-audit does")
	a = b.bulkEnded(t, vera, a["id"].(string))
	require.Equal(t, "validate done: matched 3, 1 succeeded, 1 skipped, 1 failed", tally(a))
	results := b.bulkResults(t, vera, a["id"].(string), "")
	require.Equal(t, "succeeded: validated; the result is being e-mailed to ana@example.com", results[ana[0]])
	require.Equal(t, "skipped: it is validated already", results[ana[2]])
	require.Contains(t, results[ghost], "failed: nobody to e-mail the validation to")
	require.Equal(t, "audited", details(b.do(t, http.MethodGet, "/tasks/"+ghost, alice, nil))["status"], "nothing of it stays")

	a = b.bulkAction(t, alice, map[string]any{"action": "validate", "filter": "operator=ana", "notes": "Bien.", "confirm": true})
	require.Equal(t, "validate done: matched 3, 1 succeeded, 2 skipped, 0 failed", tally(b.bulkEnded(t, alice, a["id"].(string))))
	// As POST /validate-audit validates: the validation, its e-mail sent.
	for _, who := range []struct{ id, validator, notes string }{{ana[0], "vera", "Revisión  semanal."}, {ana[1], "alice", "Bien."}} {
		var v map[string]any
		require.Eventually(t, func() bool {
			d := details(b.do(t, http.MethodGet, "/tasks/"+who.id, alice, nil))
			v, _ = d["validation"].(map[string]any)
			return v != nil && v["email"].(map[string]any)["status"] == "sent"
		}, 30*time.Second, 20*time.Millisecond)
		require.Equal(t, who.validator, v["validator_id"])
		require.Equal(t, who.notes, v["notes"])
		require.Equal(t, []any{"ana@example.com"}, v["sent_to"])
	}
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'send_validation_email'`))
}

func TestBulkRequestRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt")
	missing := "6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90"
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	}
	sue := b.issuer.token(t, "sue", "supervisor")
	cases := []struct {
		name     string
		body     any
		status   int
		code     string
		location string
		// token is the caller's; alice's, a quality analyst's, when empty.
		token string
	}{
		{"no action", map[string]any{"task_uuids": ids}, 400, CodeMissingFields, "body.action", ""},
		{"unknown action", map[string]any{"action": "delete", "task_uuids": ids}, 400, CodeValidation, "body.action", ""},
		{"no tasks", map[string]any{"action": "retry"}, 400, CodeMissingFields, "body.task_uuids", ""},
		{"both selections", map[string]any{"action": "retry", "task_uuids": ids, "filter": "status=failed"}, 400, CodeValidation, "body.filter", ""},
		{"empty selection", map[string]any{"action": "retry", "task_uuids": []string{}}, 400, CodeValidation, "body.task_uuids", ""},
		{"too many", map[string]any{"action": "retry", "task_uuids": many}, 400, CodeValidation, "body.task_uuids", ""},
		{"not a uuid", map[string]any{"action": "retry", "task_uuids": []string{"nope"}}, 400, CodeValidation, "body.task_uuids[0]", ""},
		{"urn uuid", map[string]any{"action": "retry", "task_uuids": []string{"urn:uuid:" + ids[0]}}, 400, CodeValidation, "body.task_uuids[0]", ""},
		{"repeated", map[string]any{"action": "retry", "task_uuids": []string{ids[0], ids[0]}}, 400, CodeValidation, "body.task_uuids", ""},
		{"repeated in another case", map[string]any{"action": "retry", "task_uuids": []string{ids[0], strings.ToUpper(ids[0])}}, 400, CodeValidation, "body.task_uuids[1]", ""},
		{"no such task", map[string]any{"action": "retry", "task_uuids": []string{ids[0], missing}}, 404, CodeNotFound, "body.task_uuids[1]", ""},
		{"unknown filter", map[string]any{"action": "retry", "filter": "sort=score"}, 400, CodeValidation, "body.filter.sort", ""},
		{"bad status", map[string]any{"action": "retry", "filter": "status=broken"}, 400, CodeValidation, "body.filter.status", ""},
		{"bad score", map[string]any{"action": "retry", "filter": "min_score=abc"}, 400, CodeValidation, "body.filter.min_score", ""},
		{"score above 100", map[string]any{"action": "retry", "filter": "max_score=101"}, 400, CodeValidation, "body.filter.max_score", ""},
		{"bad date", map[string]any{"action": "retry", "filter": "from=yesterday"}, 400, CodeValidation, "body.filter.from", ""},
		{"filter given twice", map[string]any{"action": "retry", "filter": "status=failed&status=audited"}, 400, CodeValidation, "body.filter.status", ""},
		{"control character", map[string]any{"action": "retry", "filter": "q=a%07b"}, 400, CodeValidation, "body.filter", ""},
		{"long file name", map[string]any{"action": "retry", "filter": "file_name=" + strings.Repeat("a", 201)}, 400, CodeValidation, "body.filter.file_name", ""},
		{"not a query", map[string]any{"action": "retry", "filter": "status=%zz"}, 400, CodeValidation, "body.filter", ""},
		{"assign as quality", map[string]any{"action": "assign", "task_uuids": ids, "assignee": "alice"}, 403, CodeForbidden, "body.action", ""},
		{"assignee missing", map[string]any{"action": "assign", "task_uuids": ids}, 400, CodeMissingFields, "body.assignee", sue},
		{"assignee unknown", map[string]any{"action": "assign", "task_uuids": ids, "assignee": "nobody"}, 400, CodeValidation, "body.assignee", sue},
		{"assignee an operator", map[string]any{"action": "assign", "task_uuids": ids, "assignee": "bob"}, 400, CodeValidation, "body.assignee", sue},
		{"assignee for retry", map[string]any{"action": "retry", "task_uuids": ids, "assignee": "alice"}, 400, CodeValidation, "body.assignee", ""},
		{"notes missing", map[string]any{"action": "validate", "task_uuids": ids, "confirm": true}, 400, CodeMissingFields, "body.notes", ""},
		{"blank notes", map[string]any{"action": "validate", "task_uuids": ids, "notes": " \u0007 ", "confirm": true}, 400, CodeMissingFields, "body.notes", ""},
		{"notes for retry", map[string]any{"action": "retry", "task_uuids": ids, "notes": "x"}, 400, CodeValidation, "body.notes", ""},
		{"validate unconfirmed", map[string]any{"action": "validate", "task_uuids": ids, "notes": "x"}, 400, CodeValidation, "body.confirm", ""},
		{"reaudit unconfirmed", map[string]any{"action": "reaudit", "task_uuids": ids}, 400, CodeValidation, "body.confirm", ""},
		{"reaudit not confirmed", map[string]any{"action": "reaudit", "task_uuids": ids, "confirm": false}, 400, CodeValidation, "body.confirm", ""},
		{"confirm not a boolean", map[string]any{"action": "reaudit", "task_uuids": ids, "confirm": "yes"}, 400, CodeValidation, "body.confirm", ""},
		{"unknown field", map[string]any{"action": "retry", "task_uuids": ids, "status": "done"}, 400, CodeValidation, "body.status", ""},
		{"field in another case", map[string]any{"action": "retry", "Task_uuids": ids}, 400, CodeValidation, "body.Task_uuids", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := b.json(t, http.MethodPost, "/bulk-actions", cmp.Or(tc.token, alice), tc.body)
			requireError(t, r, tc.status, tc.code)
			require.Contains(t, r.RawBody, `"`+tc.location, r.RawBody)
		})
	}
	// The operator may not, whatever the action.
	requireError(t, b.json(t, http.MethodPost, "/bulk-actions", bob, map[string]any{"action": "retry", "task_uuids": ids}),
		http.StatusForbidden, CodeForbidden)
	// The reason a confirmation is needed is said.
	r := b.json(t, http.MethodPost, "/bulk-actions", alice, map[string]any{"action": "reaudit", "filter": "status=audited"})
	require.Contains(t, r.Body["message"], `reaudit cannot be undone: send "confirm": true`)
	require.Zero(t, b.count(t, `SELECT count(*) FROM bulk_actions`), "nothing stored")
	require.Zero(t, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'bulk_action'`))
	// The same requests, right, are taken.
	b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": []string{ids[0], strings.ToUpper(ids[1])}})
	b.bulkAction(t, alice, map[string]any{"action": "retry", "filter": "?status=failed&q=&min_score=50"})
	require.Equal(t, []string{"", "status=failed&min_score=50"}, bulkFilters(t, b))
}

// bulkFilters lists the stored bulk actions' filter queries, oldest first.
func bulkFilters(t *testing.T, b *testBundle) []string {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT COALESCE(filter_query, '') FROM bulk_actions ORDER BY created_at, id`)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

// A job that starts over after a crash, or runs again, acts on no task
// twice: every task with a result is passed over.
func TestBulkJobRunTwiceActsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	events, client := b.startWorkersWith(t, bulkDeps, nil)
	alice, _, _ := b.users(t)
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt", "c.txt")
	for _, id := range ids {
		b.waitStatus(t, alice, id, "audited")
	}
	a := b.bulkAction(t, alice, map[string]any{"action": "reaudit", "filter": "", "confirm": true})
	id := a["id"].(string)
	before := tally(b.bulkEnded(t, alice, id))
	require.Equal(t, "reaudit done: matched 3, 3 succeeded, 0 skipped, 0 failed", before)
	revisions := `SELECT count(*) FROM audit_revisions`
	require.Equal(t, 6, b.count(t, revisions))

	jobID := int64(a["job_id"].(float64))
	completed := func() {
		t.Helper()
		for {
			select {
			case ev := <-events:
				if ev.Job.ID == jobID {
					require.Equal(t, river.EventKindJobCompleted, ev.Kind)
					return
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the bulk_action job did not complete")
			}
		}
	}
	completed()

	// As if the job had died before its last page: running again, from
	// the start of the selection.
	_, err := b.pool.Exec(context.Background(), `UPDATE bulk_actions SET status = 'running', finished_at = NULL,
		after_value = NULL, after_uuid = NULL WHERE id = $1`, id)
	require.NoError(t, err)
	_, err = client.JobRetry(context.Background(), jobID)
	require.NoError(t, err)
	completed()
	after := b.bulkEnded(t, alice, id)
	require.Equal(t, before, tally(after))
	require.Equal(t, 6, b.count(t, revisions), "no task re-audited twice")
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM bulk_action_items`))
}

func TestBulkCancelAndWhoSees(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	qb := b.issuer.token(t, "qb", "quality")
	sue := b.issuer.token(t, "sue", "supervisor")
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt")
	for _, id := range ids {
		b.fail(t, id)
	}
	// No worker runs yet.
	a := b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": ids})
	id := a["id"].(string)
	theirs := b.bulkAction(t, qb, map[string]any{"action": "retry", "task_uuids": ids})["id"].(string)

	// Its requester's, and supervisors'; anyone else's as if it did not exist.
	for _, path := range []string{"/bulk-actions/" + id, "/bulk-actions/" + id + "/items"} {
		requireError(t, b.do(t, http.MethodGet, path, qb, nil), http.StatusNotFound, CodeNotFound)
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, path, sue, nil).Status)
	}
	r := b.do(t, http.MethodPost, "/bulk-actions/"+id+"/cancel", qb, nil)
	requireError(t, r, http.StatusNotFound, CodeNotFound)
	require.Equal(t, "no bulk action "+id, r.Body["message"])
	requireError(t, b.do(t, http.MethodGet, "/bulk-actions/6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90", sue, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/bulk-actions/nope", sue, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/bulk-actions/"+id+"/items?outcome=lost", sue, nil), http.StatusBadRequest, CodeValidation)

	r = b.do(t, http.MethodPost, "/bulk-actions/"+id+"/cancel", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "cancelled", details(r)["status"])
	require.Equal(t, "alice", details(r)["cancelled_by"])
	requireError(t, b.do(t, http.MethodPost, "/bulk-actions/"+id+"/cancel", sue, nil), http.StatusConflict, CodeConflict)

	// The requester's permission is checked again for every task: one
	// deactivated since gets each task refused.
	_, err := b.pool.Exec(context.Background(), `UPDATE users SET active = false WHERE id = 'qb'`)
	require.NoError(t, err)

	b.startWorkers(t, bulkDeps)
	ended := b.bulkEnded(t, sue, theirs)
	require.Equal(t, "retry done: matched 2, 0 succeeded, 0 skipped, 2 failed", tally(ended))
	for _, res := range b.bulkResults(t, sue, theirs, "") {
		require.Equal(t, "failed: the requester (qb) is deactivated", res)
	}
	// The cancelled one's job, when it ran, did nothing.
	require.Eventually(t, func() bool {
		return b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'bulk_action' AND state = 'completed'`) == 2
	}, 30*time.Second, 20*time.Millisecond)
	require.Empty(t, b.bulkResults(t, alice, id, ""))
	require.Equal(t, "retry cancelled: matched 2, 0 succeeded, 0 skipped, 0 failed", tally(b.bulkEnded(t, alice, id)))
	for _, task := range ids {
		require.Equal(t, "failed", details(b.do(t, http.MethodGet, "/tasks/"+task, alice, nil))["status"])
	}
	require.Contains(t, texts(items(t, b.do(t, http.MethodGet, "/notifications", alice, nil))),
		"Bulk action “retry” was cancelled after 0 tasks: 0 succeeded, 0 skipped, 0 failed.")
}

// Progress reaches the requester's event stream as bulk_action.updated
// events with the counts, the last one when the action ends.
func TestBulkProgressReachesTheStream(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, bulkDeps)
	alice, bob, _ := b.users(t)
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt", "c.txt", "d.txt", "e.txt")
	for _, id := range ids {
		b.waitStatus(t, alice, id, "audited")
	}
	stream, theirs := b.stream(t, alice), b.stream(t, bob)
	a := b.bulkAction(t, alice, map[string]any{"action": "reaudit", "filter": "status=audited", "confirm": true})
	var seen []string
	for {
		ev := stream.next(t)
		if ev.Type != db.EventBulkActionUpdated {
			continue
		}
		require.Equal(t, a["id"], ev.Data["id"])
		seen = append(seen, tally(ev.Data))
		if ev.Data["status"] == "done" {
			break
		}
	}
	require.Equal(t, "reaudit queued: matched <nil>, 0 succeeded, 0 skipped, 0 failed", seen[0])
	require.Equal(t, "reaudit running: matched 5, 0 succeeded, 0 skipped, 0 failed", seen[1])
	require.Equal(t, "reaudit done: matched 5, 5 succeeded, 0 skipped, 0 failed", seen[len(seen)-1])
	// Not to others below supervisor.
	for {
		select {
		case ev := <-theirs.events:
			require.NotEqual(t, db.EventBulkActionUpdated, ev.Type)
			continue
		default:
		}
		break
	}
}

func TestBulkUnassign(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, bulkDeps)
	alice, _, _ := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	maria := b.issuer.token(t, "maria", "quality")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", maria, nil).Status)
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt", "c.txt")
	for _, id := range ids {
		b.waitStatus(t, alice, id, "audited")
	}
	// Two assigned to maria, one with a due date (as sampling assigns).
	ctx := context.Background()
	due := time.Now().Add(72 * time.Hour)
	_, err := db.TaskAssign(ctx, b.pool, ids[0], "maria", &due)
	require.NoError(t, err)
	_, err = db.TaskAssign(ctx, b.pool, ids[1], "maria", nil)
	require.NoError(t, err)
	require.NotEmpty(t, details(b.do(t, http.MethodGet, "/tasks/"+ids[0], alice, nil))["due_at"])
	updates := func(id string) int {
		return b.count(t, `SELECT count(*) FROM events WHERE type = 'task.updated' AND data->>'uuid' = $1`, id)
	}
	before := []int{updates(ids[0]), updates(ids[1]), updates(ids[2])}

	// Taking work back is a supervisor's, as giving it is; it takes no assignee.
	r := b.json(t, http.MethodPost, "/bulk-actions", alice, map[string]any{"action": "unassign", "task_uuids": ids})
	requireError(t, r, http.StatusForbidden, CodeForbidden)
	require.Contains(t, r.Body["message"], "unassign needs the supervisor role")
	r = b.json(t, http.MethodPost, "/bulk-actions", sue, map[string]any{"action": "unassign", "task_uuids": ids, "assignee": "maria"})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"body.assignee"`)

	a := b.bulkAction(t, sue, map[string]any{"action": "unassign", "task_uuids": ids})
	require.Equal(t, "unassign", a["action"])
	a = b.bulkEnded(t, sue, a["id"].(string))
	require.Equal(t, "unassign done: matched 3, 2 succeeded, 1 skipped, 0 failed", tally(a))
	require.Equal(t, map[string]string{ids[0]: "succeeded: no longer assigned to maria", ids[1]: "succeeded: no longer assigned to maria",
		ids[2]: "skipped: it is not assigned to anyone"}, b.bulkResults(t, sue, a["id"].(string), ""))
	// The assignee and the due date are gone; a task.updated event each.
	for _, id := range ids[:2] {
		task := details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))
		require.Nil(t, task["assignee_id"])
		require.Nil(t, task["assigned_at"])
		require.Nil(t, task["due_at"])
	}
	require.Equal(t, []int{before[0] + 1, before[1] + 1, before[2]}, []int{updates(ids[0]), updates(ids[1]), updates(ids[2])})
	require.EqualValues(t, 0, details(b.do(t, http.MethodGet, "/tasks?assignee=maria", alice, nil))["total"])
	require.Empty(t, items(t, b.do(t, http.MethodGet, "/reviews/mine", maria, nil)), "her queue is empty")
	notes := texts(items(t, b.do(t, http.MethodGet, "/notifications", sue, nil)))
	require.Contains(t, notes, "Bulk action “unassign” on 3 tasks finished: 2 succeeded, 1 skipped, 0 failed.")

	// By filter: every task of an analyst's.
	_, err = db.TaskAssign(ctx, b.pool, ids[2], "maria", nil)
	require.NoError(t, err)
	a = b.bulkAction(t, sue, map[string]any{"action": "unassign", "filter": "assignee=maria"})
	require.Equal(t, "unassign done: matched 1, 1 succeeded, 0 skipped, 0 failed", tally(b.bulkEnded(t, sue, a["id"].(string))))
	require.Nil(t, details(b.do(t, http.MethodGet, "/tasks/"+ids[2], alice, nil))["assignee_id"])
}

// TestBulkRepeatedIDsOneDetailEach: one id given 1,000 times (in either
// case) is one detail, not 999.
func TestBulkRepeatedIDsOneDetailEach(t *testing.T) {
	t.Parallel()
	b := setup(t)
	qa := b.issuer.token(t, "qa", "quality")
	ids := b.uploadChats(t, qa, nil, "a.txt", "b.txt")
	for _, mixed := range []bool{false, true} {
		many := make([]string, 0, 1000)
		for i := range 1000 {
			id := ids[i%2]
			if mixed && i%4 >= 2 {
				id = strings.ToUpper(id)
			}
			many = append(many, id)
		}
		r := b.json(t, http.MethodPost, "/bulk-actions", qa, map[string]any{"action": "reaudit", "task_uuids": many, "confirm": true})
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Len(t, r.Body["details"], 2, "mixed case %v: %s", mixed, r.RawBody)
	}
}
