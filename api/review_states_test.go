package api

import (
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers"
)

// TestAgentSeesAuditAfterReview holds what docs/security.md says an agent
// (operator) is shown of an automatic audit, per role: nothing of its
// result until an analyst reviews it, unless the campaign shows those.
func TestAgentSeesAuditAfterReview(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	tok := b.qaTeam(t)
	campaign := campaignID(t, b, tok["sue"])
	id := b.auditedChats(t, tok["alice"], "mine.txt")[0]
	events := b.stream(t, tok["bob"])

	exportRow := func(token string) map[string]string {
		t.Helper()
		r := b.do(t, http.MethodGet, "/tasks/export?operator=bob", token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(r.RawBody, "\ufeff"))).ReadAll()
		require.NoError(t, err)
		require.Len(t, rows, 2)
		out := map[string]string{}
		for i, h := range rows[0] {
			out[h] = rows[1][i]
		}
		return out
	}
	listed := func(token, query string) []map[string]any {
		t.Helper()
		r := b.do(t, http.MethodGet, "/tasks?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		var out []map[string]any
		for _, it := range details(r)["tasks"].([]any) {
			out = append(out, it.(map[string]any))
		}
		return out
	}
	// shown says whether token is shown the audit, everywhere it appears.
	shown := func(token string, want bool) {
		t.Helper()
		d := details(b.do(t, http.MethodGet, "/tasks/"+id, token, nil))
		require.Equal(t, want, d["audit"] != nil, "the audit")
		require.Equal(t, want, len(d["revisions"].([]any)) > 0, "the revisions")
		require.Equal(t, !want, d["audit_hidden"] == true)
		require.NotNil(t, d["transcript"], "the transcript is always shown")
		r := b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/1", token, nil)
		if want {
			require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		} else {
			requireError(t, r, http.StatusForbidden, CodeForbidden)
			require.Contains(t, r.Body["message"], "once an analyst reviews it")
		}
		list := listed(token, "")
		require.Len(t, list, 1)
		require.Equal(t, want, list[0]["score"] != nil, "the list's score")
		require.Equal(t, want, list[0]["passed"] != nil, "the list's result")
		require.Equal(t, want, len(listed(token, "passed=true"))+len(listed(token, "passed=false")) == 1, "filters on the result")
		require.Equal(t, want, len(listed(token, "min_score=0")) == 1, "filters on the score")
		row := exportRow(token)
		require.Equal(t, want, row["score"] != "", "the export's score")
		require.Equal(t, want, row["audit_revision"] != "", "the export's revision")
	}

	// Automatic: hidden from the agent, shown to analysts and above.
	require.Equal(t, "automatic", details(b.do(t, http.MethodGet, "/tasks/"+id, tok["alice"], nil))["review_state"])
	shown(tok["bob"], false)
	for _, who := range []string{"alice", "sue"} {
		shown(tok[who], true)
	}
	require.Equal(t, "automatic", exportRow(tok["alice"])["review_state"])
	require.Len(t, listed(tok["alice"], "review_state=automatic"), 1)
	require.Empty(t, listed(tok["alice"], "review_state=reviewed"))
	requireError(t, b.do(t, http.MethodGet, "/tasks?review_state=done", tok["alice"], nil), http.StatusBadRequest, CodeValidation)

	// A campaign that shows automatic audits shows them to the agent.
	r := b.json(t, http.MethodPatch, "/campaigns/"+campaign, tok["sue"], map[string]any{"operator_sees_automatic": true})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, true, details(r)["operator_sees_automatic"])
	shown(tok["bob"], true)
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/campaigns/"+campaign, tok["sue"],
		map[string]any{"operator_sees_automatic": false}).Status)
	shown(tok["bob"], false)

	// Reviewed: the agent sees it, and the event that says so carries the
	// score to them; the events before it did not.
	requireError(t, b.do(t, http.MethodPost, "/tasks/"+id+"/review", tok["bob"], nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodPost, "/tasks/00000000-0000-4000-8000-000000000000/review", tok["alice"], nil),
		http.StatusNotFound, CodeNotFound)
	r = b.do(t, http.MethodPost, "/tasks/"+id+"/review", tok["alice"], nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "reviewed", details(r)["review_state"])
	for {
		ev := events.next(t)
		data := ev.Data
		if ev.Type != "task.updated" || data["uuid"] != id {
			continue
		}
		if data["review_state"] == "reviewed" {
			require.NotNil(t, data["score"])
			break
		}
		require.Nil(t, data["score"], "an automatic audit's event carries no score to the agent")
	}
	shown(tok["bob"], true)
	d := details(b.do(t, http.MethodGet, "/tasks/"+id, tok["sue"], nil))
	require.Equal(t, "alice", d["reviewed_by"])
	require.NotEmpty(t, d["reviewed_at"])
	require.Len(t, listed(tok["alice"], "review_state=reviewed"), 1)
	require.Equal(t, "reviewed", exportRow(tok["bob"])["review_state"])
	// Again: answered as it is.
	require.Equal(t, http.StatusOK, b.do(t, http.MethodPost, "/tasks/"+id+"/review", tok["carol"], nil).Status)
	require.Equal(t, "alice", details(b.do(t, http.MethodGet, "/tasks/"+id, tok["sue"], nil))["reviewed_by"])

	// An analyst's edit reviews an audit too; validated is the last state.
	other := b.auditedChats(t, tok["alice"], "edited.txt")[0]
	// Sorted by score, the agent's automatic audit sorts as not audited:
	// the order tells nothing of its score.
	for order, first := range map[string]string{"asc": other, "desc": id} {
		for _, page := range []string{"", "&limit=1"} {
			list := listed(tok["bob"], "sort=score&order="+order+page)
			require.Equal(t, first, list[0]["uuid"], "order=%s%s", order, page)
		}
	}
	r = b.do(t, http.MethodGet, "/tasks?sort=score&order=asc&limit=1", tok["bob"], nil)
	next := details(r)["next"].(string)
	list := details(b.do(t, http.MethodGet, "/tasks?sort=score&order=asc&limit=1&cursor="+next, tok["bob"], nil))["tasks"].([]any)
	require.Equal(t, id, list[0].(map[string]any)["uuid"], "the next page goes on after the hidden one")
	task := details(b.do(t, http.MethodGet, "/tasks/"+other, tok["alice"], nil))
	r = b.edit(t, tok["carol"], editOf(t, task, map[string]bool{"empathy": false}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d = details(b.do(t, http.MethodGet, "/tasks/"+other, tok["alice"], nil))
	require.Equal(t, "reviewed", d["review_state"])
	require.Equal(t, "carol", d["reviewed_by"])
	r = b.json(t, http.MethodPost, "/validate-audit", tok["alice"], map[string]any{"task_uuid": other, "notes": "ok", "isCall": false})
	require.Contains(t, []int{http.StatusOK, http.StatusBadGateway}, r.Status, r.RawBody)
	require.Equal(t, "validated", details(b.do(t, http.MethodGet, "/tasks/"+other, tok["alice"], nil))["review_state"])
	requireError(t, b.do(t, http.MethodPost, "/tasks/"+other+"/review", tok["alice"], nil), http.StatusConflict, CodeConflict)
	states := []string{}
	for _, task := range listed(tok["alice"], "") {
		states = append(states, task["review_state"].(string))
	}
	slices.Sort(states)
	require.Equal(t, []string{"reviewed", "validated"}, states)
}

// TestAgentStatsCountAuditsShown: an agent's (operator's) own dashboard
// and trends count only the audits they are shown (docs/security.md): an
// automatic one once an analyst reviewed it, or when its campaign shows
// those; quality users count every audit.
func TestAgentStatsCountAuditsShown(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	tok := b.qaTeam(t)
	campaign := campaignID(t, b, tok["sue"])
	ids := b.auditedChats(t, tok["alice"], "automatic.txt", "reviewed.txt")

	// counted requires that token's figures of bob's tasks count audits
	// of them, the same in every figure that counts audits, and both
	// tasks.
	counted := func(token string, audits int) {
		t.Helper()
		r := b.do(t, http.MethodGet, "/stats/dashboard?operator=bob", token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		d := details(r)
		require.Equal(t, float64(2), d["tasks"], "the tasks are shown")
		require.Equal(t, float64(audits), d["audited"])
		var inRanges, perDay float64
		for _, bk := range d["score_distribution"].([]any) {
			inRanges += bk.(map[string]any)["count"].(float64)
		}
		for _, day := range d["per_day"].([]any) {
			perDay += day.(map[string]any)["audited"].(float64)
		}
		require.Equal(t, float64(audits), inRanges, "the score ranges")
		require.Equal(t, float64(audits), perDay, "the days")
		top := d["operators"].(map[string]any)["top"].([]any)
		failed := d["criteria_failed"].([]any)
		if audits == 0 {
			require.Empty(t, top, "the agents")
			require.Nil(t, d["average_score"])
			require.Equal(t, float64(0), d["automatic"].(map[string]any)["verdicts"], "the engine's verdicts")
			require.Empty(t, failed, "the criteria")
		} else {
			require.Equal(t, float64(audits), top[0].(map[string]any)["audited"], "the agents")
			require.NotNil(t, d["average_score"])
			require.Positive(t, d["automatic"].(map[string]any)["verdicts"], "the engine's verdicts")
			for _, c := range failed {
				require.Equal(t, float64(audits), c.(map[string]any)["judged"], "the criteria")
			}
		}

		r = b.do(t, http.MethodGet, "/stats/trends?operator=bob", token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		d = details(r)
		agents, criteria := d["agents"].([]any), d["criteria"].([]any)
		if audits == 0 {
			require.Empty(t, agents, "the trends' agents")
			require.Empty(t, criteria, "the trends' criteria")
			return
		}
		require.Len(t, agents, 1)
		require.Equal(t, float64(audits), agents[0].(map[string]any)["audited"], "the trends' agents")
		require.NotEmpty(t, criteria)
		for _, c := range criteria {
			require.Equal(t, float64(audits), c.(map[string]any)["judged"], "the trends' criteria")
		}
	}

	// Both automatic: the agent counts neither.
	counted(tok["bob"], 0)
	// One reviewed: that one.
	r := b.do(t, http.MethodPost, "/tasks/"+ids[1]+"/review", tok["alice"], nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	counted(tok["bob"], 1)
	for _, who := range []string{"alice", "sue"} {
		counted(tok[who], 2)
	}
	// A campaign that shows automatic audits: both.
	r = b.json(t, http.MethodPatch, "/campaigns/"+campaign, tok["sue"], map[string]any{"operator_sees_automatic": true})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	counted(tok["bob"], 2)
	// Hidden again: the reviewed one.
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/campaigns/"+campaign, tok["sue"],
		map[string]any{"operator_sees_automatic": false}).Status)
	counted(tok["bob"], 1)
	counted(tok["alice"], 2)
}
