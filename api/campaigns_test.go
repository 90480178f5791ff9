package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

func TestCampaignsAndScorecards(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	sup := b.issuer.token(t, "sue", "supervisor")

	r := b.do(t, http.MethodGet, "/campaigns", bob, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	list := r.Body["details"].([]any)
	require.Len(t, list, 1)
	def := list[0].(map[string]any)
	require.Equal(t, "default", def["name"])
	require.Equal(t, float64(85), def["passing_score"])
	require.Equal(t, float64(1), def["scorecard_version"])
	defID := def["id"].(string)

	// Creating needs a supervisor; names are unique; settings are checked.
	body := map[string]any{"name": "Ventas", "passing_score": 80, "supervisor_emails": []string{"jefa@example.test"}, "language": "es", "agent_channel": "right"}
	requireError(t, b.json(t, http.MethodPost, "/campaigns", alice, body), http.StatusForbidden, CodeForbidden)
	r = b.json(t, http.MethodPost, "/campaigns", sup, body)
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	ventas := details(r)
	require.Equal(t, "right", ventas["agent_channel"])
	require.Equal(t, float64(1), ventas["scorecard_version"], "a new campaign starts with the default scorecard")
	requireError(t, b.json(t, http.MethodPost, "/campaigns", sup, body), http.StatusConflict, CodeConflict)
	for _, bad := range []map[string]any{
		{"name": "x", "passing_score": 150},
		{"name": "x", "passing_score": 99.999999},
		{"name": "x", "supervisor_emails": []string{"not an address"}},
		{"name": "x", "agent_channel": "middle"},
		{"name": ""},
		{"passing_score": 50},
	} {
		r := b.json(t, http.MethodPost, "/campaigns", sup, bad)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", bad, r.RawBody)
	}
	r = b.json(t, http.MethodPatch, "/campaigns/"+ventas["id"].(string), sup, map[string]any{"passing_score": 90})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, float64(90), details(r)["passing_score"])
	require.Equal(t, "Ventas", details(r)["name"], "fields not sent stay")
	requireError(t, b.json(t, http.MethodPatch, "/campaigns/"+ventas["id"].(string), sup, map[string]any{"name": "default"}), http.StatusConflict, CodeConflict)
	requireError(t, b.json(t, http.MethodPatch, "/campaigns/"+defID, sup, map[string]any{"name": "renamed"}), http.StatusConflict, CodeConflict)
	r = b.json(t, http.MethodPatch, "/campaigns/"+defID, sup, map[string]any{"passing_score": 80})
	require.Equal(t, http.StatusOK, r.Status, "its settings may change")
	requireError(t, b.do(t, http.MethodGet, "/campaigns/2b1f0c4e-3d5a-4b6c-8d7e-9f0a1b2c3d4e", bob, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, "/campaigns/nope", bob, nil), http.StatusBadRequest, CodeValidation)

	// Publishing: validated, versioned, old versions kept.
	r = b.do(t, http.MethodGet, "/campaigns/"+defID+"/scorecard", bob, nil)
	require.Equal(t, http.StatusOK, r.Status)
	var card scoring.Scorecard
	raw, _ := json.Marshal(details(r))
	require.NoError(t, json.Unmarshal(raw, &card))
	require.Len(t, card.Criteria, 8)

	broken := append([]scoring.Criterion(nil), card.Criteria...)
	broken[1].Question = broken[0].Question
	broken[2].Weight = 0
	broken[3].Rule = json.RawMessage(`{"any": [], "speaker": "robot"}`)
	require.NotEmpty(t, card.Criteria[4].Translations["en"].Question, "the default scorecard reads English too")
	broken[4].Translations = map[string]scoring.Words{"en": {Question: card.Criteria[0].Translations["en"].Question}}
	broken[5].Translations = map[string]scoring.Words{"klingon": {Question: "Qapla'?"}, "en": {Question: " "}}
	r = b.json(t, http.MethodPut, "/campaigns/"+defID+"/scorecard", sup, map[string]any{"criteria": broken})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	for _, loc := range []string{"body.criteria[1].question", "body.criteria[2].weight", "body.criteria[3].rule",
		"body.criteria[4].translations.en.question", "body.criteria[5].translations.en.question", "body.criteria[5].translations.klingon",
		`\"klingon\" is not a known language tag`} {
		require.Contains(t, r.RawBody, loc)
	}
	requireError(t, b.json(t, http.MethodPut, "/campaigns/"+defID+"/scorecard", alice, map[string]any{"criteria": card.Criteria}), http.StatusForbidden, CodeForbidden)

	// Rule syntax errors say where and what a QA lead should write instead.
	badRules := append([]scoring.Criterion(nil), card.Criteria...)
	badRules[0].Rule = json.RawMessage(`{"any": ["refund NEAR/x {amount}", "ticket {code}", "re*"], "absence_confidence": 1.5}`)
	r = b.json(t, http.MethodPut, "/campaigns/"+defID+"/scorecard", sup, map[string]any{"criteria": badRules})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	for _, want := range []string{
		`body.criteria[0].rule.any[0]`, `at character 8: NEAR/ takes a number of words from 1 to 50, as in NEAR/5`,
		`body.criteria[0].rule.any[1]`, `\"{code}\" is not a slot; slots are {agent_name}, {amount}, {date}, {name}, {number}, {ref}, {timeframe}`,
		`body.criteria[0].rule.any[2]`, `a wildcard needs a stem of at least 3 letters`,
		`body.criteria[0].rule.absence_confidence`, `must be a number from 0 to 1, such as 0.8`,
	} {
		require.Contains(t, r.RawBody, want)
	}
	// So do the limits of what a call's channels tell.
	badRules[0].Rule = json.RawMessage(`{"channels": {"max_agent_talk_ratio": 70, "max_silence_seconds": -30, "max_pause": 3}}`)
	r = b.json(t, http.MethodPut, "/campaigns/"+defID+"/scorecard", sup, map[string]any{"criteria": badRules})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	for _, want := range []string{
		`body.criteria[0].rule.channels.max_agent_talk_ratio`, `must be a share from 0 to 1, such as 0.7 for 70 %`,
		`body.criteria[0].rule.channels.max_silence_seconds`, `must be a number of seconds above 0 and at most 86400`,
		`body.criteria[0].rule.channels.max_pause`, `unknown key; channels has max_agent_talk_ratio, max_hold_seconds`,
	} {
		require.Contains(t, r.RawBody, want)
	}
	// A scorecard whose audits could not be stored is refused at publish.
	var many []scoring.Criterion
	for i := range 150 {
		c := card.Criteria[0]
		c.ID, c.Question = fmt.Sprintf("criterion_%03d", i), fmt.Sprintf("Question %d?", i)
		many = append(many, c)
	}
	r = b.json(t, http.MethodPut, "/campaigns/"+defID+"/scorecard", sup, map[string]any{"criteria": many})
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, `"location":"body.criteria"`)
	require.Contains(t, r.RawBody, "use shorter ids or fewer criteria")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM scorecards s JOIN campaigns c ON c.id = s.campaign_id WHERE c.name = 'default'`),
		"nothing is published")

	edited := append([]scoring.Criterion(nil), card.Criteria...)
	edited[0].Weight = 25
	r = b.json(t, http.MethodPut, "/campaigns/"+defID+"/scorecard", sup, map[string]any{"criteria": edited})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.Equal(t, float64(2), details(r)["version"])
	require.Equal(t, "sue", details(r)["published_by"])

	r = b.do(t, http.MethodGet, "/campaigns/"+defID+"/scorecard/versions", bob, nil)
	versions := r.Body["details"].([]any)
	require.Len(t, versions, 2)
	require.Equal(t, float64(2), versions[0].(map[string]any)["version"])
	r = b.do(t, http.MethodGet, fmt.Sprintf("/campaigns/%s/scorecard/versions/1", defID), bob, nil)
	require.Equal(t, float64(10), details(r)["criteria"].([]any)[0].(map[string]any)["weight"])
	requireError(t, b.do(t, http.MethodGet, fmt.Sprintf("/campaigns/%s/scorecard/versions/9", defID), bob, nil), http.StatusNotFound, CodeNotFound)
	requireError(t, b.do(t, http.MethodGet, fmt.Sprintf("/campaigns/%s/scorecard/versions/2147483648", defID), bob, nil), http.StatusBadRequest, CodeValidation)

	// A scorecard publication is an event for quality and above.
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM events WHERE type = 'scorecard.published' AND min_rank = 2`))
}

// TestNumbersRefusedPastTheirPrecision: a number with more decimals than
// its column keeps is refused, not rounded into another value; a score
// filter is a number from 0 to 100, not NaN or an infinity.
func TestNumbersRefusedPastTheirPrecision(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sup := b.issuer.token(t, "sue", "supervisor")
	for _, score := range []float64{99.999999, 99.9999999999, 0.001, 12.345} {
		r := b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": fmt.Sprint("P ", score), "passing_score": score})
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, "body.passing_score", r.Body["details"].([]any)[0].(map[string]any)["location"], score)
	}
	r := b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Fine", "passing_score": 99.99})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)
	require.Equal(t, 99.99, details(r)["passing_score"])
	for _, q := range []string{"min_score=NaN", "max_score=Inf", "min_score=-1", "max_score=0x10", "min_score=1_0", "max_score=-Infinity"} {
		requireError(t, b.do(t, http.MethodGet, "/tasks?"+q, sup, nil), http.StatusBadRequest, CodeValidation)
	}
}
