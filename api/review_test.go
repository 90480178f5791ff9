package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/workers"
)

// reviewThreshold is AUDIT_REVIEW_CONFIDENCE in these tests.
const reviewThreshold = 0.8

// criterion is a criterion of weight 10 for calls and chats with rule.
func criterion(id, category, question, rule string) scoring.Criterion {
	return scoring.Criterion{ID: id, Category: category, Question: question, Weight: 10, AppliesTo: scoring.Both,
		Rule: json.RawMessage(rule)}
}

// reviewCriteria is a scorecard whose rules engine verdicts on goodChat and
// rudeChat have chosen assessments: the greeting is said in goodChat
// (evidence, 0.95) and not in rudeChat (absence, 0.6: to review); no
// insult is said in either (absence, 0.9); a callback is offered in
// neither (absence, 0.5: to review).
var reviewCriteria = []scoring.Criterion{
	criterion("greeting", "OPENING", "¿Saludó al cliente?", `{"any": ["buenos dias"], "absence_confidence": 0.6}`),
	criterion("polite", "COMPLIANCE", "¿Evitó los insultos?", `{"none": ["idiota"], "absence_confidence": 0.9}`),
	criterion("callback", "CLOSING", "¿Ofreció devolver la llamada?", `{"any": ["le llamaremos"], "absence_confidence": 0.5}`),
}

// publish publishes criteria as the default campaign's next scorecard
// version as supervisor sue and returns its recompute_audits job id.
func (b *testBundle) publish(t *testing.T, sue string, criteria ...scoring.Criterion) int64 {
	t.Helper()
	r := b.json(t, http.MethodPut, "/campaigns/"+campaignID(t, b, sue)+"/scorecard", sue, map[string]any{"criteria": criteria})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	return int64(details(r)["recompute_job_id"].(float64))
}

// assessment is an item's basis, confidence and needs_review as shown.
func assessment(t *testing.T, audit map[string]any, id string) string {
	t.Helper()
	it := auditItem(t, audit, id)
	return fmt.Sprintf("%v %v %v", it["basis"], it["confidence"], it["needs_review"])
}

func TestRecomputationsMarkEngineVerdictsForReview(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	alice, _, root := b.users(t)
	sue := b.issuer.token(t, "sue", "supervisor")
	deps := workers.Deps{ReviewConfidence: reviewThreshold}
	b.publish(t, sue, reviewCriteria[:2]...)
	var task map[string]any
	t.Run("audited", func(t *testing.T) {
		b.startWorkers(t, deps)
		task = b.audited(t, alice, file("good.txt", []byte(goodChat)))[0]
	})
	id := task["uuid"].(string)
	audit := task["audit"].(map[string]any)
	require.Equal(t, "evidence 0.95 <nil>", assessment(t, audit, "greeting"))
	require.Equal(t, "absence 0.9 <nil>", assessment(t, audit, "polite"))
	// The evidence says in which turn it is; an absence quotes nothing.
	require.Equal(t, []any{float64(1)}, auditItem(t, audit, "greeting")["evidence_turns"])
	require.NotContains(t, auditItem(t, audit, "polite"), "evidence_turns")

	// recompute_audits: the engine judges the criteria a new version adds,
	// and marks those it is unsure of.
	survey := criterion("survey", "CLOSING", "¿Invitó a la encuesta?", `{"any": ["encuesta"], "absence_confidence": 0.85}`)
	t.Run("recomputed", func(t *testing.T) {
		b.startWorkers(t, deps)
		b.publish(t, sue, append(reviewCriteria[:3:3], survey)...)
		require.Eventually(t, func() bool {
			audit = details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["audit"].(map[string]any)
			return audit["scorecard_version"] == float64(3)
		}, 30*time.Second, 20*time.Millisecond)
	})
	require.Equal(t, "recompute", audit["source"])
	require.Equal(t, "absence 0.5 true", assessment(t, audit, "callback"))
	require.Equal(t, "absence 0.85 <nil>", assessment(t, audit, "survey"))
	require.Equal(t, "evidence 0.95 <nil>", assessment(t, audit, "greeting"), "kept as it was")

	// recompute_audit: an edit after a version whose recomputation did not
	// run; the engine judges the criterion the revision lacks, and marks it.
	transfer := criterion("transfer", "SKILLS", "¿Evitó transferir la llamada?", `{"none": ["le transfiero"], "absence_confidence": 0.3}`)
	job := b.publish(t, sue, append(reviewCriteria[:3:3], survey, transfer)...)
	r := b.do(t, http.MethodPost, fmt.Sprintf("/admin/jobs/%d/cancel", job), root, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	b.startWorkers(t, deps)
	r = b.edit(t, alice, editOf(t, map[string]any{"uuid": id, "file_name": "good.txt", "kind": "chat", "audit": audit},
		map[string]bool{"callback": false}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	edited := details(r)
	require.Equal(t, float64(4), edited["scorecard_version"])
	require.Equal(t, "absence 0.3 true", assessment(t, edited, "transfer"))
	require.Equal(t, "<nil> <nil> <nil>", assessment(t, edited, "callback"), "an analyst's verdict needs no review")
	require.Equal(t, "absence 0.85 <nil>", assessment(t, edited, "survey"), "left out of the edit: kept as it was")
}

// cleanChat meets every criterion of reviewCriteria with evidence.
const cleanChat = `Agente: Buenos dias, le atiende Marta.
Cliente: Hola, quiero cambiar mi tarifa.
Agente: De acuerdo, le llamaremos mañana con las opciones.
`

func TestReviewRouting(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	alice, _, _ := b.users(t)
	olga := b.issuer.token(t, "olga", "operator")
	sue := b.issuer.token(t, "sue", "supervisor")
	b.publish(t, sue, reviewCriteria...)
	b.startWorkers(t, workers.Deps{ReviewConfidence: reviewThreshold})
	good := b.audited(t, alice, file("good.txt", []byte(goodChat)), field("operator", "olga"))[0]
	b.audited(t, alice, file("rude.txt", []byte(rudeChat)), field("operator", "bob"))
	clean := b.audited(t, alice, file("clean.txt", []byte(cleanChat)), field("operator", "olga"))[0]
	b.seedTask(t, "olga", time.Now(), "transcribed", nil, nil, nil, "chat", 0) // not audited: file name "f"

	// Each item says how the engine reached it and whether to review it.
	audit := good["audit"].(map[string]any)
	require.Equal(t, "evidence 0.95 <nil>", assessment(t, audit, "greeting"))
	require.Equal(t, "absence 0.9 <nil>", assessment(t, audit, "polite"))
	require.Equal(t, "absence 0.5 true", assessment(t, audit, "callback"))
	require.Equal(t, float64(1), good["review_items"])
	require.Equal(t, float64(0), clean["review_items"])

	list := func(token, query string) map[string]any {
		t.Helper()
		r := b.do(t, http.MethodGet, "/tasks?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		out := map[string]any{}
		for _, x := range details(r)["tasks"].([]any) {
			task := x.(map[string]any)
			out[task["file_name"].(string)] = task["review_items"]
		}
		require.Equal(t, float64(len(out)), details(r)["total"], query)
		return out
	}
	require.Equal(t, map[string]any{"good.txt": float64(1), "rude.txt": float64(2), "clean.txt": float64(0), "f": nil}, list(alice, ""))
	require.Equal(t, map[string]any{"good.txt": float64(1), "rude.txt": float64(2)}, list(alice, "needs_review=true"))
	require.Equal(t, map[string]any{"clean.txt": float64(0)}, list(alice, "needs_review=false"))
	require.Equal(t, map[string]any{"good.txt": float64(1)}, list(alice, "needs_review=true&operator=olga"))
	// An agent is not shown automatic audits by default (README: QA
	// workflow): the filter on the result does not match them, until the
	// campaign shows them.
	require.Equal(t, map[string]any{}, list(olga, "needs_review=true"), "an operator, their own automatic audits hidden")
	require.Equal(t, http.StatusOK, b.json(t, http.MethodPatch, "/campaigns/"+campaignID(t, b, alice), sue,
		map[string]any{"operator_sees_automatic": true}).Status)
	// Verdicts to review are pending: never shown to agents, and no score
	// to filter on.
	require.Equal(t, map[string]any{}, list(olga, "needs_review=true"), "an operator, their own pending audits hidden")
	require.Equal(t, map[string]any{"clean.txt": float64(0), "good.txt": nil, "f": nil}, list(olga, ""),
		"an operator, their own decided audits shown, the pending one without its review items")
	require.Equal(t, map[string]any{}, list(alice, "needs_review=true&min_score=50&sort=score"))
	for _, bad := range []string{"needs_review=maybe", "needs_review=1"} {
		r := b.do(t, http.MethodGet, "/tasks?"+bad, alice, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, "query.needs_review", bad)
	}

	// The share of verdicts confirmed automatically: good 2 of 3, rude 1
	// of 3, clean 3 of 3; an operator's figures are their own.
	automatic := func(token, query string) map[string]any {
		t.Helper()
		r := b.do(t, http.MethodGet, "/stats/dashboard?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return details(r)["automatic"].(map[string]any)
	}
	fig := func(verdicts, confident float64) map[string]any {
		return map[string]any{"verdicts": verdicts, "confident": confident, "share": confident / verdicts}
	}
	require.Equal(t, fig(9, 6), automatic(alice, ""))
	require.Equal(t, fig(3, 3), automatic(olga, "operator=bob"), "her pending audit counts in none of her figures")
	require.Equal(t, fig(3, 1), automatic(alice, "operator=bob"))
	require.Equal(t, map[string]any{"verdicts": float64(0), "confident": float64(0), "share": nil},
		automatic(alice, "from=2020-01-01&to=2020-01-02"))

	// An analyst confirms the callback verdict: the item is theirs and
	// needs no review; the engine's figures stay what it did.
	stream := b.stream(t, alice)
	r := b.edit(t, alice, editOf(t, good, map[string]bool{"callback": false}))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "<nil> <nil> <nil>", assessment(t, details(r), "callback"))
	for {
		ev := stream.next(t)
		if ev.Type == "audit.updated" {
			require.Equal(t, float64(0), ev.Data["task"].(map[string]any)["review_items"], "live lists follow")
			break
		}
	}
	got := details(b.do(t, http.MethodGet, "/tasks/"+good["uuid"].(string), olga, nil))
	require.Equal(t, "analyst", got["audit"].(map[string]any)["source"])
	require.Equal(t, float64(0), got["review_items"])
	require.Equal(t, map[string]any{"rude.txt": float64(2)}, list(alice, "needs_review=true"))
	require.Equal(t, map[string]any{"good.txt": float64(0), "clean.txt": float64(0)}, list(alice, "needs_review=false"))
	require.Equal(t, fig(9, 6), automatic(alice, ""))

	// A new criterion the engine is unsure of everywhere: recomputed, every
	// audit has one more item to review and the engine three more verdicts.
	survey := criterion("survey", "CLOSING", "¿Invitó a la encuesta?", `{"any": ["encuesta"], "absence_confidence": 0.4}`)
	b.publish(t, sue, append(reviewCriteria[:3:3], survey)...)
	require.Eventually(t, func() bool {
		return b.count(t, `SELECT count(*) FROM audit_revisions WHERE scorecard_version = 3`) == 3
	}, 30*time.Second, 20*time.Millisecond)
	require.Equal(t, map[string]any{"good.txt": float64(1), "rude.txt": float64(3), "clean.txt": float64(1)}, list(alice, "needs_review=true"))
	require.Equal(t, fig(12, 6), automatic(alice, ""))
}

func TestReviewDocumentedInOpenAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, http.MethodGet, "/openapi.json", "", nil)
	type schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
		} `json:"properties"`
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				Schema struct {
					Enum []any `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.RawBody), &doc))
	described := func(name string, props ...string) {
		t.Helper()
		for _, p := range props {
			require.Contains(t, doc.Components.Schemas[name].Properties, p, name)
			require.NotEmpty(t, doc.Components.Schemas[name].Properties[p].Description, "%s.%s", name, p)
		}
	}
	described("Item", "basis", "confidence", "needs_review")
	require.Equal(t, []any{"evidence", "absence", "conflict"}, doc.Components.Schemas["Item"].Properties["basis"].Enum)
	described("TaskSummary", "review_items")
	described("TaskDetail", "review_items")
	described("DashboardStats", "automatic")
	described("Automatic", "verdicts", "confident", "share")
	var filter []any
	for _, p := range doc.Paths["/tasks"]["get"].Parameters {
		if p.Name == "needs_review" {
			filter = p.Schema.Enum
		}
	}
	require.Equal(t, []any{"true", "false"}, filter)
}
