package api

import (
	"context"
	"fmt"
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
	require.Equal(t, map[string]any{"types": []any{"card", "cvv", "dni", "iban", "phone"}, "patterns": []any{}}, details(r)["redaction"],
		"a Spanish campaign's defaults")
	require.Equal(t, true, details(r)["redaction_default"])
	// The defaults follow the language while none is set.
	r = b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"language": "en-GB"})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, []any{"card", "cvv", "phone", "email"}, details(r)["redaction"].(map[string]any)["types"], "an English campaign's defaults")
	r = b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"language": "fr"})
	require.Equal(t, []any{"card", "cvv"}, details(r)["redaction"].(map[string]any)["types"], "cards and security codes in any language")
	r = b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"language": "es"})
	require.Equal(t, true, details(r)["redaction_default"])

	good := map[string]any{"types": []string{"card", "cvv", "dni", "email"},
		"patterns": []map[string]string{{"name": "ORDER_REF", "regexp": "PED-[0-9]{6}"}}}
	r = b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"redaction": good})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, false, details(r)["redaction_default"])
	r = b.json(t, http.MethodPatch, "/campaigns/"+id, sup, map[string]any{"language": "en"})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, []any{"card", "cvv", "dni", "email"}, details(r)["redaction"].(map[string]any)["types"], "a setting wins over the language")
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

// TestDefaultCampaignRedactsDNI: on a new installation (make run), a
// Spanish chat uploaded with no campaign and no setting changed is stored
// with its DNI as a placeholder: the default campaign is Spanish and
// redacts what identifies a Spanish customer.
func TestDefaultCampaignRedactsDNI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	chat := "Agente: Buenos días, ¿me confirma su DNI?\nCliente: Sí, es el 12345678Z.\nAgente: Gracias.\n"
	id := uploaded(t, b.upload(t, alice, file("dni.txt", []byte(chat))))[0]["uuid"].(string)
	r := b.do(t, http.MethodGet, "/tasks/"+id, alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.NotContains(t, r.RawBody, "12345678")
	require.Contains(t, r.RawBody, "Sí, es el [DNI].")
	recs, err := db.RedactionsList(context.Background(), b.pool, id)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.Equal(t, "DNI", recs[0].Type)
}

// TestEvasionsRedactedEverywhere: data written to evade a detector (digits
// of other scripts, invisible characters, dots between groups, a card
// dictated over four turns) in a chat of the default campaign, with no
// setting changed, shows as placeholders in the task, its search and
// snippets, the export and the validation's e-mail.
func TestEvasionsRedactedEverywhere(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second})
	chat := "Agente: Buenos días, le atiende Marta. ¿Me confirma su DNI?\n" +
		"Cliente: Sí, 87654321\u200bX.\n" +
		"Agente: Gracias. ¿Con qué tarjeta paga?\n" +
		"Cliente: La tarjeta es ４１１１ １１１１ １１１１ １１１１\n" +
		"Agente: ¿Y la otra tarjeta?\n" +
		"Cliente: 5500\nAgente: vale\nCliente: 0055\nAgente: sí\nCliente: 5555\nAgente: ajá\nCliente: 5559\n" +
		"Agente: ¿Un teléfono de contacto?\n" +
		"Cliente: 612.345.678\n" +
		"Agente: Listo, ¿algo más?\nCliente: No, gracias.\nAgente: Que tenga un buen día.\n"
	secrets := []string{"87654321", "４１１１", "٤", "4111 1111", "1111 1111", "4111111111111111", "612.345.678", "612345678"}
	noSecret := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			require.NotContains(t, text, s, "%s shows %q", what, s)
		}
	}
	id := b.auditedChat(t, alice, file("evasions.txt", []byte(chat)))

	r := b.do(t, http.MethodGet, "/tasks/"+id, alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	noSecret("the task", r.RawBody)
	var texts []string
	for _, seg := range details(r)["transcript"].(map[string]any)["segments"].([]any) {
		texts = append(texts, seg.(map[string]any)["text"].(string))
	}
	require.Equal(t, []string{"Sí, [DNI].", "La tarjeta es [CARD]", "[CARD]", "vale", "[CARD]", "sí", "[CARD]", "ajá", "[CARD]", "[PHONE]"},
		[]string{texts[1], texts[3], texts[5], texts[6], texts[7], texts[8], texts[9], texts[10], texts[11], texts[13]})

	for _, q := range []string{"4111111111111111", "５５００００５５５５５５５５５９", "5500005555555559", "87654321X", "612345678", "612.345.678"} {
		r = b.do(t, http.MethodGet, "/tasks?q="+url.QueryEscape(q), alice, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		require.Empty(t, details(r)["tasks"], "searching %q", q)
	}
	r = b.do(t, http.MethodGet, "/tasks?q=tarjeta", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	found := details(r)["tasks"].([]any)
	require.Len(t, found, 1)
	require.Contains(t, fmt.Sprint(found[0].(map[string]any)["snippet"]), "[CARD]", "the snippet quotes the placeholder")
	noSecret("the search", r.RawBody)

	for _, shape := range []string{"wide", "long"} {
		r = b.do(t, http.MethodGet, "/tasks/export?shape="+shape, alice, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		require.Contains(t, r.RawBody, "evasions.txt")
		noSecret("the export", r.RawBody)
	}

	r = b.validateJSON(t, alice, map[string]any{"task_uuid": id, "notes": "Bien.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	noSecret("the e-mail", string(msgs[0].Data))
}
