package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/auditd/auditd/auditor/tone"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Rule keys, as written in a criterion's JSON rule.
const (
	keyAny                     = "any"
	keyAll                     = "all"
	keyNone                    = "none"
	keyHints                   = "hints"
	keyAppliesIf               = "applies_if"
	keyAppliesIfSpeaker        = "applies_if_speaker"
	keyAppliesIfOwn            = "applies_if_own"
	keySpeaker                 = "speaker"
	keyExact                   = "exact"
	keyNegation                = "negation"
	keyWithinFirst             = "within_first"
	keyWithinLast              = "within_last"
	keyWithinFirstTurns        = "within_first_turns"
	keyWithinLastTurns         = "within_last_turns"
	keyWithinFirstOwnTurns     = "within_first_own_turns"
	keyWithinLastOwnTurns      = "within_last_own_turns"
	keyAfterCustomerTurns      = "after_customer_turns"
	keyAbsenceConfidence       = "absence_confidence"
	keyNotApplicableConfidence = "not_applicable_confidence"
	keyHintConfidence          = "hint_confidence"
	keyCues                    = "cues"
	keyCuesTogether            = "cues_together"
	keyReplies                 = "replies"
	keyReplyCues               = "reply_cues"
	keyUnprompted              = "unprompted"
	keyBefore                  = "before"
	keyAgainst                 = "against"
	keyUnless                  = "unless"
	keyPressed                 = "pressed"
	keyRestates                = "restates"
	keySettled                 = "settled"
	keyTone                    = "tone"
)

// Keys of the "tone" object.
const (
	keyToneModel    = "model"
	keyToneFailsAt  = "fails_at"
	keyToneMeetsAt  = "meets_at"
	keyToneReviewAt = "review_at"
)

// ruleKeys lists every key, for the error that names an unknown one.
var ruleKeys = []string{keyAny, keyAll, keyNone, keyHints, keyAppliesIf, keyAppliesIfSpeaker, keyAppliesIfOwn, keySpeaker, keyExact, keyNegation,
	keyWithinFirst, keyWithinLast, keyWithinFirstTurns, keyWithinLastTurns, keyWithinFirstOwnTurns,
	keyWithinLastOwnTurns, keyAfterCustomerTurns, keyAbsenceConfidence, keyNotApplicableConfidence, keyHintConfidence,
	keyCues, keyCuesTogether, keyReplies, keyReplyCues, keyUnprompted, keyBefore, keyAgainst, keyUnless, keyPressed, keyRestates, keySettled, keyTone, keyChannels}

// anySpeaker is the speaker scope that takes every segment.
const anySpeaker = "any"

// maxPhraseWords bounds a term's length: matching tracks the possible
// ends of a term in a 64-bit set, and each word may be followed by one
// inserted word.
const maxPhraseWords = 31

// Default confidences of verdicts (see the package documentation).
const (
	confidenceExact      = 0.95 // decided by words said as written
	confidenceLoose      = 0.85 // … by words said misspelt or with a word inserted
	confidenceConflict   = 0.6  // a phrase said but negated, or said out of place
	defaultAbsence       = 0.7
	defaultNotApplicable = 0.7
	defaultHint          = 0.6
	// confidenceUnmeasured: a channels limit whose figure is unknown.
	confidenceUnmeasured = 0.5
	defaultCuesTogether  = 2
	maxCuesTogether      = 10
)

// rule is a criterion's parsed rule; see the package documentation.
type rule struct {
	any   []phrase   // one group: at least one phrase must be said
	all   [][]phrase // every group must have one of its phrases said
	none  []phrase   // none of these may be said
	hints []phrase   // weak signals against the verdict absence gives
	// cues are weaker still: cuesTogether of them in one turn count as a
	// hint ("well" and "honestly" and "people" in one reply).
	cues         []phrase
	cuesTogether int
	// replies are what the other party says back, in the turn right after
	// a turn in scope, about that turn ("how rude", "no me hable así"): a
	// reply is a hint. A reply cue ("unbelievable", "increíble") counts as
	// one of the cues of the turn it answers.
	replies, replyCues []phrase
	// unprompted phrases are a hint when the speaker says one and the
	// other party's turn before said none of them: laughing at the
	// customer ("jaja", "lol", "😂") rather than with them.
	unprompted []phrase
	appliesIf  []phrase // when none is said, the criterion does not apply
	// appliesIfSpeaker is whose turns applies_if looks at: what the
	// interaction is about ("I don't recognise a charge on my account"),
	// negated or not.
	appliesIfSpeaker string
	// appliesIfOwn also makes the criterion apply, said by the rule's own
	// speaker: the agent opening the account ("I can see your booking")
	// when the customer named none.
	appliesIfOwn []phrase
	// before: what any and all look for counts only when said before the
	// speaker first says one of these (verification asked before the agent
	// acts on the account: "I've moved your payment date"); with
	// applies_if, one said also makes the criterion apply.
	before []phrase
	// against are phrases that say the opposite of any: one said makes
	// the criterion not met even when a phrase of any was said ("someone
	// will be in touch", "there's nothing I can do"), unless one of unless
	// is said in the same turn ("… within 48 hours").
	against, unless []phrase
	// pressed are what the other party says after the phrase that met the
	// criterion when it puts it in doubt (the customer asking "but when?"
	// after "someone will call you"): the verdict stands, but is
	// calibrated apart (SignalPressedSuffix) and its explanation says so.
	pressed []phrase
	// restates are what the speaker says when restating the other party
	// ("so you're", «entonces», «querés»): one said in a sentence that
	// repeats restateShared of the other party's words since the
	// speaker's previous turn meets any (SignalRestated), as the customer
	// hears what they said understood.
	restates []phrase
	// settled are what the other party says, in their last two turns,
	// when the interaction ends settled ("perfect, thanks", «eso era
	// todo»): with nothing of any said, one is a hint that the criterion
	// is met (SignalSettled).
	settled []phrase
	// speaker is transcript.Agent, transcript.Customer or anySpeaker.
	speaker string
	// exact turns off tolerance for misspellings (not for case, accents or
	// punctuation): for short forbidden words whose neighbours are innocent.
	exact bool
	// negation: a phrase said in a negated clause ("no puedo ayudarle")
	// does not count. On unless the rule says false.
	negation                          bool
	withinFirst, withinLast           float64 // seconds, 0 = unbounded
	withinFirstTurns, withinLastTurns int     // turns, 0 = unbounded
	// withinFirstOwnTurns and withinLastOwnTurns count only the speaker's
	// own turns (the agent's first two), 0 = unbounded.
	withinFirstOwnTurns, withinLastOwnTurns int
	// afterCustomerTurns: only what comes after the customer's Nth turn
	// (once the customer has said what the problem is), 0 = from the start.
	afterCustomerTurns                                         int
	absenceConfidence, notApplicableConfidence, hintConfidence float64
	// tone, when set, scores the speaker's turns with a trained model of
	// package tone when no phrase of none (or of any) was said.
	tone *toneRule
	// channels, when set, are limits on what the call's channels tell,
	// judged instead of words: the rule has no other key.
	channels []channelLimit
}

// toneRule is a rule's "tone": which model scores the speaker's turns, the
// score at which a turn fails a "none" criterion or meets an "any" one (0:
// never), and the score from which it is a conflict for an analyst to
// review.
type toneRule struct {
	model                      string
	failsAt, meetsAt, reviewAt float64
}

// phrase is a phrase as the rule wrote it, parsed.
type phrase struct {
	text string
	expr expression
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
	r := rule{speaker: anySpeaker, appliesIfSpeaker: anySpeaker, negation: true, absenceConfidence: defaultAbsence,
		notApplicableConfidence: defaultNotApplicable, hintConfidence: defaultHint, cuesTogether: defaultCuesTogether}
	var problems []scoring.Problem
	add := func(field, format string, args ...any) {
		problem := scoring.Problem{Field: field, Message: fmt.Sprintf(format, args...)}
		// A phrase's own error (not one wrapped as about an expansion of
		// it) locates the problem at its character.
		for _, a := range args {
			if e, ok := a.(*phraseError); ok {
				problem.At = e.at
			}
		}
		problems = append(problems, problem)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		add("", `must be a JSON object such as {"any": ["good morning"], "speaker": "agent"}`)
		return r, problems
	}
	// exact applies to every phrase, so it is read first.
	if v, ok := fields[keyExact]; ok && json.Unmarshal(v, &r.exact) != nil {
		add(keyExact, "must be true or false")
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys) // problems in a stable order
	// The keys that are a list of phrases, and where each goes.
	lists := map[string]*[]phrase{keyAny: &r.any, keyNone: &r.none, keyHints: &r.hints, keyAppliesIf: &r.appliesIf,
		keyAppliesIfOwn: &r.appliesIfOwn, keyCues: &r.cues, keyReplies: &r.replies, keyReplyCues: &r.replyCues,
		keyUnprompted: &r.unprompted, keyBefore: &r.before, keyAgainst: &r.against, keyUnless: &r.unless, keyPressed: &r.pressed,
		keyRestates: &r.restates, keySettled: &r.settled}
	for _, key := range keys {
		v := fields[key]
		if list, ok := lists[key]; ok {
			*list = parsePhrases(v, key, r.exact, add)
			continue
		}
		switch key {
		case keyAll:
			r.all = parseGroups(v, r.exact, add)
		case keySpeaker:
			r.speaker = parseSpeaker(v, key, add)
		case keyAppliesIfSpeaker:
			r.appliesIfSpeaker = parseSpeaker(v, key, add)
		case keyExact:
		case keyNegation:
			if json.Unmarshal(v, &r.negation) != nil {
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
		case keyWithinFirstOwnTurns:
			r.withinFirstOwnTurns = parseTurns(v, key, add)
		case keyWithinLastOwnTurns:
			r.withinLastOwnTurns = parseTurns(v, key, add)
		case keyAfterCustomerTurns:
			r.afterCustomerTurns = parseTurns(v, key, add)
		case keyAbsenceConfidence:
			r.absenceConfidence = parseConfidence(v, key, add)
		case keyNotApplicableConfidence:
			r.notApplicableConfidence = parseConfidence(v, key, add)
		case keyHintConfidence:
			r.hintConfidence = parseConfidence(v, key, add)
		case keyTone:
			_, none := fields[keyNone]
			r.tone = parseTone(v, none, add)
		case keyChannels:
			r.channels = parseChannels(v, add)
		case keyCuesTogether:
			if json.Unmarshal(v, &r.cuesTogether) != nil || r.cuesTogether < 2 || r.cuesTogether > maxCuesTogether {
				add(key, "must be a whole number from 2 to %d: how many different cues in one turn count as a hint", maxCuesTogether)
			}
		default:
			add(key, "unknown key; a rule has %s", strings.Join(ruleKeys, ", "))
		}
	}
	if _, ok := fields[keyChannels]; ok {
		if len(fields) > 1 {
			add(keyChannels, "must be the rule's only key: its limits judge the call's audio, not its words")
		}
		return r, problems
	}
	_, hasAny := fields[keyAny]
	_, hasAll := fields[keyAll]
	_, hasNone := fields[keyNone]
	if !hasAny && !hasAll && !hasNone {
		add("", "needs at least one of %q, %q or %q to say what to look for", keyAny, keyAll, keyNone)
	}
	if _, ok := fields[keyNotApplicableConfidence]; ok && r.appliesIf == nil {
		add(keyNotApplicableConfidence, "only means something with %q", keyAppliesIf)
	}
	for _, key := range []string{keyAppliesIfSpeaker, keyAppliesIfOwn} {
		if _, ok := fields[key]; ok && r.appliesIf == nil {
			add(key, "only means something with %q", keyAppliesIf)
		}
	}
	if _, ok := fields[keyHintConfidence]; ok && r.hints == nil && r.cues == nil && r.replies == nil && r.replyCues == nil &&
		r.unprompted == nil && r.settled == nil && r.tone == nil {
		add(keyHintConfidence, "only means something with %q, %q, %q, %q, %q, %q or %q", keyHints, keyCues, keyReplies, keyReplyCues,
			keyUnprompted, keySettled, keyTone)
	}
	if _, ok := fields[keyTone]; ok && hasNone == hasAny {
		add(keyTone, "needs %q or %q, not both: the model judges the turns when no phrase of it was said", keyNone, keyAny)
	}
	if _, ok := fields[keyTone]; ok && r.speaker == anySpeaker {
		add(keySpeaker, "must be %q or %q when the rule has %q: the model scores one party's turns", transcript.Agent,
			transcript.Customer, keyTone)
	}
	if _, ok := fields[keyCuesTogether]; ok && r.cues == nil && r.replyCues == nil {
		add(keyCuesTogether, "only means something with %q or %q", keyCues, keyReplyCues)
	}
	if (r.replies != nil || r.replyCues != nil || r.unprompted != nil || r.restates != nil || r.settled != nil) && r.speaker == anySpeaker {
		add(keySpeaker, "must be %q or %q when the rule has %q, %q, %q, %q or %q: they look at the other party's turns too",
			transcript.Agent, transcript.Customer, keyReplies, keyReplyCues, keyUnprompted, keyRestates, keySettled)
	}
	if _, ok := fields[keyBefore]; ok && !hasAny && !hasAll {
		add(keyBefore, "only means something with %q or %q", keyAny, keyAll)
	}
	if _, ok := fields[keyAgainst]; ok && !hasAny {
		add(keyAgainst, "only means something with %q", keyAny)
	}
	for _, key := range []string{keyRestates, keySettled} {
		if _, ok := fields[key]; ok && !hasAny {
			add(key, "only means something with %q", keyAny)
		}
	}
	if _, ok := fields[keyUnless]; ok && r.against == nil {
		add(keyUnless, "only means something with %q", keyAgainst)
	}
	if (r.before != nil || r.unless != nil) && r.speaker == anySpeaker {
		add(keySpeaker, "must be %q or %q when the rule has %q or %q: they look at the speaker's turns in order",
			transcript.Agent, transcript.Customer, keyBefore, keyUnless)
	}
	if (r.withinFirstOwnTurns > 0 || r.withinLastOwnTurns > 0) && r.speaker == anySpeaker {
		add(keySpeaker, "must be %q or %q when the rule counts the speaker's own turns", transcript.Agent, transcript.Customer)
	}
	return r, problems
}

// parsePhrases parses a non-empty list of phrases.
func parsePhrases(v json.RawMessage, field string, exact bool, add func(field, format string, args ...any)) []phrase {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil || items == nil {
		add(field, "must be a list of phrases")
		return nil
	}
	if len(items) == 0 {
		add(field, "must list at least one phrase")
	}
	out := make([]phrase, 0, len(items))
	for i, item := range items {
		out = append(out, parsePhrase(item, fmt.Sprintf("%s[%d]", field, i), exact, add)...)
	}
	return out
}

// parseGroups parses the "all" list, whose items are a phrase or a list of
// alternative phrases.
func parseGroups(v json.RawMessage, exact bool, add func(field, format string, args ...any)) [][]phrase {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil || items == nil {
		add(keyAll, "must be a list whose items are a phrase or a list of alternative phrases")
		return nil
	}
	if len(items) == 0 {
		add(keyAll, "must list at least one phrase")
	}
	out := make([][]phrase, 0, len(items))
	for i, item := range items {
		field := fmt.Sprintf("%s[%d]", keyAll, i)
		if t := bytes.TrimSpace(item); len(t) > 0 && t[0] == '[' {
			if g := parsePhrases(item, field, exact, add); len(g) > 0 {
				out = append(out, g)
			}
		} else if g := parsePhrase(item, field, exact, add); len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// parsePhrase parses a phrase: the phrases it stands for, one unless it
// has groups of alternatives ("(ha quedado|han quedado) registrado"); none
// when it is not valid.
func parsePhrase(v json.RawMessage, field string, exact bool, add func(field, format string, args ...any)) []phrase {
	var p string
	if json.Unmarshal(v, &p) != nil {
		add(field, "must be a phrase (a string)")
		return nil
	}
	texts, err := expandGroups(p)
	if err != nil {
		add(field, "%q %s", p, err)
		return nil
	}
	out := make([]phrase, 0, len(texts))
	for _, text := range texts {
		x, err := parseExpression(text, exact)
		if err != nil {
			if text != p {
				// Its position is in the expansion, not in p.
				err = fmt.Errorf("(as %q) %w", text, err)
			}
			add(field, "%q %s", p, err)
			return nil
		}
		out = append(out, phrase{text: text, expr: x})
	}
	return out
}

func parseSpeaker(v json.RawMessage, field string, add func(field, format string, args ...any)) string {
	var s string
	if json.Unmarshal(v, &s) != nil || s != transcript.Agent && s != transcript.Customer && s != anySpeaker {
		add(field, "must be %q, %q or %q", transcript.Agent, transcript.Customer, anySpeaker)
		return anySpeaker
	}
	return s
}

func parseConfidence(v json.RawMessage, field string, add func(field, format string, args ...any)) float64 {
	var c float64
	if json.Unmarshal(v, &c) != nil || !(c >= 0 && c <= 1) {
		add(field, "must be a number from 0 to 1, such as 0.8")
		return 0
	}
	return c
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

// parseTone parses a rule's "tone", of a rule with "none" (none) or with
// "any":
//
//	{"model": "respect", "fails_at": 0.8, "review_at": 0.5}
//	{"model": "empathy", "review_at": 0.7, "meets_at": 0.95}
func parseTone(v json.RawMessage, none bool, add func(field, format string, args ...any)) *toneRule {
	example := `{"model": "respect", "fails_at": 0.8, "review_at": 0.5}`
	decides, keys := keyToneFailsAt, []string{keyToneModel, keyToneFailsAt, keyToneReviewAt}
	if !none {
		example = `{"model": "empathy", "review_at": 0.7, "meets_at": 0.95}`
		decides, keys = keyToneMeetsAt, []string{keyToneModel, keyToneReviewAt, keyToneMeetsAt}
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(v, &fields) != nil || fields == nil {
		add(keyTone, "must be an object such as %s", example)
		return nil
	}
	t := &toneRule{}
	ok := true
	field := func(k string) string { return keyTone + "." + k }
	models := tone.Names()
	if m, has := fields[keyToneModel]; !has {
		add(field(keyToneModel), "is required: the trained model that scores the turns (%s)", strings.Join(models, ", "))
		ok = false
	} else if json.Unmarshal(m, &t.model) != nil || !slices.Contains(models, t.model) {
		add(field(keyToneModel), "must name a trained model: %s", strings.Join(models, ", "))
		ok = false
	}
	threshold := func(k string, to *float64) bool {
		raw, has := fields[k]
		if !has {
			return false
		}
		if json.Unmarshal(raw, to) != nil || !(*to > 0 && *to <= 1) {
			add(field(k), "must be a score greater than 0 and at most 1, such as 0.8")
			ok = false
			return false
		}
		return true
	}
	var decidesAt *float64
	if none {
		decidesAt = &t.failsAt
		if _, has := fields[keyToneFailsAt]; !has {
			add(field(keyToneFailsAt), "is required: the score from which a turn fails the criterion, such as 0.8")
			ok = false
		}
	} else {
		decidesAt = &t.meetsAt
		if _, has := fields[keyToneReviewAt]; !has {
			add(field(keyToneReviewAt), "is required: the score from which a turn puts the criterion's absence in doubt, such as 0.7")
			ok = false
		}
	}
	threshold(decides, decidesAt)
	if threshold(keyToneReviewAt, &t.reviewAt) && *decidesAt > 0 && t.reviewAt > *decidesAt {
		add(field(keyToneReviewAt), "must not be above %s (%g): from it, a turn is for an analyst to review", decides, *decidesAt)
		ok = false
	} else if _, has := fields[keyToneReviewAt]; !has {
		t.reviewAt = *decidesAt
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(keys, k) {
			add(field(k), "unknown key; %s has %s", keyTone, strings.Join(keys, ", "))
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return t
}
