package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Rule keys, as written in a criterion's JSON rule.
const (
	keyAny              = "any"
	keyAll              = "all"
	keyNone             = "none"
	keySpeaker          = "speaker"
	keyExact            = "exact"
	keyWithinFirst      = "within_first"
	keyWithinLast       = "within_last"
	keyWithinFirstTurns = "within_first_turns"
	keyWithinLastTurns  = "within_last_turns"
)

// anySpeaker is the speaker scope that takes every segment.
const anySpeaker = "any"

// maxPhraseWords bounds a phrase's length: matching tracks the possible
// ends of a phrase in a 64-bit set, and each word may be followed by one
// inserted word.
const maxPhraseWords = 31

// rule is a criterion's parsed rule; see the package documentation.
type rule struct {
	any  []string   // one group: at least one phrase must be said
	all  [][]string // every group must have one of its phrases said
	none []string   // none of these may be said
	// speaker is transcript.Agent, transcript.Customer or anySpeaker.
	speaker string
	// exact turns off tolerance for misspellings (not for case, accents or
	// punctuation): for short forbidden words whose neighbours are innocent.
	exact                             bool
	withinFirst, withinLast           float64 // seconds, 0 = unbounded
	withinFirstTurns, withinLastTurns int     // turns, 0 = unbounded
}

// CheckRule checks the syntax of a criterion's rule and returns every
// problem found, for scoring.Validate:
//
//	scoring.Validate(card, rules.CheckRule)
func CheckRule(raw json.RawMessage) []scoring.Problem {
	_, problems := parseRule(raw)
	return problems
}

// parseRule parses raw, reporting every problem rather than the first.
func parseRule(raw json.RawMessage) (rule, []scoring.Problem) {
	r := rule{speaker: anySpeaker}
	var problems []scoring.Problem
	add := func(field, format string, args ...any) {
		problems = append(problems, scoring.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		add("", `must be a JSON object such as {"any": ["good morning"], "speaker": "agent"}`)
		return r, problems
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys) // problems in a stable order
	for _, key := range keys {
		v := fields[key]
		switch key {
		case keyAny:
			r.any = parsePhrases(v, key, add)
		case keyNone:
			r.none = parsePhrases(v, key, add)
		case keyAll:
			r.all = parseGroups(v, add)
		case keySpeaker:
			var s string
			if json.Unmarshal(v, &s) != nil || s != transcript.Agent && s != transcript.Customer && s != anySpeaker {
				add(key, "must be %q, %q or %q", transcript.Agent, transcript.Customer, anySpeaker)
			} else {
				r.speaker = s
			}
		case keyExact:
			if json.Unmarshal(v, &r.exact) != nil {
				add(key, "must be true or false")
			}
		case keyWithinFirst:
			r.withinFirst = parseSeconds(v, key, add)
		case keyWithinLast:
			r.withinLast = parseSeconds(v, key, add)
		case keyWithinFirstTurns:
			r.withinFirstTurns = parseTurns(v, key, add)
		case keyWithinLastTurns:
			r.withinLastTurns = parseTurns(v, key, add)
		default:
			add(key, "unknown key; a rule has %s", strings.Join([]string{keyAny, keyAll, keyNone, keySpeaker, keyExact,
				keyWithinFirst, keyWithinLast, keyWithinFirstTurns, keyWithinLastTurns}, ", "))
		}
	}
	_, hasAny := fields[keyAny]
	_, hasAll := fields[keyAll]
	_, hasNone := fields[keyNone]
	if !hasAny && !hasAll && !hasNone {
		add("", "needs at least one of %q, %q or %q to say what to look for", keyAny, keyAll, keyNone)
	}
	return r, problems
}

// parsePhrases parses a non-empty list of phrases.
func parsePhrases(v json.RawMessage, field string, add func(field, format string, args ...any)) []string {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil || items == nil {
		add(field, "must be a list of phrases")
		return nil
	}
	if len(items) == 0 {
		add(field, "must list at least one phrase")
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		if p, ok := parsePhrase(item, fmt.Sprintf("%s[%d]", field, i), add); ok {
			out = append(out, p)
		}
	}
	return out
}

// parseGroups parses the "all" list, whose items are a phrase or a list of
// alternative phrases.
func parseGroups(v json.RawMessage, add func(field, format string, args ...any)) [][]string {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil || items == nil {
		add(keyAll, "must be a list whose items are a phrase or a list of alternative phrases")
		return nil
	}
	if len(items) == 0 {
		add(keyAll, "must list at least one phrase")
	}
	out := make([][]string, 0, len(items))
	for i, item := range items {
		field := fmt.Sprintf("%s[%d]", keyAll, i)
		if t := bytes.TrimSpace(item); len(t) > 0 && t[0] == '[' {
			if g := parsePhrases(item, field, add); len(g) > 0 {
				out = append(out, g)
			}
		} else if p, ok := parsePhrase(item, field, add); ok {
			out = append(out, []string{p})
		}
	}
	return out
}

func parsePhrase(v json.RawMessage, field string, add func(field, format string, args ...any)) (string, bool) {
	var p string
	if json.Unmarshal(v, &p) != nil {
		add(field, "must be a phrase (a string)")
		return "", false
	}
	switch n := len(NormalWords(p)); {
	case n == 0:
		add(field, "%q has no words to look for", p)
		return "", false
	case n > maxPhraseWords:
		add(field, "has %d words; a phrase has at most %d", n, maxPhraseWords)
		return "", false
	}
	return p, true
}

func parseSeconds(v json.RawMessage, field string, add func(field, format string, args ...any)) float64 {
	var s float64
	if json.Unmarshal(v, &s) != nil || !(s > 0) || math.IsInf(s, 0) {
		add(field, "must be a number of seconds greater than 0")
		return 0
	}
	return s
}

func parseTurns(v json.RawMessage, field string, add func(field, format string, args ...any)) int {
	var n int
	if json.Unmarshal(v, &n) != nil || n <= 0 {
		add(field, "must be a whole number of turns greater than 0")
		return 0
	}
	return n
}
