package db

import (
	"encoding/json"
	"strconv"
	"strings"
)

// MetadataMatch selects the tasks whose metadata has Key with Value: a
// string equal to it, or a number or boolean that Value writes (5, 5.0,
// true).
type MetadataMatch struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// candidates are the metadata objects, each of one key, whose containment
// (@>) selects the match: so that the metadata's index serves it.
func (m MetadataMatch) candidates() []string {
	out := []string{}
	for _, v := range m.values() {
		b, _ := json.Marshal(map[string]any{m.Key: v})
		out = append(out, string(b))
	}
	return out
}

// values are the JSON values Value may stand for.
func (m MetadataMatch) values() []any {
	vs := []any{m.Value}
	if f, err := strconv.ParseFloat(m.Value, 64); err == nil && json.Valid([]byte(m.Value)) {
		vs = append(vs, json.Number(strconv.FormatFloat(f, 'g', -1, 64)))
	}
	if b, err := strconv.ParseBool(m.Value); err == nil && (m.Value == "true" || m.Value == "false") {
		vs = append(vs, b)
	}
	return vs
}

// ChannelBounds bound what a call's channels tell (call_channels); nil
// fields bound nothing.
type ChannelBounds struct {
	// MinAgentTalkRatio and MaxAgentTalkRatio bound the agent's share of
	// the talk (0..1; stereo calls only).
	MinAgentTalkRatio *float64 `json:"min_agent_talk_ratio,omitempty"`
	MaxAgentTalkRatio *float64 `json:"max_agent_talk_ratio,omitempty"`
	// MinSilenceShare and MaxSilenceShare bound the share of the recording
	// in which nobody spoke (0..1).
	MinSilenceShare *float64 `json:"min_silence_share,omitempty"`
	MaxSilenceShare *float64 `json:"max_silence_share,omitempty"`
	// MinLongestSilence is the least length of the longest silence, in
	// seconds.
	MinLongestSilence *float64 `json:"min_longest_silence,omitempty"`
	// MinDeadAir, MinOvertalk and MinHolds are the least number of dead-air
	// silences, overtalk stretches and holds (the last two stereo only).
	MinDeadAir  *int `json:"min_dead_air,omitempty"`
	MinOvertalk *int `json:"min_overtalk,omitempty"`
	MinHolds    *int `json:"min_holds,omitempty"`
}

// conds are b's conditions on call_channels ch, their values through
// param (which returns the value's placeholder).
func (b ChannelBounds) conds(param func(v any) string) []string {
	var out []string
	for _, c := range []struct {
		column, op string
		v          *float64
	}{
		{"agent_talk_ratio", ">=", b.MinAgentTalkRatio}, {"agent_talk_ratio", "<=", b.MaxAgentTalkRatio},
		{"silence_share", ">=", b.MinSilenceShare}, {"silence_share", "<=", b.MaxSilenceShare},
		{"longest_silence_seconds", ">=", b.MinLongestSilence},
	} {
		if c.v != nil {
			out = append(out, "ch."+c.column+" "+c.op+" "+param(*c.v))
		}
	}
	for _, c := range []struct {
		column string
		v      *int
	}{{"dead_air_count", b.MinDeadAir}, {"overtalk_count", b.MinOvertalk}, {"hold_count", b.MinHolds}} {
		if c.v != nil {
			out = append(out, "ch."+c.column+" >= "+param(*c.v))
		}
	}
	return out
}

// callConds are f's conditions on what the platform said of the call and
// on what its channels tell, their values appended to args.
func (f TaskFilter) callConds(args *[]any) []string {
	param := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	var out []string
	for _, c := range []struct{ column, v string }{
		{"call_id", f.CallID}, {"queue", f.Queue}, {"direction", f.Direction}, {"caller", f.Caller}, {"called", f.Called},
	} {
		if c.v != "" {
			out = append(out, "t."+c.column+" = "+param(c.v))
		}
	}
	if !f.StartedFrom.IsZero() {
		out = append(out, "t.started_at >= "+param(f.StartedFrom))
	}
	if !f.StartedTo.IsZero() {
		out = append(out, "t.started_at < "+param(f.StartedTo))
	}
	if m := f.Metadata; m != nil {
		// Containment, one object at a time, which the metadata's index serves.
		var alts []string
		for _, c := range m.candidates() {
			alts = append(alts, "t.metadata @> "+param(c)+"::jsonb")
		}
		out = append(out, "("+strings.Join(alts, " OR ")+")")
	}
	if ch := f.Channels.conds(param); len(ch) > 0 {
		out = append(out, "EXISTS (SELECT 1 FROM call_channels ch WHERE ch.task_uuid = t.uuid AND "+strings.Join(ch, " AND ")+")")
	}
	return out
}
