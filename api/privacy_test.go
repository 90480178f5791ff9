package api

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/workers"
)

// defaultCampaignID is the id of the default campaign.
func (b *testBundle) defaultCampaignID(t *testing.T) string {
	t.Helper()
	c, err := db.CampaignGetByName(context.Background(), b.pool, db.DefaultCampaign)
	require.NoError(t, err)
	return c.ID
}

// accessRecords lists the access record as token, with query.
func (b *testBundle) accessRecords(t *testing.T, token, query string) []map[string]any {
	t.Helper()
	return items(t, b.do(t, http.MethodGet, "/admin/access-records?"+query, token, nil))
}

func TestCampaignRetentionSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, root := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	path := "/campaigns/" + b.defaultCampaignID(t)

	d := details(b.do(t, http.MethodGet, path, alice, nil))
	require.Equal(t, map[string]any{"recordings_days": nil, "transcripts_days": nil, "audits_days": nil}, d["retention"], "forever by default")
	require.Equal(t, false, d["agents_see_access"])

	r := b.json(t, http.MethodPatch, path, sue, map[string]any{"retention": map[string]any{"recordings_days": 30, "audits_days": 365},
		"agents_see_access": true})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, map[string]any{"recordings_days": float64(30), "transcripts_days": nil, "audits_days": float64(365)}, details(r)["retention"])
	require.Equal(t, true, details(r)["agents_see_access"])
	d = details(b.do(t, http.MethodGet, path, alice, nil))
	require.Equal(t, float64(30), d["retention"].(map[string]any)["recordings_days"])

	// Other fields leave the settings alone; a retention sent replaces it whole.
	r = b.json(t, http.MethodPatch, path, sue, map[string]any{"passing_score": 80})
	require.Equal(t, float64(365), details(r)["retention"].(map[string]any)["audits_days"])
	r = b.json(t, http.MethodPatch, path, sue, map[string]any{"retention": map[string]any{"transcripts_days": 90, "audits_days": nil}})
	require.Equal(t, map[string]any{"recordings_days": nil, "transcripts_days": float64(90), "audits_days": nil}, details(r)["retention"])

	for _, bad := range []any{0, -1, 36501, "30", 1.5} {
		r = b.json(t, http.MethodPatch, path, sue, map[string]any{"retention": map[string]any{"recordings_days": bad}})
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, "body.retention.recordings_days", detailsAt(r), r.RawBody)
	}
	r = b.json(t, http.MethodPatch, path, sue, map[string]any{"retention": map[string]any{"forever": true}})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Equal(t, float64(90), details(b.do(t, http.MethodGet, path, root, nil))["retention"].(map[string]any)["transcripts_days"],
		"nothing stored by a refused request")

	requireError(t, b.json(t, http.MethodPatch, path, alice, map[string]any{"agents_see_access": false}), http.StatusForbidden, CodeForbidden)

	// A new campaign takes them at once; a refused one stores nothing.
	r = b.json(t, http.MethodPost, "/campaigns", sue, map[string]any{"name": "ventas", "retention": map[string]any{"recordings_days": 7}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.Equal(t, float64(7), details(r)["retention"].(map[string]any)["recordings_days"])
	r = b.json(t, http.MethodPost, "/campaigns", sue, map[string]any{"name": "soporte", "retention": map[string]any{"audits_days": 0}})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Equal(t, 0, b.count(t, "SELECT count(*) FROM campaigns WHERE name = 'soporte'"))
}

func TestLegalHold(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	id := uploaded(t, b.upload(t, alice, chat("hold.txt")))[0]["uuid"].(string)
	path := "/tasks/" + id + "/legal-hold"

	for _, tok := range []string{alice, bob, sue} {
		requireError(t, b.json(t, http.MethodPut, path, tok, map[string]any{"reason": "x"}), http.StatusForbidden, CodeForbidden)
		requireError(t, b.do(t, http.MethodDelete, path, tok, nil), http.StatusForbidden, CodeForbidden)
	}
	requireError(t, b.do(t, http.MethodDelete, path, root, nil), http.StatusNotFound, CodeNotFound)
	for _, bad := range []string{"", "   ", "a\nb", strings.Repeat("x", 501)} {
		requireError(t, b.json(t, http.MethodPut, path, root, map[string]any{"reason": bad}), http.StatusBadRequest, CodeValidation)
	}
	requireError(t, b.json(t, http.MethodPut, "/tasks/00000000-0000-4000-8000-000000000000/legal-hold", root,
		map[string]any{"reason": "x"}), http.StatusNotFound, CodeNotFound)

	r := b.json(t, http.MethodPut, path, root, map[string]any{"reason": " Claim 2024-118 "})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "Claim 2024-118", details(r)["reason"])
	require.Equal(t, "root", details(r)["placed_by"])
	hold := details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["privacy"].(map[string]any)["legal_hold"].(map[string]any)
	require.Equal(t, "Claim 2024-118", hold["reason"], "shown in the task view")

	r = b.do(t, http.MethodDelete, path, root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "Claim 2024-118", details(r)["reason"], "the hold as it was")
	require.Nil(t, details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["privacy"].(map[string]any)["legal_hold"])
}

func TestAccessRecordKeepsEveryReadOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.startWorkers(t, workers.Deps{})
	alice, bob, root := b.users(t)
	id := b.auditedChat(t, alice, field("operator", "bob"), chat("record.txt"))
	call := uploaded(t, b.upload(t, alice, file("call.wav", tone(t, "call.wav", 440, 1))))[0]["uuid"].(string)
	ua := func(what string) []string { return []string{"User-Agent", "probe/" + what} }

	// Each read, once, as alice with its own user agent.
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/"+id, alice, nil, ua("task")...).Status)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/"+id+"/audit/revisions/1", alice, nil, ua("revision")...).Status)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/"+call+"/audio", alice, nil, ua("audio")...).Status)
	r := b.do(t, http.MethodGet, "/tasks/export?operator=bob", alice, nil, ua("export")...)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, http.StatusOK, b.validateJSON(t, alice, map[string]any{"task_uuid": id, "notes": "ok", "isCall": false}).Status)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/"+id, alice, nil, ua("validated")...).Status)
	// Lists and refused reads are not reads of content.
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks", alice, nil, ua("list")...).Status)
	require.Equal(t, http.StatusNotFound, b.do(t, http.MethodGet, "/tasks/"+call, bob, nil, ua("refused")...).Status)

	byAgent := map[string][]string{}
	for _, a := range b.accessRecords(t, root, "user=alice&limit=500") {
		require.Equal(t, "alice", a["user_id"])
		require.Equal(t, "127.0.0.1", a["client_ip"])
		agent := strings.TrimPrefix(a["user_agent"].(string), "probe/")
		if agent == a["user_agent"] {
			continue // the polling of the test's helpers
		}
		task, _ := a["task_uuid"].(string)
		byAgent[agent] = append(byAgent[agent], a["kind"].(string)+" "+task)
		if agent == "export" {
			require.Equal(t, map[string]any{"query": "operator=bob", "tasks": float64(1)}, a["detail"])
		}
	}
	require.Equal(t, map[string][]string{
		"task":      {"transcript " + id},
		"revision":  {"revision " + id},
		"audio":     {"recording " + call},
		"export":    {"export "},
		"validated": {"validation " + id, "transcript " + id},
	}, byAgent)

	// Filters and pages.
	recordings := b.accessRecords(t, root, "kind=recording")
	require.Len(t, recordings, 1)
	require.Equal(t, call, recordings[0]["task_uuid"])
	require.Empty(t, b.accessRecords(t, root, "user=bob"))
	require.Len(t, b.accessRecords(t, root, "task="+call), 1)
	require.Empty(t, b.accessRecords(t, root, "from=2999-01-01"))
	seen := map[string]bool{}
	cursor := ""
	for {
		r := b.do(t, http.MethodGet, "/admin/access-records?user=alice&limit=2&cursor="+cursor, root, nil)
		for _, it := range items(t, r) {
			key := string(must(json.Marshal(it["id"])))
			require.False(t, seen[key], "a record on two pages")
			seen[key] = true
		}
		next, _ := details(r)["next"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	require.Len(t, seen, len(b.accessRecords(t, root, "user=alice&limit=500")))
	for _, q := range []string{"kind=secret", "cursor=abc", "cursor=0", "from=yesterday", "from=2024-02-01&to=2024-01-01", "task=nope"} {
		requireError(t, b.do(t, http.MethodGet, "/admin/access-records?"+q, root, nil), http.StatusBadRequest, CodeValidation)
	}

	// The CSV export: a header, then the same records.
	r = b.do(t, http.MethodGet, "/admin/access-records/export?kind=recording", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Contains(t, r.Header.Get("Content-Disposition"), "attachment")
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(r.RawBody, "\ufeff"))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.Equal(t, "kind", rows[0][4])
	require.Equal(t, []string{"recording", call, "127.0.0.1", "probe/audio"}, []string{rows[1][4], rows[1][5], rows[1][7], rows[1][8]})

	// Admins only.
	for _, tok := range []string{alice, bob, b.issuer.token(t, "sue", "supervisor")} {
		requireError(t, b.do(t, http.MethodGet, "/admin/access-records", tok, nil), http.StatusForbidden, CodeForbidden)
		requireError(t, b.do(t, http.MethodGet, "/admin/access-records/export", tok, nil), http.StatusForbidden, CodeForbidden)
	}
}

func TestAgentsSeeWhoOpenedTheirTasksWhenAllowed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	mine := uploaded(t, b.upload(t, alice, field("operator", "bob"), chat("mine.txt")))[0]["uuid"].(string)
	theirs := uploaded(t, b.upload(t, alice, field("operator", "carla"), chat("theirs.txt")))[0]["uuid"].(string)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/"+mine, alice, nil).Status)

	path := "/tasks/" + mine + "/access-records"
	requireError(t, b.do(t, http.MethodGet, path, bob, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+theirs+"/access-records", bob, nil), http.StatusNotFound, CodeNotFound)
	list := items(t, b.do(t, http.MethodGet, path, alice, nil))
	require.Len(t, list, 1, "quality reads any task's")
	require.Equal(t, "127.0.0.1", list[0]["client_ip"])

	r := b.json(t, http.MethodPatch, "/campaigns/"+b.defaultCampaignID(t), root, map[string]any{"agents_see_access": true})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	list = items(t, b.do(t, http.MethodGet, path, bob, nil))
	require.Len(t, list, 1)
	require.Equal(t, "alice", list[0]["user_id"])
	require.Equal(t, "transcript", list[0]["kind"])
	require.Nil(t, list[0]["client_ip"], "agents learn who and when, not from where")
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+theirs+"/access-records", bob, nil), http.StatusNotFound, CodeNotFound)
}

func TestErasureAndTheTaskAfterIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	events := b.startWorkers(t, workers.Deps{ForgetBatch: 2})
	alice, _, root := b.users(t)
	var bobs []string
	for _, n := range []string{"b1.txt", "b2.txt", "b3.txt"} {
		bobs = append(bobs, b.auditedChat(t, alice, field("operator", "bob"), chat(n)))
	}
	call := uploaded(t, b.upload(t, alice, field("operator", "bob"), file("bob.wav", tone(t, "bob.wav", 440, 1))))[0]["uuid"].(string)
	customer := b.auditedChat(t, alice, field("operator", "carla"), field("external_id", "CUST-7"), chat("c.txt"))
	held := b.auditedChat(t, alice, field("operator", "bob"), chat("held.txt"))
	other := b.auditedChat(t, alice, field("operator", "carla"), chat("other.txt"))
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPut, "/tasks/"+held+"/legal-hold", root, map[string]any{"reason": "claim"}).Status)

	requireError(t, b.json(t, http.MethodPost, "/admin/erasures", root, map[string]any{}), http.StatusBadRequest, CodeMissingFields)
	requireError(t, b.json(t, http.MethodPost, "/admin/erasures", alice, map[string]any{"operator": "bob"}), http.StatusForbidden, CodeForbidden)
	r := b.json(t, http.MethodPost, "/admin/erasures", root, map[string]any{"operator": "bob", "external_id": "CUST-7"})
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	e := details(r)
	waitJob(t, events, int64(e["job_id"].(float64)))
	e = details(b.do(t, http.MethodGet, "/admin/erasures/"+e["id"].(string), root, nil))
	require.Equal(t, "done", e["status"])
	require.Equal(t, "bob", e["operator_id"])
	require.Equal(t, "root", e["requested_by"])
	// bob's three chats and call, and CUST-7's chat; the held one counted.
	require.Equal(t, []any{float64(5), float64(1), float64(5), float64(4), float64(4)},
		[]any{e["tasks"], e["held"], e["recordings"], e["transcripts"], e["audits"]})
	require.Len(t, items(t, b.do(t, http.MethodGet, "/admin/erasures", root, nil)), 1)
	deletions := items(t, b.do(t, http.MethodGet, "/admin/deletions?cause=erasure", root, nil))
	total := 0
	for _, d := range deletions {
		require.Equal(t, e["id"], d["erasure_id"])
		total += int(d["count"].(float64))
	}
	require.Equal(t, 5+4+4, total)

	// The task after: its row, score and history; no transcript, no audit,
	// and when each went.
	for _, id := range append(bobs, customer) {
		d := details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))
		require.Nil(t, d["transcript"])
		require.Nil(t, d["audit"])
		require.Equal(t, 1, b.count(t, "SELECT count(*) FROM tasks WHERE uuid = $1 AND score IS NOT NULL", id), "the score stays")
		p := d["privacy"].(map[string]any)
		require.NotEmpty(t, p["transcript_deleted_at"])
		require.NotEmpty(t, p["audit_deleted_at"])
		require.NotEmpty(t, p["recording_deleted_at"])
	}
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+call+"/audio", alice, nil), http.StatusGone, CodeGone)
	require.Nil(t, details(b.do(t, http.MethodGet, "/tasks/"+call, alice, nil))["audio_url"])
	for _, id := range []string{held, other} {
		require.NotNil(t, details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["transcript"], "kept")
	}
	// Searching finds the kept tasks only.
	found := details(b.do(t, http.MethodGet, "/tasks?q=cobrado", alice, nil))["tasks"].([]any)
	require.Len(t, found, 2)

}

func TestRightOfAccessExport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	mine := uploaded(t, b.upload(t, alice, field("operator", "bob"), field("external_id", "CUST-1"), chat("bob.txt")))[0]["uuid"].(string)
	uploaded(t, b.upload(t, alice, field("operator", "carla"), chat("carla.txt")))
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/"+mine, alice, nil).Status)
	b.notify(t, root, map[string]any{"text": "Para bob", "variant": "info", "user_id": "bob"})
	b.saveView(t, bob, "Mis llamadas", "kind=call")

	requireError(t, b.do(t, http.MethodGet, "/admin/users/bob/data", alice, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodGet, "/admin/users/nobody/data", root, nil), http.StatusNotFound, CodeNotFound)
	r := b.do(t, http.MethodGet, "/admin/users/"+url.PathEscape("bob")+"/data", root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Contains(t, r.Header.Get("Content-Disposition"), "attachment")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.RawBody), &doc), r.RawBody)
	require.Equal(t, "bob", doc["user_id"])
	require.Equal(t, "bob", doc["profile"].(map[string]any)["id"])
	tasks := doc["tasks_as_agent"].([]any)
	require.Len(t, tasks, 1, "bob's task, not carla's")
	task := tasks[0].(map[string]any)
	require.Equal(t, mine, task["uuid"])
	require.Equal(t, "CUST-1", task["customer_ref"], "external_id is its former name")
	require.Contains(t, task["transcript"], "cobrado")
	require.Len(t, doc["notifications"], 1)
	require.Equal(t, "Mis llamadas", doc["saved_views"].([]any)[0].(map[string]any)["name"])
	about := doc["access_records_about_user"].([]any)
	require.Len(t, about, 2, "alice's read of bob's task, and this export")
	require.Equal(t, "alice", about[0].(map[string]any)["user_id"])
	require.Equal(t, []any{"root", "subject_export"}, []any{about[1].(map[string]any)["user_id"], about[1].(map[string]any)["kind"]})
	for _, k := range []string{"audit_revisions_authored", "validations", "access_records_by_user"} {
		require.NotNil(t, doc[k], k)
	}
	exports := b.accessRecords(t, root, "kind=subject_export")
	require.Len(t, exports, 1, "the export is recorded")
	require.Equal(t, map[string]any{"user_id": "bob"}, exports[0]["detail"])
}

// subjectExport is user id's data export, made by admin.
func (b *testBundle) subjectExport(t *testing.T, admin, id string) map[string]any {
	t.Helper()
	r := b.do(t, http.MethodGet, "/admin/users/"+id+"/data", admin, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.RawBody), &doc), r.RawBody)
	return doc
}

// TestRightOfAccessExportHasDisputesAndCalibration: an agent's disputes and
// acknowledgements and an analyst's calibration answers are in their
// export, and it hides what is hidden from them.
func TestRightOfAccessExportHasDisputesAndCalibration(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	root := b.issuer.token(t, "root", "admin")
	disputed := b.validatedChat(t, "chat-disputed.txt", "ana")
	acked := b.auditedChat(t, b.alice, file("chat-acked.txt", []byte(rudeChat)), field("language", "es"), field("operator", "ana"))
	r := b.validateJSON(t, b.alice, map[string]any{"task_uuid": acked, "notes": "Mal.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	r = b.json(t, http.MethodPost, "/disputes", ana, map[string]any{"task_uuid": disputed, "items": []any{claim("empathy", "Lo dije.")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.Equal(t, http.StatusCreated, b.do(t, http.MethodPost, "/tasks/"+acked+"/acknowledgement", ana, nil).Status)

	hidden := b.auditedChat(t, b.alice, file("chat-hidden.txt", []byte(englishChat)), field("language", "en"), field("operator", "ana"))
	calibrated := b.auditedChat(t, b.alice, file("chat-calibrated.txt", []byte(cleanChat)), field("language", "es"))
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", b.issuer.token(t, "qb", "quality"), nil).Status)
	r = b.json(t, http.MethodPost, "/calibration-sessions", b.sue, map[string]any{
		"name": "Semana 48", "task_uuids": []string{calibrated}, "analysts": []string{"alice", "qb"}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	session := details(r)["session"].(map[string]any)["id"].(string)
	answers := answersFor(sessionItems(details(r)), nil)
	r = b.submitAnswers(t, b.alice, session, answers)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	export := func(id string) map[string]any { return b.subjectExport(t, root, id) }
	doc := export("sub-ana")
	disputes := doc["disputes"].([]any)
	require.Len(t, disputes, 1)
	require.Equal(t, disputed, disputes[0].(map[string]any)["task_uuid"])
	require.Equal(t, "open", disputes[0].(map[string]any)["status"])
	acks := doc["acknowledgements"].([]any)
	require.Len(t, acks, 1)
	require.Equal(t, acked, acks[0].(map[string]any)["task_uuid"])
	require.Empty(t, doc["calibration_answers"])
	// Made for ana, it shows her tasks' audits as she sees them.
	for _, it := range doc["tasks_as_agent"].([]any) {
		task := it.(map[string]any)
		if task["uuid"] == hidden {
			require.Equal(t, []any{true, nil, nil, nil}, []any{task["audit_hidden"], task["score"], task["passed"], task["audit"]})
		} else {
			require.Equal(t, false, task["audit_hidden"])
			require.NotNil(t, task["audit"])
		}
	}
	require.Len(t, doc["tasks_as_agent"], 3)

	doc = export("alice")
	got := doc["calibration_answers"].([]any)
	require.Len(t, got, len(answers))
	first := got[0].(map[string]any)
	require.Equal(t, "Semana 48", first["session_name"])
	require.Equal(t, calibrated, first["task_uuid"])
	require.Equal(t, "complies", first["answer"])
	require.NotEmpty(t, first["question"])
	require.Empty(t, doc["disputes"], "alice validated, but neither opened nor resolved one")

}

// TestRightOfAccessExportHasCoaching: an agent's export holds the coaching
// items that coach them, with their links and thread, and every comment a
// person wrote; an erasure of the agent empties the quotes the items took
// from the transcripts it deletes, and keeps the items and their threads,
// as it keeps disputes and validations.
func TestRightOfAccessExportHasCoaching(t *testing.T) {
	t.Parallel()
	b := setupDisputes(t)
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	b.agent(t, "sub-olga", "olga", "olga@example.test")
	root := b.issuer.token(t, "root", "admin")
	task := b.validatedChat(t, "chat-coached.txt", "ana")
	olgas := b.auditedChat(t, b.alice, file("chat-olga.txt", []byte(goodChat+"\nAgente: Hasta luego.")), field("operator", "olga"))
	camp := campaignID(t, b.testBundle, b.alice)
	open := func(agent string, links ...any) string {
		r := b.json(t, http.MethodPost, "/coaching", b.sue, coachingDraft(agent, camp, links...))
		require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
		return details(r)["id"].(string)
	}
	comment := func(token, id, body string) {
		r := b.json(t, http.MethodPost, "/coaching/"+id+"/comments", token, map[string]any{"body": body})
		require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	}
	anas := open("sub-ana", link(task, "Cliente: estoy harto."))
	comment(ana, anas, "Lo practico esta semana.")
	comment(b.sue, anas, "Bien.")
	olgaItem := open("sub-olga", link(olgas, "Agente: Hasta luego."))
	comment(b.sue, olgaItem, "Para olga.")

	export := func(id string) map[string]any { return b.subjectExport(t, root, id) }
	doc := export("sub-ana")
	coached := doc["coaching"].([]any)
	require.Len(t, coached, 1, "ana's item, not olga's")
	item := coached[0].(map[string]any)
	require.Equal(t, []any{anas, "Empatía", "sue", "open"}, []any{item["id"], item["title"], item["coach_id"], item["status"]})
	require.Equal(t, "empathy", item["criteria"].([]any)[0].(map[string]any)["criterion_id"])
	require.Equal(t, []any{map[string]any{"task_uuid": task, "quote": "Cliente: estoy harto."}}, item["links"])
	var thread []string
	for _, c := range item["comments"].([]any) {
		thread = append(thread, c.(map[string]any)["author_id"].(string)+": "+c.(map[string]any)["body"].(string))
	}
	require.Equal(t, []string{"sub-ana: Lo practico esta semana.", "sue: Bien."}, thread)
	written := doc["coaching_comments"].([]any)
	require.Len(t, written, 1)
	require.Equal(t, []any{anas, "Lo practico esta semana."}, []any{written[0].(map[string]any)["coaching_id"], written[0].(map[string]any)["body"]})
	require.NotContains(t, fmt.Sprint(doc), "Para olga", "another agent's item is not in hers")

	// The coach's export: no item coaches sue, and both her comments.
	doc = export("sue")
	require.Empty(t, doc["coaching"])
	require.Len(t, doc["coaching_comments"], 2)

	// An erasure of ana: her item stays, with its link and thread; the
	// quote, words of the transcript it deleted, goes with it.
	r := b.json(t, http.MethodPost, "/admin/erasures", root, map[string]any{"operator": "ana"})
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	erasure := "/admin/erasures/" + details(r)["id"].(string)
	require.Eventually(t, func() bool { return details(b.do(t, http.MethodGet, erasure, root, nil))["status"] == "done" },
		30*time.Second, 50*time.Millisecond)
	view := details(b.do(t, http.MethodGet, "/coaching/"+anas, b.sue, nil))
	require.Equal(t, "", view["links"].([]any)[0].(map[string]any)["quote"])
	require.Equal(t, task, view["links"].([]any)[0].(map[string]any)["task_uuid"])
	require.Len(t, view["thread"], 2)
	item = export("sub-ana")["coaching"].([]any)[0].(map[string]any)
	require.Equal(t, []any{map[string]any{"task_uuid": task, "quote": ""}}, item["links"])
	require.Len(t, item["comments"], 2)
	// Olga's item, of a task the erasure did not touch, keeps its quote.
	require.Equal(t, "Agente: Hasta luego.", details(b.do(t, http.MethodGet, "/coaching/"+olgaItem, b.sue, nil))["links"].([]any)[0].(map[string]any)["quote"])
}
