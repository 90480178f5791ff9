package api

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/calibration"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/workers"
)

// calibrationTeam is a supervisor, three analysts, an analyst who is in no
// session, an operator and an admin, signed in once; qa2 reads Spanish.
type calibrationTeam struct {
	sup, qa1, qa2, qa3, outsider, op, root string
}

func (b *testBundle) calibrationTeam(t *testing.T) calibrationTeam {
	t.Helper()
	tok := func(sub, role string) string {
		token := b.issuer.token(t, sub, role)
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", token, nil).Status)
		return token
	}
	team := calibrationTeam{sup: tok("sup", "supervisor"), qa1: tok("qa1", "quality"), qa2: tok("qa2", "quality"),
		qa3: tok("qa3", "quality"), outsider: tok("qx", "quality"), op: tok("op", "operator"), root: tok("root", "admin")}
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/users/me", team.qa2, map[string]any{"locale": "es"}).Status)
	return team
}

// sessionItems are the (task, criterion) pairs of a session's details.
func sessionItems(d map[string]any) [][2]string {
	var out [][2]string
	for _, it := range d["items"].([]any) {
		m := it.(map[string]any)
		out = append(out, [2]string{m["task_uuid"].(string), m["criterion_id"].(string)})
	}
	return out
}

// answersFor answers every item complies, except the items listed.
func answersFor(pairs [][2]string, except map[int]string) []map[string]any {
	var out []map[string]any
	for i, it := range pairs {
		a := calibration.Complies
		if v, ok := except[i]; ok {
			a = v
		}
		out = append(out, map[string]any{"task_uuid": it[0], "criterion_id": it[1], "answer": a, "comment": fmt.Sprintf("item %d", i)})
	}
	return out
}

// nextCalibration skips the stream's other events to the next calibration.updated.
func nextCalibration(t *testing.T, c *sseClient) sseEvent {
	t.Helper()
	for {
		if ev := c.next(t); ev.Type == db.EventCalibrationUpdated {
			return ev
		}
	}
}

func (b *testBundle) submitAnswers(t *testing.T, token, id string, answers []map[string]any) response {
	t.Helper()
	return b.json(t, http.MethodPost, "/calibration-sessions/"+id+"/submission", token, map[string]any{"answers": answers})
}

func TestCalibrationSession(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	team := b.calibrationTeam(t)
	tasks := b.audited(t, team.qa1, file("good.txt", []byte(goodChat)), file("rude.txt", []byte(rudeChat)))
	uuids := []any{tasks[0]["uuid"], tasks[1]["uuid"]}
	stream := b.stream(t, team.qa1)
	outsiderStream := b.stream(t, team.outsider)

	r := b.json(t, http.MethodPost, "/calibration-sessions", team.sup, map[string]any{
		"name": "  Week 48 ", "task_uuids": uuids, "analysts": []string{"qa1", "qa2", "qa3"},
		"due_at": time.Now().Add(48 * time.Hour).Format(time.RFC3339)})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	d := details(r)
	session := d["session"].(map[string]any)
	id := session["id"].(string)
	require.Equal(t, "Week 48", session["name"])
	require.Equal(t, "open", session["status"])
	require.EqualValues(t, 2, session["tasks"])
	require.EqualValues(t, 3, session["analysts"])
	pairs := sessionItems(d)
	require.Len(t, pairs, len(tasks[0]["audit"].(map[string]any)["items"].([]any))+len(tasks[1]["audit"].(map[string]any)["items"].([]any)),
		"every criterion of each task's audit")

	// Started: an event and a notification in each analyst's language.
	require.Equal(t, "started", nextCalibration(t, stream).Data["change"])
	notes := texts(items(t, b.do(t, http.MethodGet, "/notifications", team.qa2, nil)))
	require.Contains(t, notes[0], "Eres analista de la sesión de calibración «Week 48»")
	require.Contains(t, texts(items(t, b.do(t, http.MethodGet, "/notifications", team.qa1, nil)))[0],
		"You are an analyst of calibration session “Week 48”")

	// Blind while open: no automatic verdict, no one else's answers, no results.
	for _, tok := range []string{team.qa1, team.sup} {
		r = b.do(t, http.MethodGet, "/calibration-sessions/"+id, tok, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		require.Nil(t, details(r)["results"])
		require.NotContains(t, r.RawBody, `"automatic"`)
	}
	requireError(t, b.do(t, http.MethodGet, "/calibration-sessions/"+id, team.outsider, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/calibration-sessions/"+id, team.op, nil), http.StatusForbidden, CodeForbidden)
	// The task view is blind too for the analysts who have to answer,
	// and only for them.
	task0 := uuids[0].(string)
	blind := details(b.do(t, http.MethodGet, "/tasks/"+task0, team.qa1, nil))
	require.Equal(t, map[string]any{"id": id, "name": "Week 48"}, blind["calibration_blind"])
	require.Nil(t, blind["audit"])
	require.Empty(t, blind["revisions"])
	require.NotEmpty(t, blind["transcript"])
	requireError(t, b.do(t, http.MethodGet, "/tasks/"+task0+"/audit/revisions/1", team.qa1, nil), http.StatusConflict, CodeConflict)
	for _, tok := range []string{team.outsider, team.sup} {
		seen := details(b.do(t, http.MethodGet, "/tasks/"+task0, tok, nil))
		require.NotNil(t, seen["audit"])
		require.Nil(t, seen["calibration_blind"])
	}
	// So are its score and result in the task list and the export.
	listed := func(tok string) map[string]any {
		for _, x := range details(b.do(t, http.MethodGet, "/tasks?limit=500", tok, nil))["tasks"].([]any) {
			if x.(map[string]any)["uuid"] == task0 {
				return x.(map[string]any)
			}
		}
		t.Fatalf("task %s is not listed", task0)
		return nil
	}
	exported := func(tok string) map[string]string {
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(
			b.do(t, http.MethodGet, "/tasks/export?format=csv", tok, nil).RawBody, "\ufeff"))).ReadAll()
		require.NoError(t, err)
		for _, row := range rows[1:] {
			if row[0] == task0 {
				m := map[string]string{}
				for i, col := range rows[0] {
					m[col] = row[i]
				}
				return m
			}
		}
		t.Fatalf("task %s is not exported", task0)
		return nil
	}
	require.Nil(t, listed(team.qa1)["score"])
	require.Empty(t, exported(team.qa1)["score"])
	require.NotNil(t, listed(team.outsider)["score"])
	require.NotEmpty(t, exported(team.outsider)["score"])
	// A filter or an order by the audit's result, or a search by words (its
	// explanations are searched), leaves the task out for them: where it
	// stood would tell its verdicts.
	found := func(tok, query string) bool {
		t.Helper()
		r := b.do(t, http.MethodGet, "/tasks?limit=500&"+query, tok, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		for _, x := range details(r)["tasks"].([]any) {
			if x.(map[string]any)["uuid"] == task0 {
				return true
			}
		}
		return false
	}
	score := listed(team.outsider)["score"].(float64)
	for _, query := range []string{"sort=score", fmt.Sprintf("min_score=%g", score), fmt.Sprintf("max_score=%g", score),
		"passed=" + fmt.Sprint(listed(team.outsider)["passed"])} {
		require.False(t, found(team.qa1, query), query)
		require.True(t, found(team.outsider, query), query)
	}
	// Words find it in what they are shown: its file name (good.txt).
	require.True(t, found(team.qa1, "q=good"))
	missing := b.do(t, http.MethodGet, "/calibration-sessions/00000000-0000-4000-8000-000000000000", team.outsider, nil)
	require.Equal(t, missing.Body["message"], b.do(t, http.MethodGet, "/calibration-sessions/"+id, team.outsider, nil).Body["message"],
		"another's session answers as a missing one")

	// Bad submissions: each names the place; nothing is stored.
	ok1 := answersFor(pairs, nil)
	for name, c := range map[string]struct {
		answers []map[string]any
		where   string
	}{
		"missing answer":    {ok1[1:], "body.answers"},
		"unknown criterion": {append(answersFor(pairs, nil)[1:], map[string]any{"task_uuid": pairs[0][0], "criterion_id": "no_such", "answer": "complies"}), "body.answers[" + fmt.Sprint(len(pairs)-1) + "].criterion_id"},
		"repeated":          {append(answersFor(pairs, nil), ok1[0]), "body.answers[" + fmt.Sprint(len(pairs)) + "].criterion_id"},
		"unknown task":      {append(answersFor(pairs, nil)[1:], map[string]any{"task_uuid": "00000000-0000-4000-8000-000000000000", "criterion_id": pairs[0][1], "answer": "complies"}), "body.answers[" + fmt.Sprint(len(pairs)-1) + "].criterion_id"},
	} {
		r = b.submitAnswers(t, team.qa1, id, c.answers)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, c.where, detailsAt(r), name)
	}
	bad := answersFor(pairs, nil)
	bad[0]["answer"] = "maybe"
	requireError(t, b.submitAnswers(t, team.qa1, id, bad), http.StatusBadRequest, CodeValidation)
	requireError(t, b.json(t, http.MethodPost, "/calibration-sessions/"+id+"/submission", team.qa1, map[string]any{}), http.StatusBadRequest, CodeMissingFields)
	require.Zero(t, b.count(t, "SELECT count(*) FROM calibration_answers"))

	// Only the session's analysts submit.
	requireError(t, b.submitAnswers(t, team.sup, id, ok1), http.StatusNotFound, CodeNotFound)
	requireError(t, b.submitAnswers(t, team.outsider, id, ok1), http.StatusNotFound, CodeNotFound)
	requireError(t, b.submitAnswers(t, team.op, id, ok1), http.StatusForbidden, CodeForbidden)

	// qa1 all complies; qa2 differs on item 0; qa3 on items 0 and 1.
	r = b.submitAnswers(t, team.qa1, id, ok1)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, true, details(r)["you"].(map[string]any)["submitted"])
	require.Len(t, details(r)["answers"], len(pairs))
	require.Equal(t, "submitted", nextCalibration(t, stream).Data["change"])
	requireError(t, b.submitAnswers(t, team.qa1, id, ok1), http.StatusConflict, CodeConflict)
	require.NotNil(t, details(b.do(t, http.MethodGet, "/tasks/"+task0, team.qa1, nil))["audit"], "seen once submitted")
	require.Nil(t, details(b.do(t, http.MethodGet, "/tasks/"+task0, team.qa2, nil))["audit"], "qa2 has still to submit")
	r = b.do(t, http.MethodGet, "/calibration-sessions/"+id, team.qa2, nil)
	require.Empty(t, details(r)["answers"], "qa2 cannot see qa1's answers")
	require.Equal(t, http.StatusOK, b.submitAnswers(t, team.qa2, id, answersFor(pairs, map[int]string{0: calibration.DoesNotComply})).Status)
	require.Equal(t, "submitted", nextCalibration(t, stream).Data["change"])
	r = b.submitAnswers(t, team.qa3, id, answersFor(pairs, map[int]string{0: calibration.NotApplicable, 1: calibration.DoesNotComply}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	// The last submission closes it: everyone's answers, the automatic
	// verdicts and the results.
	require.Equal(t, "closed", nextCalibration(t, stream).Data["change"])
	d = details(r)
	require.Equal(t, "closed", d["session"].(map[string]any)["status"])
	require.Len(t, d["answers"], 3*len(pairs))
	require.Contains(t, r.RawBody, `"automatic"`)
	units := make([][]string, len(pairs))
	for i := range pairs {
		units[i] = []string{calibration.Complies, calibration.Complies, calibration.Complies}
	}
	units[0] = []string{calibration.Complies, calibration.DoesNotComply, calibration.NotApplicable}
	units[1] = []string{calibration.Complies, calibration.Complies, calibration.DoesNotComply}
	want, defined := calibration.Alpha(units)
	require.True(t, defined)
	res := d["results"].(map[string]any)
	require.InDelta(t, want, res["overall"].(map[string]any)["alpha"], 1e-12)
	require.InDelta(t, want, d["session"].(map[string]any)["alpha"], 1e-12, "kept for the history")
	require.Equal(t, []any{"qa3"}, res["outliers"])
	first := res["criteria"].([]any)[0].(map[string]any)
	require.Equal(t, pairs[0][1], first["criterion_id"])
	require.NotNil(t, first["percent_agreement"])
	notes = texts(items(t, b.do(t, http.MethodGet, "/notifications", team.qa2, nil)))
	require.Contains(t, notes[0], "La sesión de calibración «Week 48» se ha cerrado (3 de 3 analistas enviaron sus respuestas): los analistas coinciden en el ")
	require.Contains(t, texts(items(t, b.do(t, http.MethodGet, "/notifications", team.sup, nil)))[0], "is closed (3 of 3 analysts submitted)")
	requireError(t, b.submitAnswers(t, team.qa3, id, ok1), http.StatusConflict, CodeConflict)

	// The outsider heard nothing of it.
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/notifications", team.outsider,
		map[string]any{"text": "mine", "variant": "info", "user_id": "qx"}).Status)
	// (Its tasks' own events may come first, late under load: the
	// outsider reads every task, but no event of the session.)
	for ev := outsiderStream.next(t); ev.Type != db.EventNotificationCreated; ev = outsiderStream.next(t) {
		require.False(t, strings.HasPrefix(ev.Type, "calibration."), "the outsider was told %s", ev.Type)
	}

	// Calibrated answers, then applied as a revision naming the session.
	requireError(t, b.json(t, http.MethodPut, "/calibration-sessions/"+id+"/calibrated", team.qa1,
		map[string]any{"answers": ok1[:1]}), http.StatusForbidden, CodeForbidden)
	r = b.json(t, http.MethodPut, "/calibration-sessions/"+id+"/calibrated", team.sup, map[string]any{"answers": []map[string]any{
		{"task_uuid": pairs[0][0], "criterion_id": "no_such", "answer": "complies"}}})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Equal(t, "body.answers[0].criterion_id", detailsAt(r))
	require.Equal(t, task0, pairs[0][0])
	var calibrated []map[string]any
	for i, it := range pairs {
		if it[0] == task0 {
			a := calibration.DoesNotComply
			if i == 0 {
				a = calibration.NotApplicable
			}
			calibrated = append(calibrated, map[string]any{"task_uuid": it[0], "criterion_id": it[1], "answer": a, "comment": "agreed"})
		}
	}
	r = b.json(t, http.MethodPut, "/calibration-sessions/"+id+"/calibrated", team.sup, map[string]any{"answers": calibrated})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "not_applicable", details(r)["items"].([]any)[0].(map[string]any)["calibrated"])
	requireError(t, b.do(t, http.MethodPost, "/calibration-sessions/"+id+"/tasks/"+task0+"/apply", team.qa1, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodPost, "/calibration-sessions/"+id+"/tasks/"+uuids[1].(string)+"/apply", team.sup, nil),
		http.StatusConflict, CodeConflict) // nothing calibrated for it
	requireError(t, b.do(t, http.MethodPost, "/calibration-sessions/"+id+"/tasks/00000000-0000-4000-8000-000000000000/apply", team.sup, nil),
		http.StatusNotFound, CodeNotFound)
	r = b.do(t, http.MethodPost, "/calibration-sessions/"+id+"/tasks/"+task0+"/apply", team.sup, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.EqualValues(t, 2, details(r)["revision"])
	task := details(b.do(t, http.MethodGet, "/tasks/"+task0, team.qa1, nil))
	audit := task["audit"].(map[string]any)
	require.Equal(t, true, auditItem(t, audit, pairs[0][1])["complies"], "met as not applicable")
	require.Equal(t, true, auditItem(t, audit, pairs[0][1])["not_applicable"], "a calibrated not applicable is a verdict")
	require.Equal(t, "agreed", auditItem(t, audit, pairs[0][1])["explanation"])
	require.Equal(t, false, auditItem(t, audit, pairs[1][1])["complies"])
	require.Equal(t, "agreed", auditItem(t, audit, pairs[1][1])["explanation"])
	revs := task["revisions"].([]any)
	require.Equal(t, map[string]any{"id": id, "name": "Week 48"}, revs[len(revs)-1].(map[string]any)["calibration"])
	requireError(t, b.do(t, http.MethodPost, "/calibration-sessions/"+id+"/tasks/"+task0+"/apply", team.sup, nil),
		http.StatusConflict, CodeConflict)

	// A second session, closed by the supervisor before anyone submits.
	r = b.json(t, http.MethodPost, "/calibration-sessions", team.sup, map[string]any{
		"name": "Early close", "task_uuids": uuids[1:], "analysts": []string{"qa1", "qx"}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	second := details(r)["session"].(map[string]any)["id"].(string)
	requireError(t, b.json(t, http.MethodPut, "/calibration-sessions/"+second+"/calibrated", team.sup,
		map[string]any{"answers": calibrated[:1]}), http.StatusConflict, CodeConflict)
	requireError(t, b.do(t, http.MethodPost, "/calibration-sessions/"+second+"/close", team.qa1, nil), http.StatusForbidden, CodeForbidden)
	r = b.do(t, http.MethodPost, "/calibration-sessions/"+second+"/close", team.sup, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "sup", details(r)["session"].(map[string]any)["closed_by"])
	require.Nil(t, details(r)["session"].(map[string]any)["alpha"], "no answers: undefined")
	requireError(t, b.do(t, http.MethodPost, "/calibration-sessions/"+second+"/close", team.sup, nil), http.StatusConflict, CodeConflict)
	secondItems := sessionItems(details(r))
	requireError(t, b.submitAnswers(t, team.outsider, second, answersFor(secondItems, nil)), http.StatusConflict, CodeConflict)

	// The history: supervisors see every session, analysts theirs.
	list := items(t, b.do(t, http.MethodGet, "/calibration-sessions", team.sup, nil))
	require.Equal(t, []string{"Early close", "Week 48"}, column(list, "name"))
	require.InDelta(t, want, list[1]["alpha"], 1e-12)
	require.Equal(t, []string{"Week 48"}, column(items(t, b.do(t, http.MethodGet, "/calibration-sessions", team.qa2, nil)), "name"))
	require.Equal(t, []string{"Early close"}, column(items(t, b.do(t, http.MethodGet, "/calibration-sessions?status=closed", team.outsider, nil)), "name"))
	require.Empty(t, items(t, b.do(t, http.MethodGet, "/calibration-sessions?status=open", team.sup, nil)))
	requireError(t, b.do(t, http.MethodGet, "/calibration-sessions", team.op, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodGet, "/calibration-sessions?status=done", team.sup, nil), http.StatusBadRequest, CodeValidation)

	// Who may be an analyst.
	analysts := items(t, b.do(t, http.MethodGet, "/calibration-analysts", team.sup, nil))
	require.Equal(t, []string{"qa1", "qa2", "qa3", "qx", "root", "sup"}, column(analysts, "id"))
	requireError(t, b.do(t, http.MethodGet, "/calibration-analysts", team.qa1, nil), http.StatusForbidden, CodeForbidden)
}

func TestCalibrationSessionCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	team := b.calibrationTeam(t)
	tasks := b.audited(t, team.qa1, file("good.txt", []byte(goodChat)))
	audited := tasks[0]["uuid"].(string)
	// A task that is not audited: nothing transcribes this call here.
	call := uploaded(t, b.upload(t, team.qa1, file("call.wav", tone(t, "c.wav", 440, 1))))[0]["uuid"].(string)
	ok := func() map[string]any {
		return map[string]any{"name": "Calibration", "task_uuids": []string{audited}, "analysts": []string{"qa1", "qa2"}}
	}
	with := func(k string, v any) map[string]any {
		body := ok()
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
		return body
	}
	for _, c := range []struct {
		name  string
		token string
		body  map[string]any
		code  string
		where string
	}{
		{"analyst", team.qa1, ok(), CodeForbidden, ""},
		{"operator", team.op, ok(), CodeForbidden, ""},
		{"no name", team.sup, with("name", nil), CodeMissingFields, "body.name"},
		{"blank name", team.sup, with("name", "   "), CodeValidation, "body.name"},
		{"control character", team.sup, with("name", "a\tb"), CodeValidation, "body.name"},
		{"long name", team.sup, with("name", strings.Repeat("n", 121)), CodeValidation, "body.name"},
		{"no tasks", team.sup, with("task_uuids", []string{}), CodeValidation, "body.task_uuids"},
		{"unknown task", team.sup, with("task_uuids", []string{audited, "00000000-0000-4000-8000-000000000000"}), CodeValidation, "body.task_uuids[1]"},
		{"malformed task", team.sup, with("task_uuids", []string{"x"}), CodeValidation, "body.task_uuids[0]"},
		{"duplicate tasks", team.sup, with("task_uuids", []string{audited, strings.ToUpper(audited)}), CodeValidation, "body.task_uuids[1]"},
		{"task not audited", team.sup, with("task_uuids", []string{call}), CodeValidation, "body.task_uuids[0]"},
		{"one analyst", team.sup, with("analysts", []string{"qa1"}), CodeValidation, "body.analysts"},
		{"operator as analyst", team.sup, with("analysts", []string{"qa1", "op"}), CodeValidation, "body.analysts[1]"},
		{"unknown analyst", team.sup, with("analysts", []string{"qa1", "nobody"}), CodeValidation, "body.analysts[1]"},
		{"duplicate analysts", team.sup, with("analysts", []string{"qa1", "qa2", "qa1"}), CodeValidation, "body.analysts[2]"},
		{"due in the past", team.sup, with("due_at", "2020-01-01T00:00:00Z"), CodeValidation, "body.due_at"},
		{"due not a time", team.sup, with("due_at", "tomorrow"), CodeValidation, "body.due_at"},
		{"unknown field", team.sup, with("status", "closed"), CodeValidation, "body.status"},
	} {
		r := b.json(t, http.MethodPost, "/calibration-sessions", c.token, c.body)
		status := http.StatusBadRequest
		if c.code == CodeForbidden {
			status = http.StatusForbidden
		}
		requireError(t, r, status, c.code)
		if c.where != "" {
			require.Contains(t, r.RawBody, `"location":"`+c.where+`"`, c.name)
		}
	}
	require.Zero(t, b.count(t, "SELECT count(*) FROM calibration_sessions"), "nothing stored")
	n, err := calibration.Analysts(context.Background(), b.pool)
	require.NoError(t, err)
	require.Len(t, n, 6)
}

// TestCalibrationBlindStream keeps a task's audit out of the event stream
// of an analyst who calibrates it blind, from the moment the session
// starts (the stream was opened before) until they answer: no
// audit.updated or validation event, and task events without score,
// result or review count; nor does the task's view show them its
// validation. An analyst outside the session, and the same analyst
// afterwards, see them.
func TestCalibrationBlindStream(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	team := b.calibrationTeam(t)
	tasks := b.audited(t, team.sup, file("good.txt", []byte(goodChat)), file("rude.txt", []byte(rudeChat)),
		file("other.txt", []byte(goodChat+"\n")), field("operator", "op")) // other bytes: not the same upload
	blindTask, other := tasks[0], tasks[2]
	stream, outsiderStream := b.stream(t, team.qa1), b.stream(t, team.outsider)

	r := b.json(t, http.MethodPost, "/calibration-sessions", team.sup, map[string]any{
		"name": "Blind", "task_uuids": []any{blindTask["uuid"], tasks[1]["uuid"]}, "analysts": []string{"qa1", "qa2"}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["session"].(map[string]any)["id"].(string)
	pairs := sessionItems(details(r))
	require.Equal(t, "started", nextCalibration(t, stream).Data["change"])
	// Opened once the session started: blind from the start.
	lateStream := b.stream(t, team.qa2)

	// edit changes a task's empathy verdict and returns the audit.updated
	// event an analyst outside the session then sees.
	edit := func(task map[string]any, complies bool) sseEvent {
		t.Helper()
		r := b.edit(t, team.sup, editOf(t, task, map[string]bool{"empathy": complies}))
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		for {
			if ev := outsiderStream.next(t); ev.Type == db.EventAuditUpdated && ev.Data["task"].(map[string]any)["uuid"] == task["uuid"] {
				require.NotNil(t, ev.Data["score"])
				return ev
			}
		}
	}
	// untilAuditOf reads an analyst's stream up to the audit.updated event
	// of task, and returns what came before it.
	untilAuditOf := func(stream *sseClient, task map[string]any) []sseEvent {
		t.Helper()
		var before []sseEvent
		for {
			ev := stream.next(t)
			if ev.Type == db.EventAuditUpdated && ev.Data["task"].(map[string]any)["uuid"] == task["uuid"] {
				return before
			}
			before = append(before, ev)
		}
	}
	edit(blindTask, false)
	// Validated: its validation event is withheld too, its task event
	// comes without the audit.
	r = b.validateJSON(t, team.sup, map[string]any{"task_uuid": blindTask["uuid"], "notes": "Revisada.", "isCall": false})
	require.Less(t, r.Status, 300, r.RawBody)
	// The task's view leaves out the validation's record (its notes judge
	// the audit) for them, and only for them.
	require.Nil(t, details(b.do(t, http.MethodGet, "/tasks/"+blindTask["uuid"].(string), team.qa1, nil))["validation"])
	require.NotNil(t, details(b.do(t, http.MethodGet, "/tasks/"+blindTask["uuid"].(string), team.outsider, nil))["validation"])
	// Disputed by its agent: the dispute's events (verdicts, scores) are
	// withheld too.
	r = b.json(t, http.MethodPost, "/disputes", team.op, map[string]any{"task_uuid": blindTask["uuid"],
		"items": []any{claim("empathy", "Dije «lo siento mucho».")}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	edit(other, false)
	for _, ev := range untilAuditOf(lateStream, other) {
		require.False(t, ev.Type == db.EventAuditUpdated || strings.HasPrefix(ev.Type, "validation.") ||
			strings.HasPrefix(ev.Type, "dispute."), "nothing of the blind task's audit: %s", ev.Type)
	}
	var taskEvents int
	for _, ev := range untilAuditOf(stream, other) {
		require.NotEqual(t, db.EventAuditUpdated, ev.Type, "no audit.updated of the blind task")
		require.False(t, strings.HasPrefix(ev.Type, "validation."), "no validation event of the blind task")
		require.False(t, strings.HasPrefix(ev.Type, "dispute."), "no dispute event of the blind task")
		if strings.HasPrefix(ev.Type, "task.") && ev.Data["uuid"] == blindTask["uuid"] {
			taskEvents++
			require.NotContains(t, ev.Data, "score")
			require.NotContains(t, ev.Data, "passed")
			require.NotContains(t, ev.Data, "review_items")
		}
	}
	require.Positive(t, taskEvents, "the blind task's own events still come, without its audit")

	// A bulk action over a filter by the result leaves out the tasks the
	// caller calibrates blind: which ones it acted on would tell.
	a := b.bulkAction(t, team.qa1, map[string]any{"action": "reaudit", "filter": "passed=false", "confirm": true})
	b.bulkEnded(t, team.qa1, a["id"].(string))
	acted := b.bulkResults(t, team.qa1, a["id"].(string), "")
	require.Contains(t, acted, other["uuid"])
	require.NotContains(t, acted, tasks[1]["uuid"], "failed, but calibrated blind")
	// Over tasks named, it acts on them, but the re-audit's score is
	// hidden from the caller.
	a = b.bulkAction(t, team.qa1, map[string]any{"action": "reaudit", "task_uuids": []any{tasks[1]["uuid"], other["uuid"]}, "confirm": true})
	b.bulkEnded(t, team.qa1, a["id"].(string))
	acted = b.bulkResults(t, team.qa1, a["id"].(string), "")
	require.Equal(t, "succeeded: re-audited; its score is hidden from you until you submit your answers to the calibration session",
		acted[tasks[1]["uuid"].(string)])
	require.Contains(t, acted[other["uuid"].(string)], "passing score")
	for _, it := range details(b.do(t, http.MethodGet, "/bulk-actions/"+a["id"].(string)+"/items", team.qa1, nil))["items"].([]any) {
		if item := it.(map[string]any); item["task_uuid"] == tasks[1]["uuid"] {
			require.NotContains(t, item["params"], "score")
			require.NotContains(t, item["params"], "passed")
		}
	}

	// Answered: the analyst sees the session's audits again.
	require.Equal(t, http.StatusOK, b.submitAnswers(t, team.qa1, id, answersFor(pairs, nil)).Status)
	require.Equal(t, "submitted", nextCalibration(t, stream).Data["change"])
	edit(tasks[1], true)
	untilAuditOf(stream, tasks[1])
}

// TestCalibrationReminders reminds, once and in their language, each
// analyst of a session due within a day who has still to answer; not
// those who answered, nor the analysts of a session due later, closed,
// with no due time, or started less than a day before it was due (its
// start told them).
func TestCalibrationReminders(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	events, client := b.startWorkersWith(t, workers.Deps{}, nil)
	team := b.calibrationTeam(t)
	tasks := b.audited(t, team.sup, file("good.txt", []byte(goodChat)), file("rude.txt", []byte(rudeChat)))
	uuids := []any{tasks[0]["uuid"], tasks[1]["uuid"]}
	session := func(name string, due time.Duration, analysts ...string) (string, [][2]string) {
		t.Helper()
		body := map[string]any{"name": name, "task_uuids": uuids, "analysts": analysts}
		if due != 0 {
			body["due_at"] = time.Now().Add(due).Format(time.RFC3339)
		}
		r := b.json(t, http.MethodPost, "/calibration-sessions", team.sup, body)
		require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
		return details(r)["session"].(map[string]any)["id"].(string), sessionItems(details(r))
	}
	soon, pairs := session("Soon", 3*time.Hour, "qa1", "qa2", "qa3")
	session("Later", 72*time.Hour, "qa1", "qa2")
	session("Undated", 0, "qa1", "qa2")
	session("Short notice", 3*time.Hour, "qa1", "qa2")
	closed, _ := session("Closed", time.Hour, "qa1", "qa2")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodPost, "/calibration-sessions/"+closed+"/close", team.sup, nil).Status)
	// Soon and Closed were started days ago.
	_, err := b.pool.Exec(context.Background(), `UPDATE calibration_sessions SET created_at = now() - interval '3 days'
		WHERE id IN ($1, $2)`, soon, closed)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, b.submitAnswers(t, team.qa3, soon, answersFor(pairs, nil)).Status)

	reminders := func(token string) []string {
		t.Helper()
		var out []string
		for _, text := range texts(items(t, b.do(t, http.MethodGet, "/notifications", token, nil))) {
			if strings.Contains(text, "is due on") || strings.Contains(text, "vence el") {
				out = append(out, text)
			}
		}
		return out
	}
	runPeriodic(t, client, events, jobs.RemindCalibrationsArgs{})
	runPeriodic(t, client, events, jobs.RemindCalibrationsArgs{})
	require.Len(t, reminders(team.qa1), 1, "once, for the session due soon only")
	require.Contains(t, reminders(team.qa1)[0], "Calibration session “Soon” is due on")
	require.Len(t, reminders(team.qa2), 1)
	require.Contains(t, reminders(team.qa2)[0], "La sesión de calibración «Soon» vence el")
	require.Empty(t, reminders(team.qa3), "answered")
	require.Empty(t, reminders(team.sup))
}
