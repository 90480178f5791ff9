// Package scoring is the one place where an audit's score is computed: the
// automatic audit, an analyst's edit and a bulk recomputation all call Score,
// so the same verdicts always give the same number. It also defines the
// scorecard (versioned, weighted criteria) and checks a scorecard before it
// is published (Validate). The package is pure: no I/O, no clock.
package scoring

import (
	"encoding/json"
	"strings"
)

// Interaction kinds, and the value of Criterion.AppliesTo that means both.
const (
	Call = "call"
	Chat = "chat"
	Both = "both"
)

// Criterion is one question of a scorecard.
type Criterion struct {
	// ID is stable across versions, so verdicts and statistics can follow a
	// criterion whose wording changes.
	ID       string `json:"id"`
	Category string `json:"category"`
	Question string `json:"question"`
	// Weight is the criterion's share of the score; it must be positive.
	Weight float64 `json:"weight"`
	// Critical criteria fail the whole audit (score 0) when not met.
	Critical bool `json:"critical"`
	// AppliesTo is Call, Chat or Both.
	AppliesTo string `json:"applies_to"`
	// Rule is what the rules engine checks (syntax: package
	// auditor/rules). It stays raw here: its syntax belongs to that engine.
	Rule json.RawMessage `json:"rule"`
	// Guidance tells analysts (and the LLM engine) how to judge the criterion.
	Guidance string `json:"guidance,omitempty"`
	// Translations are the question and guidance in other languages, keyed
	// by BCP 47 tag: an interaction in one of them reads them (see In).
	Translations map[string]Words `json:"translations,omitempty" doc:"The question and guidance in other languages, keyed by BCP 47 tag (\"en\", \"es-MX\"): an interaction in one of them reads these words (exact tag first, then its primary language), any other reads question and guidance" example:"{\"en\":{\"question\":\"Did the agent greet the customer?\",\"guidance\":\"Met when the agent greets in their first two turns.\"}}"`
}

// Applies reports whether c is judged for an interaction of kind (Call or Chat).
func (c Criterion) Applies(kind string) bool {
	return c.AppliesTo == Both || c.AppliesTo == kind
}

// Scorecard is one published version of a campaign's criteria.
type Scorecard struct {
	Version  int         `json:"version"`
	Criteria []Criterion `json:"criteria"`
}

// Applicable returns the criteria that apply to kind, in scorecard order.
func (s Scorecard) Applicable(kind string) []Criterion {
	out := make([]Criterion, 0, len(s.Criteria))
	for _, c := range s.Criteria {
		if c.Applies(kind) {
			out = append(out, c)
		}
	}
	return out
}

// ByQuestion finds the criterion whose question, in any of its languages,
// is q, ignoring case and differences in spacing: the same equivalence under
// which Validate requires questions to be unique, so at most one criterion
// matches. Audit items sent by analysts name criteria by their question.
func (s Scorecard) ByQuestion(q string) (Criterion, bool) {
	key := questionKey(q)
	for _, c := range s.Criteria {
		for _, question := range c.questions() {
			if questionKey(question) == key {
				return c, true
			}
		}
	}
	return Criterion{}, false
}

// questionKey folds case and collapses runs of white space, so "Did the
// agent  greet?" and "did the agent greet?" are the same question.
func questionKey(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(q), " "))
}

// Verdict is an engine's (or an analyst's) judgement of one criterion.
type Verdict struct {
	CriterionID string `json:"criterion_id"`
	Complies    bool   `json:"complies"`
	// NotApplicable: the criterion does not apply to this interaction (the
	// engine's rule says so, or an analyst). Such a verdict is met as not
	// applicable: Score keeps Complies true and leaves its weight out of
	// both sides of the score.
	NotApplicable bool `json:"not_applicable,omitempty"`
	// Explanation says why, in the campaign's language.
	Explanation string `json:"explanation"`
	// Evidence quotes the transcript (verbatim) where the judgement comes
	// from; empty when there is nothing to quote.
	Evidence string `json:"evidence,omitempty"`
	Assessment
}

// How an engine reached a verdict (Assessment.Basis).
const (
	// BasisEvidence: something said decides it, quoted as the evidence.
	BasisEvidence = "evidence"
	// BasisAbsence: nothing the engine looks for was said.
	BasisAbsence = "absence"
	// BasisConflict: signals point both ways (a phrase said but negated, or
	// said outside the place it must be, beside what decides it).
	BasisConflict = "conflict"
)

// Assessment is how sure an engine is of a verdict. An analyst's verdict
// has none (the zero value): a person decided it.
type Assessment struct {
	// Basis is BasisEvidence, BasisAbsence or BasisConflict; empty for an
	// analyst's verdict.
	Basis string `json:"basis,omitempty" enum:"evidence,absence,conflict" doc:"How the engine reached the verdict: evidence (something said decides it, quoted as the evidence), absence (nothing it looks for was said) or conflict (signals point both ways); absent for an analyst's verdict"`
	// Confidence is the engine's estimate, from 0 to 1, that an analyst
	// would agree with the verdict.
	Confidence float64 `json:"confidence,omitempty" minimum:"0" maximum:"1" doc:"The engine's estimate, from 0 to 1, that an analyst would agree with the verdict; absent for an analyst's verdict"`
	// NeedsReview: the confidence is below the review threshold
	// (AUDIT_REVIEW_CONFIDENCE), so an analyst should confirm the verdict.
	NeedsReview bool `json:"needs_review,omitempty" doc:"true when the confidence is below AUDIT_REVIEW_CONFIDENCE: an analyst should confirm the verdict (editing the item makes it the analyst's, which needs none); absent otherwise"`
}

// Review marks the verdicts whose confidence is below threshold as needing
// review. Verdicts without a basis (an analyst's) never need it.
func Review(verdicts []Verdict, threshold float64) {
	for i := range verdicts {
		v := &verdicts[i]
		v.NeedsReview = v.Basis != "" && v.Confidence < threshold
	}
}
