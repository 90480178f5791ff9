package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
)

func TestSign(t *testing.T) {
	t.Parallel()
	at := time.Unix(1764385200, 0)
	body := []byte(`{"type":"webhook.test"}`)
	mac := hmac.New(sha256.New, []byte("whsec_k"))
	mac.Write([]byte("1764385200." + string(body)))
	v1 := hex.EncodeToString(mac.Sum(nil))
	require.Equal(t, "t=1764385200,v1="+v1, Sign(at, body, "whsec_k"))
	require.NotEqual(t, Sign(at, body, "whsec_k"), Sign(at.Add(time.Second), body, "whsec_k"))
	// Two secrets while a rotation's overlap lasts: the new one first.
	mac = hmac.New(sha256.New, []byte("whsec_new"))
	mac.Write([]byte("1764385200." + string(body)))
	require.Equal(t, "t=1764385200,v1="+hex.EncodeToString(mac.Sum(nil))+",v1="+v1, Sign(at, body, "whsec_new", "whsec_k"))
	require.Regexp(t, `^whsec_[0-9a-f]{64}$`, NewSecret())
	require.NotEqual(t, NewSecret(), NewSecret())
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	at := time.Unix(1764385200, 0)
	until := at.Add(SecretOverlap)
	sub := db.WebhookSubscription{Secret: "new", PreviousSecret: "old", PreviousUntil: &until}
	require.Equal(t, []string{"new", "old"}, Secrets(sub, at))
	require.Equal(t, []string{"new", "old"}, Secrets(sub, until.Add(-time.Nanosecond)))
	require.Equal(t, []string{"new"}, Secrets(sub, until))
	require.Equal(t, []string{"new"}, Secrets(db.WebhookSubscription{Secret: "new"}, at))
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	for _, good := range []string{"https://hooks.slack.com/services/T/B/X", "http://example.com:8080/in?x=1", "https://8.8.8.8/x"} {
		require.NoError(t, CheckURL(good, false), good)
	}
	for _, bad := range []string{"ftp://example.com", "example.com", "https://", "https://u:p@example.com", "http://localhost/x",
		"http://api.localhost/x", "http://127.0.0.1/", "http://10.0.0.1/", "http://192.168.1.1/", "http://172.16.0.1/",
		"http://169.254.169.254/", "http://[::1]/", "http://[fe80::1]/", "http://0.0.0.0/", "http://100.64.0.1/",
		"http://[::ffff:127.0.0.1]/", "https://example.com/#frag"} {
		err := CheckURL(bad, false)
		require.True(t, errcode.Is(err, errcode.Invalid), "%s: %v", bad, err)
	}
	require.NoError(t, CheckURL("http://127.0.0.1:9000/x", true))
	require.Error(t, CheckURL("file:///etc/passwd", true))
}

// A host name that resolves to loopback is refused when dialled, and a
// redirect to another host is not followed.
func TestClientRefusesPrivateAndOtherHosts(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.invalid/elsewhere", http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	req := Request{URL: strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/services/T0/B0/s3cr3t", Secrets: []string{"s"}, Event: Test, DeliveryID: "d", Body: []byte("{}")}
	res := Send(context.Background(), NewClient(false), req, time.Now())
	require.False(t, res.OK())
	require.Zero(t, res.StatusCode)
	require.Contains(t, res.Error, "loopback, private or link-local")
	require.NotContains(t, res.Error, "s3cr3t") // the URL may hold a secret

	res = Send(context.Background(), NewClient(true), Request{URL: srv.URL, Secrets: []string{"s"}, Event: Test, DeliveryID: "d", Body: []byte("{}")}, time.Now())
	require.False(t, res.OK())
	require.Contains(t, res.Error, "another host")
}

func audited(t *testing.T) Payload {
	t.Helper()
	score, passed := 0.0, false
	task := db.Task{NewTask: db.NewTask{UUID: "7e123b5b-bb91-41d6-afa5-6ffa224e0653", Kind: db.TaskCall, CampaignID: "c1",
		OperatorID: "ana", Language: "es", Status: pipeline.Audited, FileName: "ana-612345678.wav"},
		CampaignName: "Ventas", Score: &score, Passed: &passed}
	r := scoring.Result{FailedCritical: []string{"respect"}, Items: []scoring.Item{
		{CriterionID: "greeting", Question: "¿Saludó?", Complies: true, Explanation: "Dijo «buenos días»", Evidence: "buenos días"},
		{CriterionID: "respect", Question: "¿Trató con respeto?", Critical: true, Complies: false,
			Explanation: "Insultó al cliente con DNI [DNI]", Evidence: "usted es tonto"},
		{CriterionID: "callback", Question: "¿Ofreció devolver la llamada?", Complies: true, NotApplicable: true,
			Explanation: "No hacía falta llamar"},
	}}
	events := Audited(task, r)
	require.Len(t, events, 2)
	require.Equal(t, []string{TaskAudited, CriticalFailure}, []string{events[0].Type, events[1].Type})
	require.Equal(t, []string{"c1"}, events[1].CampaignIDs)
	args, err := delivery("sub", events[1].Type, events[1].Data)
	require.NoError(t, err)
	var p Payload
	require.NoError(t, json.Unmarshal(args.Payload, &p))
	require.Equal(t, args.DeliveryID, p.ID)
	for _, private := range []string{"buenos días", "tonto", "Insultó", "[DNI]", "612345678"} {
		require.NotContains(t, string(args.Payload), private)
	}
	require.Equal(t, []Criterion{{ID: "respect", Question: "¿Trató con respeto?", Critical: true}}, p.Data.Task.FailedCriteria)
	require.Equal(t, []Criterion{{ID: "callback", Question: "¿Ofreció devolver la llamada?"}}, p.Data.Task.NotApplicableCriteria)
	require.Contains(t, string(args.Payload), `"not_applicable_criteria":[{"id":"callback"`)
	return p
}

func TestBodies(t *testing.T) {
	t.Parallel()
	p := audited(t)
	raw, err := json.Marshal(p)
	require.NoError(t, err)

	same, err := Body(FormatJSON, raw, "https://qa.example.com/app")
	require.NoError(t, err)
	require.JSONEq(t, string(raw), string(same))

	out, err := Body(FormatSlack, raw, "https://qa.example.com/app")
	require.NoError(t, err)
	var slack struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type     string `json:"type"`
			Text     *struct{ Type, Text string }
			Fields   []struct{ Type, Text string }
			Elements []struct {
				Type, URL string
			}
		} `json:"blocks"`
	}
	require.NoError(t, json.Unmarshal(out, &slack))
	require.Contains(t, slack.Text, "Critical criterion failed")
	require.Contains(t, slack.Text, "¿Trató con respeto? (critical)")
	// Not applicable is said as such, never among the failed.
	require.Contains(t, slack.Text, "\nNot applicable: ¿Ofreció devolver la llamada?\n")
	require.Contains(t, fieldTexts(slack.Blocks[1].Fields), "*Not applicable*\n¿Ofreció devolver la llamada?")
	require.Equal(t, []string{"header", "section", "actions"}, []string{slack.Blocks[0].Type, slack.Blocks[1].Type, slack.Blocks[2].Type})
	require.Equal(t, "plain_text", slack.Blocks[0].Text.Type)
	require.Contains(t, slack.Blocks[1].Fields[0].Text, "*Task*")
	require.Equal(t, "https://qa.example.com/app/tasks/"+p.Data.Task.UUID, slack.Blocks[2].Elements[0].URL)

	out, err = Body(FormatTeams, raw, "")
	require.NoError(t, err)
	var teams struct {
		Type     string `json:"@type"`
		Context  string `json:"@context"`
		Summary  string `json:"summary"`
		Title    string `json:"title"`
		Sections []struct {
			Facts []struct{ Name, Value string }
		} `json:"sections"`
		Actions []any `json:"potentialAction"`
	}
	require.NoError(t, json.Unmarshal(out, &teams))
	require.Equal(t, "MessageCard", teams.Type)
	require.Equal(t, "https://schema.org/extensions", teams.Context)
	require.Equal(t, "Critical criterion failed", teams.Title)
	require.NotEmpty(t, teams.Summary)
	require.Contains(t, teams.Sections[0].Facts, struct{ Name, Value string }{"Result", "failed, 0.00"})
	require.Contains(t, teams.Sections[0].Facts, struct{ Name, Value string }{"Failed criteria", "¿Trató con respeto? (critical)"})
	require.Contains(t, teams.Sections[0].Facts, struct{ Name, Value string }{"Not applicable", "¿Ofreció devolver la llamada?"})
	require.Empty(t, teams.Actions) // no dashboard URL, no link

	_, err = Body("xml", raw, "")
	require.Error(t, err)
}

func fieldTexts(fields []struct{ Type, Text string }) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Text
	}
	return out
}

// A dispute's criteria carry their not applicable state, and its message
// says it: the verdict disputed, the agent's claim, the decision.
func TestDisputeNotApplicable(t *testing.T) {
	t.Parallel()
	task := db.Task{NewTask: db.NewTask{UUID: "7e123b5b-bb91-41d6-afa5-6ffa224e0653", CampaignID: "c1"}, CampaignName: "Ventas"}
	d := db.Dispute{ID: "d1", TaskUUID: task.UUID, AgentID: "ana", ValidatorID: "alice", Status: db.DisputeAccepted, Items: []db.DisputeItem{
		{CriterionID: "callback", Question: "¿Ofreció devolver la llamada?", Complies: true, ClaimsNotApplicable: true,
			Comment: "No hacía falta", Decision: db.DecisionAccept, AcceptedNotApplicable: true},
		{CriterionID: "verify", Question: "¿Verificó la identidad?", Complies: true, NotApplicable: true,
			Comment: "Sí aplicaba", Decision: db.DecisionReject},
		{CriterionID: "empathy", Question: "¿Mostró empatía?", ClaimsNotApplicable: true, Comment: "No aplica", Decision: db.DecisionReject},
		{CriterionID: "greeting", Question: "¿Saludó?", Comment: "Saludé", Decision: db.DecisionAccept},
	}}
	e := DisputeEvent(DisputeResolved, task, d)
	require.Equal(t, []DisputedCriterion{
		{ID: "callback", Question: "¿Ofreció devolver la llamada?", ClaimsNotApplicable: true, Decision: db.DecisionAccept, AcceptedNotApplicable: true},
		{ID: "verify", Question: "¿Verificó la identidad?", NotApplicable: true, Decision: db.DecisionReject},
		{ID: "empathy", Question: "¿Mostró empatía?", ClaimsNotApplicable: true, Decision: db.DecisionReject},
		{ID: "greeting", Question: "¿Saludó?", Decision: db.DecisionAccept},
	}, e.Data.Dispute.Criteria)
	args, err := delivery("sub", e.Type, e.Data)
	require.NoError(t, err)
	require.NotContains(t, string(args.Payload), "hacía falta", "no comment")
	out, err := Body(FormatTeams, args.Payload, "")
	require.NoError(t, err)
	var teams struct {
		Sections []struct {
			Facts []struct{ Name, Value string }
		} `json:"sections"`
	}
	require.NoError(t, json.Unmarshal(out, &teams))
	require.Contains(t, teams.Sections[0].Facts, struct{ Name, Value string }{"Criteria", strings.Join([]string{
		"¿Ofreció devolver la llamada? (accepted as not applicable)",
		"¿Verificó la identidad? (judged not applicable, rejected)",
		"¿Mostró empatía? (claimed not applicable, rejected)",
		"¿Saludó? (accepted)"}, "\n")})
}
