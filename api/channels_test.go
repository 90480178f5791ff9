package api

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/transcript"
)

// csvByTask reads a CSV export's rows, each a map of its column's cells,
// by the task's uuid.
func csvByTask(t *testing.T, body string) map[string]map[string]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	require.NoError(t, err)
	out := map[string]map[string]string{}
	for _, row := range rows[1:] {
		cells := map[string]string{}
		for i, h := range rows[0] {
			cells[h] = row[i]
		}
		out[cells["uuid"]] = cells
	}
	return out
}

// TestTaskChannels holds what a call's channels tell in the task view, with
// each side's speaking rate once a transcript exists, and in the export's
// columns; a chat and a call not analysed have none.
func TestTaskChannels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := b.issuer.token(t, "alice", "quality")
	call := uploaded(t, b.upload(t, alice, file("call.wav", tone(t, "c.wav", 440, 1))))[0]["uuid"].(string)
	chat := uploaded(t, b.upload(t, alice, file("chat.txt", []byte(goodChat))))[0]["uuid"].(string)
	view := func(id string) map[string]any { return details(b.do(t, http.MethodGet, "/tasks/"+id, alice, nil)) }
	require.Nil(t, view(call)["channels"], "not analysed yet")
	require.Nil(t, view(chat)["channels"])

	agent, customer, ratio, over := 30.0, 10.0, 0.75, 1.5
	figures := transcript.Channels{Stereo: true, DurationSeconds: 60, DeadAirSeconds: 10, SilenceShare: 0.4, LongestSilenceSeconds: 12,
		Talk: []transcript.Span{{Start: 1, End: 31}, {Start: 40, End: 50}}, AgentTalk: []transcript.Span{{Start: 1, End: 31}},
		CustomerTalk: []transcript.Span{{Start: 30, End: 31.5}, {Start: 40, End: 48.5}}, AgentSeconds: &agent, CustomerSeconds: &customer,
		AgentTalkRatio: &ratio, DeadAir: []transcript.Span{{Start: 50, End: 60}}, Overtalk: []transcript.Span{{Start: 30, End: 31.5}},
		OvertalkSeconds: &over, Holds: []transcript.Span{}}
	require.NoError(t, db.ChannelsSave(ctx, b.pool, call, figures))
	got := view(call)["channels"].(map[string]any)
	require.Equal(t, true, got["stereo"])
	require.Equal(t, 0.75, got["agent_talk_ratio"])
	require.Equal(t, 0.4, got["silence_share"])
	require.Len(t, got["agent_talk"], 1)
	require.Len(t, got["dead_air"], 1)
	require.Nil(t, got["agent_words_per_minute"], "no transcript yet")

	// The transcript brings the speaking rates: 50 words in 30 s, 5 in 10 s.
	require.NoError(t, db.TranscriptSave(ctx, b.pool, call, transcript.Transcript{Engine: "test", Segments: []transcript.Segment{
		{Speaker: transcript.Agent, Text: strings.Repeat("palabra ", 50)},
		{Speaker: transcript.Customer, Text: "one two three four five"},
	}}))
	got = view(call)["channels"].(map[string]any)
	require.Equal(t, 100.0, got["agent_words_per_minute"])
	require.Equal(t, 30.0, got["customer_words_per_minute"])
	require.Nil(t, view(call)["transcript"].(map[string]any)["channels"], "shown once, beside the transcript")

	r := b.do(t, http.MethodGet, "/tasks/export", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	byTask := csvByTask(t, r.RawBody)
	require.Len(t, byTask, 2)
	want := map[string]string{"stereo": "true", "agent_talk_seconds": "30", "customer_talk_seconds": "10", "agent_talk_ratio": "0.75",
		"silence_share": "0.4", "longest_silence_seconds": "12", "dead_air_count": "1", "overtalk_count": "1",
		"overtalk_seconds": "1.5", "hold_count": "0"}
	for col, v := range want {
		require.Equal(t, v, byTask[call][col], col)
		require.Empty(t, byTask[chat][col], col)
	}

	// A mono call: its silences, no side's figure.
	mono := uploaded(t, b.upload(t, alice, file("mono.wav", tone(t, "m.wav", 450, 1))))[0]["uuid"].(string)
	require.NoError(t, db.ChannelsSave(ctx, b.pool, mono, transcript.Channels{DurationSeconds: 1, Talk: []transcript.Span{}, SilenceShare: 1,
		LongestSilenceSeconds: 1, DeadAir: []transcript.Span{}, DeadAirSeconds: 10}))
	got = view(mono)["channels"].(map[string]any)
	require.Equal(t, false, got["stereo"])
	require.NotContains(t, got, "agent_talk_ratio")
	require.NotContains(t, got, "overtalk")
}
