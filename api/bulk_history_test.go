package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/jobs"
)

// bulkList lists bulk actions with query as token's caller, following
// every page, and returns their ids in order.
func (b *testBundle) bulkList(t *testing.T, token, query string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 50, "the pages end")
		r := b.do(t, http.MethodGet, "/bulk-actions?"+query+cursor, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		for _, it := range items(t, r) {
			require.Nil(t, it["task_uuids"], "a list leaves the tasks out")
			ids = append(ids, it["id"].(string))
		}
		next, _ := details(r)["next"].(string)
		if next == "" {
			return ids
		}
		cursor = "&cursor=" + next
	}
}

func TestBulkActionList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	qb := b.issuer.token(t, "qb", "quality")
	sue := b.issuer.token(t, "sue", "supervisor")
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt")
	// No worker runs: every action stays queued, unless cancelled.
	var mine, theirs, hers []string
	for range 3 {
		mine = append(mine, b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": ids})["id"].(string))
	}
	mine = append(mine, b.bulkAction(t, alice, map[string]any{"action": "reaudit", "filter": "status=audited", "confirm": true})["id"].(string))
	theirs = append(theirs, b.bulkAction(t, qb, map[string]any{"action": "retry", "task_uuids": ids})["id"].(string))
	hers = append(hers, b.bulkAction(t, sue, map[string]any{"action": "unassign", "task_uuids": ids})["id"].(string))
	require.Equal(t, http.StatusOK, b.do(t, http.MethodPost, "/bulk-actions/"+mine[1]+"/cancel", alice, nil).Status)
	newest := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		// Created in this order: newest first is the reverse.
		order := map[string]int{}
		for i, id := range append(append(append([]string{}, mine...), theirs...), hers...) {
			order[id] = i
		}
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if order[out[j]] > order[out[i]] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	}

	// A quality analyst lists their own, newest first, a page at a time.
	require.Equal(t, newest(mine), b.bulkList(t, alice, "limit=1"))
	require.Equal(t, newest(mine), b.bulkList(t, alice, ""))
	require.Equal(t, newest(mine), b.bulkList(t, alice, "requested_by=alice"))
	require.Equal(t, newest(theirs), b.bulkList(t, qb, "limit=100"))
	// A supervisor lists anyone's, or one requester's (by id or username).
	require.Equal(t, newest(mine, theirs, hers), b.bulkList(t, sue, "limit=2"))
	require.Equal(t, newest(mine), b.bulkList(t, sue, "requested_by=ALICE"))
	require.Empty(t, b.bulkList(t, sue, "requested_by=nobody"))
	// Filters.
	require.Equal(t, []string{mine[1]}, b.bulkList(t, alice, "status=cancelled"))
	require.Equal(t, newest([]string{mine[0], mine[2]}), b.bulkList(t, alice, "status=queued&action=retry&limit=1"))
	require.Equal(t, []string{mine[3]}, b.bulkList(t, alice, "action=reaudit"))
	require.Equal(t, hers, b.bulkList(t, sue, "action=unassign"))
	require.Empty(t, b.bulkList(t, alice, "action=unassign"))

	// Each as GET /bulk-actions/{id} shows it, without its tasks.
	r := b.do(t, http.MethodGet, "/bulk-actions?action=reaudit", alice, nil)
	got := items(t, r)[0]
	require.Equal(t, "status=audited", got["filter"])
	require.Equal(t, "alice", got["requested_by"])
	require.Equal(t, "queued", got["status"])
	require.EqualValues(t, 20, details(r)["limit"], "the default page")
	require.Nil(t, details(r)["next"])

	// Denials by role: below quality nobody lists; below supervisor only
	// one's own.
	requireError(t, b.do(t, http.MethodGet, "/bulk-actions", bob, nil), http.StatusForbidden, CodeForbidden)
	r = b.do(t, http.MethodGet, "/bulk-actions?requested_by=qb", alice, nil)
	requireError(t, r, http.StatusForbidden, CodeForbidden)
	require.Equal(t, "query.requested_by", detailsAt(r))

	// Bad input, each located.
	for _, c := range []struct{ query, location string }{
		{"limit=0", "query.limit"},
		{"limit=101", "query.limit"},
		{"limit=ten", "query.limit"},
		{"status=stuck", "query.status"},
		{"action=delete", "query.action"},
		{"cursor=nope", "query.cursor"},
		{"cursor=6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90", "query.cursor"},
		{"cursor=" + theirs[0], "query.cursor"}, // someone else's: no cursor of alice's
		{"requested_by=" + strings.Repeat("a", 201), "query.requested_by"},
	} {
		r := b.do(t, http.MethodGet, "/bulk-actions?"+c.query, alice, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, c.location, detailsAt(r), c.query)
	}
	// A supervisor may page on from anyone's action.
	require.Equal(t, newest(mine), b.bulkList(t, sue, "cursor="+url.QueryEscape(theirs[0])))
}

// A result's message is written in the reader's language, from its code
// and parameters; a result recorded before codes keeps its English text.
func TestBulkResultsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, bulkDeps)
	alice, _, _ := b.users(t)
	c := b.issuer.claims("sue")
	c["roles"], c["locale"] = []string{"supervisor"}, "es-ES"
	sue := b.issuer.sign(t, c)
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt")
	for _, id := range ids {
		b.waitStatus(t, alice, id, "audited")
	}
	a := b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": ids})
	id := a["id"].(string)
	b.bulkEnded(t, alice, id)
	english := b.bulkResults(t, alice, id, "")
	spanish := b.bulkResults(t, sue, id, "")
	for _, task := range ids {
		require.Equal(t, "skipped: it is audited: only a failed task can be retried", english[task])
		require.Equal(t, "skipped: está en estado «auditada»: solo se puede reintentar una tarea fallida", spanish[task])
	}
	// The code and parameters are given too, for programs.
	item := items(t, b.do(t, http.MethodGet, "/bulk-actions/"+id+"/items", sue, nil))[0]
	require.Equal(t, "not_failed", item["code"])
	require.Equal(t, map[string]any{"status": "audited"}, item["params"])
	// The language the user chose wins over the token's.
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/users/me", alice, map[string]any{"locale": "es"}).Status)
	require.Equal(t, spanish, b.bulkResults(t, alice, id, ""))

	// A result written before codes were: its stored message, as it is.
	_, err := b.pool.Exec(context.Background(), `UPDATE bulk_action_items SET code = NULL, params = NULL,
		message = 'it is audited: only a failed task can be retried' WHERE task_uuid = $1`, ids[0])
	require.NoError(t, err)
	old := b.bulkResults(t, sue, id, "")
	require.Equal(t, "skipped: it is audited: only a failed task can be retried", old[ids[0]])
	require.Equal(t, spanish[ids[1]], old[ids[1]])
	for _, item := range items(t, b.do(t, http.MethodGet, "/bulk-actions/"+id+"/items", sue, nil)) {
		if item["task_uuid"] == ids[0] {
			require.Nil(t, item["code"])
			require.Nil(t, item["params"])
		} else {
			require.Equal(t, "not_failed", item["code"])
		}
	}
}

// The per-task results of actions that ended BULK_RESULTS_DAYS ago are
// deleted by prune_bulk_results, a batch at a time; the action and its
// counts stay, and its results answer empty, saying when they went.
func TestBulkResultsPruned(t *testing.T) {
	t.Parallel()
	b := setup(t)
	deps := bulkDeps
	deps.BulkResultsDays, deps.BulkResultsBatch = 30, 2
	events, client := b.startWorkersWith(t, deps, nil)
	alice, _, _ := b.users(t)
	ids := b.uploadChats(t, alice, nil, "a.txt", "b.txt", "c.txt", "d.txt", "e.txt")
	for _, id := range ids {
		b.waitStatus(t, alice, id, "audited")
	}
	old := b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": ids})["id"].(string)
	recent := b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": ids[:2]})["id"].(string)
	running := b.bulkAction(t, alice, map[string]any{"action": "retry", "task_uuids": ids[:1]})["id"].(string)
	for _, id := range []string{old, recent, running} {
		b.bulkEnded(t, alice, id)
	}
	ctx := context.Background()
	// old ended 31 days ago, recent 29; running is running again, as if
	// its job had died, its start long ago.
	_, err := b.pool.Exec(ctx, `UPDATE bulk_actions SET finished_at = now() - CASE id WHEN $1 THEN interval '31 days' ELSE interval '29 days' END
		WHERE id IN ($1, $2)`, old, recent)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE bulk_actions SET status = 'running', finished_at = NULL, started_at = now() - interval '40 days' WHERE id = $1`, running)
	require.NoError(t, err)

	prune := func() { runPeriodic(t, client, events, jobs.PruneBulkResultsArgs{}) }
	prune()
	r := b.do(t, http.MethodGet, "/bulk-actions/"+old+"/items", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Empty(t, details(r)["items"])
	require.NotEmpty(t, details(r)["results_deleted_at"])
	require.Zero(t, b.count(t, `SELECT count(*) FROM bulk_action_items WHERE bulk_id = $1`, old))
	a := b.bulkEnded(t, alice, old)
	require.Equal(t, "retry done: matched 5, 0 succeeded, 5 skipped, 0 failed", tally(a), "the counts stay")
	require.Equal(t, details(r)["results_deleted_at"], a["results_deleted_at"])
	// The others keep theirs.
	require.Len(t, b.bulkResults(t, alice, recent, ""), 2)
	require.Len(t, b.bulkResults(t, alice, running, ""), 1)
	r = b.do(t, http.MethodGet, "/bulk-actions/"+recent+"/items", alice, nil)
	require.Nil(t, details(r)["results_deleted_at"])

	// Again: nothing more goes, and what went stays marked.
	prune()
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM bulk_action_items`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM bulk_actions WHERE results_deleted_at IS NOT NULL`))
}
