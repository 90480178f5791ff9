package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/stretchr/testify/require"
)

// coachingDraft is a valid item for agent (a user id) of campaign.
func coachingDraft(agent, campaign string, links ...any) map[string]any {
	return map[string]any{"agent_id": agent, "campaign_id": campaign, "title": "Empatía",
		"focus": "Reconoce el problema antes de resolverlo.", "criteria": []string{"empathy"},
		"due_at": time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339), "links": links}
}

func link(task, quote string) map[string]any {
	return map[string]any{"task_uuid": task, "quote": quote}
}

func (b disputeBundle) coachingEvents(t *testing.T, id string) []string {
	t.Helper()
	return dbtest.Strings(t, b.pool, `SELECT type FROM events WHERE type LIKE 'coaching.%' AND data->>'id' = $1 ORDER BY id`, id)
}

func TestCoachingFromAFailedCriterion(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	olga := b.agent(t, "sub-olga", "olga", "olga@example.test")
	task := b.validatedChat(t, "chat-coach.txt", "ana")
	camp := campaignID(t, b.testBundle, b.alice)
	empathy := auditItem(t, details(b.do(t, http.MethodGet, "/tasks/"+task, ana, nil))["audit"].(map[string]any), "empathy")

	// Only supervisors open.
	for _, tok := range []string{ana, b.alice} {
		requireError(t, b.json(t, http.MethodPost, "/coaching", tok, coachingDraft("sub-ana", camp)), http.StatusForbidden, CodeForbidden)
	}
	r := b.json(t, http.MethodPost, "/coaching", b.sue, coachingDraft("sub-ana", camp, link(task, "  Cliente: estoy harto.\r\n")))
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	item := details(r)
	id := item["id"].(string)
	require.Equal(t, "open", item["status"])
	require.Equal(t, "sue", item["coach_id"])
	require.Equal(t, "User sub-ana", item["agent_name"])
	require.Equal(t, empathy["question"], item["criteria"].([]any)[0].(map[string]any)["question"])
	l := item["links"].([]any)[0].(map[string]any)
	require.Equal(t, "Cliente: estoy harto.", l["quote"])
	require.Equal(t, "chat-coach.txt", l["file_name"])
	require.Contains(t, b.notes(t, ana), "User sue opened coaching for you: “Empatía”, due on")

	// Who reads it: the agent and supervisors; another agent, or an
	// analyst, reads no item of theirs (404, as a missing one).
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/coaching/"+id, ana, nil).Status)
	for _, tok := range []string{olga, b.alice} {
		requireError(t, b.do(t, http.MethodGet, "/coaching/"+id, tok, nil), http.StatusNotFound, CodeNotFound)
		requireError(t, b.do(t, http.MethodPost, "/coaching/"+id+"/acknowledgement", tok, nil), http.StatusNotFound, CodeNotFound)
		requireError(t, b.json(t, http.MethodPost, "/coaching/"+id+"/comments", tok, map[string]any{"body": "Hola"}), http.StatusNotFound, CodeNotFound)
		require.Empty(t, items(t, b.do(t, http.MethodGet, "/coaching?agent_id=sub-ana", tok, nil)))
	}
	require.Len(t, items(t, b.do(t, http.MethodGet, "/coaching", ana, nil)), 1)
	require.Len(t, items(t, b.do(t, http.MethodGet, "/coaching?criterion_id=empathy&campaign_id="+camp, b.sue, nil)), 1)
	require.Empty(t, items(t, b.do(t, http.MethodGet, "/coaching?criterion_id=greeting", b.sue, nil)))
	// Only the agent acknowledges; not the agent editing or closing.
	requireError(t, b.do(t, http.MethodPost, "/coaching/"+id+"/acknowledgement", b.sue, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodPost, "/coaching/"+id+"/closure", ana, nil), http.StatusForbidden, CodeForbidden)

	r = b.do(t, http.MethodPost, "/coaching/"+id+"/acknowledgement", ana, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "acknowledged", details(r)["status"])
	requireError(t, b.do(t, http.MethodPost, "/coaching/"+id+"/acknowledgement", ana, nil), http.StatusConflict, CodeConflict)
	require.Contains(t, b.notes(t, b.sue), "User sub-ana ha confirmado la lectura del coaching «Empatía».")

	r = b.json(t, http.MethodPost, "/coaching/"+id+"/comments", ana, map[string]any{"body": " Lo practico esta semana. "})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.Equal(t, "Lo practico esta semana.", details(r)["body"])
	requireError(t, b.json(t, http.MethodPost, "/coaching/"+id+"/comments", ana, map[string]any{"body": " \n "}), http.StatusBadRequest, CodeValidation)
	requireError(t, b.json(t, http.MethodPost, "/coaching/"+id+"/comments", ana, map[string]any{"body": strings.Repeat("a", 2001)}),
		http.StatusBadRequest, CodeValidation)
	require.Contains(t, b.notes(t, b.sue), "User sub-ana ha comentado el coaching «Empatía».")
	view := details(b.do(t, http.MethodGet, "/coaching/"+id, ana, nil))
	require.Len(t, view["thread"], 1)
	require.Equal(t, false, view["can_acknowledge"])
	require.Equal(t, false, view["can_edit"])
	require.Equal(t, true, view["can_comment"])

	// The report: one acknowledged item of the campaign, and the agent's
	// audit of the criterion before it was opened.
	rep := details(b.do(t, http.MethodGet, "/stats/coaching", b.sue, nil))
	team := rep["teams"].([]any)[0].(map[string]any)
	require.EqualValues(t, 1, team["open"])
	require.EqualValues(t, 0, team["done"])
	crit := rep["criteria"].([]any)[0].(map[string]any)
	require.Equal(t, "empathy", crit["criterion_id"])
	require.EqualValues(t, 1, crit["audits_before"])
	require.EqualValues(t, 0, crit["audits_after"])
	require.Nil(t, crit["after"])
	want := 0.0
	if empathy["complies"] == true {
		want = 100
	}
	require.InDelta(t, want, crit["before"], 0.001)
	requireError(t, b.do(t, http.MethodGet, "/stats/coaching", ana, nil), http.StatusForbidden, CodeForbidden)

	r = b.do(t, http.MethodPost, "/coaching/"+id+"/closure", b.sue, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "done", details(r)["status"])
	// A done item takes no step.
	requireError(t, b.do(t, http.MethodPost, "/coaching/"+id+"/closure", b.sue, nil), http.StatusConflict, CodeConflict)
	requireError(t, b.json(t, http.MethodPost, "/coaching/"+id+"/comments", ana, map[string]any{"body": "¿Y ahora?"}), http.StatusConflict, CodeConflict)
	d := coachingDraft("sub-ana", camp)
	delete(d, "agent_id")
	delete(d, "campaign_id")
	requireError(t, b.json(t, http.MethodPut, "/coaching/"+id, b.sue, d), http.StatusConflict, CodeConflict)
	require.Contains(t, b.notes(t, ana), "User sue closed your coaching “Empatía” as done.")
	rep = details(b.do(t, http.MethodGet, "/stats/coaching", b.sue, nil))
	require.EqualValues(t, 1, rep["teams"].([]any)[0].(map[string]any)["done"])
	require.Equal(t, []string{"coaching.opened", "coaching.acknowledged", "coaching.commented", "coaching.closed"}, b.coachingEvents(t, id))
}

func TestCoachingRefusesBadDrafts(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	b.agent(t, "sub-ana", "ana", "ana@example.test")
	b.agent(t, "sub-olga", "olga", "olga@example.test")
	task := b.validatedChat(t, "chat-coach-bad.txt", "ana")
	olgas := b.auditedChat(t, b.alice, file("chat-coach-olga.txt", []byte(goodChat+"\nAgente: Hasta luego.")), field("operator", "olga"))
	camp := campaignID(t, b.testBundle, b.alice)
	var before int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications`).Scan(&before))

	for name, tc := range map[string]struct {
		change func(map[string]any)
		at     string
	}{
		"unknown agent":        {func(d map[string]any) { d["agent_id"] = "nobody" }, "body.agent_id"},
		"coach as agent":       {func(d map[string]any) { d["agent_id"] = "sue" }, "body.agent_id"},
		"unknown campaign":     {func(d map[string]any) { d["campaign_id"] = "00000000-0000-4000-8000-000000000000" }, "body.campaign_id"},
		"task not the agent's": {func(d map[string]any) { d["links"] = []any{link(olgas, "")} }, "body.links[0].task_uuid"},
		"missing task":         {func(d map[string]any) { d["links"] = []any{link("00000000-0000-4000-8000-000000000001", "")} }, "body.links[0].task_uuid"},
		"task twice":           {func(d map[string]any) { d["links"] = []any{link(task, ""), link(task, "")} }, "body.links[1].task_uuid"},
		"due in the past":      {func(d map[string]any) { d["due_at"] = time.Now().Add(-time.Hour).Format(time.RFC3339) }, "body.due_at"},
		"due in two years":     {func(d map[string]any) { d["due_at"] = time.Now().AddDate(2, 0, 0).Format(time.RFC3339) }, "body.due_at"},
		"not a date":           {func(d map[string]any) { d["due_at"] = "tomorrow" }, "body.due_at"},
		"unknown criterion":    {func(d map[string]any) { d["criteria"] = []string{"empathy", "charm"} }, "body.criteria[1]"},
		"criterion twice":      {func(d map[string]any) { d["criteria"] = []string{"empathy", "empathy"} }, "body.criteria[1]"},
		"blank title":          {func(d map[string]any) { d["title"] = " \t " }, "body.title"},
		"long title":           {func(d map[string]any) { d["title"] = strings.Repeat("x", 121) }, "body.title"},
		"long focus":           {func(d map[string]any) { d["focus"] = strings.Repeat("x", 4001) }, "body.focus"},
		"long quote":           {func(d map[string]any) { d["links"] = []any{link(task, strings.Repeat("x", 1001))} }, "body.links[0].quote"},
		"bad campaign id":      {func(d map[string]any) { d["campaign_id"] = "campaign" }, "body.campaign_id"},
		"another's dispute":    {func(d map[string]any) { d["dispute_id"] = "00000000-0000-4000-8000-000000000002" }, "body.dispute_id"},
		"unknown field":        {func(d map[string]any) { d["agent"] = "ana" }, "body.agent"},
	} {
		d := coachingDraft("sub-ana", camp, link(task, "Cliente: hola"))
		tc.change(d)
		r := b.json(t, http.MethodPost, "/coaching", b.sue, d)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, `"`+tc.at+`"`, name)
	}
	var n, after int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM coaching_items`).Scan(&n))
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications`).Scan(&after))
	require.Zero(t, n, "nothing written")
	require.Equal(t, before, after)

	// An edit is checked the same way. (The agent may be named by username.)
	r := b.json(t, http.MethodPost, "/coaching", b.sue, coachingDraft("ana", camp))
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["id"].(string)
	d := coachingDraft("sub-ana", camp, link(olgas, ""))
	delete(d, "agent_id")
	delete(d, "campaign_id")
	requireError(t, b.json(t, http.MethodPut, "/coaching/"+id, b.sue, d), http.StatusBadRequest, CodeValidation)
	d["links"] = []any{link(task, "Agente: lo siento")}
	d["due_at"] = time.Now().Add(240 * time.Hour).UTC().Format(time.RFC3339)
	r = b.json(t, http.MethodPut, "/coaching/"+id, b.sue, d)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Len(t, details(r)["links"], 1)
	require.Equal(t, "sub-ana", details(r)["agent_id"])
	requireError(t, b.json(t, http.MethodPut, "/coaching/00000000-0000-4000-8000-000000000003", b.sue, d), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/coaching/not-a-uuid", b.sue, nil), http.StatusBadRequest, CodeValidation)
}
