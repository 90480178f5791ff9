package api

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers"
)

// qaTeam signs in an agent (bob, operator), two analysts (alice and
// carol, quality), a supervisor (sue) and returns their tokens by name.
func (b *testBundle) qaTeam(t *testing.T) map[string]string {
	t.Helper()
	tokens := map[string]string{
		"bob": b.issuer.token(t, "bob", "operator"), "alice": b.issuer.token(t, "alice", "quality"),
		"carol": b.issuer.token(t, "carol", "quality"), "sue": b.issuer.token(t, "sue", "supervisor"),
	}
	for _, tok := range tokens {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", tok, nil).Status)
	}
	return tokens
}

// auditedChats uploads chats of agent bob as token and waits until each is
// audited, returning their ids.
func (b *testBundle) auditedChats(t *testing.T, token string, names ...string) []string {
	t.Helper()
	ids := b.uploadChats(t, token, []part{field("operator", "bob")}, names...)
	for _, id := range ids {
		b.waitStatus(t, token, id, "audited")
	}
	return ids
}

// rule creates a sampling rule of campaign as token and returns it.
func (b *testBundle) rule(t *testing.T, token, campaign string, body map[string]any) map[string]any {
	t.Helper()
	r := b.json(t, http.MethodPost, "/campaigns/"+campaign+"/sampling-rules", token, body)
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	return details(r)
}

// runRules runs campaign's rules as token and returns them as the run left
// them, by name.
func (b *testBundle) runRules(t *testing.T, token, campaign string) map[string]map[string]any {
	t.Helper()
	r := b.do(t, http.MethodPost, "/campaigns/"+campaign+"/sampling-rules/run", token, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	out := map[string]map[string]any{}
	for _, it := range details(r)["rules"].([]any) {
		rule := it.(map[string]any)
		out[rule["name"].(string)] = rule
	}
	return out
}

// queue is token's review queue (GET /reviews/mine with query).
func (b *testBundle) queue(t *testing.T, token, query string) []map[string]any {
	t.Helper()
	return items(t, b.do(t, http.MethodGet, "/reviews/mine"+query, token, nil))
}

func TestSamplingRulesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tok := b.qaTeam(t)
	campaign := campaignID(t, b, tok["sue"])
	good := map[string]any{"name": "Weekly", "kind": "per_agent", "per_agent": 2}
	with := func(changes map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range good {
			out[k] = v
		}
		for k, v := range changes {
			if v == nil {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		body  map[string]any
		where string
		code  string
	}{
		{"negative N", with(map[string]any{"per_agent": -1}), "body.per_agent", ""},
		{"zero N", with(map[string]any{"per_agent": 0}), "body.per_agent", ""},
		{"N too large", with(map[string]any{"per_agent": 1001}), "body.per_agent", ""},
		{"N missing", with(map[string]any{"per_agent": nil}), "body.per_agent", ""},
		{"N for another kind", with(map[string]any{"kind": "needs_review"}), "body.per_agent", ""},
		{"share over 100", map[string]any{"name": "S", "kind": "random_share", "share": 100.5}, "body.share", ""},
		{"share zero", map[string]any{"name": "S", "kind": "random_share", "share": 0}, "body.share", ""},
		{"share past its two decimals", map[string]any{"name": "S", "kind": "random_share", "share": 0.001}, "body.share", ""},
		{"share far past its two decimals", map[string]any{"name": "S", "kind": "random_share", "share": 99.9999999999}, "body.share", ""},
		{"share missing", map[string]any{"name": "S", "kind": "random_share"}, "body.share", ""},
		{"share for another kind", with(map[string]any{"share": 10}), "body.share", ""},
		{"unknown kind", with(map[string]any{"kind": "everything"}), "body.kind", ""},
		{"kind missing", with(map[string]any{"kind": nil}), "body.kind", CodeMissingFields},
		{"empty name", with(map[string]any{"name": ""}), "body.name", ""},
		{"long name", with(map[string]any{"name": strings.Repeat("n", 101)}), "body.name", ""},
		{"unknown period", with(map[string]any{"period": "year"}), "body.period", ""},
		{"unknown strategy", with(map[string]any{"strategy": "random"}), "body.strategy", ""},
		{"due in 0 days", with(map[string]any{"due_days": 0}), "body.due_days", ""},
		{"due in 91 days", with(map[string]any{"due_days": 91}), "body.due_days", ""},
		{"bad language", with(map[string]any{"language": "e"}), "body.language", ""},
		{"unknown task kind", with(map[string]any{"task_kind": "fax"}), "body.task_kind", ""},
		{"enabled not a boolean", with(map[string]any{"enabled": "yes"}), "body.enabled", ""},
		{"unknown field", with(map[string]any{"assignee": "alice"}), "body.assignee", ""},
		{"forged id", with(map[string]any{"id": "00000000-0000-4000-8000-000000000001"}), "body.id", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.json(t, http.MethodPost, "/campaigns/"+campaign+"/sampling-rules", tok["sue"], tc.body)
			requireError(t, r, http.StatusBadRequest, cmp.Or(tc.code, CodeValidation))
			require.Contains(t, r.RawBody, tc.where)
		})
	}
	requireError(t, b.json(t, http.MethodPost, "/campaigns/00000000-0000-4000-8000-000000000000/sampling-rules", tok["sue"], good),
		http.StatusNotFound, CodeNotFound)
	requireError(t, b.json(t, http.MethodPost, "/campaigns/nope/sampling-rules", tok["sue"], good), http.StatusBadRequest, CodeValidation)
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM sampling_rules`).Scan(&n))
	require.Zero(t, n, "nothing stored")

	// Every role below supervisor is refused, with nothing stored.
	for _, who := range []string{"bob", "alice"} {
		requireError(t, b.json(t, http.MethodPost, "/campaigns/"+campaign+"/sampling-rules", tok[who], good), http.StatusForbidden, CodeForbidden)
		requireError(t, b.do(t, http.MethodGet, "/campaigns/"+campaign+"/sampling-rules", tok[who], nil), http.StatusForbidden, CodeForbidden)
		requireError(t, b.do(t, http.MethodPost, "/campaigns/"+campaign+"/sampling-rules/run", tok[who], nil), http.StatusForbidden, CodeForbidden)
		requireError(t, b.do(t, http.MethodGet, "/reviews/progress", tok[who], nil), http.StatusForbidden, CodeForbidden)
	}
	requireError(t, b.do(t, http.MethodGet, "/reviews/mine", tok["bob"], nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodPost, "/tasks/00000000-0000-4000-8000-000000000000/review", tok["bob"], nil),
		http.StatusForbidden, CodeForbidden)

	// A rule is replaced whole and deleted; unknown ids are 404.
	r := b.rule(t, tok["sue"], campaign, good)
	require.Equal(t, "week", r["period"])
	require.Equal(t, "round_robin", r["strategy"])
	require.Equal(t, float64(3), r["due_days"])
	require.Equal(t, true, r["enabled"])
	require.Equal(t, "sue", r["created_by"])
	id := r["id"].(string)
	up := b.json(t, http.MethodPut, "/sampling-rules/"+id, tok["sue"],
		map[string]any{"name": "Share", "kind": "random_share", "share": 12.5, "strategy": "load", "due_days": 5, "enabled": false})
	require.Equal(t, http.StatusOK, up.Status, up.RawBody)
	require.Equal(t, 12.5, details(up)["share"])
	require.Nil(t, details(up)["per_agent"])
	require.Equal(t, false, details(up)["enabled"])
	requireError(t, b.json(t, http.MethodPut, "/sampling-rules/"+id, tok["sue"], with(map[string]any{"per_agent": -3})),
		http.StatusBadRequest, CodeValidation)
	requireError(t, b.json(t, http.MethodPut, "/sampling-rules/00000000-0000-4000-8000-000000000000", tok["sue"], good),
		http.StatusNotFound, CodeNotFound)
	require.Len(t, items(t, b.do(t, http.MethodGet, "/campaigns/"+campaign+"/sampling-rules", tok["sue"], nil)), 1)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodDelete, "/sampling-rules/"+id, tok["sue"], nil).Status)
	requireError(t, b.do(t, http.MethodDelete, "/sampling-rules/"+id, tok["sue"], nil), http.StatusNotFound, CodeNotFound)

	// The campaign's analyst pool: analysts only, known, once each.
	for _, tc := range []struct {
		analysts []string
		why      string
	}{
		{[]string{"nobody"}, "is no user"},
		{[]string{"bob"}, "is not an analyst"},
		{[]string{"alice", "alice"}, "once"},
		{[]string{""}, "body.review_analysts[0]"},
	} {
		r := b.json(t, http.MethodPatch, "/campaigns/"+campaign, tok["sue"], map[string]any{"review_analysts": tc.analysts})
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, tc.why)
	}
	r = details(b.do(t, http.MethodGet, "/campaigns/"+campaign, tok["sue"], nil))
	require.Equal(t, []any{}, r["review_analysts"], "nothing stored")
	require.Equal(t, false, r["operator_sees_automatic"])
	for _, body := range []map[string]any{{"operator_sees_automatic": "yes"}, {"review_analysts": "alice"},
		{"review_analysts": []any{1}}} {
		requireError(t, b.json(t, http.MethodPatch, "/campaigns/"+campaign, tok["sue"], body), http.StatusBadRequest, CodeValidation)
	}
	for _, q := range []string{"include_reviewed=maybe", "skip=-1", "limit=0"} {
		r := b.do(t, http.MethodGet, "/reviews/mine?"+q, tok["alice"], nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, "query."+strings.Split(q, "=")[0])
	}
	for _, q := range []string{"from=yesterday", "to=2024-13-01", "campaign=00000000-0000-4000-8000-00000000000"} {
		r := b.do(t, http.MethodGet, "/reviews/progress?"+q, tok["sue"], nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, "query."+strings.Split(q, "=")[0])
	}
	requireError(t, b.do(t, http.MethodGet, "/reviews/progress?campaign=00000000-0000-4000-8000-000000000000", tok["sue"], nil),
		http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/reviews/progress?from=2024-05-02&to=2024-05-01", tok["sue"], nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/reviews/progress?campaign=x", tok["sue"], nil), http.StatusBadRequest, CodeValidation)
	requireError(t, b.do(t, http.MethodGet, "/reviews/mine?limit=501", tok["alice"], nil), http.StatusBadRequest, CodeValidation)
}

func TestSamplingAssignsToAnalystsQueues(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 30 * time.Second})
	b.startWorkers(t, workers.Deps{})
	tok := b.qaTeam(t)
	campaign := campaignID(t, b, tok["sue"])
	// Alice reads her notifications in Spanish.
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/users/me", tok["alice"], map[string]any{"locale": "es"}).Status)
	ids := b.auditedChats(t, tok["alice"], "s1.txt", "s2.txt", "s3.txt", "s4.txt", "s5.txt")
	events := b.stream(t, tok["carol"])

	// Two of bob's tasks a week, shared in turn between alice and carol
	// (the supervisor is not in the default pool).
	b.rule(t, tok["sue"], campaign, map[string]any{"name": "Two a week", "kind": "per_agent", "per_agent": 2})
	rules := b.runRules(t, tok["sue"], campaign)
	require.Equal(t, float64(2), rules["Two a week"]["last_picked"])
	require.NotNil(t, rules["Two a week"]["last_run_at"])
	mine := b.queue(t, tok["alice"], "")
	require.Len(t, mine, 1)
	require.Len(t, b.queue(t, tok["carol"], ""), 1)
	task := mine[0]
	require.Equal(t, "alice", task["assignee_id"])
	require.Equal(t, "automatic", task["review_state"])
	require.NotEmpty(t, task["due_at"])
	require.NotEmpty(t, task["assigned_at"])
	require.Equal(t, false, task["overdue"])
	require.Contains(t, ids, task["uuid"])

	// Carol's stream says a task was assigned to her.
	for {
		ev := events.next(t)
		if data := ev.Data; ev.Type == "task.updated" && data["assignee_id"] == "carol" {
			require.NotEmpty(t, data["due_at"])
			break
		}
	}
	// Alice is told, in Spanish, with a link to her queue.
	notes := items(t, b.do(t, http.MethodGet, "/notifications", tok["alice"], nil))
	require.Contains(t, notes[0]["text"], "Se te ha asignado una tarea de la campaña default para revisar")
	require.Equal(t, "/reviews", notes[0]["link"])
	notes = items(t, b.do(t, http.MethodGet, "/notifications", tok["carol"], nil))
	require.Len(t, notes, 1)
	require.Contains(t, notes[0]["text"], "A task of campaign default was assigned to you for review")

	// Running again picks nothing twice, and nothing more this week.
	rules = b.runRules(t, tok["sue"], campaign)
	require.Equal(t, float64(0), rules["Two a week"]["last_picked"])
	require.Equal(t, float64(2), rules["Two a week"]["total_picked"], "what it picked before still counts")
	var assigned int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks WHERE assignee_id IS NOT NULL`).Scan(&assigned))
	require.Equal(t, 2, assigned)

	// The same notion as the task list's assignee.
	list := details(b.do(t, http.MethodGet, "/tasks?assignee=alice", tok["sue"], nil))["tasks"].([]any)
	require.Len(t, list, 1)

	// Every other task, by load: carol has one open, alice reviews hers
	// and then has none, so alice gets the first, then they alternate.
	r := b.do(t, http.MethodPost, "/tasks/"+task["uuid"].(string)+"/review", tok["alice"], nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "reviewed", details(r)["review_state"])
	require.Empty(t, b.queue(t, tok["alice"], ""), "reviewed: out of her queue")
	require.Len(t, b.queue(t, tok["alice"], "?include_reviewed=true"), 1)
	b.rule(t, tok["sue"], campaign, map[string]any{"name": "All", "kind": "random_share", "share": 100, "strategy": "load", "due_days": 1})
	rules = b.runRules(t, tok["sue"], campaign)
	require.Equal(t, float64(3), rules["All"]["last_picked"])
	require.Len(t, b.queue(t, tok["alice"], ""), 2)
	require.Len(t, b.queue(t, tok["carol"], ""), 2)
	// Soonest due first: carol's weekly one (3 days) after her daily one.
	q := b.queue(t, tok["carol"], "")
	require.Less(t, q[0]["due_at"], q[1]["due_at"])

	// The supervisor's view of each analyst; a task past its due date is overdue.
	_, err := b.pool.Exec(context.Background(), `UPDATE tasks SET assignment_due_at = now() - interval '1 hour' WHERE uuid = $1`, q[0]["uuid"])
	require.NoError(t, err)
	require.Equal(t, true, b.queue(t, tok["carol"], "")[0]["overdue"])
	r = b.do(t, http.MethodGet, "/reviews/progress?campaign="+campaign, tok["sue"], nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	got := map[string]string{}
	for _, it := range details(r)["analysts"].([]any) {
		a := it.(map[string]any)
		got[a["analyst_id"].(string)] = fmt.Sprintf("assigned %v reviewed %v validated %v open %v overdue %v",
			a["assigned"], a["reviewed"], a["validated"], a["open"], a["overdue"])
	}
	require.Equal(t, map[string]string{
		"alice": "assigned 3 reviewed 1 validated 0 open 2 overdue 0",
		"carol": "assigned 2 reviewed 0 validated 0 open 2 overdue 1",
	}, got)

	// A chosen pool: only carol from now on.
	r = b.json(t, http.MethodPatch, "/campaigns/"+campaign, tok["sue"], map[string]any{"review_analysts": []string{"carol"}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, []any{"carol"}, details(r)["review_analysts"])
	more := b.auditedChats(t, tok["alice"], "s6.txt")
	b.runRules(t, tok["sue"], campaign)
	d := details(b.do(t, http.MethodGet, "/tasks/"+more[0], tok["sue"], nil))
	require.Equal(t, "carol", d["assignee_id"])
}

// TestSamplingSkipsDeactivatedAnalysts: sampling assigns nothing to a
// deactivated analyst, in round robin or by load, and tells them nothing.
func TestSamplingSkipsDeactivatedAnalysts(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 30 * time.Second})
	b.startWorkers(t, workers.Deps{})
	tok := b.qaTeam(t)
	root := b.issuer.token(t, "root", "admin")
	campaign := campaignID(t, b, tok["sue"])
	b.auditedChats(t, tok["alice"], "d1.txt", "d2.txt", "d3.txt", "d4.txt")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodPost, "/admin/users/carol/deactivation", root, nil).Status)

	b.rule(t, tok["sue"], campaign, map[string]any{"name": "Two a week", "kind": "per_agent", "per_agent": 2})
	b.runRules(t, tok["sue"], campaign)
	b.rule(t, tok["sue"], campaign, map[string]any{"name": "All", "kind": "random_share", "share": 100, "strategy": "load"})
	b.runRules(t, tok["sue"], campaign)
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM tasks WHERE assignee_id = 'alice'`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM tasks WHERE assignee_id = 'carol'`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM notifications WHERE user_id = 'carol'`))
}
