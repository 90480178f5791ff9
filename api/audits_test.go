package api

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/workers"
)

// audited uploads chats (name → content) as token and waits until each is
// audited, returning their details in order.
func (b *testBundle) audited(t *testing.T, token string, chats ...part) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, task := range uploaded(t, b.upload(t, token, append(chats, field("language", "es"))...)) {
		out = append(out, b.waitStatus(t, token, task["uuid"].(string), "audited"))
	}
	return out
}

// edit posts an edit of the audit.
func (b *testBundle) edit(t *testing.T, token string, body any, headers ...string) response {
	t.Helper()
	return b.json(t, http.MethodPost, "/compute-audit-results", token, body, headers...)
}

// auditItem is the item of criterion id in an audit (or a result).
func auditItem(t *testing.T, audit map[string]any, id string) map[string]any {
	t.Helper()
	for _, it := range audit["items"].([]any) {
		if m := it.(map[string]any); m["criterion_id"] == id {
			return m
		}
	}
	t.Fatalf("no item %s in %v", id, audit)
	return nil
}

// editOf is an edit of task (a task's details) setting the criteria of
// verdicts (id → complies) with an explanation, as a client would send it:
// question and category copied from the current audit.
func editOf(t *testing.T, task map[string]any, verdicts map[string]bool) map[string]any {
	t.Helper()
	audit := task["audit"].(map[string]any)
	var items []map[string]any
	for id, complies := range verdicts {
		it := auditItem(t, audit, id)
		items = append(items, map[string]any{"category": it["category"], "question": it["question"],
			"complies": complies, "explanation": fmt.Sprintf("Revisado: %s %t", id, complies)})
	}
	return map[string]any{"task_uuid": task["uuid"], "file_name": task["file_name"], "isCall": task["kind"] == "call", "audit": items}
}

// withoutItems returns the items of an audit except the given criteria, as
// every answer has them: without the evidence_turns of the task's view.
func withoutItems(audit map[string]any, ids ...string) []any {
	var out []any
	for _, it := range audit["items"].([]any) {
		item := maps.Clone(it.(map[string]any))
		delete(item, "evidence_turns") // only the task's view finds them in its transcript
		if !contains(ids, item["criterion_id"].(string)) {
			out = append(out, item)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestComputeAuditResultsErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	alice, bob, _ := b.users(t)
	tasks := b.audited(t, alice, file("good.txt", []byte(goodChat)), file("rude.txt", []byte(rudeChat)))
	good, validated := tasks[0], tasks[1]
	ok := func() map[string]any { return editOf(t, good, map[string]bool{"empathy": false}) }
	with := func(change func(body map[string]any)) map[string]any {
		body := ok()
		change(body)
		return body
	}
	items := func(body map[string]any) []map[string]any { return body["audit"].([]map[string]any) }
	greeting := auditItem(t, good["audit"].(map[string]any), "greeting")

	// A call that has no audit: nothing transcribes it here.
	call := uploaded(t, b.upload(t, alice, file("call.wav", tone(t, "c.wav", 440, 1))))[0]
	notice := scoringQuestion(t, "recording_notice")
	// A task already validated.
	_, err := db.TaskTransition(context.Background(), b.pool, validated["uuid"].(string),
		db.TaskChange{From: []pipeline.Status{pipeline.Audited}, To: pipeline.Validated})
	require.NoError(t, err)

	cases := []struct {
		name    string
		token   string
		body    any
		headers []string
		status  int
		code    string
		where   []string // locations the details must name
	}{
		{"no header", "", ok(), nil, 401, CodeMissingAuthHeader, nil},
		{"bad token", "not-a-token", ok(), nil, 401, CodeUnauthorized, nil},
		{"operator", bob, ok(), nil, 403, CodeForbidden, nil},
		{"no body", alice, nil, nil, 400, CodeMissingFields, nil},
		{"no task_uuid", alice, with(func(b map[string]any) { delete(b, "task_uuid") }), nil, 400, CodeMissingFields, []string{"body.task_uuid"}},
		{"no isCall", alice, with(func(b map[string]any) { delete(b, "isCall") }), nil, 400, CodeMissingFields, []string{"body.isCall"}},
		{"no audit", alice, with(func(b map[string]any) { delete(b, "audit") }), nil, 400, CodeMissingFields, []string{"body.audit"}},
		{"an item without a question", alice, with(func(b map[string]any) {
			b["audit"] = append(items(b), map[string]any{"category": "OPENING", "complies": true, "explanation": "x"})
		}), nil, 400, CodeMissingFields, []string{"body.audit[1].question"}},
		{"an item without complies", alice, with(func(b map[string]any) { delete(items(b)[0], "complies") }), nil, 400, CodeMissingFields, []string{"body.audit[0].complies"}},
		{"malformed uuid", alice, with(func(b map[string]any) { b["task_uuid"] = "not-a-uuid" }), nil, 400, CodeValidation, []string{"body.task_uuid"}},
		{"complies not a boolean", alice, with(func(b map[string]any) { items(b)[0]["complies"] = "yes" }), nil, 400, CodeValidation, []string{"body.audit[0].complies"}},
		{"isCall not a boolean", alice, with(func(b map[string]any) { b["isCall"] = "false" }), nil, 400, CodeValidation, []string{"body.isCall"}},
		{"empty audit", alice, with(func(b map[string]any) { b["audit"] = []any{} }), nil, 400, CodeValidation, []string{"body.audit"}},
		{"isCall for a chat", alice, with(func(b map[string]any) { b["isCall"] = true }), nil, 400, CodeValidation, []string{"body.isCall"}},
		{"another file name", alice, with(func(b map[string]any) { b["file_name"] = "other.txt" }), nil, 400, CodeValidation, []string{"body.file_name"}},
		{"a question not in the scorecard", alice, with(func(b map[string]any) { items(b)[0]["question"] = "¿Habló del tiempo?" }), nil, 400, CodeValidation, []string{"body.audit[0].question"}},
		{"a question for calls only", alice, with(func(b map[string]any) {
			b["audit"] = []map[string]any{{"category": "COMPLIANCE", "question": notice, "complies": true, "explanation": "x"}}
		}), nil, 400, CodeValidation, []string{"body.audit[0].question"}},
		{"a duplicate question", alice, with(func(b map[string]any) {
			again := map[string]any{"category": "opening", "question": "  " + strings.ToUpper(greeting["question"].(string)), "complies": false, "explanation": "x"}
			b["audit"] = []map[string]any{{"category": "OPENING", "question": greeting["question"], "complies": true, "explanation": "x"}, again}
		}), nil, 400, CodeValidation, []string{"body.audit[1].question"}},
		{"the wrong category", alice, with(func(b map[string]any) { items(b)[0]["category"] = "CLOSING" }), nil, 400, CodeValidation, []string{"body.audit[0].category"}},
		{"every problem at once", alice, with(func(b map[string]any) {
			b["isCall"], b["file_name"] = true, "x.wav"
			items(b)[0]["question"] = "?"
		}), nil, 400, CodeValidation, []string{"body.isCall", "body.file_name", "body.audit[0].question"}},
		{"a malformed If-Match", alice, ok(), []string{"If-Match", "latest"}, 400, CodeValidation, []string{"header.If-Match"}},
		{"an unknown task", alice, with(func(b map[string]any) { b["task_uuid"] = "6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90" }), nil, 404, CodeNotFound, nil},
		{"a task without an audit", alice, map[string]any{"task_uuid": call["uuid"], "file_name": "call.wav", "isCall": true,
			"audit": []map[string]any{{"category": "COMPLIANCE", "question": notice, "complies": true, "explanation": "x"}}}, nil, 409, CodeConflict, nil},
		{"a validated task", alice, editOf(t, validated, map[string]bool{"empathy": true}), nil, 409, CodeConflict, nil},
		{"a stale If-Match", alice, ok(), []string{"If-Match", `"7"`}, 409, CodeConflict, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r response
			if tc.body == nil {
				r = b.do(t, http.MethodPost, "/compute-audit-results", tc.token, nil, "Content-Type", "application/json")
			} else {
				r = b.edit(t, tc.token, tc.body, tc.headers...)
			}
			requireError(t, r, tc.status, tc.code)
			for _, loc := range tc.where {
				require.Contains(t, r.RawBody, `"location":"`+loc+`"`, r.RawBody)
			}
		})
	}
	// Nothing was recorded by any of them.
	require.Zero(t, b.count(t, `SELECT count(*) FROM audit_edits`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'recompute_audit'`))
	require.Equal(t, 1, b.count(t, `SELECT max(revision) FROM audit_revisions WHERE task_uuid = $1`, good["uuid"]))
	// And the valid request succeeds, so the rejections were for their reason.
	r := b.edit(t, alice, ok())
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
}

// scoringQuestion is the question of a criterion of the default scorecard.
func scoringQuestion(t *testing.T, id string) string {
	t.Helper()
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	for _, c := range card.Criteria {
		if c.ID == id {
			return c.Question
		}
	}
	t.Fatalf("no criterion %s", id)
	return ""
}

func TestEditFlipsACriticalItemAndBack(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	alice, _, _ := b.users(t)
	carla := b.issuer.token(t, "carla", "operator")
	task := b.audited(t, alice, file("good.txt", []byte(goodChat)))[0]
	id := task["uuid"].(string)
	first := task["audit"].(map[string]any)
	require.Equal(t, float64(100), first["score"])
	stream := b.stream(t, alice)

	// A forbidden phrase the engine missed: critical, so the score is 0.
	body := editOf(t, task, map[string]bool{"no_forbidden_phrases": false})
	r := b.edit(t, alice, body, "x-username", "Alice Analyst")
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "OK", r.Body["code"])
	d := details(r)
	require.Equal(t, id, d["task_uuid"])
	require.Equal(t, float64(0), d["score"])
	require.Equal(t, false, d["passed"])
	require.Equal(t, float64(85), d["passing_score"])
	require.Equal(t, float64(1), d["scorecard_version"])
	require.Equal(t, float64(2), d["revision"])
	require.Equal(t, "alice", d["updated_by"])
	require.Equal(t, "Alice Analyst", d["updated_by_name"])
	require.NotEmpty(t, d["updated_at"])
	require.Equal(t, []any{"no_forbidden_phrases"}, d["failed_critical"])
	require.NotEmpty(t, d["categories"])
	flipped := auditItem(t, d, "no_forbidden_phrases")
	require.Equal(t, false, flipped["complies"])
	require.Equal(t, "Revisado: no_forbidden_phrases false", flipped["explanation"])
	require.Empty(t, flipped["evidence"], "a reversed verdict loses the quote that supported the other")
	require.Equal(t, withoutItems(first, "no_forbidden_phrases"), withoutItems(d, "no_forbidden_phrases"),
		"the criteria the edit left out keep their verdicts")

	// Back, based on revision 2; the greeting's explanation is reworded
	// without changing its verdict, so it keeps its quote.
	body = editOf(t, task, map[string]bool{"no_forbidden_phrases": true, "greeting": true})
	r = b.edit(t, alice, body, "If-Match", `"2"`)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d = details(r)
	require.Equal(t, float64(3), d["revision"])
	require.Equal(t, float64(100), d["score"])
	require.Equal(t, true, d["passed"])
	require.Empty(t, d["failed_critical"])
	require.Equal(t, "alice", d["updated_by_name"], "without x-username, the token's username")
	greeting := auditItem(t, d, "greeting")
	require.Equal(t, "Revisado: greeting true", greeting["explanation"])
	require.Equal(t, auditItem(t, first, "greeting")["evidence"], greeting["evidence"])
	require.NotEmpty(t, greeting["evidence"])

	// The task shows the current revision and every revision.
	got := details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))
	audit := got["audit"].(map[string]any)
	require.Equal(t, float64(3), audit["revision"])
	require.Equal(t, "analyst", audit["source"])
	require.Equal(t, "alice", audit["updated_by"])
	var summary []string
	for _, rev := range got["revisions"].([]any) {
		m := rev.(map[string]any)
		summary = append(summary, fmt.Sprintf("%v %v %v %v→%v", m["revision"], m["source"], m["author_name"], m["score_before"], m["score"]))
	}
	require.Equal(t, []string{"1 engine <nil> <nil>→100", "2 analyst Alice Analyst 100→0", "3 analyst alice 0→100"}, summary)

	// One revision with its diff.
	r = b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/2", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	rev := details(r)
	require.Equal(t, float64(2), rev["revision"])
	require.Equal(t, "Alice Analyst", rev["updated_by_name"])
	require.Equal(t, float64(0), rev["score"])
	diff := rev["diff"].(map[string]any)
	require.Equal(t, map[string]any{"from": float64(100), "to": float64(0)}, diff["score"])
	require.Equal(t, map[string]any{"from": true, "to": false}, diff["passed"])
	require.Nil(t, diff["scorecard_version"])
	changes := diff["items"].([]any)
	require.Len(t, changes, 1)
	change := changes[0].(map[string]any)
	require.Equal(t, "no_forbidden_phrases", change["criterion_id"])
	require.Equal(t, "changed", change["change"])
	require.Equal(t, map[string]any{"from": true, "to": false}, change["complies"])
	require.Equal(t, "Revisado: no_forbidden_phrases false", change["explanation"].(map[string]any)["to"])

	r = b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/1", alice, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Nil(t, details(r)["diff"])
	require.Equal(t, "engine", details(r)["source"])
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/9", alice, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/0", alice, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/2147483648", alice, nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/2", carla, nil), http.StatusNotFound, CodeNotFound)

	// The editor was told of each revision, and the changes are events.
	var told []string
	for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", alice, nil)) {
		told = append(told, n["text"].(string))
	}
	require.Contains(t, told, "Your edit of good.txt is revision 2 of its audit: 0.00, did not pass (passing score 85.00), against scorecard version 1.")
	require.Contains(t, told, "Your edit of good.txt is revision 3 of its audit: 100.00, passed (passing score 85.00), against scorecard version 1.")
	var revisions []float64
	for len(revisions) < 2 {
		ev := stream.next(t)
		if ev.Type == "audit.updated" {
			require.Equal(t, id, ev.Data["task"].(map[string]any)["uuid"])
			require.Equal(t, "analyst", ev.Data["source"])
			require.Equal(t, ev.Data["score"], ev.Data["task"].(map[string]any)["score"])
			revisions = append(revisions, ev.Data["revision"].(float64))
		}
	}
	require.Equal(t, []float64{2, 3}, revisions)
}

func TestConcurrentEdits(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	alice, _, _ := b.users(t)
	dora := b.issuer.token(t, "dora", "quality")
	task := b.audited(t, alice, file("good.txt", []byte(goodChat)))[0]
	id := task["uuid"].(string)

	// Two analysts at once, each without If-Match: both edits land.
	concurrently := func(bodies []map[string]any, headers ...string) []response {
		out := make([]response, len(bodies))
		var wg sync.WaitGroup
		for i, tok := range []string{alice, dora} {
			wg.Go(func() { out[i] = b.edit(t, tok, bodies[i], headers...) })
		}
		wg.Wait()
		return out
	}
	rs := concurrently([]map[string]any{
		editOf(t, task, map[string]bool{"greeting": false}),
		editOf(t, task, map[string]bool{"empathy": false}),
	})
	var revs []float64
	for _, r := range rs {
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		revs = append(revs, details(r)["revision"].(float64))
	}
	require.ElementsMatch(t, []float64{2, 3}, revs)
	current := details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["audit"].(map[string]any)
	require.Equal(t, float64(3), current["revision"])
	require.Equal(t, false, auditItem(t, current, "greeting")["complies"], "none lost")
	require.Equal(t, false, auditItem(t, current, "empathy")["complies"], "none lost")
	require.Equal(t, 72.22, current["score"], "65 of 90: both edits count")
	// In the order they were made, and each revision's diff has only its
	// own change: the later one was computed from the earlier.
	var order []int
	rows, err := b.pool.Query(context.Background(), `SELECT revision FROM audit_edits WHERE task_uuid = $1 ORDER BY id`, id)
	require.NoError(t, err)
	for rows.Next() {
		var n int
		require.NoError(t, rows.Scan(&n))
		order = append(order, n)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []int{2, 3}, order)
	for _, n := range []int{2, 3} {
		diff := details(b.do(t, http.MethodGet, fmt.Sprintf("/tasks/%s/audit/revisions/%d", id, n), alice, nil))["diff"].(map[string]any)
		require.Len(t, diff["items"], 1, "revision %d", n)
	}

	// Two edits based on the same revision: one lands, the other is stale.
	rs = concurrently([]map[string]any{
		editOf(t, task, map[string]bool{"greeting": true}),
		editOf(t, task, map[string]bool{"empathy": true}),
	}, "If-Match", "3")
	statuses := []int{rs[0].Status, rs[1].Status}
	require.ElementsMatch(t, []int{http.StatusOK, http.StatusConflict}, statuses, rs[0].RawBody+rs[1].RawBody)
	for _, r := range rs {
		if r.Status == http.StatusConflict {
			requireError(t, r, http.StatusConflict, CodeConflict)
			require.Contains(t, r.Body["message"], "revision")
		} else {
			require.Equal(t, float64(4), details(r)["revision"])
		}
	}
	// An edit of a revision long gone.
	r := b.edit(t, alice, editOf(t, task, map[string]bool{"farewell": false}), "If-Match", "1")
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Equal(t, float64(4), details(r)["current_revision"])
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM audit_revisions WHERE task_uuid = $1`, id))
}

func TestEditAcceptedWhenTheWaitRunsOut(t *testing.T) {
	t.Parallel()
	b := setup(t) // waits 300 ms for a job
	alice, _, _ := b.users(t)
	var task map[string]any
	t.Run("audited while workers run", func(t *testing.T) {
		b.startWorkers(t, workers.Deps{})
		task = b.audited(t, alice, file("good.txt", []byte(goodChat)))[0]
	})
	id := task["uuid"].(string)
	stream := b.stream(t, alice)

	// No worker runs now: the request stops waiting.
	r := b.edit(t, alice, editOf(t, task, map[string]bool{"resolution": false}), "If-Match", "1")
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Equal(t, "ACCEPTED", r.Body["code"])
	d := details(r)
	require.Equal(t, id, d["task_uuid"])
	jobID := d["job_id"].(float64)
	require.NotZero(t, d["edit_id"])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND kind = 'recompute_audit' AND state = 'available'`, int64(jobID)))
	require.Equal(t, float64(1), details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["audit"].(map[string]any)["revision"])
	// A second edit of the same revision is accepted too: revision 1 is
	// still current.
	r = b.edit(t, alice, editOf(t, task, map[string]bool{"greeting": false}), "If-Match", "1")
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)

	// A worker comes: the first edit lands, the second is stale, and the
	// results arrive as events and notifications.
	b.startWorkers(t, workers.Deps{})
	var audit, applied, refused bool
	for !audit || !applied || !refused {
		ev := stream.next(t)
		switch ev.Type {
		case "audit.updated":
			require.Equal(t, float64(2), ev.Data["revision"])
			require.Equal(t, 77.78, ev.Data["score"])
			audit = true
		case "notification.created":
			text := ev.Data["text"].(string)
			switch {
			case strings.HasPrefix(text, "Your edit of good.txt is revision 2 of its audit: 77.78, did not pass"):
				applied = true
			case strings.HasPrefix(text, "Your edit of good.txt was not applied: the edit is based on revision 1 of the audit, but revision 2 is current"):
				require.Equal(t, "warning", ev.Data["variant"])
				refused = true
			case strings.HasPrefix(text, "good.txt was audited:"):
				// The first audit's own notice, written after the task
				// read audited: on a loaded machine it comes after the
				// stream opened.
			default:
				t.Fatalf("unexpected notification %q", text)
			}
		}
	}
	current := details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["audit"].(map[string]any)
	require.Equal(t, float64(2), current["revision"])
	require.Equal(t, true, auditItem(t, current, "greeting")["complies"], "the stale edit changed nothing")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM audit_edits WHERE status = 'applied' AND revision = 2`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM audit_edits WHERE status = 'rejected'`))
}

func TestScoreFollowsANewScorecard(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	alice, _, _ := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	tasks := b.audited(t, alice, file("good.txt", []byte(goodChat)), file("rude.txt", []byte(rudeChat)))
	good := tasks[0]
	id := good["uuid"].(string)

	// Version 2: the greeting weighs 40, the farewell is gone, and a new
	// criterion the chats do not meet.
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	var criteria []scoring.Criterion
	for _, c := range card.Criteria {
		switch c.ID {
		case "greeting":
			c.Weight = 40
		case "farewell":
			continue
		}
		criteria = append(criteria, c)
	}
	criteria = append(criteria, scoring.Criterion{ID: "callback", Category: "CLOSING", Question: "¿Ofreció devolver la llamada?",
		Weight: 10, AppliesTo: scoring.Both, Rule: json.RawMessage(`{"any": ["le devolvemos la llamada"]}`)})
	defID := campaignID(t, b, alice)
	r := b.json(t, http.MethodPut, "/campaigns/"+defID+"/scorecard", sue, map[string]any{"criteria": criteria})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.NotZero(t, details(r)["recompute_job_id"])

	// The publisher hears when every audit was recomputed.
	require.Eventually(t, func() bool {
		for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", sue, nil)) {
			if strings.HasPrefix(n["text"].(string), "The audits of campaign default were recomputed against scorecard version 2: 2 re-scored") {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond)

	audit := details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["audit"].(map[string]any)
	require.Equal(t, float64(2), audit["revision"])
	require.Equal(t, "recompute", audit["source"])
	require.Empty(t, audit["updated_by"], "by the system")
	require.Equal(t, float64(2), audit["scorecard_version"])
	// 40+15+10+15+20+10 of 120: the kept verdicts, the new weights, and the
	// engine's verdict on the new criterion.
	require.Equal(t, 91.67, audit["score"])
	callback := auditItem(t, audit, "callback")
	require.Equal(t, false, callback["complies"])
	require.Contains(t, callback["explanation"], "le devolvemos la llamada", "the rules engine judged the new criterion")
	require.Equal(t, auditItem(t, good["audit"].(map[string]any), "empathy"), auditItem(t, audit, "empathy"), "kept by criterion id")

	diff := details(b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/2", alice, nil))["diff"].(map[string]any)
	require.Equal(t, map[string]any{"from": float64(1), "to": float64(2)}, diff["scorecard_version"])
	var changes []string
	for _, c := range diff["items"].([]any) {
		changes = append(changes, c.(map[string]any)["criterion_id"].(string)+":"+c.(map[string]any)["change"].(string))
	}
	require.Equal(t, []string{"greeting:changed", "callback:added", "farewell:removed"}, changes)

	// An edit now scores against version 2, and names its criteria.
	r = b.edit(t, alice, editOf(t, good, map[string]bool{"greeting": false}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, float64(2), details(r)["scorecard_version"])
	require.Equal(t, 58.33, details(r)["score"], "70 of 120")
	r = b.edit(t, alice, editOf(t, good, map[string]bool{"farewell": true}))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, "current scorecard (version 2)")
	// Each audit has exactly one recomputation for version 2.
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM audit_revisions WHERE source = 'recompute' AND scorecard_version = 2`))
}

// campaignID is the id of the default campaign.
func campaignID(t *testing.T, b *testBundle, token string) string {
	t.Helper()
	r := b.do(t, http.MethodGet, "/campaigns", token, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	return r.Body["details"].([]any)[0].(map[string]any)["id"].(string)
}

func TestEditAcrossAScorecardChange(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	alice, _, root := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	// A second API process that stops waiting for jobs after 300 ms.
	_, impatient, _ := newServer(t, b.pool, func(string) Options { return Options{Auth: b.server.opts.Auth, Store: b.store} })
	var task map[string]any
	t.Run("audited while workers run", func(t *testing.T) {
		b.startWorkers(t, workers.Deps{})
		task = b.audited(t, alice, file("good.txt", []byte(goodChat)))[0]
	})
	id := task["uuid"].(string)

	// An edit of the farewell waits for a worker...
	raw, err := json.Marshal(editOf(t, task, map[string]bool{"farewell": false}))
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, impatient.URL+"/compute-audit-results", strings.NewReader(string(raw)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+alice)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusAccepted, res.StatusCode)

	// ...while version 2 drops the farewell and adds a criterion. Its
	// recomputation is cancelled, so the audit stays on version 1.
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	var criteria []scoring.Criterion
	for _, c := range card.Criteria {
		if c.ID != "farewell" {
			criteria = append(criteria, c)
		}
	}
	criteria = append(criteria, scoring.Criterion{ID: "callback", Category: "CLOSING", Question: "¿Ofreció devolver la llamada?",
		Weight: 10, AppliesTo: scoring.Both, Rule: json.RawMessage(`{"any": ["le devolvemos la llamada"]}`)})
	r := b.json(t, http.MethodPut, "/campaigns/"+campaignID(t, b, alice)+"/scorecard", sue, map[string]any{"criteria": criteria})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	r = b.do(t, http.MethodPost, fmt.Sprintf("/admin/jobs/%.0f/cancel", details(r)["recompute_job_id"]), root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	b.startWorkers(t, workers.Deps{})
	require.Eventually(t, func() bool {
		for _, n := range items(t, b.do(t, http.MethodGet, "/notifications", alice, nil)) {
			if n["text"] == "Your edit of good.txt was not applied: scorecard version 2, published meanwhile, no longer has the criteria "+
				"farewell; review it and edit again" {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond)

	// An edit now: the criterion the revision lacks is judged by the
	// engine, the dropped one is gone, and the score is version 2's.
	r = b.edit(t, alice, editOf(t, task, map[string]bool{"empathy": false}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d := details(r)
	require.Equal(t, float64(2), d["revision"])
	require.Equal(t, float64(2), d["scorecard_version"])
	require.Equal(t, 72.22, d["score"], "65 of 90: empathy (15) by the analyst, callback (10) by the engine")
	callback := auditItem(t, d, "callback")
	require.Equal(t, false, callback["complies"])
	require.Contains(t, callback["explanation"], "le devolvemos la llamada")
	for _, it := range d["items"].([]any) {
		require.NotEqual(t, "farewell", it.(map[string]any)["criterion_id"])
	}
	diff := details(b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/2", alice, nil))["diff"].(map[string]any)
	var changes []string
	for _, c := range diff["items"].([]any) {
		changes = append(changes, c.(map[string]any)["criterion_id"].(string)+":"+c.(map[string]any)["change"].(string))
	}
	require.Equal(t, []string{"empathy:changed", "callback:added", "farewell:removed"}, changes)
}

// naItem is the item of an edit setting criterion id of task not applicable.
func naItem(t *testing.T, task map[string]any, id string) map[string]any {
	t.Helper()
	it := auditItem(t, task["audit"].(map[string]any), id)
	return map[string]any{"category": it["category"], "question": it["question"], "complies": true, "not_applicable": true,
		"explanation": "No aplica: " + id}
}

func TestEditToNotApplicable(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	alice, _, _ := b.users(t)
	task := b.audited(t, alice, file("good.txt", []byte(goodChat)))[0]
	require.Equal(t, float64(100), task["audit"].(map[string]any)["score"])
	edit := func(items ...map[string]any) map[string]any {
		body := editOf(t, task, nil)
		body["audit"] = items
		return body
	}
	failedEmpathy := func() bool {
		day := time.Now().UTC()
		d := details(b.do(t, http.MethodGet, "/stats/dashboard?from="+day.AddDate(0, 0, -1).Format(time.DateOnly)+
			"&to="+day.AddDate(0, 0, 1).Format(time.DateOnly), alice, nil))
		for _, c := range d["criteria_failed"].([]any) {
			if c.(map[string]any)["criterion_id"] == "empathy" {
				return true
			}
		}
		return false
	}

	// Empathy not met: 75 of the chat's 90.
	r := b.edit(t, alice, editOf(t, task, map[string]bool{"empathy": false}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, 83.33, details(r)["score"])
	require.True(t, failedEmpathy())

	// Not applicable: its weight leaves the score, 75 of 75, and the
	// criterion leaves the failure figures.
	r = b.edit(t, alice, edit(naItem(t, task, "empathy")))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d := details(r)
	require.Equal(t, float64(100), d["score"])
	require.Equal(t, true, d["passed"])
	require.Equal(t, float64(75), d["possible"])
	empathy := auditItem(t, d, "empathy")
	require.Equal(t, true, empathy["complies"], "met as not applicable, for clients that read complies alone")
	require.Equal(t, true, empathy["not_applicable"])
	require.Equal(t, "No aplica: empathy", empathy["explanation"])
	require.NotContains(t, auditItem(t, d, "greeting"), "not_applicable", "omitted when false")
	require.False(t, failedEmpathy())
	diff := details(b.do(t, http.MethodGet, "/tasks/"+task["uuid"].(string)+"/audit/revisions/3", alice, nil))["diff"].(map[string]any)
	change := diff["items"].([]any)[0].(map[string]any)
	require.Equal(t, map[string]any{"from": false, "to": true}, change["not_applicable"])

	// A critical criterion not applicable fails nothing.
	r = b.edit(t, alice, edit(naItem(t, task, "no_forbidden_phrases")))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d = details(r)
	require.Equal(t, float64(100), d["score"])
	require.Equal(t, float64(65), d["possible"])
	require.Empty(t, d["failed_critical"])
	shown := details(b.do(t, http.MethodGet, "/tasks/"+task["uuid"].(string), alice, nil))["audit"].(map[string]any)
	require.Equal(t, true, auditItem(t, shown, "no_forbidden_phrases")["not_applicable"])

	// Bad values are refused, naming where, and nothing is recorded.
	edits := b.count(t, `SELECT count(*) FROM audit_edits`)
	contradiction := naItem(t, task, "greeting")
	contradiction["complies"] = false
	notBool := naItem(t, task, "greeting")
	notBool["not_applicable"] = "yes"
	var everything []map[string]any
	for _, id := range []string{"greeting", "verification", "resolution", "further_help", "farewell"} {
		everything = append(everything, naItem(t, task, id))
	}
	for _, tc := range []struct {
		name, where, says string
		body              map[string]any
	}{
		{"not applicable and not met", "body.audit[0].complies", "must be true with not_applicable", edit(contradiction)},
		{"not a boolean", "body.audit[0].not_applicable", "", edit(notBool)},
		{"every criterion not applicable", "", "judge at least one as complies or does not comply", edit(everything...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.edit(t, alice, tc.body)
			requireError(t, r, http.StatusBadRequest, CodeValidation)
			require.Contains(t, r.RawBody, tc.where)
			require.Contains(t, r.RawBody, tc.says)
		})
	}
	require.Equal(t, edits, b.count(t, `SELECT count(*) FROM audit_edits`))

	// Applicable again.
	r = b.edit(t, alice, editOf(t, task, map[string]bool{"empathy": true}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.NotContains(t, auditItem(t, details(r), "empathy"), "not_applicable")
	require.Equal(t, float64(80), details(r)["possible"])
}
