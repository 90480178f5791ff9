package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

// draft is a two-criterion scorecard in Spanish with English translations.
func draft(greeting string) []scoring.Criterion {
	return []scoring.Criterion{
		{ID: "saludo", Category: "APERTURA", Question: "¿Saluda el agente?", Weight: 40, AppliesTo: scoring.Both,
			Rule:         json.RawMessage(`{"any": [` + greeting + `], "speaker": "agent", "within_first_own_turns": 2}`),
			Translations: map[string]scoring.Words{"en": {Question: "Does the agent greet?"}}},
		{ID: "despedida", Category: "CIERRE", Question: "¿Se despide el agente?", Weight: 60, Critical: true,
			AppliesTo: scoring.Chat, Rule: json.RawMessage(`{"any": ["que tenga un buen dia", "goodbye"], "speaker": "agent"}`),
			Translations: map[string]scoring.Words{"en": {Question: "Does the agent say goodbye?"}}},
	}
}

func TestScorecardPreview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, root := b.users(t)
	camp := b.defaultCampaignID(t)
	path := "/campaigns/" + camp + "/scorecard/preview"
	versions := func() int { return b.count(t, `SELECT count(*) FROM scorecards`) }
	before := versions()

	// An analyst tries a draft on a chat's text: verdicts, evidence and
	// score, in the language asked for; nothing is stored.
	r := b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": draft(`"buenos dias"`), "text": goodChat, "language": "en"})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d := details(r)
	require.Equal(t, "chat", d["kind"])
	require.Equal(t, "en", d["language"])
	res := d["result"].(map[string]any)
	require.Equal(t, float64(100), res["score"], r.RawBody)
	require.Equal(t, float64(0), res["scorecard_version"])
	greet := auditItem(t, res, "saludo")
	require.Equal(t, true, greet["complies"])
	require.Equal(t, "Does the agent greet?", greet["question"])
	require.Contains(t, greet["evidence"], "Buenos dias")
	require.Equal(t, []any{float64(1)}, greet["evidence_turns"])
	require.Equal(t, before, versions(), "a preview publishes nothing")

	// Not greeting in the draft's words: not met, the score says so.
	r = b.json(t, http.MethodPost, path, root, map[string]any{"criteria": draft(`"hola"`), "text": goodChat})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, false, auditItem(t, details(r)["result"].(map[string]any), "saludo")["complies"])
	require.Equal(t, "es", details(r)["language"], "the campaign's language by default")

	// A phrase's error is located at its field and at its character.
	r = b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": draft(`"hola", "buenos NEAR/x dias"`), "text": goodChat})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	problems := r.Body["details"].([]any)
	require.Len(t, problems, 1, r.RawBody)
	p := problems[0].(map[string]any)
	require.Equal(t, "body.criteria[0].rule.any[1]", p["location"])
	require.Equal(t, float64(8), p["at"], "NEAR/x starts at the 8th character of \"buenos NEAR/x dias\"")
	require.Contains(t, p["message"], "NEAR/ takes a number of words from 1 to 50")
	// A problem with a whole value has no character.
	r = b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": draft(`"(hola"`), "text": goodChat})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Equal(t, float64(1), r.Body["details"].([]any)[0].(map[string]any)["at"], "the ( not closed: its character")
	bad := draft(`"hola"`)
	bad[1].Weight = 0
	r = b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": bad, "text": goodChat})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.NotContains(t, r.RawBody, `"at"`)
	require.Contains(t, r.RawBody, "body.criteria[1].weight")

	// A draft with nothing for a chat, text and task both or neither, and
	// text that is no chat are refused, saying what to send.
	callOnly := draft(`"hola"`)[:1]
	callOnly[0].AppliesTo = scoring.Call
	r = b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": callOnly, "text": goodChat})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, "no criterion of the draft applies to a chat")
	tasks := b.uploadChats(t, alice, nil, "preview.txt")
	for _, body := range []map[string]any{
		{"criteria": draft(`"hola"`)},
		{"criteria": draft(`"hola"`), "text": goodChat, "task_uuid": tasks[0]},
	} {
		r = b.json(t, http.MethodPost, path, alice, body)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, "give text or task_uuid, not both")
	}
	r = b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": draft(`"hola"`), "text": "[]"})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"location":"body.text"`)
	require.Contains(t, r.RawBody, "cannot be read as a chat")

	// Oversized: the text past its length, the body past 2 MiB.
	r = b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": draft(`"hola"`),
		"text": "Agente: " + strings.Repeat("hola ", 20_000)})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"location":"body.text"`)
	huge := draft(`"hola"`)
	huge[0].Guidance = strings.Repeat("x", 3<<20)
	requireError(t, b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": huge, "text": goodChat}),
		http.StatusRequestEntityTooLarge, CodePayloadTooLarge)

	// On a task: its transcript, its kind and language.
	r = b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": draft(`"buenos dias"`), "task_uuid": tasks[0]})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "chat", details(r)["kind"])
	require.Equal(t, "es", details(r)["language"])
	require.Equal(t, "¿Saluda el agente?", auditItem(t, details(r)["result"].(map[string]any), "saludo")["question"])
	// A task nobody may see (none by that id) is not found, as anywhere.
	requireError(t, b.json(t, http.MethodPost, path, alice, map[string]any{"criteria": draft(`"hola"`),
		"task_uuid": "2b1f0c4e-3d5a-4b6c-8d7e-9f0a1b2c3d4e"}), http.StatusNotFound, CodeNotFound)
	requireError(t, b.json(t, http.MethodPost, "/campaigns/2b1f0c4e-3d5a-4b6c-8d7e-9f0a1b2c3d4e/scorecard/preview", alice,
		map[string]any{"criteria": draft(`"hola"`), "text": goodChat}), http.StatusNotFound, CodeNotFound)

	// An agent may not try scorecards, even on their own task.
	requireError(t, b.json(t, http.MethodPost, path, bob, map[string]any{"criteria": draft(`"hola"`), "text": goodChat}),
		http.StatusForbidden, CodeForbidden)
	require.Equal(t, before, versions())
}

// TestScorecardPreviewRateLimited: a preview audits as an upload does, and
// is counted with the uploads.
func TestScorecardPreviewRateLimited(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rateLimit: RateLimits{Uploads: 2}})
	alice, _, _ := b.users(t)
	path := "/campaigns/" + b.defaultCampaignID(t) + "/scorecard/preview"
	body := map[string]any{"criteria": draft(`"hola"`), "text": goodChat}
	for range 2 {
		r := b.json(t, http.MethodPost, path, alice, body)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	}
	r := b.json(t, http.MethodPost, path, alice, body)
	requireError(t, r, http.StatusTooManyRequests, CodeRateLimited)
	require.Contains(t, r.RawBody, "uploads")
}
