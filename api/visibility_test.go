package api

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/scoring"
)

// hiddenFields are what a viewer who may not see a task's audit is not
// shown of it, wherever the task is named: a JSON object with its uuid, or
// a row of an export.
var hiddenFields = []string{"score", "passed", "review_items", "audit", "failed", "judged",
	"score_before", "failed_criteria", "verdict", "complies", "explanation"}

// hiddenColumns are the columns of an export left empty in the row of a
// task whose audit the viewer may not see.
var hiddenColumns = append([]string{"audit_revision"}, hiddenFields...)

// viewerSecrets is what one viewer must never be shown: markers (scores,
// words of explanations, criteria planted in audits they may not see),
// the tasks whose audit they may not see, and the filters that must not
// find a task (the value of a query parameter → tasks it must not list).
type viewerSecrets struct {
	name, token string
	markers     map[string]string // marker → which leak it would be
	hidden      []string          // tasks whose audit fields must be absent
	tasks       []string          // the planted tasks their path ids take
	probes      map[string][]probe
	// transcripts are words of the planted tasks' transcripts, by task: an
	// answer that quotes one must have recorded the read first.
	transcripts map[string]string
}

// probe is a value of a query parameter and the tasks a request with it
// must not name.
type probe struct {
	value   string
	unnamed []string
}

// visibilityWorld is the seeded database the enumerating test walks.
type visibilityWorld struct {
	b                                  *testBundle
	tok                                map[string]string
	hidden, kept, erased, blind, queue string // task uuids
	blindCampaign, keptCampaign        string // campaign ids
	dispute, session, coaching         string
}

// plantAudit stores for task id an audit of the given score whose failed
// items are criteria, each explained by explanation, as the audit worker
// stores an engine's audit (with its events), and tells the uploader the
// result as the worker does.
func (b *testBundle) plantAudit(t *testing.T, id string, score float64, explanation string, criteria ...string) {
	t.Helper()
	ctx := context.Background()
	res := scoring.Result{Score: score, Passed: false, PassingScore: 85, ScorecardVersion: 1}
	for _, c := range criteria {
		res.Items = append(res.Items, scoring.Item{CriterionID: c, Category: "OPENING", Question: "¿" + c + "?",
			Weight: 1, Complies: false, Explanation: explanation})
	}
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		task, err := lifecycle.Finish(ctx, tx, db.AuditRevision{TaskUUID: id, Result: res, Source: db.AuditByEngine, Engine: "rules"}, lifecycle.With{})
		if err != nil {
			return err
		}
		_, err = db.NotificationCreate(ctx, tx, lifecycle.Notice(task.UploadedBy, task, "warning",
			l10n.T("%s was audited: %s.", task.FileName, fmt.Sprintf("%.2f, did not pass", score))))
		return err
	}))
}

// wordChat is a chat whose customer says word, unique to it.
func wordChat(word string) []byte {
	return []byte(goodChat + "\nCliente: Por cierto, mi referencia es " + word + ".\n")
}

// seedVisibility plants, with no worker running, the tasks the
// enumerating test looks for:
//   - hidden: bob's automatic audit in a campaign that hides those (43.21, "vexorbium");
//   - kept: bob's automatic audit, then deleted by retention (61.09, "quillendrax", criterion zqretcrit);
//   - erased: bob's reviewed audit, then erased with its transcript (criterion zqerasecrit);
//   - blind: carl's validated and disputed audit, in a calibration session maria has not answered (56.78, "snorkelwump", zqblindcrit);
//   - queue: carl's reviewed audit assigned to maria, in the same session.
func seedVisibility(t *testing.T) *visibilityWorld {
	t.Helper()
	b := setup(t)
	ctx := context.Background()
	w := &visibilityWorld{b: b, tok: map[string]string{}}
	for who, r := range map[string]string{"bob": "operator", "carl": "operator", "maria": "quality", "jon": "quality", "sup": "supervisor"} {
		w.tok[who] = b.issuer.token(t, who, r)
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", w.tok[who], nil).Status)
	}
	campaign := func(name string) string {
		r := b.json(t, http.MethodPost, "/campaigns", w.tok["sup"], map[string]any{"name": name})
		require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
		return details(r)["id"].(string)
	}
	w.blindCampaign, w.keptCampaign = campaign("Blind week"), campaign("Kept briefly")
	upload := func(word, operator, campaign string, more ...part) string {
		parts := append([]part{file(campaign+operator+".txt", wordChat(word)), field("language", "es"), field("operator", operator)}, more...)
		if campaign != "" {
			parts = append(parts, field("campaign", campaign))
		}
		return uploaded(t, b.upload(t, w.tok["maria"], parts...))[0]["uuid"].(string)
	}
	w.hidden = upload("trasquilon", "bob", "")
	w.kept = upload("pimpollera", "bob", "Kept briefly")
	w.erased = upload("borborigmo", "bob", "", field("external_id", "cust-erase-1"))
	w.blind = upload("gorgonzoliza", "carl", "Blind week")
	w.queue = upload("zarandajas", "carl", "Blind week")
	b.plantAudit(t, w.hidden, 43.21, "vexorbium", "greeting")
	b.plantAudit(t, w.kept, 61.09, "quillendrax", "greeting", "zqretcrit")
	b.plantAudit(t, w.erased, 77, "florpentine", "greeting", "zqerasecrit")
	b.plantAudit(t, w.blind, 56.78, "snorkelwump", "greeting", "zqblindcrit")
	b.plantAudit(t, w.queue, 56.78, "snorkelwump", "greeting", "zqblindcrit")

	// Retention deletes the kept audit; an erasure of the customer the
	// erased one (reviewed first, so its score is bob's to see).
	for _, id := range []string{w.erased, w.queue} {
		r := b.do(t, http.MethodPost, "/tasks/"+id+"/review", w.tok["jon"], nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	}
	var f db.Forgotten
	require.NoError(t, db.TasksForget(ctx, b.pool, db.ForgetAudit, []string{w.kept, w.erased}, &f))
	require.NoError(t, db.TasksForget(ctx, b.pool, db.ForgetTranscript, []string{w.erased}, &f))

	// The blind tasks go to a calibration session maria has still to
	// answer; then one is validated and disputed by its agent, the other
	// is assigned to maria.
	_, err := b.pool.Exec(ctx, `UPDATE tasks SET assignee_id = 'maria', assigned_at = now() WHERE uuid = $1`, w.queue)
	require.NoError(t, err)
	r := b.json(t, http.MethodPost, "/calibration-sessions", w.tok["sup"], map[string]any{"name": "Week 48",
		"task_uuids": []string{w.blind, w.queue}, "analysts": []string{"maria", "jon"}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	w.session = details(r)["session"].(map[string]any)["id"].(string)
	r = b.validateJSON(t, w.tok["sup"], map[string]any{"task_uuid": w.blind, "notes": "ok", "isCall": false})
	require.Contains(t, []int{http.StatusOK, http.StatusAccepted, http.StatusBadGateway}, r.Status, r.RawBody)
	r = b.json(t, http.MethodPost, "/disputes", w.tok["carl"], map[string]any{"task_uuid": w.blind,
		"items": []map[string]any{{"criterion_id": "greeting", "comment": "I did greet."}}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	w.dispute = details(r)["id"].(string)
	// A supervisor coaches bob on a criterion of his hidden audit: the
	// item links the task, and tells nothing of its audit.
	var hiddenCampaign string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT campaign_id FROM tasks WHERE uuid = $1`, w.hidden).Scan(&hiddenCampaign))
	r = b.json(t, http.MethodPost, "/coaching", w.tok["sup"], map[string]any{"agent_id": "bob", "campaign_id": hiddenCampaign,
		"title": "Greeting", "focus": "Greet first.", "criteria": []string{"greeting"}, "due_at": time.Now().Add(time.Hour).Format(time.RFC3339),
		"links": []map[string]any{{"task_uuid": w.hidden, "quote": "Agente: buenos días"}}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	w.coaching = details(r)["id"].(string)
	return w
}

// secrets are what bob (the agent of hidden audits) and maria (calibrating
// blind) must never be shown.
func (w *visibilityWorld) secrets() []*viewerSecrets {
	bob := &viewerSecrets{name: "bob", token: w.tok["bob"],
		markers: map[string]string{
			"43.21": "the hidden audit's score", "vexorbium": "the hidden audit's explanation",
			"61.09": "leak 4: a retention-deleted automatic audit's score", "quillendrax": "leak 4: its explanation",
			"zqretcrit":   "leak 4: a retention-deleted automatic audit's verdict",
			"zqerasecrit": "leak 5: an erased audit's verdict", "florpentine": "leak 5: an erased audit's explanation",
		},
		hidden: []string{w.hidden, w.kept}, tasks: []string{w.hidden, w.kept, w.erased},
		probes: map[string][]probe{
			"q":                {{"vexorbium", []string{w.hidden}}, {"quillendrax", []string{w.kept}}, {"trasquilon", nil}},
			"failed_criterion": {{"zqretcrit", []string{w.kept}}, {"zqerasecrit", []string{w.erased}}, {"greeting", []string{w.hidden, w.kept, w.erased}}},
			"passed":           {{"false", []string{w.hidden, w.kept}}, {"true", []string{w.hidden, w.kept}}},
			"needs_review":     {{"true", []string{w.hidden, w.kept}}, {"false", []string{w.hidden, w.kept}}},
			"min_score":        {{"0", []string{w.hidden, w.kept}}},
			"max_score":        {{"100", []string{w.hidden, w.kept}}},
			"campaign":         {{"Kept briefly", nil}, {w.keptCampaign, nil}},
			"operator":         {{"bob", nil}},
		},
		transcripts: map[string]string{w.hidden: "trasquilon", w.kept: "pimpollera"},
	}
	maria := &viewerSecrets{name: "maria", token: w.tok["maria"],
		markers: map[string]string{"56.78": "a blind task's score", "snorkelwump": "a blind task's explanation"},
		hidden:  []string{w.blind, w.queue}, tasks: []string{w.blind, w.queue},
		probes: map[string][]probe{
			"q":                {{"snorkelwump", []string{w.blind, w.queue}}, {"gorgonzoliza", nil}},
			"failed_criterion": {{"zqblindcrit", []string{w.blind, w.queue}}, {"greeting", []string{w.blind, w.queue}}},
			"passed":           {{"false", []string{w.blind, w.queue}}, {"true", []string{w.blind, w.queue}}},
			"needs_review":     {{"true", []string{w.blind, w.queue}}},
			"min_score":        {{"0", []string{w.blind, w.queue}}},
			"max_score":        {{"100", []string{w.blind, w.queue}}},
			"campaign":         {{"Blind week", nil}, {w.blindCampaign, nil}},
			"operator":         {{"carl", nil}},
			"include_reviewed": {{"true", nil}},
		},
		transcripts: map[string]string{w.blind: "gorgonzoliza", w.queue: "zarandajas"},
	}
	return []*viewerSecrets{bob, maria}
}

// fillFor replaces the path parameters of rt with the ids v's requests
// take: each planted task of v's for {uuid} (its file's SHA-256 for
// {sha256}), the object its prefix names for {id}.
func (w *visibilityWorld) fillFor(t *testing.T, v *viewerSecrets, path string) []string {
	id := ""
	switch {
	case strings.HasPrefix(path, "/disputes/"):
		id = w.dispute
	case strings.HasPrefix(path, "/calibration-sessions/"):
		id = w.session
	case strings.HasPrefix(path, "/coaching/"):
		id = w.coaching
	case strings.HasPrefix(path, "/campaigns/"):
		id = w.blindCampaign
		if v.name == "bob" {
			id = w.keptCampaign
		}
	case strings.HasPrefix(path, "/admin/jobs/"):
		id = "987654321"
	default:
		id = "00000000-0000-4000-8000-000000000000"
	}
	var out []string
	for _, task := range v.tasks {
		var sum string
		if strings.Contains(path, "{sha256}") {
			require.NoError(t, w.b.pool.QueryRow(context.Background(), `SELECT sha256 FROM tasks WHERE uuid = $1`, task).Scan(&sum))
		}
		p := strings.NewReplacer("{uuid}", task, "{id}", id, "{n}", "1", "{version}", "1", "{sha256}", sum).Replace(path)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// queries are the query strings v's requests to op take: none, then each
// probe of each parameter op declares, then each value of an enum.
func (v *viewerSecrets) queries(op *huma.Operation) []struct {
	query   string
	unnamed []string
} {
	out := []struct {
		query   string
		unnamed []string
	}{{"", nil}}
	for _, p := range op.Parameters {
		if p.In != "query" {
			continue
		}
		for _, pr := range v.probes[p.Name] {
			out = append(out, struct {
				query   string
				unnamed []string
			}{p.Name + "=" + url.QueryEscape(pr.value), pr.unnamed})
		}
		if p.Schema != nil {
			for _, e := range p.Schema.Enum {
				out = append(out, struct {
					query   string
					unnamed []string
				}{fmt.Sprintf("%s=%v", p.Name, e), nil})
			}
		}
	}
	return out
}

// check fails when answer (a JSON or CSV body, or an event's data) shows
// v anything of theirs to hide.
func (v *viewerSecrets) check(t *testing.T, where, answer string, unnamed []string) {
	t.Helper()
	lower := strings.ToLower(answer)
	for m, leak := range v.markers {
		if i := strings.Index(lower, strings.ToLower(m)); i >= 0 {
			t.Errorf("%s shows %s %s: …%s…", where, v.name, leak, answer[max(0, i-120):min(len(answer), i+60)])
		}
	}
	for _, id := range unnamed {
		if strings.Contains(answer, id) {
			t.Errorf("%s: the filter finds for %s task %s, whose audit they may not see", where, v.name, id)
		}
	}
	var doc any
	if json.Unmarshal([]byte(answer), &doc) == nil {
		v.walk(t, where, doc)
		return
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(answer, "\ufeff"))).ReadAll()
	if err != nil || len(rows) < 2 {
		return
	}
	for _, row := range rows[1:] {
		if len(row) != len(rows[0]) || !slices.ContainsFunc(v.hidden, func(id string) bool { return slices.Contains(row, id) }) {
			continue
		}
		for i, h := range rows[0] {
			if slices.Contains(hiddenColumns, h) {
				if row[i] != "" {
					t.Errorf("%s: the export shows %s the %s (%s) of a task whose audit they may not see", where, v.name, h, row[i])
				}
			}
		}
	}
}

// walk fails on any object naming one of v's hidden tasks that holds one
// of the hidden fields.
func (v *viewerSecrets) walk(t *testing.T, where string, doc any) {
	switch d := doc.(type) {
	case map[string]any:
		for _, k := range []string{"uuid", "task_uuid"} {
			if id, ok := d[k].(string); ok && slices.Contains(v.hidden, id) {
				for _, f := range hiddenFields {
					if val, ok := d[f]; ok && val != nil {
						if s, ok := val.([]any); ok && len(s) == 0 {
							continue
						}
						t.Errorf("%s shows %s the %s of task %s, whose audit they may not see: %v", where, v.name, f, id, val)
					}
				}
			}
		}
		for _, e := range d {
			v.walk(t, where, e)
		}
	case []any:
		for _, e := range d {
			v.walk(t, where, e)
		}
	}
}

// unzipped is body, or the text of every file of it when it is a zip
// archive (an XLSX workbook), joined.
func unzipped(t *testing.T, body string) string {
	z, err := zip.NewReader(strings.NewReader(body), int64(len(body)))
	if err != nil {
		return body
	}
	var all strings.Builder
	for _, f := range z.File {
		rc, err := f.Open()
		require.NoError(t, err)
		_, err = io.Copy(&all, rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
	}
	return all.String()
}

// transcriptReads counts v's recorded reads of task's transcript.
func (w *visibilityWorld) transcriptReads(t *testing.T, v *viewerSecrets, task string) int {
	return w.b.count(t, `SELECT count(*) FROM access_records WHERE user_id = $1 AND task_uuid = $2 AND kind = 'transcript'`, v.name, task)
}

// TestNothingHiddenLeaks walks every operation of the OpenAPI document (a
// route added later included) as an agent whose audits are hidden from
// them and as an analyst calibrating tasks blind, over tasks planted with
// recognisable scores, explanation words and criteria, with every
// planted id and every probing value of the query parameters each
// operation declares, and fails if an answer or an event of the stream
// shows them what the visibility policy hides, or a search quotes a
// transcript without recording the read.
func TestNothingHiddenLeaks(t *testing.T) {
	t.Parallel()
	w := seedVisibility(t)
	all := routes(t, w.b.server)
	viewers := w.secrets()
	t.Run("reads", func(t *testing.T) {
		for _, v := range viewers {
			t.Run(v.name, func(t *testing.T) {
				t.Parallel()
				for _, rt := range all {
					if rt.method != http.MethodGet || rt.path == "/notifications/events" || !rt.secured() {
						continue
					}
					for _, path := range w.fillFor(t, v, rt.path) {
						for _, q := range v.queries(rt.op) {
							before := map[string]int{}
							for task := range v.transcripts {
								before[task] = w.transcriptReads(t, v, task)
							}
							target := path
							if q.query != "" {
								target += "?" + q.query
							}
							r := w.b.send(t, rt.method, target, bearer(v.token))
							where := rt.method + " " + target
							v.check(t, where, unzipped(t, r.RawBody), q.unnamed)
							for task, word := range v.transcripts {
								if strings.Contains(r.RawBody, word) && w.transcriptReads(t, v, task) <= before[task] {
									t.Errorf("%s quotes %s's transcript of %s without recording the read", where, v.name, task)
								}
							}
						}
					}
				}
			})
		}
	})
	t.Run("events", func(t *testing.T) {
		for _, v := range viewers {
			t.Run(v.name, func(t *testing.T) {
				t.Parallel()
				s := w.b.stream(t, v.token, "Last-Event-ID", "1")
				end := w.b.notify(t, v.token, map[string]any{"text": "end of " + v.name, "variant": "info", "user_id": v.name})
				for {
					ev := s.next(t)
					raw, err := json.Marshal(ev.Data)
					require.NoError(t, err)
					v.check(t, "event "+ev.Type, string(raw), nil)
					if ev.Data["id"] == end {
						break
					}
				}
			})
		}
	})
	t.Run("writes", func(t *testing.T) {
		// After the reads: an analyst's write (a review) may change what
		// the agent is shown. Bodies are empty: what is answered, error or
		// not, must not show what is hidden.
		for _, v := range viewers {
			for _, rt := range all {
				if rt.method == http.MethodGet || !rt.secured() {
					continue
				}
				for _, path := range w.fillFor(t, v, rt.path) {
					r := w.b.send(t, rt.method, path, bearer(v.token))
					v.check(t, rt.method+" "+path, r.RawBody, nil)
				}
			}
		}
	})
}

// TestVisibilityLeaksClosed holds, one subtest each, the leaks issue 39
// found, on the world TestNothingHiddenLeaks walks: what each surface now
// answers instead.
func TestVisibilityLeaksClosed(t *testing.T) {
	t.Parallel()
	w := seedVisibility(t)
	b, bob, maria, sup := w.b, w.tok["bob"], w.tok["maria"], w.tok["sup"]
	get := func(t *testing.T, path, token string) response {
		t.Helper()
		r := b.do(t, http.MethodGet, path, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return r
	}
	exported := func(t *testing.T, path, token, uuid string) map[string]string {
		t.Helper()
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(get(t, path, token).RawBody, "\ufeff"))).ReadAll()
		require.NoError(t, err)
		for _, row := range rows[1:] {
			if row[0] == uuid {
				out := map[string]string{}
				for i, h := range rows[0] {
					out[h] = row[i]
				}
				return out
			}
		}
		t.Fatalf("%s has no row of %s", path, uuid)
		return nil
	}
	listed := func(t *testing.T, query, token string) []string {
		t.Helper()
		var ids []string
		for _, it := range details(get(t, "/tasks?"+query, token))["tasks"].([]any) {
			ids = append(ids, it.(map[string]any)["uuid"].(string))
		}
		return ids
	}

	t.Run("1 a blind analyst's reviewed queue", func(t *testing.T) {
		q := b.queue(t, maria, "?include_reviewed=true")
		require.Len(t, q, 1)
		require.Equal(t, w.queue, q[0]["uuid"])
		require.Nil(t, q[0]["score"])
		require.Nil(t, q[0]["passed"])
		require.Nil(t, q[0]["review_items"])
	})
	t.Run("2 a blind analyst's figures of a campaign and an agent", func(t *testing.T) {
		for _, query := range []string{"campaign=Blind+week", "operator=carl"} {
			d := details(get(t, "/stats/dashboard?"+query, maria))
			require.Equal(t, float64(2), d["tasks"], query)
			require.Equal(t, float64(0), d["audited"], query)
			require.Nil(t, d["average_score"], query)
			require.Empty(t, d["criteria_failed"], query)
			// Their supervisor, who is not calibrating, counts both.
			require.Equal(t, float64(2), details(get(t, "/stats/dashboard?"+query, sup))["audited"], query)
		}
	})
	t.Run("3 a hidden audit's explanation is not searched nor quoted", func(t *testing.T) {
		require.Empty(t, listed(t, "q=vexorbium", bob))
		require.Equal(t, []string{w.hidden}, listed(t, "q=vexorbium", sup))
		found := details(get(t, "/tasks?q=trasquilon", bob))["tasks"].([]any)
		require.Len(t, found, 1)
		require.NotContains(t, fmt.Sprint(found[0]), "vexorbium")
		require.Contains(t, fmt.Sprint(found[0].(map[string]any)["snippet"]), "trasquilon", "the transcript is quoted")
	})
	t.Run("4 a retention-deleted automatic audit stays hidden from its agent", func(t *testing.T) {
		require.Contains(t, listed(t, "", bob), w.kept)
		require.NotContains(t, listed(t, "passed=false", bob), w.kept)
		row := exported(t, "/tasks/export", bob, w.kept)
		require.Empty(t, row["score"])
		require.Empty(t, row["passed"])
		d := details(get(t, "/stats/dashboard?campaign=Kept+briefly", bob))
		require.Equal(t, float64(0), d["audited"])
		// Analysts still see the score that stays.
		require.Equal(t, "61.09", exported(t, "/tasks/export", sup, w.kept)["score"])
	})
	t.Run("5 an erasure leaves no verdicts", func(t *testing.T) {
		for _, token := range []string{bob, sup} {
			require.Empty(t, listed(t, "failed_criterion=zqerasecrit", token))
			row := exported(t, "/tasks/export", token, w.erased)
			require.Equal(t, "77", strings.TrimSuffix(row["score"], ".00"), "the score stays")
			require.Empty(t, row["greeting"], "no criterion's verdict")
			require.NotContains(t, get(t, "/stats/dashboard", token).RawBody, "zqerasecrit")
		}
	})
	t.Run("6 a blind analyst's notifications", func(t *testing.T) {
		r := get(t, "/notifications?limit=500", maria)
		require.NotContains(t, r.RawBody, "56.78")
		// Kept, to be shown once they submit their answers.
		var n int
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications
			WHERE user_id = 'maria' AND task_uuid = ANY($1::uuid[])`, []string{w.blind, w.queue}).Scan(&n))
		require.Equal(t, 2, n)
	})
	t.Run("7 a blind analyst's dispute", func(t *testing.T) {
		requireError(t, b.do(t, http.MethodGet, "/disputes/"+w.dispute, maria, nil), http.StatusConflict, CodeConflict)
		require.NotContains(t, get(t, "/disputes?status=all", maria).RawBody, w.dispute)
		require.Equal(t, 56.78, details(get(t, "/disputes/"+w.dispute, sup))["score_before"])
	})
	t.Run("8 a snippet's read of a transcript is recorded", func(t *testing.T) {
		v := &viewerSecrets{name: "maria"}
		before := w.transcriptReads(t, v, w.blind)
		require.Contains(t, get(t, "/tasks?q=gorgonzoliza", maria).RawBody, "gorgonzoliza")
		require.Equal(t, before+1, w.transcriptReads(t, v, w.blind))
	})
	t.Run("9 the export leaves a hidden audit's figures out", func(t *testing.T) {
		for _, shown := range []struct{ token, uuid string }{{bob, w.hidden}, {maria, w.blind}} {
			row := exported(t, "/tasks/export", shown.token, shown.uuid)
			require.Empty(t, row["review_items"])
			require.Empty(t, row["audit_revision"])
		}
		require.Equal(t, "1", exported(t, "/tasks/export", sup, w.hidden)["audit_revision"])
	})
	t.Run("10 a blind analyst may not change, decide or validate the audit", func(t *testing.T) {
		// Each answer (the new revision's breakdown, or the validation's
		// e-mail, which goes to the validator when nobody else is set)
		// would show the audit: each is refused, before anything else is
		// looked at, and nothing is recorded.
		var revisions int
		revisionsOf := func() int {
			require.NoError(t, b.pool.QueryRow(context.Background(),
				`SELECT count(*) FROM audit_revisions WHERE task_uuid = $1`, w.queue).Scan(&revisions))
			return revisions
		}
		before := revisionsOf()
		for what, r := range map[string]response{
			"an edit": b.edit(t, maria, map[string]any{"task_uuid": w.queue, "file_name": "chat.txt", "isCall": false,
				"audit": []map[string]any{{"category": "OPENING", "question": "¿greeting?", "complies": true, "explanation": "Saludó."}}}),
			"a decision": b.json(t, http.MethodPost, "/tasks/"+w.queue+"/pending-verdicts", maria, map[string]any{"all": true}),
			"a validation": b.validateJSON(t, maria, map[string]any{"task_uuid": w.queue, "notes": "ok", "isCall": false,
				"accept_pending": true}),
		} {
			require.Equal(t, http.StatusConflict, r.Status, "%s: %s", what, r.RawBody)
			require.Contains(t, r.RawBody, `until you submit your answers to calibration session \"Week 48\"`, what)
			require.NotContains(t, r.RawBody, "56.78", what)
		}
		require.Equal(t, before, revisionsOf())
		require.Equal(t, "audited", details(get(t, "/tasks/"+w.queue, sup))["status"])
	})
}
