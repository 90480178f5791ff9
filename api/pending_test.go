package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

// auditPending stores for a queued call an audit that meets every
// criterion but whose critical no_forbidden_phrases verdict, complies as
// given, is pending an analyst's review (a polite agent flagged at 0.55).
func (b *testBundle) auditPending(t *testing.T, id string, complies bool) {
	t.Helper()
	ctx := context.Background()
	task, err := db.TaskGetByUUID(ctx, b.pool, id)
	require.NoError(t, err)
	card, err := db.ScorecardCurrent(ctx, b.pool, task.CampaignID)
	require.NoError(t, err)
	var verdicts []scoring.Verdict
	for _, c := range card.Applicable(db.TaskCall) {
		v := scoring.Verdict{CriterionID: c.ID, Complies: true, Explanation: "Cumple: " + c.ID,
			Assessment: scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.99}}
		if c.ID == "no_forbidden_phrases" {
			v.Complies, v.Explanation = complies, "Dudoso: "+c.ID
			v.Assessment = scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.55, NeedsReview: true}
		}
		verdicts = append(verdicts, v)
	}
	result, err := scoring.Score(card.Scorecard, db.TaskCall, verdicts, 85)
	require.NoError(t, err)
	require.Equal(t, []string{"no_forbidden_phrases"}, result.Pending)
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: id, Result: result, Source: db.AuditByEngine, Engine: "rules"}, 0); err != nil {
			return err
		}
		_, err := db.TaskTransition(ctx, tx, id, db.TaskChange{To: pipeline.Audited})
		return err
	}))
}

// TestPendingVerdicts: a polite call whose only doubt is a pending critical
// verdict is provisional for analysts, hidden from its agent, counted as
// pending review; its validation is refused naming the verdict, until an
// analyst decides it (one click) or the validation accepts it.
func TestPendingVerdicts(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second, validation: ValidationOptions{To: []string{"qa-lead@example.test"}}})
	ana := b.agent(t, "sub-ana", "ana", "ana@example.test")
	flagged := uploaded(t, b.upload(t, alice, file("llamada-1.wav", tone(t, "a.wav", 440, 1)), field("operator", "ana")))[0]["uuid"].(string)
	b.auditPending(t, flagged, false)
	accepted := uploaded(t, b.upload(t, alice, file("llamada-2.wav", tone(t, "b.wav", 660, 1)), field("operator", "ana")))[0]["uuid"].(string)
	b.auditPending(t, accepted, true)

	// The analyst sees a provisional audit: the range, the pending criterion.
	r := b.do(t, http.MethodGet, "/tasks/"+flagged, alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	audit := details(r)["audit"].(map[string]any)
	require.Equal(t, []any{"no_forbidden_phrases"}, audit["pending"])
	require.Equal(t, []any{0.0, 100.0, 90.0, false}, []any{audit["score_min"], audit["score_max"], audit["score"], audit["passed"]})
	r = b.do(t, http.MethodGet, "/tasks?needs_review=true", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	for _, item := range details(r)["tasks"].([]any) {
		row := item.(map[string]any)
		require.NotContains(t, row, "score", "no score while pending")
		require.NotContains(t, row, "passed")
		require.Equal(t, []any{"no_forbidden_phrases"}, row["pending"])
		require.Equal(t, 0.0, row["score_min"])
	}
	// Its agent sees nothing of it.
	r = b.do(t, http.MethodGet, "/tasks/"+flagged, ana, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Nil(t, details(r)["audit"])
	require.Equal(t, true, details(r)["audit_hidden"])
	r = b.do(t, http.MethodGet, "/tasks", ana, nil)
	for _, item := range details(r)["tasks"].([]any) {
		require.NotContains(t, item.(map[string]any), "pending")
		require.NotContains(t, item.(map[string]any), "score_min")
	}
	// The dashboard counts them as pending review, nothing else.
	r = b.do(t, http.MethodGet, "/stats/dashboard", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d := details(r)
	require.Equal(t, []any{2.0, 0.0, 0.0, nil}, []any{d["pending_review"], d["audited"], d["passed"], d["average_score"]})

	// Validating is refused, naming the verdict.
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": flagged, "notes": "Bien.", "isCall": true})
	require.Equal(t, http.StatusConflict, r.Status, r.RawBody)
	require.Equal(t, "CONFLICT", r.Body["code"])
	require.Equal(t, []any{map[string]any{"criterion_id": "no_forbidden_phrases", "question": "¿El agente trató al cliente con respeto, sin insultos, frases prohibidas ni expresiones despectivas?",
		"complies": false}}, details(r)["pending"])
	require.Empty(t, srv.Messages(), "nothing e-mailed")

	// Deciding: a criterion that is not pending, nothing to decide.
	decide := func(id string, body map[string]any) response {
		return b.json(t, http.MethodPost, "/tasks/"+id+"/pending-verdicts", alice, body)
	}
	r = decide(flagged, map[string]any{"decisions": []any{map[string]any{"criterion_id": "greeting"}}})
	require.Equal(t, http.StatusBadRequest, r.Status, r.RawBody)
	require.Equal(t, "body.decisions[0].criterion_id", r.Body["details"].([]any)[0].(map[string]any)["location"])
	r = decide(flagged, map[string]any{})
	require.Equal(t, http.StatusConflict, r.Status, r.RawBody)

	// One click changes it: the agent was respectful. Decided, it passes.
	r = decide(flagged, map[string]any{"decisions": []any{map[string]any{"criterion_id": "no_forbidden_phrases", "complies": true}}})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d = details(r)
	require.Equal(t, []any{100.0, true, nil, 2.0}, []any{d["score"], d["passed"], d["pending"], d["revision"]})
	r = decide(flagged, map[string]any{"all": true})
	require.Equal(t, http.StatusConflict, r.Status, "nothing pending any more")
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": flagged, "notes": "Bien.", "isCall": true})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	// The other is validated accepting its pending verdict (multipart).
	r = b.validateForm(t, alice, []part{field("task_uuid", accepted), field("notes", "Bien."), field("isCall", "true"),
		field("accept_pending", "yes")})
	require.Equal(t, http.StatusBadRequest, r.Status, r.RawBody)
	r = b.validateForm(t, alice, []part{field("task_uuid", accepted), field("notes", "Bien."), field("isCall", "true"),
		field("accept_pending", "true")})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	rev, err := db.AuditCurrent(context.Background(), b.pool, accepted)
	require.NoError(t, err)
	require.Equal(t, []any{2, db.AuditByAnalyst, "alice", 100.0, true}, []any{rev.Revision, rev.Source, rev.AuthorID, rev.Result.Score, rev.Result.Passed})
	require.Empty(t, rev.Result.Pending)
	for _, m := range srv.Messages() {
		require.Contains(t, parseReceived(t, m).subject, "100,00 · aprobada")
	}
	require.Len(t, srv.Messages(), 2)
	r = b.do(t, http.MethodGet, "/stats/dashboard", alice, nil)
	d = details(r)
	require.Equal(t, []any{0.0, 2.0, 2.0, 100.0}, []any{d["pending_review"], d["audited"], d["passed"], d["average_score"]})
}
