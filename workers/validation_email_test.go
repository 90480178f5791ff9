package workers

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

func TestValidationEmailTemplates(t *testing.T) {
	t.Parallel()
	data := validationEmail{
		IsCall: true, FileName: "a<b>\r\nc.wav", Link: "https://auditd.example.test/app/tasks/1", Campaign: "Ventas",
		Operator: "Ana <ana@example.test>", Score: 72.5, PassingScore: 85, FailedCritical: []string{"¿Avisó de la grabación?"},
		Items: []scoring.Item{
			{Category: "OPENING", Question: "¿Saludó?", Complies: true, Explanation: `Dijo "hola" a las 0:02.`},
			{Category: "COMPLIANCE", Question: "¿Avisó de la grabación?", Critical: true, Explanation: "No lo dijo."},
		},
		Notes: "línea 1\n<i>línea 2</i>", Attachments: []emailAttachment{{Name: "x.pdf", Size: "1.5 KiB"}},
		Validator: "Alicia", ValidatedAt: time.Date(2024, 5, 2, 12, 0, 0, 0, time.FixedZone("CEST", 2*3600)),
	}
	cases := []struct {
		lang, subject string
		text, html    []string
	}{
		{"es", "Auditoría validada: a<b> c.wav · 72,50 · no aprobada",
			[]string{"Llamada: a<b>\r\nc.wav", "Agente: Ana <ana@example.test>", "Puntuación: 72,50 / 100, NO APROBADA (para aprobar: 85,00)",
				"Criterios críticos no cumplidos (la puntuación queda en 0):\n  - ¿Avisó de la grabación?",
				"Validada por Alicia el 2024-05-02 10:00 UTC", "OBSERVACIONES\n\nlínea 1\n<i>línea 2</i>\n",
				"[Cumple] OPENING · ¿Saludó?\n    Dijo \"hola\" a las 0:02.", "[NO cumple] COMPLIANCE · ¿Avisó de la grabación? (crítico)\n    No lo dijo.",
				"ADJUNTOS\n\n  - x.pdf (1.5 KiB)", "Ver en auditd: https://auditd.example.test/app/tasks/1"},
			[]string{`<html lang="es">`, "a&lt;b&gt;", "Ana &lt;ana@example.test&gt;", "&lt;i&gt;línea 2&lt;/i&gt;",
				"Dijo &#34;hola&#34;", "<li>x.pdf (1.5 KiB)</li>", `<a href="https://auditd.example.test/app/tasks/1">`}},
		{"es-MX", "Auditoría validada: a<b> c.wav · 72,50 · no aprobada", nil, []string{`<html lang="es">`}},
		{"en", "Audit validated: a<b> c.wav · 72.50 · failed",
			[]string{"Call: a<b>", "Score: 72.50 / 100, FAILED (passing score: 85.00)", "Critical criteria not met (the score is 0):",
				"[Met] OPENING · ¿Saludó?", "[NOT met] COMPLIANCE · ¿Avisó de la grabación? (critical)", "NOTES\n\nlínea 1",
				"ATTACHMENTS\n\n  - x.pdf (1.5 KiB)", "Validated by Alicia on 2024-05-02 10:00 UTC"},
			[]string{`<html lang="en">`, "&lt;i&gt;línea 2&lt;/i&gt;", "<strong style=\"color:#b42318\">failed</strong>"}},
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
	_, text, html, err := renderValidationEmail("es", data)
	require.NoError(t, err)
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
