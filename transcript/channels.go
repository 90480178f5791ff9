package transcript

import (
	"strings"
	"unicode"
)

// Channels is what a call's audio tells of who spoke when, measured from
// voice activity on each channel (package talk), not from the words: it
// holds for every language, with or without a speech engine. A stereo
// call (agent and customer on channels of their own) has every figure; a
// mono call has only its talk and silences, since who spoke is not known.
// Times are seconds from the start of the recording.
type Channels struct {
	Stereo          bool    `json:"stereo" doc:"True when the agent and the customer were recorded on channels of their own; a mono call (or a stereo file carrying the same signal twice) has only its talk and silences"`
	DurationSeconds float64 `json:"duration_seconds" minimum:"0" doc:"The length of the recording analysed"`
	// Talk is when anyone spoke: on a stereo call, the union of both sides.
	Talk         []Span `json:"talk" doc:"When anyone spoke (voice activity on any channel)"`
	AgentTalk    []Span `json:"agent_talk,omitempty" doc:"When the agent spoke (stereo calls only)"`
	CustomerTalk []Span `json:"customer_talk,omitempty" doc:"When the customer spoke (stereo calls only)"`
	// AgentSeconds and CustomerSeconds are nil on a mono call.
	AgentSeconds    *float64 `json:"agent_talk_seconds,omitempty" minimum:"0" doc:"The agent's talk time (stereo calls only)"`
	CustomerSeconds *float64 `json:"customer_talk_seconds,omitempty" minimum:"0" doc:"The customer's talk time (stereo calls only)"`
	// AgentTalkRatio is the agent's share of the talk time of both sides;
	// nil on a mono call or when nobody spoke.
	AgentTalkRatio *float64 `json:"agent_talk_ratio,omitempty" minimum:"0" maximum:"1" doc:"The agent's talk time over the talk time of both sides (stereo calls where someone spoke)"`
	// SilenceShare is the share of the recording in which nobody spoke.
	SilenceShare          float64 `json:"silence_share" minimum:"0" maximum:"1" doc:"The share of the recording in which nobody spoke"`
	LongestSilenceSeconds float64 `json:"longest_silence_seconds" minimum:"0" doc:"The longest stretch in which nobody spoke"`
	// DeadAir are the silences of DeadAirSeconds or more.
	DeadAir        []Span  `json:"dead_air" doc:"Silences of dead_air_seconds or more"`
	DeadAirSeconds float64 `json:"dead_air_seconds" minimum:"0" doc:"The shortest silence counted as dead air (10 s)"`
	// Overtalk are the stretches in which both sides spoke (stereo only).
	Overtalk        []Span   `json:"overtalk,omitempty" doc:"Stretches of half a second or more in which both sides spoke (stereo calls only)"`
	OvertalkSeconds *float64 `json:"overtalk_seconds,omitempty" minimum:"0" doc:"The overtalk's total length (stereo calls only)"`
	// Holds are long stretches in which nobody spoke, silent or with music
	// (stereo only; see package talk).
	Holds []Span `json:"holds,omitempty" doc:"Stretches of 20 s or more in which nobody spoke, silent or with unbroken sound such as music on hold (stereo calls only)"`
	// AgentWordsPerMinute and CustomerWordsPerMinute are each side's words
	// over its talk time, when a transcript with speakers exists
	// (SpeakingRates); nil otherwise.
	AgentWordsPerMinute    *float64 `json:"agent_words_per_minute,omitempty" minimum:"0" doc:"The agent's transcribed words per minute of its talk time (stereo calls with a transcript)"`
	CustomerWordsPerMinute *float64 `json:"customer_words_per_minute,omitempty" minimum:"0" doc:"The customer's transcribed words per minute of its talk time (stereo calls with a transcript)"`
}

// Span is a stretch of a recording, in seconds from its start.
type Span struct {
	Start float64 `json:"start" minimum:"0"`
	End   float64 `json:"end" minimum:"0"`
}

// Seconds is the span's length.
func (s Span) Seconds() float64 { return s.End - s.Start }

// SpeakingRates sets each side's words per minute from segments, the words
// of the call's transcript: a side's words over its talk time. It does
// nothing on a mono call, and leaves a side without talk or words unset.
func (c *Channels) SpeakingRates(segments []Segment) {
	if !c.Stereo {
		return
	}
	words := map[string]int{}
	for _, s := range segments {
		words[s.Speaker] += len(strings.FieldsFunc(s.Text, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\''
		}))
	}
	c.AgentWordsPerMinute = perMinute(words[Agent], c.AgentSeconds)
	c.CustomerWordsPerMinute = perMinute(words[Customer], c.CustomerSeconds)
}

func perMinute(words int, seconds *float64) *float64 {
	if words == 0 || seconds == nil || *seconds <= 0 {
		return nil
	}
	r := float64(words) / *seconds * 60
	return &r
}
