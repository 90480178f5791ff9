package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// keyChannels is the rule key whose limits judge what a call's channels
// tell (transcript.Channels) rather than its words.
const keyChannels = "channels"

// limitKind is what a "channels" limit reads of the figures: a length in
// seconds, a share from 0 to 1, and whether it needs a stereo call.
type limitKind struct {
	// figure reads the figure and, for a length, where it happened; ok is
	// false when c lacks it (a mono call has no per-side figures).
	figure func(c *transcript.Channels) (got float64, at *transcript.Span, ok bool)
	share  bool // a share from 0 to 1, else seconds
	min    bool // the figure must reach the limit, else stay within it
}

// limitKinds are the keys of "channels"; see the package documentation.
var limitKinds = map[string]limitKind{
	"max_silence_seconds": {figure: func(c *transcript.Channels) (float64, *transcript.Span, bool) {
		return c.LongestSilenceSeconds, longest(quiet(c)), true
	}},
	"max_silence_share": {share: true, figure: func(c *transcript.Channels) (float64, *transcript.Span, bool) {
		return c.SilenceShare, nil, true
	}},
	"max_agent_talk_ratio": {share: true, figure: agentRatio},
	"min_agent_talk_ratio": {share: true, min: true, figure: agentRatio},
	"max_overtalk_seconds": {figure: func(c *transcript.Channels) (float64, *transcript.Span, bool) {
		if c.OvertalkSeconds == nil {
			return 0, nil, false
		}
		return *c.OvertalkSeconds, longest(c.Overtalk), true
	}},
	"max_hold_seconds": {figure: func(c *transcript.Channels) (float64, *transcript.Span, bool) {
		if !c.Stereo {
			return 0, nil, false
		}
		h := longest(c.Holds)
		if h == nil {
			return 0, nil, true
		}
		return h.Seconds(), h, true
	}},
}

func agentRatio(c *transcript.Channels) (float64, *transcript.Span, bool) {
	if c.AgentTalkRatio == nil {
		return 0, nil, false
	}
	return *c.AgentTalkRatio, nil, true
}

// quiet is the stretches in which nobody spoke, from the talk.
func quiet(c *transcript.Channels) []transcript.Span {
	var out []transcript.Span
	at := 0.0
	for _, s := range append(slices.Clip(c.Talk), transcript.Span{Start: c.DurationSeconds, End: c.DurationSeconds}) {
		if s.Start > at {
			out = append(out, transcript.Span{Start: at, End: s.Start})
		}
		at = max(at, s.End)
	}
	return out
}

// longest returns the longest of spans, nil when there is none.
func longest(spans []transcript.Span) *transcript.Span {
	var l *transcript.Span
	for i := range spans {
		if l == nil || spans[i].Seconds() > l.Seconds() {
			l = &spans[i]
		}
	}
	return l
}

// channelLimit is one limit of a rule's "channels".
type channelLimit struct {
	key   string
	value float64
}

// maxLimitSeconds bounds a length limit: a day.
const maxLimitSeconds = 86400

// Measurement margins: a figure this close to its limit may fall on
// either side of it (a frame at each edge of a stretch, a pause bridged
// or not), so its verdict is for an analyst to confirm.
const (
	marginSeconds = 1.0
	marginShare   = 0.02
)

// parseChannels parses a rule's "channels": an object of limits.
func parseChannels(v json.RawMessage, add func(field, format string, args ...any)) []channelLimit {
	keys := slices.Sorted(maps.Keys(limitKinds))
	var fields map[string]json.RawMessage
	if json.Unmarshal(v, &fields) != nil || len(fields) == 0 {
		add(keyChannels, `must be an object of limits such as {"max_silence_seconds": 30, "max_agent_talk_ratio": 0.7}: %s`,
			strings.Join(keys, ", "))
		return nil
	}
	var limits []channelLimit
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		field := keyChannels + "." + k
		kind, known := limitKinds[k]
		var n float64
		switch {
		case !known:
			add(field, "unknown key; %s has %s", keyChannels, strings.Join(keys, ", "))
			continue
		case json.Unmarshal(fields[k], &n) != nil:
			add(field, "must be a number")
			continue
		case kind.share && (n < 0 || n > 1):
			add(field, "must be a share from 0 to 1, such as 0.7 for 70 %%")
			continue
		case !kind.share && (n <= 0 || n > maxLimitSeconds):
			add(field, "must be a number of seconds above 0 and at most %d", maxLimitSeconds)
			continue
		}
		limits = append(limits, channelLimit{k, n})
	}
	lo, hasLo := fields["min_agent_talk_ratio"]
	hi, hasHi := fields["max_agent_talk_ratio"]
	var l, h float64
	if hasLo && hasHi && json.Unmarshal(lo, &l) == nil && json.Unmarshal(hi, &h) == nil && l > h {
		add(keyChannels+".min_agent_talk_ratio", "must not be above max_agent_talk_ratio (%g)", h)
	}
	return limits
}

// judgeChannels judges limits against what the call's channels tell. A
// figure clearly within its limit or beyond it decides the verdict as
// surely as a phrase said as written; one within the measurement margin
// of its limit, or missing (a chat, a mono call for a per-side figure, a
// call not analysed), leaves it to an analyst.
func (a *audit) judgeChannels(id string, limits []channelLimit) (scoring.Verdict, decided) {
	v := scoring.Verdict{CriterionID: id, Complies: true}
	v.Basis, v.Confidence = scoring.BasisEvidence, confidenceExact
	var sentences []string
	for _, l := range limits {
		kind := limitKinds[l.key]
		if a.channels == nil {
			return a.unmeasured(v, l.key, a.w.unanalysed())
		}
		got, at, ok := kind.figure(a.channels)
		if !ok {
			return a.unmeasured(v, l.key, a.w.mono())
		}
		within := got <= l.value
		if kind.min {
			within = got >= l.value
		}
		margin := marginSeconds
		if kind.share {
			margin = marginShare
		}
		if math.Abs(got-l.value) <= margin {
			v.Basis, v.Confidence = scoring.BasisConflict, min(v.Confidence, confidenceConflict)
		}
		v.Complies = v.Complies && within
		sentences = append(sentences, a.w.measured(l.key, got, l.value, at, within, kind.share))
	}
	v.Explanation = strings.Join(sentences, " ")
	return v, decided{signal: SignalChannels}
}

// unmeasured is v when the figure of key is not known.
func (a *audit) unmeasured(v scoring.Verdict, key, why string) (scoring.Verdict, decided) {
	v.Complies, v.Basis, v.Confidence = true, scoring.BasisAbsence, confidenceUnmeasured
	v.Explanation = why + " " + a.w.review(key)
	return v, decided{signal: SignalChannels}
}

// figure formats a figure: seconds, or a share as a percentage.
func figure(x float64, share bool) string {
	if share {
		return strconv.FormatFloat(math.Round(x*1000)/10, 'f', -1, 64) + " %"
	}
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) + " s"
}

// channelNames name each limit's figure in explanations.
var channelNames = map[string][2]string{ // English, Spanish
	"max_silence_seconds":  {"The longest silence", "El silencio más largo"},
	"max_silence_share":    {"The share of silence", "La proporción de silencio"},
	"max_agent_talk_ratio": {"The agent's share of the talk", "La proporción de habla del agente"},
	"min_agent_talk_ratio": {"The agent's share of the talk", "La proporción de habla del agente"},
	"max_overtalk_seconds": {"The overtalk", "El habla simultánea"},
	"max_hold_seconds":     {"The longest hold", "La espera más larga"},
}

func (english) measured(key string, got, limit float64, at *transcript.Span, within, share bool) string {
	where := ""
	if at != nil && at.Seconds() > 0 {
		where = fmt.Sprintf(" (%s–%s)", clock(at.Start), clock(at.End))
	}
	bound := "at most"
	if limitKinds[key].min {
		bound = "at least"
	}
	verdict := "within"
	if !within {
		verdict = "not within"
	}
	return fmt.Sprintf("%s was %s%s: %s the %s %s allowed.", channelNames[key][0], figure(got, share), where, verdict, bound,
		figure(limit, share))
}

func (english) unanalysed() string {
	return "The call's channels were not analysed (a chat, or a call analysed before this criterion could be judged)."
}

func (english) mono() string {
	return "The call was recorded in mono: the agent and the customer cannot be told apart in the audio."
}

func (english) review(key string) string {
	return fmt.Sprintf("%s cannot be measured; an analyst should judge.", channelNames[key][0])
}

func (spanish) measured(key string, got, limit float64, at *transcript.Span, within, share bool) string {
	where := ""
	if at != nil && at.Seconds() > 0 {
		where = fmt.Sprintf(" (%s–%s)", clock(at.Start), clock(at.End))
	}
	bound := "un máximo de"
	if limitKinds[key].min {
		bound = "un mínimo de"
	}
	verdict := "dentro de"
	if !within {
		verdict = "fuera de"
	}
	return fmt.Sprintf("%s fue %s%s: %s lo permitido, %s %s.", channelNames[key][1], figure(got, share), where, verdict, bound,
		figure(limit, share))
}

func (spanish) unanalysed() string {
	return "Los canales de la llamada no se analizaron (un chat, o una llamada analizada antes de poder juzgar este criterio)."
}

func (spanish) mono() string {
	return "La llamada se grabó en mono: en el audio no se distingue al agente del cliente."
}

func (spanish) review(key string) string {
	return fmt.Sprintf("%s no se puede medir; debe juzgarlo un analista.", channelNames[key][1])
}
