package workers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/validation"
)

func TestValidationEmailTemplates(t *testing.T) {
	t.Parallel()
	data := validationEmail{
		IsCall: true, FileName: "a<b>\r\nc.wav", Link: "https://auditd.example.test/app/tasks/1", Campaign: "Ventas",
		Operator: "Ana <ana@example.test>", Score: 72.5, PassingScore: 85, FailedCritical: []string{"¿Avisó de la grabación?"},
		Items: []scoring.Item{
			{Category: "OPENING", Question: "¿Saludó?", Complies: true, Explanation: `Dijo "hola" a las 0:02.`},
			{Category: "COMPLIANCE", Question: "¿Avisó de la grabación?", Critical: true, Explanation: "No lo dijo."},
			{Category: "CLOSING", Question: "¿Ofreció devolver la llamada?", Complies: true, NotApplicable: true, Explanation: "No hacía falta."},
		},
		NotApplicable: 1,
		Notes:         "línea 1\n<i>línea 2</i>", Attachments: []emailAttachment{{Name: "x.pdf", Size: "1.5 KiB"}},
		Validator: "Alicia", ValidatedAt: time.Date(2024, 5, 2, 12, 0, 0, 0, time.FixedZone("CEST", 2*3600)),
	}
	cases := []struct {
		lang, subject string
		text, html    []string
	}{
		{"es", "Auditoría validada: a<b> c.wav · 72,50 · no aprobada",
			[]string{"Llamada: a<b>\r\nc.wav", "Agente: Ana <ana@example.test>", "Puntuación: 72,50 / 100, NO APROBADA (para aprobar: 85,00)",
				"Criterios críticos no cumplidos (la puntuación queda en 0):\n  - ¿Avisó de la grabación?",
				"Validada por Alicia el 2024-05-02 12:00 CEST", "OBSERVACIONES\n\nlínea 1\n<i>línea 2</i>\n",
				"[Cumple] Apertura · ¿Saludó?\n    Dijo \"hola\" a las 0:02.", "[NO cumple] Cumplimiento · ¿Avisó de la grabación? (crítico)\n    No lo dijo.",
				"[No aplica] Cierre · ¿Ofreció devolver la llamada?\n    No hacía falta.",
				"(para aprobar: 85,00)\nFuera de la puntuación: 1 criterio no aplicable\n",
				"ADJUNTOS\n\n  - x.pdf (1.5 KiB)", "Ver en auditd: https://auditd.example.test/app/tasks/1"},
			[]string{`<html lang="es">`, "a&lt;b&gt;", "Ana &lt;ana@example.test&gt;", "&lt;i&gt;línea 2&lt;/i&gt;",
				"Dijo &#34;hola&#34;", "<li>x.pdf (1.5 KiB)</li>", `<a href="https://auditd.example.test/app/tasks/1">`,
				"<br>fuera de la puntuación: 1 criterio no aplicable", `¿Ofreció devolver la llamada?</td><td style="padding:4px 8px;vertical-align:top">No aplica</td>`}},
		{"es-MX", "Auditoría validada: a<b> c.wav · 72,50 · no aprobada", nil, []string{`<html lang="es">`}},
		{"en", "Audit validated: a<b> c.wav · 72.50 · failed",
			[]string{"Call: a<b>", "Score: 72.50 / 100, FAILED (passing score: 85.00)", "Critical criteria not met (the score is 0):",
				"[Met] Opening · ¿Saludó?", "[NOT met] Compliance · ¿Avisó de la grabación? (critical)", "NOTES\n\nlínea 1",
				"[N/A] Closing · ¿Ofreció devolver la llamada?", "(passing score: 85.00)\nLeft out of the score: 1 criterion not applicable\n",
				"ATTACHMENTS\n\n  - x.pdf (1.5 KiB)", "Validated by Alicia on 2024-05-02 12:00 CEST"},
			[]string{`<html lang="en">`, "&lt;i&gt;línea 2&lt;/i&gt;", "<strong style=\"color:#b42318\">failed</strong>",
				"<br>left out of the score: 1 criterion not applicable", `¿Ofreció devolver la llamada?</td><td style="padding:4px 8px;vertical-align:top">N/A</td>`}},
		{"pt", "Audit validated: a<b> c.wav · 72.50 · failed", nil, []string{`<html lang="en">`}},
	}
	for _, tc := range cases {
		subject, text, html, err := renderValidationEmail(tc.lang, data)
		require.NoError(t, err, tc.lang)
		require.Equal(t, tc.subject, subject, "one line, whatever the file name holds")
		for _, want := range tc.text {
			require.Contains(t, text, want, tc.lang)
		}
		for _, want := range tc.html {
			require.Contains(t, html, want, tc.lang)
		}
		require.NotContains(t, html, "<i>", "HTML is escaped")
		require.NotContains(t, html, "<b>")
	}

	data.Passed, data.FailedCritical, data.Attachments, data.Operator = true, nil, nil, ""
	data.Items, data.NotApplicable = data.Items[:2], 0
	_, text, html, err := renderValidationEmail("es", data)
	require.NoError(t, err)
	require.NotContains(t, text, "Fuera de la puntuación")
	require.NotContains(t, html, "fuera de la puntuación")
	require.NotContains(t, text, "Criterios críticos")
	require.NotContains(t, text, "ADJUNTOS")
	require.Contains(t, text, "Agente: (sin indicar)")
	require.NotContains(t, html, "Adjuntos")
	require.Contains(t, html, "aprobada</strong>")
}

func TestValidationMessageID(t *testing.T) {
	t.Parallel()
	for publicURL, want := range map[string]string{
		"https://auditd.example.com": "validation-u1@auditd.example.com",
		"http://127.0.0.1:8080":      "validation-u1@127.0.0.1",
		"http://[::1]:8080/":         "validation-u1@[::1]",
		"":                           "validation-u1@auditd.invalid",
	} {
		w := &SendValidationEmailWorker{dashboardURL: publicURL}
		require.Equal(t, want, w.messageID("u1"), publicURL)
		require.False(t, strings.ContainsAny(w.messageID("u1"), " \r\n<>"))
	}
}

// TestValidationEmailAsItsAgentSeesIt: the e-mail of a validation goes to
// the task's agent, so it quotes what the agent is shown (validation.Reader):
// once an erasure deleted the audit's verdicts, its score and result alone.
func TestValidationEmailAsItsAgentSeesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	camp, err := db.CampaignGetByName(ctx, pool, db.DefaultCampaign)
	require.NoError(t, err)
	_, err = db.UserSeen(ctx, pool, db.UserProfile{ID: "qa", Username: "qa"}, time.Now())
	require.NoError(t, err)
	task, _, err := db.TaskInsert(ctx, pool, db.NewTask{UUID: uuid.NewString(), Kind: db.TaskChat, Status: pipeline.Audited,
		FileName: "chat.json", ContentType: "application/json", SHA256: strings.Repeat("a", 64), CampaignID: camp.ID,
		Language: "en", UploadedBy: "qa", OperatorID: "ana"})
	require.NoError(t, err)
	result := scoring.Result{Score: 42, PassingScore: 85, Items: []scoring.Item{{CriterionID: "greet", Category: "OPENING",
		Question: "Did they greet?", Explanation: "said zanzibar at 0:02"}}}
	var v db.Validation
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: task.UUID, Source: db.AuditByEngine, Result: result}, 0); err != nil {
			return err
		}
		if v, err = db.ValidationInsert(ctx, tx, db.NewValidation{TaskUUID: task.UUID, ValidatorID: "qa", ValidatorName: "Alicia", Notes: "Well done.",
			SentTo: []string{"ana@example.test"}, RequestHash: validation.RequestHash(task.UUID, "Well done.", false, nil)}); err != nil {
			return err
		}
		_, err := lifecycle.Move(ctx, tx, task.UUID, lifecycle.Validate, lifecycle.With{})
		return err
	}))
	w := &SendValidationEmailWorker{pool: pool, dashboardURL: "https://auditd.example.test", zone: time.UTC}
	compose := func() string {
		task, err := db.TaskGetByUUID(ctx, pool, task.UUID)
		require.NoError(t, err)
		msgs, err := w.messages(ctx, validation.Reader(task), v, task)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		return msgs[0].Subject + "\n" + msgs[0].Text + "\n" + msgs[0].HTML
	}
	before := compose()
	require.Contains(t, before, "zanzibar", "the validated audit's verdicts are quoted")
	require.Contains(t, before, "Puntuación: 42,00 / 100, NO APROBADA (para aprobar: 85,00)\n")

	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return db.TasksForget(ctx, tx, db.ForgetAudit, []string{task.UUID}, &db.Forgotten{})
	}))
	after := compose()
	require.NotContains(t, after, "zanzibar", "an erased audit's verdicts are not quoted")
	require.NotContains(t, after, "Did they greet?")
	require.Contains(t, after, "Puntuación: 42,00 / 100, NO APROBADA\n", "its score and result stay")
	require.Contains(t, after, "la conservación o un borrado eliminó los veredictos")
}
