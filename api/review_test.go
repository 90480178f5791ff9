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
