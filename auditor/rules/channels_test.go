package rules_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

func TestChannelsErrors(t *testing.T) {
	t.Parallel()
	for rule, want := range map[string]string{
		`{"channels": 30}`: `rule.channels: must be an object of limits such as {"max_silence_seconds": 30, "max_agent_talk_ratio": 0.7}: ` +
			`max_agent_talk_ratio, max_hold_seconds, max_overtalk_seconds, max_silence_seconds, max_silence_share, min_agent_talk_ratio`,
		`{"channels": {}}`: `rule.channels: must be an object of limits such as {"max_silence_seconds": 30, "max_agent_talk_ratio": 0.7}: max_agent_talk_ratio, max_hold_seconds, max_overtalk_seconds, max_silence_seconds, max_silence_share, min_agent_talk_ratio`,
		`{"channels": {"max_silence_seconds": "30"}}`:                              `rule.channels.max_silence_seconds: must be a number`,
		`{"channels": {"max_silence_seconds": 0}}`:                                 `rule.channels.max_silence_seconds: must be a number of seconds above 0 and at most 86400`,
		`{"channels": {"max_agent_talk_ratio": 70}}`:                               `rule.channels.max_agent_talk_ratio: must be a share from 0 to 1, such as 0.7 for 70 %`,
		`{"channels": {"max_silence_share": -0.1}}`:                                `rule.channels.max_silence_share: must be a share from 0 to 1, such as 0.7 for 70 %`,
		`{"channels": {"longest_pause": 3}}`:                                       `rule.channels.longest_pause: unknown key; channels has max_agent_talk_ratio, max_hold_seconds, max_overtalk_seconds, max_silence_seconds, max_silence_share, min_agent_talk_ratio`,
		`{"channels": {"max_silence_seconds": 30}, "speaker": "agent"}`:            `rule.channels: must be the rule's only key: its limits judge the call's audio, not its words`,
		`{"channels": {"min_agent_talk_ratio": 0.8, "max_agent_talk_ratio": 0.7}}`: `rule.channels.min_agent_talk_ratio: must not be above max_agent_talk_ratio (0.7)`,
	} {
		err := scoring.Validate(scoring.Scorecard{Criteria: []scoring.Criterion{criterion("c", rule)}}, rules.CheckRule)
		var invalid *scoring.ValidationError
		require.ErrorAs(t, err, &invalid, rule)
		require.Equal(t, "scorecard is not valid: criterion 0 (c): "+want, invalid.Error(), rule)
	}
	require.Empty(t, rules.CheckRule([]byte(`{"channels": {"max_silence_seconds": 30, "min_agent_talk_ratio": 0.3, "max_agent_talk_ratio": 0.7}}`)))
}

// stereoCall is a two-minute call whose agent talks 65 % of the time, with
// a silence of 34 s from 1:02 to 1:36 and 2.5 s of overtalk.
func stereoCall() transcript.Transcript {
	agent, customer, ratio, over := 39.0, 21.0, 0.65, 2.5
	c := &transcript.Channels{Stereo: true, DurationSeconds: 120, SilenceShare: 0.45, LongestSilenceSeconds: 34,
		Talk:         []transcript.Span{{Start: 0, End: 62}, {Start: 96, End: 110}},
		AgentSeconds: &agent, CustomerSeconds: &customer, AgentTalkRatio: &ratio, OvertalkSeconds: &over,
		Overtalk: []transcript.Span{{Start: 10, End: 11}, {Start: 40, End: 41.5}}, Holds: []transcript.Span{{Start: 62, End: 96}}}
	tr := segments(timed(transcript.Agent, 0, 5, "Good morning"))
	tr.Channels = c
	return tr
}

func TestChannelsVerdicts(t *testing.T) {
	t.Parallel()
	call := stereoCall()
	v := judge(t, `{"channels": {"max_silence_seconds": 30}}`, scoring.Call, call, "en")
	require.False(t, v.Complies)
	require.Equal(t, evidence, v.Assessment)
	require.Equal(t, "The longest silence was 34 s (01:02–01:36): not within the at most 30 s allowed.", v.Explanation)
	require.Empty(t, v.Evidence, "nothing said to quote")

	v = judge(t, `{"channels": {"max_agent_talk_ratio": 0.7, "max_overtalk_seconds": 5}}`, scoring.Call, call, "en")
	require.True(t, v.Complies)
	require.Equal(t, evidence, v.Assessment)
	require.Equal(t, "The agent's share of the talk was 65 %: within the at most 70 % allowed. "+
		"The overtalk was 2.5 s (00:40–00:41): within the at most 5 s allowed.", v.Explanation)

	v = judge(t, `{"channels": {"min_agent_talk_ratio": 0.7}}`, scoring.Call, call, "es")
	require.False(t, v.Complies)
	require.Equal(t, "La proporción de habla del agente fue 65 %: fuera de lo permitido, un mínimo de 70 %.", v.Explanation)

	// Within the measurement's margin of the limit: for an analyst to confirm.
	v = judge(t, `{"channels": {"max_agent_talk_ratio": 0.66}}`, scoring.Call, call, "en")
	require.True(t, v.Complies)
	require.Equal(t, scoring.Assessment{Basis: scoring.BasisConflict, Confidence: 0.6}, v.Assessment)
	v = judge(t, `{"channels": {"max_hold_seconds": 33.5}}`, scoring.Call, call, "en")
	require.False(t, v.Complies)
	require.Equal(t, scoring.BasisConflict, v.Basis)

	// A mono call has its silences, not its sides.
	mono := stereoCall()
	mono.Channels = &transcript.Channels{DurationSeconds: 120, SilenceShare: 0.45, LongestSilenceSeconds: 34,
		Talk: []transcript.Span{{Start: 0, End: 62}, {Start: 96, End: 110}}}
	v = judge(t, `{"channels": {"max_silence_seconds": 40}}`, scoring.Call, mono, "en")
	require.True(t, v.Complies)
	require.Equal(t, evidence, v.Assessment)
	unmeasured := scoring.Assessment{Basis: scoring.BasisAbsence, Confidence: 0.5}
	v = judge(t, `{"channels": {"max_agent_talk_ratio": 0.7}}`, scoring.Call, mono, "en")
	require.True(t, v.Complies)
	require.Equal(t, unmeasured, v.Assessment)
	require.Equal(t, "The call was recorded in mono: the agent and the customer cannot be told apart in the audio. "+
		"The agent's share of the talk cannot be measured; an analyst should judge.", v.Explanation)

	// No figures at all: a chat, a call not analysed.
	v = judge(t, `{"channels": {"max_silence_seconds": 30}}`, scoring.Chat, segments(turn(transcript.Agent, "Hola")), "es")
	require.Equal(t, unmeasured, v.Assessment)
	require.Equal(t, "Los canales de la llamada no se analizaron (un chat, o una llamada analizada antes de poder juzgar este criterio). "+
		"El silencio más largo no se puede medir; debe juzgarlo un analista.", v.Explanation)
}
