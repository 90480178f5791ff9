package api

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/talk"
	"github.com/auditd/auditd/transcript"
)

// seedCall seeds an audited call of a minute by operator, created then,
// and what its channels tell (none: not analysed yet).
func (b *testBundle) seedCall(t *testing.T, operator string, created time.Time, score float64, c *transcript.Channels) {
	t.Helper()
	b.seedTask(t, operator, created, "audited", f64(score), nil, nil, "call", 60)
	if c == nil {
		return
	}
	var uuid string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT uuid FROM tasks WHERE created_at = $1`, created).Scan(&uuid))
	require.NoError(t, db.ChannelsSave(context.Background(), b.pool, uuid, *c))
}

// TestDashboardChannels holds what the channels of the period's calls tell
// on the dashboard: over the analysed calls only (a call not analysed, a
// chat and a call of another period count in none), per agent of the
// ranking, and for an agent over their own calls alone.
func TestDashboardChannels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	day := func(d, h int) time.Time { return time.Date(2026, 10, d, h, 30, 0, 0, time.UTC) }
	spans := func(n int) []transcript.Span {
		out := []transcript.Span{}
		for i := range n {
			out = append(out, transcript.Span{Start: float64(10 * i), End: float64(10*i + 1)})
		}
		return out
	}
	call := func(operator string, created time.Time, score float64, c *transcript.Channels) {
		b.seedCall(t, operator, created, score, c)
	}
	stereo := func(ratio, silence, longest float64, deadAir, overtalk int, overtalkSeconds float64, holds int) *transcript.Channels {
		return &transcript.Channels{Stereo: true, DurationSeconds: 60, AgentTalkRatio: f64(ratio), SilenceShare: silence,
			LongestSilenceSeconds: longest, DeadAir: spans(deadAir), DeadAirSeconds: 10, Overtalk: spans(overtalk),
			OvertalkSeconds: f64(overtalkSeconds), Holds: spans(holds), Talk: spans(1)}
	}
	call("bob", day(1, 10), 70, stereo(0.6, 0.2, 25, 1, 2, 3, 1))
	call("bob", day(1, 11), 72, stereo(0.8, 0.1, 5, 0, 0, 0, 0))
	call("olga", day(2, 10), 95, &transcript.Channels{DurationSeconds: 60, SilenceShare: 0.5, LongestSilenceSeconds: 40,
		DeadAir: spans(2), DeadAirSeconds: 10, Talk: spans(1)}) // mono: no ratio, overtalk or holds
	call("olga", day(2, 11), 90, nil)                                          // not analysed
	b.seedTask(t, "olga", day(2, 12), "audited", f64(90), nil, nil, "chat", 0) // a chat
	call("bob", day(20, 10), 50, stereo(0.1, 0.9, 100, 5, 5, 50, 5))           // outside the period

	get := func(token, query string) map[string]any {
		r := b.do(t, http.MethodGet, "/stats/dashboard?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return details(r)["channels"].(map[string]any)
	}
	c := get(alice, "from=2026-10-01&to=2026-10-03")
	require.Equal(t, float64(3), c["calls"])
	require.Equal(t, float64(2), c["stereo_calls"])
	require.InDelta(t, 0.7, c["average_agent_talk_ratio"], 1e-9, "stereo calls only")
	require.InDelta(t, 0.8/3, c["average_silence_share"], 1e-9)
	require.Equal(t, float64(2), c["dead_air_calls"])
	require.InDelta(t, 2.0/3, c["dead_air_share"], 1e-9)
	require.Equal(t, float64(1), c["hold_calls"])
	require.InDelta(t, 0.5, c["hold_share"], 1e-9, "of the stereo calls")
	require.InDelta(t, 1.0, c["overtalk_per_call"], 1e-9)
	require.InDelta(t, 1.5, c["overtalk_seconds_per_call"], 1e-9)
	require.InDelta(t, 40.0, c["longest_silence_seconds"], 1e-9)
	agents := c["agents"].([]any)
	require.Len(t, agents, 2, "each agent of the ranking once")
	olga, bobs := agents[0].(map[string]any), agents[1].(map[string]any)
	require.Equal(t, "olga", olga["operator_id"], "in the ranking's order")
	require.Equal(t, float64(1), olga["calls"])
	require.Nil(t, olga["average_agent_talk_ratio"], "a mono call has none")
	require.InDelta(t, 0.5, olga["average_silence_share"], 1e-9)
	require.Equal(t, "bob", bobs["operator_id"])
	require.Equal(t, float64(2), bobs["calls"])
	require.InDelta(t, 0.7, bobs["average_agent_talk_ratio"], 1e-9)
	require.InDelta(t, 0.15, bobs["average_silence_share"], 1e-9)

	// An agent's figures are their own calls', whatever they ask: olga's
	// longest silence and dead air are not theirs to see.
	own := get(bob, "from=2026-10-01&to=2026-10-03&operator=olga")
	require.Equal(t, float64(2), own["calls"])
	require.Equal(t, float64(1), own["dead_air_calls"])
	require.InDelta(t, 25.0, own["longest_silence_seconds"], 1e-9)
	require.Len(t, own["agents"], 1)
	require.Equal(t, "bob", own["agents"].([]any)[0].(map[string]any)["operator_id"])

	// An analyst narrowing to an agent gets that agent's.
	narrowed := get(alice, "from=2026-10-01&to=2026-10-03&operator=olga")
	require.Equal(t, float64(1), narrowed["calls"])
	require.Nil(t, narrowed["average_agent_talk_ratio"])
	require.Nil(t, narrowed["hold_share"], "no stereo call")

	// No analysed call: counts of 0, no averages.
	empty := get(alice, "from=2020-01-01&to=2020-01-02")
	require.Equal(t, float64(0), empty["calls"])
	require.Nil(t, empty["average_silence_share"])
	require.Nil(t, empty["dead_air_share"])
	require.Nil(t, empty["longest_silence_seconds"])
	require.Empty(t, empty["agents"])
}

// TestTrendsChannels holds what the channels of a report's calls tell,
// over the period and week by week: a stereo call synthesised with known
// talk and silences, analysed as the transcription does; weeks cut in the
// report's zone; an agent seeing only their own calls, and an analyst
// narrowing to one agent or campaign.
func TestTrendsChannels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	ctx := context.Background()
	at := func(d, h int) time.Time { return time.Date(2026, 10, d, h, 30, 0, 0, time.UTC) }
	call := func(operator string, created time.Time, c *transcript.Channels) {
		b.seedCall(t, operator, created, 80, c)
	}
	// 62 s: the agent (left) speaks from 1 to 11 s and 40 to 50 s, the
	// customer from 10 to 16 s, over the agent for a second; nobody speaks
	// from 16 to 40 s (the longest silence) nor from 50 s to the end.
	path := filepath.Join(t.TempDir(), "stereo.wav")
	tone := func(channel int, start, end float64) mediatest.Tone {
		return mediatest.Tone{Start: time.Duration(start * float64(time.Second)), Length: time.Duration((end - start) * float64(time.Second)),
			Hz: 300 + 200*channel, Channel: channel}
	}
	mediatest.Tones(t, path, 62*time.Second, tone(0, 1, 11), tone(0, 40, 50), tone(1, 10, 16))
	stereo, err := talk.Analyse(ctx, path, talk.Options{})
	require.NoError(t, err)
	require.True(t, stereo.Stereo)
	require.Len(t, stereo.DeadAir, 2, "16–40 s and 50–62 s")
	call("bob", at(6, 10), &stereo)
	// Sunday 23:30 UTC: Monday in Madrid.
	call("bob", at(11, 23), &transcript.Channels{DurationSeconds: 60, SilenceShare: 0.5, LongestSilenceSeconds: 40,
		DeadAir: []transcript.Span{{Start: 10, End: 50}}, Talk: []transcript.Span{{Start: 0, End: 10}}}) // mono
	call("olga", at(13, 9), &transcript.Channels{Stereo: true, DurationSeconds: 60, AgentTalkRatio: f64(0.5), SilenceShare: 0.1,
		LongestSilenceSeconds: 5, Talk: []transcript.Span{{Start: 0, End: 54}}, Overtalk: []transcript.Span{{Start: 1, End: 2}, {Start: 3, End: 4}},
		OvertalkSeconds: f64(2), DeadAir: []transcript.Span{}})
	call("olga", at(14, 9), nil)                                               // not analysed
	b.seedTask(t, "olga", at(14, 10), "audited", f64(90), nil, nil, "chat", 0) // a chat
	call("bob", at(20, 9), &stereo)                                            // after the period

	get := func(token, query string) map[string]any {
		t.Helper()
		r := b.do(t, http.MethodGet, "/stats/trends?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return details(r)["channels"].(map[string]any)
	}
	weekOf := func(c map[string]any, i int) map[string]any { return c["weeks"].([]any)[i].(map[string]any) }
	c := get(alice, "from=2026-10-05&to=2026-10-19&tz=Europe/Madrid")
	require.Equal(t, float64(3), c["calls"])
	require.Equal(t, float64(2), c["stereo_calls"])
	require.InDelta(t, 40.0, c["longest_silence_seconds"], 1e-9)
	require.Len(t, c["weeks"], 2)
	first := weekOf(c, 0)
	require.Equal(t, float64(1), first["calls"], "the synthesised call alone")
	require.Equal(t, float64(1), first["stereo_calls"])
	require.InDelta(t, 20.0/26, first["average_agent_talk_ratio"], 0.01)
	require.InDelta(t, 37.0/62, first["average_silence_share"], 0.01)
	require.InDelta(t, 24.0, first["longest_silence_seconds"], 0.15)
	require.Equal(t, float64(1), first["dead_air_calls"])
	require.Equal(t, 1.0, first["dead_air_share"])
	require.InDelta(t, 1.0, first["overtalk_per_call"], 1e-9)
	require.InDelta(t, 1.0, first["overtalk_seconds_per_call"], 0.15)
	second := weekOf(c, 1)
	require.Equal(t, float64(2), second["calls"], "Sunday night in UTC is Monday in Madrid")
	require.Equal(t, float64(1), second["stereo_calls"])
	require.InDelta(t, 0.5, second["average_agent_talk_ratio"], 1e-9, "the stereo call's alone")
	require.InDelta(t, 0.3, second["average_silence_share"], 1e-9)
	require.Equal(t, float64(1), second["dead_air_calls"])
	require.InDelta(t, 0.5, second["dead_air_share"], 1e-9)
	require.Equal(t, float64(0), second["hold_calls"])
	require.InDelta(t, 0.0, second["hold_share"], 1e-9)
	require.InDelta(t, 2.0, second["overtalk_per_call"], 1e-9)
	require.InDelta(t, 40.0, second["longest_silence_seconds"], 1e-9)

	// In UTC bob's Sunday-night call is in the first week.
	c = get(alice, "from=2026-10-05&to=2026-10-19")
	require.Equal(t, float64(2), weekOf(c, 0)["calls"])
	require.Equal(t, float64(1), weekOf(c, 1)["calls"])

	// An agent's figures are their own calls', whatever they ask.
	own := get(bob, "from=2026-10-05&to=2026-10-19&tz=Europe/Madrid&operator=olga")
	require.Equal(t, float64(2), own["calls"])
	require.Equal(t, float64(1), weekOf(own, 1)["calls"])
	require.Nil(t, weekOf(own, 1)["average_agent_talk_ratio"], "bob's mono call has none")
	narrowed := get(alice, "from=2026-10-05&to=2026-10-19&tz=Europe/Madrid&operator=olga")
	require.Equal(t, float64(1), narrowed["calls"])
	require.Equal(t, map[string]any{"calls": float64(0), "stereo_calls": float64(0), "average_agent_talk_ratio": nil,
		"average_silence_share": nil, "dead_air_calls": float64(0), "dead_air_share": nil, "hold_calls": float64(0), "hold_share": nil,
		"overtalk_per_call": nil, "overtalk_seconds_per_call": nil, "longest_silence_seconds": nil}, weekOf(narrowed, 0),
		"a week without calls")

	// Another campaign's report has none of them.
	_, err = b.pool.Exec(ctx, `INSERT INTO campaigns (name) VALUES ('second')`)
	require.NoError(t, err)
	other := get(alice, "from=2026-10-05&to=2026-10-19&campaign=second")
	require.Equal(t, float64(0), other["calls"])
	require.Len(t, other["weeks"], 2)
	require.Equal(t, float64(0), weekOf(other, 1)["calls"])
	requireError(t, b.do(t, http.MethodGet, "/stats/trends?campaign=nope", alice, nil), http.StatusBadRequest, CodeValidation)
}
