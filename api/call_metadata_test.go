package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers"
)

// chatNumbered is a chat of its own content for each n.
func chatNumbered(n int) []byte {
	return fmt.Appendf(nil, "Agente: Buenos días, soy Marta, caso %d.\nCliente: Hola, quería saber el estado del pedido.\n", n)
}

// listed are the uuids GET /tasks answers query with, for token.
func (b *testBundle) listed(t *testing.T, token, query string) []string {
	t.Helper()
	r := b.do(t, http.MethodGet, "/tasks?"+query, token, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s: %s", query, r.RawBody)
	var out []string
	for _, task := range taskList(t, r) {
		out = append(out, task["uuid"].(string))
	}
	slices.Sort(out)
	return out
}

func sorted(ids ...string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// TestCallMetadata holds what an upload says of its call: stored as
// given (phone numbers as digits), shown to analysts and, but for the
// customer's data, to the agent; redacted as the campaign's transcripts;
// unique per campaign by call id; filtered on; exported.
func TestCallMetadata(t *testing.T) {
	t.Parallel()
	b := setup(t)
	events := b.startWorkers(t, workers.Deps{})
	alice, bob, root := b.users(t)
	sup := b.issuer.token(t, "sue", "supervisor")
	// A French campaign redacts cards and security codes only: phone
	// numbers are kept.
	r := b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Ventes", "language": "fr"})
	require.Equal(t, http.StatusCreated, r.Status, r.RawBody)

	first := uploaded(t, b.upload(t, alice, file("a.txt", chatNumbered(1)), field("campaign", "Ventes"), field("operator", "bob"),
		field("call_id", "CA-1001"), field("queue", "billing"), field("direction", "inbound"), field("started_at", "2024-05-02T10:00:00Z"),
		field("caller", "tel:+34 600-11-22-33"), field("called", "(900) 100 200"), field("customer_ref", "CRM-9"),
		field("metadata", `{"tier": "gold", "attempt": 2, "vip": true, "note": "llamar al 600112233"}`)))[0]["uuid"].(string)
	second := uploaded(t, b.upload(t, alice, file("b.txt", chatNumbered(2)), field("campaign", "Ventes"),
		field("call_id", "CA-1002"), field("queue", "sales"), field("direction", "outbound"), field("started_at", "2024-05-03T09:00:00Z"),
		field("caller", "900100200"), field("metadata", `{"tier": "silver", "attempt": "2"}`)))[0]["uuid"].(string)
	// The default campaign (Spanish) redacts phone numbers.
	redacted := uploaded(t, b.upload(t, alice, file("c.txt", chatNumbered(3)), field("call_id", "CA-1001"),
		field("caller", "+34 600 11 22 33"), field("metadata", `{"note": "llamar al 600 11 22 33", "tier": "gold"}`)))[0]["uuid"].(string)

	d := details(b.do(t, http.MethodGet, "/tasks/"+first, alice, nil))
	require.Equal(t, "CA-1001", d["call_id"])
	require.Equal(t, "billing", d["queue"])
	require.Equal(t, "inbound", d["direction"])
	require.Equal(t, "2024-05-02T10:00:00Z", d["started_at"])
	require.Equal(t, "+34600112233", d["caller"], "the digits, as stored and compared")
	require.Equal(t, "900100200", d["called"])
	require.Equal(t, "CRM-9", d["customer_ref"])
	require.Equal(t, map[string]any{"tier": "gold", "attempt": 2.0, "vip": true, "note": "llamar al 600112233"}, d["metadata"])
	// The agent sees the call's references, not the customer's data.
	d = details(b.do(t, http.MethodGet, "/tasks/"+first, bob, nil))
	require.Equal(t, "CA-1001", d["call_id"])
	require.Equal(t, "billing", d["queue"])
	for _, k := range []string{"caller", "called", "customer_ref", "metadata"} {
		require.NotContains(t, d, k)
	}
	require.NotContains(t, b.do(t, http.MethodGet, "/tasks/"+first, bob, nil).RawBody, "600112233")

	d = details(b.do(t, http.MethodGet, "/tasks/"+redacted, alice, nil))
	require.Equal(t, "[PHONE]", d["caller"], "the campaign redacts phone numbers")
	require.Equal(t, "CA-1001", d["call_id"], "a call id is unique per campaign")
	require.Equal(t, map[string]any{"note": "llamar al [PHONE]", "tier": "gold"}, d["metadata"])
	require.Zero(t, b.count(t, `SELECT count(*) FROM tasks WHERE uuid = $1 AND (caller LIKE '%600%' OR metadata::text LIKE '%600%')`, redacted),
		"what is redacted is never stored")

	// The list shows the call's references.
	listedTask := map[string]any{}
	for _, task := range taskList(t, b.do(t, http.MethodGet, "/tasks?call_id=CA-1002", alice, nil)) {
		listedTask = task
	}
	require.Equal(t, "sales", listedTask["queue"])
	require.Equal(t, "outbound", listedTask["direction"])
	require.NotContains(t, listedTask, "caller")

	for _, c := range []struct {
		query string
		want  []string
	}{
		{"call_id=CA-1001", sorted(first, redacted)},
		{"call_id=CA-1001&campaign=Ventes", sorted(first)},
		{"queue=billing", sorted(first)},
		{"direction=outbound", sorted(second)},
		{"caller=" + url.QueryEscape("+34 (600) 11.22.33"), sorted(first)},
		{"called=900-100-200", sorted(first)},
		{"caller=900100200", sorted(second)},
		{"started_from=2024-05-03", sorted(second)},
		{"started_to=2024-05-03", sorted(first)},
		{"started_from=2024-05-02T10:00:00Z&started_to=2024-05-02T10:00:01Z", sorted(first)},
		{"metadata=tier=gold", sorted(first, redacted)},
		{"metadata=" + url.QueryEscape("tier=gold"), sorted(first, redacted)},
		{"metadata=attempt=2", sorted(first, second)},
		{"metadata=vip=true", sorted(first)},
		{"metadata=tier=", nil},
		{"metadata=nokey=gold", nil},
		{"queue=billing&direction=outbound", nil},
	} {
		require.Equal(t, c.want, b.listed(t, alice, c.query), c.query)
	}
	// The agent lists by the call's references, never by the customer's data.
	require.Equal(t, sorted(first), b.listed(t, bob, "queue=billing"))
	for _, q := range []string{"caller=900100200", "called=900100200", "metadata=tier=gold"} {
		r := b.do(t, http.MethodGet, "/tasks?"+q, bob, nil)
		requireError(t, r, http.StatusForbidden, CodeForbidden)
		require.Contains(t, r.Body["message"], "quality role")
		requireError(t, b.do(t, http.MethodGet, "/tasks/export?"+q, bob, nil), http.StatusForbidden, CodeForbidden)
	}

	// The export has a column for each; the agent's has no customer's data.
	export := func(token, query string) map[string]map[string]string {
		r := b.do(t, http.MethodGet, "/tasks/export?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return csvByTask(t, r.RawBody)
	}
	row := export(alice, "campaign=Ventes")[first]
	require.Equal(t, map[string]string{"call_id": "CA-1001", "queue": "billing", "direction": "inbound", "started_at": "2024-05-02T10:00:00Z",
		"caller": "'+34600112233", "called": "900100200", "customer_ref": "CRM-9"},
		map[string]string{"call_id": row["call_id"], "queue": row["queue"], "direction": row["direction"], "started_at": row["started_at"],
			"caller": row["caller"], "called": row["called"], "customer_ref": row["customer_ref"]},
		"a cell starting with + is written as text")
	require.JSONEq(t, `{"tier": "gold", "attempt": 2, "vip": true, "note": "llamar al 600112233"}`, row["metadata"])
	row = export(bob, "")[first]
	require.Equal(t, "CA-1001", row["call_id"])
	for _, col := range []string{"caller", "called", "customer_ref", "metadata"} {
		require.Empty(t, row[col], col)
	}

	// An erasure by the customer reference deletes the numbers and the
	// metadata with the transcript; the call's references stay.
	r = b.json(t, http.MethodPost, "/admin/erasures", root, map[string]any{"customer_ref": "CRM-9"})
	require.Equal(t, http.StatusAccepted, r.Status, r.RawBody)
	require.Equal(t, "CRM-9", details(r)["customer_ref"])
	waitJob(t, events, int64(details(r)["job_id"].(float64)))
	d = details(b.do(t, http.MethodGet, "/tasks/"+first, alice, nil))
	for _, k := range []string{"caller", "called", "metadata"} {
		require.NotContains(t, d, k)
	}
	require.Equal(t, "CA-1001", d["call_id"])
	require.Empty(t, b.listed(t, alice, "caller=%2B34600112233"))
}

// TestCallIDUniquePerCampaign holds what a second upload with a call id
// does: the same file is its task, a duplicate, as any content uploaded
// again; another file is 409 naming the task, and nothing is stored.
func TestCallIDUniquePerCampaign(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	task := uploaded(t, b.upload(t, alice, file("a.txt", chatNumbered(1)), field("call_id", "X-1")))[0]

	again := uploaded(t, b.upload(t, alice, file("a-again.txt", chatNumbered(1)), field("call_id", "X-1")))[0]
	require.Equal(t, task["uuid"], again["uuid"])
	require.Equal(t, true, again["duplicate"])

	tasks, blobs := b.count(t, `SELECT count(*) FROM tasks`), len(b.blobs(t))
	r := b.upload(t, alice, file("other.txt", chatNumbered(2)), field("call_id", " X-1 "))
	requireError(t, r, http.StatusConflict, CodeConflict)
	require.Contains(t, r.Body["message"], task["uuid"].(string))
	require.Contains(t, r.Body["message"], `"X-1"`)
	require.Equal(t, tasks, b.count(t, `SELECT count(*) FROM tasks`), "nothing is stored")
	require.Len(t, b.blobs(t), blobs)

	// Another campaign may have the same id.
	sup := b.issuer.token(t, "sue", "supervisor")
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/campaigns", sup, map[string]any{"name": "Otra"}).Status)
	other := uploaded(t, b.upload(t, alice, file("other.txt", chatNumbered(2)), field("call_id", "X-1"), field("campaign", "Otra")))[0]
	require.Equal(t, false, other["duplicate"])

	// A call id names one interaction.
	r = b.upload(t, alice, file("c.txt", chatNumbered(3)), file("d.txt", chatNumbered(4)), field("call_id", "X-2"))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Equal(t, "body.call_id", detailsAt(r))
	require.Equal(t, tasks+1, b.count(t, `SELECT count(*) FROM tasks`))
}

// TestCallMetadataRefusals holds every bad value an upload can say of its
// call: 400 naming the field, nothing stored.
func TestCallMetadataRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	many := map[string]any{}
	for i := range 33 {
		many[fmt.Sprintf("k%d", i)] = i
	}
	big := map[string]string{}
	for i := range 20 {
		big[fmt.Sprintf("k%d", i)] = strings.Repeat("x", 450)
	}
	jsonOf := func(v any) string {
		out, err := json.Marshal(v)
		require.NoError(t, err)
		return string(out)
	}
	for _, c := range []struct {
		name, field, value, want string
	}{
		{"metadata not an object", "metadata", `["a"]`, "JSON object"},
		{"metadata not JSON", "metadata", `tier=gold`, "JSON object"},
		{"metadata trailing", "metadata", `{"a": 1} {"b": 2}`, "JSON object"},
		{"nested object", "metadata", `{"a": {"b": 1}}`, `key "a": the value is an object or a list`},
		{"a list", "metadata", `{"a": [1]}`, `key "a"`},
		{"null", "metadata", `{"a": null}`, "leave the key out"},
		{"duplicate key", "metadata", `{"a": 1, "a": 2}`, `key "a" is given twice`},
		{"empty key", "metadata", `{" ": 1}`, "empty key"},
		{"key with =", "metadata", `{"a=b": 1}`, `key "a=b"`},
		{"long key", "metadata", jsonOf(map[string]int{strings.Repeat("k", 65): 1}), "at most 64 characters"},
		{"long value", "metadata", jsonOf(map[string]string{"a": strings.Repeat("v", 501)}), "at most 500 characters"},
		{"control in a value", "metadata", `{"a": "x\ny"}`, "one line"},
		{"too many keys", "metadata", jsonOf(many), "more than 32 keys"},
		{"too large", "metadata", jsonOf(big), "bytes"},
		{"huge number", "metadata", `{"a": 1e999}`, "not a number"},
		{"caller with letters", "caller", "call me", "phone number"},
		{"caller too short", "called", "+1", "phone number"},
		{"caller too long", "caller", strings.Repeat("1", 21), "phone number"},
		{"call id too long", "call_id", strings.Repeat("c", 201), "at most 200 characters"},
		{"control in the queue", "queue", "a\x01b", "control characters"},
		{"customer_ref too long", "customer_ref", strings.Repeat("c", 201), "at most 200 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := b.upload(t, alice, field(c.field, c.value), file("a.txt", chatNumbered(1)))
			requireError(t, r, http.StatusBadRequest, CodeValidation)
			require.Contains(t, r.Body["message"], c.want)
			require.Contains(t, r.Body["message"], c.field)
			require.Equal(t, "body."+c.field, detailsAt(r))
			b.requireNothingStored(t)
		})
	}
	// external_id is customer_ref's former name: the same field.
	r := b.upload(t, alice, field("external_id", "A"), field("customer_ref", "B"), file("a.txt", chatNumbered(1)))
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], "twice")
	id := uploaded(t, b.upload(t, alice, field("external_id", "CRM-1"), file("a.txt", chatNumbered(1))))[0]["uuid"].(string)
	require.Equal(t, "CRM-1", details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil))["customer_ref"])
}

// TestCallFilterRefusals holds the list's bad filters on the call: 400
// naming the parameter.
func TestCallFilterRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	for _, c := range []struct{ query, param string }{
		{"caller=abc", "caller"},
		{"called=1", "called"},
		{"metadata=tier", "metadata"},
		{"metadata==gold", "metadata"},
		{"direction=sideways", "direction"},
		{"started_from=yesterday", "started_from"},
		{"started_to=2024-13-01", "started_to"},
		{"min_agent_talk_ratio=1.5", "min_agent_talk_ratio"},
		{"max_agent_talk_ratio=-0.1", "max_agent_talk_ratio"},
		{"min_silence_share=NaN", "min_silence_share"},
		{"min_longest_silence=1e3", "min_longest_silence"},
		{"min_overtalk=-1", "min_overtalk"},
		{"min_holds=1.5", "min_holds"},
		{"min_dead_air=99999", "min_dead_air"},
		{"min_agent_talk_ratio=0.8&max_agent_talk_ratio=0.2", "max_agent_talk_ratio"},
		{"min_silence_share=0.9&max_silence_share=0.1", "max_silence_share"},
		{"call_id=" + strings.Repeat("c", 201), "call_id"},
	} {
		r := b.do(t, http.MethodGet, "/tasks?"+c.query, alice, nil)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Equal(t, "query."+c.param, detailsAt(r), c.query)
	}
}

// TestChannelFilters holds the list's filters on what a call's channels
// tell: each bound keeps the calls measured within it, a mono call has
// no overtalk or holds to count, and chats and calls not analysed match
// no bound.
func TestChannelFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice, _, _ := b.users(t)
	up := func(n int) string {
		return uploaded(t, b.upload(t, alice, file(fmt.Sprintf("c%d.txt", n), chatNumbered(n))))[0]["uuid"].(string)
	}
	ratio := func(v float64) *float64 { return &v }
	spans := func(n int) []transcript.Span {
		out := make([]transcript.Span, n)
		for i := range out {
			out[i] = transcript.Span{Start: float64(i * 20), End: float64(i*20 + 12)}
		}
		return out
	}
	// Chats stand for calls here: the figures are what is filtered on.
	talker, listener, mono, none := up(1), up(2), up(3), up(4)
	require.NoError(t, db.ChannelsSave(ctx, b.pool, talker, transcript.Channels{Stereo: true, DurationSeconds: 300,
		AgentTalkRatio: ratio(0.82), SilenceShare: 0.1, LongestSilenceSeconds: 12, DeadAir: spans(1), DeadAirSeconds: 10,
		Overtalk: spans(3), Holds: spans(0), Talk: spans(1)}))
	require.NoError(t, db.ChannelsSave(ctx, b.pool, listener, transcript.Channels{Stereo: true, DurationSeconds: 300,
		AgentTalkRatio: ratio(0.25), SilenceShare: 0.45, LongestSilenceSeconds: 41, DeadAir: spans(4), DeadAirSeconds: 10,
		Overtalk: spans(0), Holds: spans(2), Talk: spans(1)}))
	require.NoError(t, db.ChannelsSave(ctx, b.pool, mono, transcript.Channels{DurationSeconds: 60, SilenceShare: 0.6,
		LongestSilenceSeconds: 35, DeadAir: spans(2), DeadAirSeconds: 10, Talk: spans(1)}))
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"min_agent_talk_ratio=0.7", sorted(talker)},
		{"max_agent_talk_ratio=0.3", sorted(listener)},
		{"min_agent_talk_ratio=0.2&max_agent_talk_ratio=0.9", sorted(talker, listener)},
		{"min_agent_talk_ratio=0", sorted(talker, listener)},
		{"min_silence_share=0.4", sorted(listener, mono)},
		{"max_silence_share=0.2", sorted(talker)},
		{"min_longest_silence=30", sorted(listener, mono)},
		{"min_longest_silence=0", sorted(talker, listener, mono)},
		{"min_dead_air=2", sorted(listener, mono)},
		{"min_overtalk=1", sorted(talker)},
		{"min_overtalk=0", sorted(talker, listener)},
		{"min_holds=1", sorted(listener)},
		{"min_longest_silence=30&min_holds=1&max_agent_talk_ratio=0.5", sorted(listener)},
		{"min_longest_silence=30&min_overtalk=1", nil},
		{"", sorted(talker, listener, mono, none)},
	} {
		require.Equal(t, c.want, b.listed(t, alice, c.query), c.query)
	}
	// The export and a saved view take the same filters.
	r := b.do(t, http.MethodGet, "/tasks/export?min_holds=1", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Contains(t, r.RawBody, listener)
	require.NotContains(t, r.RawBody, talker)
	view := b.saveView(t, alice, "long silences", "min_longest_silence=30&max_agent_talk_ratio=0.5")
	require.Equal(t, "max_agent_talk_ratio=0.5&min_longest_silence=30", view["query"], "in the list's order")
}
