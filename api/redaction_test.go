package api

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

func TestCampaignRedactionSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, bob, _ := b.users(t)
	sup := b.issuer.token(t, "sue", "supervisor")

	r := b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Cobros"})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	id := details(r)["id"].(string)
	require.Equal(t, map[string]any{"types": []any{"card", "cvv"}, "patterns": []any{}}, details(r)["redaction"],
		"cards and security codes by default")

	good := map[string]any{"types": []string{"card", "cvv", "dni", "email"},
		"patterns": []map[string]string{{"name": "ORDER_REF", "regexp": "PED-[0-9]{6}"}}}
	r = b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"redaction": good})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	r = b.do(t, http.MethodGet, "/campaigns/"+id, bob, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	red := details(r)["redaction"].(map[string]any)
	require.Equal(t, []any{"card", "cvv", "dni", "email"}, red["types"])
	require.Equal(t, "ORDER_REF", red["patterns"].([]any)[0].(map[string]any)["name"])
	r = b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"passing_score": 70})
	require.Equal(t, red, details(r)["redaction"], "settings not sent stay")

	many := make([]map[string]string, 21)
	for i := range many {
		many[i] = map[string]string{"name": "P" + strings.Repeat("X", i), "regexp": "x"}
	}
	for _, bad := range []struct {
		redaction map[string]any
		field     string
	}{
		{map[string]any{"types": []string{"card", "passport"}}, "body.redaction.types[1]"},
		{map[string]any{"types": []string{}, "patterns": []map[string]string{{"name": "REF", "regexp": "PED-[0-9"}}}, "body.redaction.patterns[0].regexp"},
		{map[string]any{"types": []string{}, "patterns": []map[string]string{{"name": "REF", "regexp": strings.Repeat("a", 501)}}}, "body.redaction.patterns[0].regexp"},
		{map[string]any{"types": []string{}, "patterns": []map[string]string{{"name": "ref", "regexp": "x"}}}, "body.redaction.patterns[0].name"},
		{map[string]any{"types": []string{}, "patterns": many}, "body.redaction.patterns"},
	} {
		r := b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"redaction": bad.redaction, "passing_score": 10})
		require.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, r.Status, r.RawBody)
		require.Equal(t, CodeValidation, r.Body["code"], r.RawBody)
		require.Contains(t, r.RawBody, `"`+bad.field, "the error names %s", bad.field)
		r = b.do(t, http.MethodGet, "/campaigns/"+id, bob, nil)
		require.Equal(t, red, details(r)["redaction"], "nothing stored")
		require.Equal(t, float64(70), details(r)["passing_score"], "nothing stored")
	}
	// On creation too.
	r = b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Otra", "redaction": map[string]any{"types": []string{"dni", "dni"}}})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, "body.redaction.types[1]")
	requireError(t, b.json(t, http.MethodPatch, "/campaigns/"+id, bob, map[string]any{"redaction": good}), http.StatusForbidden, CodeForbidden)
}

// A chat with a card number (the default redacts it) and a DNI (which the
// campaign also redacts) is shown, searched, exported and e-mailed with
// placeholders only, and its stored file is replaced by the redacted copy.
func TestChatRedactedEverywhere(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second})
	sup := b.issuer.token(t, "sue", "supervisor")
	r := b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Cobros",
		"redaction": map[string]any{"types": []string{"card", "cvv", "dni"}}})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)

	chat := `Agente: Buenos dias, gracias por llamar a Telecable, le atiende Marta.
Cliente: Hola, quiero pagar la factura con tarjeta.
Agente: Claro. ¿Me confirma su DNI, por favor?
Cliente: Si, 12345678Z.
Agente: Gracias. ¿Me da el número de la tarjeta?
Cliente: 4500 1234 5678 9012
Agente: ¿Y el código de seguridad?
Cliente: 321
Agente: Listo, pago realizado, le llegara el justificante. ¿Algo mas?
Cliente: No, gracias.
Agente: Gracias a usted, que tenga un buen dia.
`
	// Long enough not to turn up in a timestamp or a hash by chance; the
	// security code is checked in the transcript itself below.
	secrets := []string{"12345678Z", "4500 1234", "1234 5678", "5678 9012", "4500123456789012"}
	noSecret := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			require.NotContains(t, text, s, "%s shows %q", what, s)
		}
	}
	id := b.auditedChat(t, alice, file("pago.txt", []byte(chat)), field("campaign", "Cobros"), field("language", "es"))

	r = b.do(t, http.MethodGet, "/tasks/"+id, alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	noSecret("the task", r.RawBody)
	for _, seg := range details(r)["transcript"].(map[string]any)["segments"].([]any) {
		require.NotContains(t, seg.(map[string]any)["text"], "321", "the security code")
	}
	require.Contains(t, r.RawBody, "Si, [DNI].")
	require.Contains(t, r.RawBody, `"text":"[CARD]"`)
	require.Contains(t, r.RawBody, `"text":"[CVV]"`)
	var types []string
	for _, rec := range details(r)["redactions"].([]any) {
		types = append(types, rec.(map[string]any)["type"].(string))
	}
	require.Equal(t, []string{"DNI", "CARD", "CVV"}, types, "where the placeholders are")
	// The auditor still sees the agent ask for verification.
	verification := map[string]any{}
	for _, v := range details(r)["audit"].(map[string]any)["items"].([]any) {
		if v.(map[string]any)["criterion_id"] == "verification" {
			verification = v.(map[string]any)
		}
	}
	require.Equal(t, true, verification["complies"], "%v", verification)

	for _, q := range []string{"4500123456789012", "4500", "12345678Z", "321", "9012"} {
		r = b.do(t, http.MethodGet, "/tasks?q="+url.QueryEscape(q), alice, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		require.Empty(t, details(r)["tasks"], "searching %q", q)
	}
	for _, q := range []string{"tarjeta", "[CARD]"} {
		r = b.do(t, http.MethodGet, "/tasks?q="+url.QueryEscape(q), alice, nil)
		require.Len(t, details(r)["tasks"], 1, "the other words, and the placeholders, are searchable: %q", q)
	}

	for _, shape := range []string{"wide", "long"} {
		r = b.do(t, http.MethodGet, "/tasks/export?shape="+shape, alice, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		require.Contains(t, r.RawBody, "pago.txt")
		noSecret("the export", r.RawBody)
	}

	r = b.validateJSON(t, alice, map[string]any{"task_uuid": id, "notes": "Bien.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	noSecret("the e-mail", string(msgs[0].Data))

	// The stored file: the upload was replaced by a copy written from the
	// redacted transcript.
	ctx := context.Background()
	recs, err := db.RedactionsList(ctx, b.pool, id)
	require.NoError(t, err)
	require.Equal(t, []string{"DNI", "CARD", "CVV"}, []string{recs[0].Type, recs[1].Type, recs[2].Type})
	task, err := db.TaskGetByUUID(ctx, b.pool, id)
	require.NoError(t, err)
	rd, err := b.store.Open(ctx, task.BlobKey)
	require.NoError(t, err)
	stored, err := io.ReadAll(rd)
	require.NoError(t, rd.Close())
	require.NoError(t, err)
	noSecret("the stored file", string(stored))
	require.Contains(t, string(stored), "[CARD]")
	require.Equal(t, "application/json", task.ContentType)
	n := 0
	for o, err := range b.store.List(ctx, "") {
		require.NoError(t, err)
		rd, err := b.store.Open(ctx, o.Key)
		require.NoError(t, err)
		content, err := io.ReadAll(rd)
		require.NoError(t, rd.Close())
		require.NoError(t, err)
		noSecret("blob "+o.Key, string(content))
		n++
	}
	require.Equal(t, 1, n, "the upload was deleted")
}
