package api

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

// englishChat is a polite English chat.
const englishChat = `Agent: Hi, thanks for contacting Telecable, this is Connor.
Customer: Hi, my internet has been down since this morning.
Agent: I'm sorry about that. I've restarted your line and it is working again; your reference number is 48213.
Customer: Yes, it works now.
Agent: Is there anything else I can help you with?
Customer: No, thanks.
Agent: Thank you for contacting us, have a great day. Goodbye!
`

// questionsIn maps the default scorecard's criteria to their questions in lang.
func questionsIn(t *testing.T, lang string) map[string]string {
	t.Helper()
	card, err := scoring.DefaultScorecard(lang)
	require.NoError(t, err)
	out := map[string]string{}
	for _, c := range card.Criteria {
		out[c.ID] = c.Question
	}
	return out
}

// TestEnglishChatInASpanishCampaign: the default campaign is Spanish; an
// English chat in it reads English questions in its task, its edits and
// its validation e-mail, and English explanations in the export, while a
// Spanish chat beside it reads Spanish.
func TestEnglishChatInASpanishCampaign(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	b, alice := setupMail(t, srv, setupOpts{jobWait: 20 * time.Second, validation: ValidationOptions{To: []string{"qa-lead@example.test"}}})
	english, spanish := questionsIn(t, "en"), questionsIn(t, "es")

	id := uploaded(t, b.upload(t, alice, file("english.txt", []byte(englishChat)), field("language", "en")))[0]["uuid"].(string)
	task := b.waitStatus(t, alice, id, "audited")
	es := b.audited(t, alice, file("spanish.txt", []byte(goodChat)))[0]
	for _, it := range es["audit"].(map[string]any)["items"].([]any) {
		item := it.(map[string]any)
		require.Equal(t, spanish[item["criterion_id"].(string)], item["question"], "a Spanish chat reads Spanish")
	}
	items := task["audit"].(map[string]any)["items"].([]any)
	require.NotEmpty(t, items)
	for _, it := range items {
		item := it.(map[string]any)
		require.Equal(t, english[item["criterion_id"].(string)], item["question"])
		require.NotContains(t, item["explanation"], "Cumple", item["criterion_id"])
	}

	// The export's explanations are the task's.
	r := b.do(t, http.MethodGet, "/tasks/export?shape=long&file_name=english", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(r.RawBody, "\ufeff"))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+len(items))
	require.Contains(t, rows[1], items[0].(map[string]any)["explanation"])

	// An analyst names a criterion by its English question, or its Spanish one.
	edit := map[string]any{"task_uuid": id, "file_name": "english.txt", "isCall": false, "audit": []map[string]any{
		{"category": "CLOSING", "question": strings.ToUpper(english["farewell"]), "complies": false, "explanation": "Too curt."},
		{"category": "SKILLS", "question": spanish["empathy"], "complies": true, "explanation": "Apologised."},
	}}
	r = b.edit(t, alice, edit)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	farewell := auditItem(t, details(r), "farewell")
	require.Equal(t, "Too curt.", farewell["explanation"])
	require.Equal(t, english["farewell"], farewell["question"], "the recomputed audit keeps the chat's language")
	require.Equal(t, english["empathy"], auditItem(t, details(r), "empathy")["question"])

	// A question of no language of the scorecard is refused where it is.
	edit["audit"] = []map[string]any{{"category": "CLOSING", "question": "Did the agent say goodbye politely?", "complies": true, "explanation": "x"}}
	r = b.edit(t, alice, edit)
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.RawBody, "body.audit[0].question")

	// The validation e-mail reads English questions, and no Spanish one.
	r = b.validateJSON(t, alice, map[string]any{"task_uuid": id, "notes": "Fine.", "isCall": false})
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	m := parseReceived(t, msgs[0])
	for _, it := range items {
		cid := it.(map[string]any)["criterion_id"].(string)
		require.Contains(t, m.text, english[cid])
		require.NotContains(t, m.text, spanish[cid])
	}
}
