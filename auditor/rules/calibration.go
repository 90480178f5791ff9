package rules

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/auditd/auditd/scoring"
)

// What decided a verdict (Cell.Signal).
const (
	// SignalNotApplicable: applies_if found nothing, so the criterion is met.
	SignalNotApplicable = "not_applicable"
	// SignalPhrase: every phrase the rule wants was said, in place.
	SignalPhrase = "phrase"
	// SignalViolation: a phrase of none or against was said, or one of
	// before came before what is wanted.
	SignalViolation = "violation"
	// SignalLooseSuffix follows SignalPhrase or SignalViolation when the
	// words said differ from the phrase (misspelt, a word inserted).
	SignalLooseSuffix = "_loose"
	// SignalPressedSuffix follows SignalPhrase (or its loose form) when the
	// other party then said one of the rule's pressed phrases.
	SignalPressedSuffix = "_pressed"
	// SignalSettled: nothing the rule looks for was said, but the other
	// party's last turns said one of its settled phrases, which turned
	// the verdict to met.
	SignalSettled = "settled"
	// SignalRestated: no phrase of any was said, but the speaker restated
	// what the other party had just said (restates).
	SignalRestated = "restated"
	// SignalConflict: a phrase said but negated, or said out of place.
	SignalConflict = "conflict"
	// SignalAbsence: nothing the rule looks for was said.
	SignalAbsence = "absence"
	// SignalHint: a hint turned the verdict absence would give;
	// SignalHints: hints in more than one turn did.
	SignalHint, SignalHints = "hint", "hints"
	// SignalReply: the other party's reply to a turn did.
	SignalReply = "reply"
	// SignalUnprompted: a phrase said unprompted did.
	SignalUnprompted = "unprompted"
	// SignalCues: cues said together did.
	SignalCues = "cues"
	// SignalTone: a tone model read a turn as (possibly) of its class: as
	// disrespectful (of none), or as meeting the criterion (of any).
	SignalTone = "tone"
	// SignalChannels: a figure of what the call's channels tell did.
	SignalChannels = "channels"
)

// Cell is where a verdict falls in the calibration table: its criterion,
// what decided it, whether it is met, and the interaction's language and
// kind.
type Cell struct {
	// Criterion is the criterion's id and its rule's fingerprint
	// ("greeting#1a2b3c4d"): a criterion of the same id with other rules is
	// another criterion.
	Criterion, Signal string
	Complies          bool
	// Language is "es" for Spanish interactions, "en" for the others.
	Language, Kind string
	// Phrase is the phrase that decided the verdict, as the rule wrote it;
	// empty for absence and the tone model.
	Phrase string
	// Prior is the confidence the rule gives the verdict, used where the
	// table has seen nothing like it (a campaign's own criterion).
	Prior float64
}

func newCell(criterion string, d decided, v scoring.Verdict, lang, kind string) Cell {
	base := "en" // as explanations, anything but Spanish reads as English
	if scoring.IsSpanish(lang) {
		base = "es"
	}
	return Cell{Criterion: criterion, Signal: d.signal, Complies: v.Complies, Language: base, Kind: kind, Phrase: d.phrase,
		Prior: v.Confidence}
}

// fingerprint names a criterion and its rule: the id, and a hash of the
// rule as canonical JSON (keys sorted, no spaces), so a copy stored
// elsewhere (Postgres' jsonb reorders keys) is the same criterion.
func fingerprint(c scoring.Criterion) string {
	var v any
	if err := json.Unmarshal(c.Rule, &v); err != nil {
		return c.ID // Validate accepted the rule, so this cannot happen
	}
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return c.ID + "#" + hex.EncodeToString(sum[:4])
}

// keys are the cell's keys in the table, from the widest (the signal and
// verdict over every criterion) to the narrowest (the phrase that decided
// it, in a language and kind).
func (c Cell) keys() [5]string {
	verdict := c.Signal + "|" + strconv.FormatBool(c.Complies)
	criterion := c.Criterion + "|" + verdict
	lang := criterion + "|" + c.Language
	kind := lang + "|" + c.Kind
	return [5]string{"*|" + verdict, criterion, lang, kind, kind + "|" + c.Phrase}
}

// Count is how many verdicts of a cell the development set holds, and how
// many of them the analysts agreed with.
type Count struct {
	N     int `json:"n"`
	Agree int `json:"agree"`
}

// Calibration turns what decided a verdict into the estimated probability
// that an analyst agrees with it: counts of verdicts and agreements per
// cell, on the development set (Fit), read with smoothing (Confidence).
type Calibration struct {
	// Strength is how many verdicts a cell's estimate from the wider cell
	// around it weighs, against the cell's own counts: a small cell stays
	// near the wider one, so a handful of agreements never gives 1.
	Strength float64 `json:"strength"`
	// Counts are keyed "*|signal|complies", "criterion|signal|complies",
	// then with "|language", "|language|kind" and "|language|kind|phrase"
	// appended.
	Counts map[string]Count `json:"counts"`
}

// Sample is one verdict of the development set: its cell and whether the
// analyst agreed.
type Sample struct {
	Cell   Cell
	Agrees bool
}

// Fit counts samples into a table read with strength (see Calibration).
func Fit(samples []Sample, strength float64) *Calibration {
	c := &Calibration{Strength: strength, Counts: map[string]Count{}}
	for _, s := range samples {
		for _, key := range s.Cell.keys() {
			n := c.Counts[key]
			n.N++
			if s.Agrees {
				n.Agree++
			}
			c.Counts[key] = n
		}
	}
	return c
}

// Confidence is the estimated probability that an analyst agrees with a
// verdict in cell. For a criterion the table has counted, it starts from
// the cell's prior, and each of the cell's keys the table counted, from the
// widest to the narrowest, moves it to (agree + Strength × estimate) /
// (n + Strength). Other criteria (a campaign's own) keep the prior: the
// confidence their rule gives.
func (c *Calibration) Confidence(cell Cell) float64 {
	keys := cell.keys()
	if _, ok := c.Counts[keys[1]]; !ok {
		return cell.Prior
	}
	p := cell.Prior
	for _, key := range keys {
		if n, ok := c.Counts[key]; ok {
			p = (float64(n.Agree) + c.Strength*p) / (float64(n.N) + c.Strength)
		}
	}
	return p
}

// calibrationJSON is the table fitted on the development set by
// `go run ./cmd/auditeval -fit`; never edited by hand.
//
//go:embed calibration.json
var calibrationJSON []byte

// Fitted returns the embedded calibration table (see calibrationJSON),
// which New's engines read their confidences from. It panics if the
// embedded file is malformed, which no build whose tests pass has.
var Fitted = sync.OnceValue(func() *Calibration {
	var c Calibration
	if err := json.Unmarshal(calibrationJSON, &c); err != nil {
		panic(fmt.Sprintf("rules: calibration.json: %v", err))
	}
	return &c
})

// Calibrated returns a copy of e that reads its confidences from cal: for
// measuring a table fitted on part of the data.
func (e *Engine) Calibrated(cal *Calibration) *Engine {
	c := *e
	c.cal = cal
	return &c
}
