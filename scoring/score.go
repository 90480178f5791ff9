package scoring

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ErrNoApplicableCriteria is returned by Score when no criterion of the
// scorecard applies to the interaction's kind. Such an audit has no
// meaningful score: 100 would pass it for nothing, 0 would fail the agent for
// the scorecard's gap. The caller should fail the audit with this message so
// that a supervisor fixes the scorecard.
var ErrNoApplicableCriteria = errors.New("no criterion of the scorecard applies to this kind of interaction")

// ErrAllNotApplicable is returned by Score when every verdict is not
// applicable: with no criterion left to weigh there is no score, and 100
// would pass the agent for a call nothing applied to. An analyst's edit
// that would leave this is refused (AllNotApplicable tells beforehand); the
// automatic audit fails with this message, for an analyst to judge.
var ErrAllNotApplicable = errors.New("every criterion is judged not applicable: an audit needs at least one that applies to have a score")

// AllNotApplicable reports whether verdicts are all not applicable (and
// there is at least one): what Score refuses with ErrAllNotApplicable.
func AllNotApplicable(verdicts []Verdict) bool {
	for _, v := range verdicts {
		if !v.NotApplicable {
			return false
		}
	}
	return len(verdicts) > 0
}

// Result is a scored audit.
//
// An audit with pending verdicts (Pending: verdicts routed to review that
// no analyst has confirmed or changed yet) is provisional: nothing is
// decided about it. Its Score counts the pending verdicts as the engine
// judged them, except that a pending critical verdict not met does not
// zero it; ScoreMin and ScoreMax bound what the score can still become
// whatever the analyst decides; Passed is false and means nothing until
// Pending is empty. Figures (dashboard, reports, agents' averages) count
// such an audit as pending review, never by its Score.
type Result struct {
	// Score is 0..100, rounded to two decimals; 0 when a critical criterion
	// failed. Provisional while Pending is not empty.
	Score float64 `json:"score" doc:"The score (0..100); 0 when a decided critical criterion is not met. While pending is not empty it is provisional: the pending verdicts counted as the engine judged them, a pending critical one not zeroing it"`
	// Passed is whether Score reaches PassingScore with no critical
	// criterion failed; always false while Pending is not empty.
	Passed       bool    `json:"passed" doc:"Whether the audit passes; false while pending is not empty (undecided, not failed)"`
	PassingScore float64 `json:"passing_score"`
	// Pending lists the criteria whose verdicts await an analyst's
	// confirmation (their items need review), in scorecard order; empty
	// when the audit is decided.
	Pending []string `json:"pending,omitempty" doc:"The criteria (ids) whose verdicts await an analyst's confirmation (items with needs_review), in scorecard order; absent when every verdict is decided. While any is pending the score is provisional and the audit neither passes nor fails"`
	// ScoreMin and ScoreMax are the lowest and highest scores the audit can
	// still take as the pending verdicts are decided; nil when none is.
	ScoreMin *float64 `json:"score_min,omitempty" doc:"While verdicts are pending: the lowest score the audit can still take (each pending verdict decided as not met; 0 when a pending criterion is critical)"`
	ScoreMax *float64 `json:"score_max,omitempty" doc:"While verdicts are pending: the highest score the audit can still take (each pending verdict decided as met)"`
	// ScorecardVersion is the version the verdicts were scored against.
	ScorecardVersion int `json:"scorecard_version"`
	// Earned and Possible are the weights of the complied and of all
	// applicable criteria (those judged not applicable counted in
	// neither), before any critical failure zeroes the score.
	Earned   float64 `json:"earned"`
	Possible float64 `json:"possible"`
	// FailedCritical lists the ids of the critical criteria not met, in
	// scorecard order; any of them makes Score 0.
	FailedCritical []string `json:"failed_critical"`
	// Categories is the breakdown per category, in order of first
	// appearance in the scorecard; categories with no applicable criterion
	// (none for the kind, or every verdict not applicable) are left out. It is not zeroed by a critical failure: it shows where
	// the points were earned and lost.
	Categories []CategoryScore `json:"categories"`
	// Items joins each applicable criterion with its verdict, in scorecard
	// order: the form in which an audit is stored and shown.
	Items []Item `json:"items"`
}

// CategoryScore is one category's part of a Result.
type CategoryScore struct {
	Category string  `json:"category"`
	Earned   float64 `json:"earned"`
	Possible float64 `json:"possible"`
	// Score is Earned / Possible × 100, rounded like Result.Score.
	Score float64 `json:"score"`
}

// Item is an applicable criterion with its verdict.
type Item struct {
	CriterionID string  `json:"criterion_id"`
	Category    string  `json:"category"`
	Question    string  `json:"question"`
	Weight      float64 `json:"weight"`
	Critical    bool    `json:"critical"`
	Complies    bool    `json:"complies" doc:"Whether the criterion is met; true when it is not applicable (met as not applicable)"`
	// NotApplicable: the criterion does not apply to this interaction; its
	// weight counts neither way.
	NotApplicable bool   `json:"not_applicable,omitempty" doc:"true when the criterion does not apply to this interaction (the engine's rule or an analyst says so): complies is then true and the criterion's weight counts neither way in the score (a critical one cannot fail the audit); absent otherwise"`
	Explanation   string `json:"explanation"`
	Evidence      string `json:"evidence,omitempty"`
	// EvidenceTurns is filled where the item is shown with its transcript
	// (transcript.Quotes.Turns); it is never stored.
	EvidenceTurns []int `json:"evidence_turns,omitempty" doc:"Where each line of the evidence is said: the transcript's turn (segment, numbered from 1), or 0 for a line not found in it; only in GET /tasks/{uuid}, absent when no line is found"`
	Assessment
}

// VerdictError says how a set of verdicts fails to match the criteria that
// apply: every list names criterion ids. An API can show its fields as the
// details of a validation error.
type VerdictError struct {
	Kind string `json:"kind"`
	// Missing: applicable criteria without a verdict.
	Missing []string `json:"missing,omitempty"`
	// Unknown: verdicts for ids the scorecard does not have.
	Unknown []string `json:"unknown,omitempty"`
	// NotApplicable: verdicts for criteria that do not apply to Kind.
	NotApplicable []string `json:"not_applicable,omitempty"`
	// Duplicate: criteria with more than one verdict.
	Duplicate []string `json:"duplicate,omitempty"`
}

// Error names every mismatch in one line.
func (e *VerdictError) Error() string {
	var parts []string
	add := func(what string, ids []string) {
		if len(ids) > 0 {
			parts = append(parts, what+": "+strings.Join(ids, ", "))
		}
	}
	add("missing verdicts for", e.Missing)
	add("verdicts for unknown criteria", e.Unknown)
	add("verdicts for criteria that do not apply to a "+e.Kind, e.NotApplicable)
	add("more than one verdict for", e.Duplicate)
	return "verdicts do not match the scorecard: " + strings.Join(parts, "; ")
}

// Score scores verdicts for an interaction of kind (Call or Chat) against
// card, with exactly one verdict per applicable criterion.
//
// Score = weight of complied applicable criteria / weight of applicable
// criteria × 100, rounded to two decimals half away from zero. The arithmetic
// is exact on the weights' decimal values (2/3 gives 66.67, never 66.66999),
// so a score is the same whichever path computes it. Any failed critical
// applicable criterion makes the score 0 and the audit not passed. Otherwise
// Passed is Score ≥ passingScore (equal passes). A not applicable verdict
// (Verdict.NotApplicable) is met as not applicable: its item complies and
// its weight is in neither earned nor possible, so it neither helps nor
// fails the audit, critical or not.
//
// Verdicts that need review are pending (see Result): the score is then
// provisional, bounded by ScoreMin and ScoreMax, and Passed is false.
//
// Errors: an unknown kind, a passingScore outside 0..100, a weight that is not
// positive, ErrNoApplicableCriteria, ErrAllNotApplicable, or a *VerdictError
// when the verdicts do not match the applicable criteria.
func Score(card Scorecard, kind string, verdicts []Verdict, passingScore float64) (Result, error) {
	if kind != Call && kind != Chat {
		return Result{}, fmt.Errorf("unknown interaction kind %q: want %q or %q", kind, Call, Chat)
	}
	if !(passingScore >= 0 && passingScore <= 100) {
		return Result{}, fmt.Errorf("passing score %v is not between 0 and 100", passingScore)
	}
	applicable := card.Applicable(kind)
	if len(applicable) == 0 {
		return Result{}, ErrNoApplicableCriteria
	}
	byID, err := matchVerdicts(card, kind, verdicts)
	if err != nil {
		return Result{}, err
	}
	if AllNotApplicable(verdicts) {
		return Result{}, ErrAllNotApplicable
	}

	res := Result{
		PassingScore:     passingScore,
		ScorecardVersion: card.Version,
		FailedCritical:   []string{},
		Items:            make([]Item, 0, len(applicable)),
	}
	earned, possible := new(big.Rat), new(big.Rat)
	// decided is the weight met by decided verdicts, weighed that of the
	// decided applicable ones, open that of the pending ones (whatever
	// the engine judged: the analyst may find any of them applicable);
	// openCritical: a pending verdict is critical.
	decided, weighed, open := new(big.Rat), new(big.Rat), new(big.Rat)
	openCritical := false
	type tally struct{ earned, possible *big.Rat }
	var order []string
	cats := map[string]tally{}
	for _, c := range applicable {
		w, err := decimal(c.Weight)
		if err != nil {
			return Result{}, fmt.Errorf("criterion %q: %w", c.ID, err)
		}
		v := byID[c.ID]
		t, seen := cats[c.Category]
		if !seen {
			t = tally{new(big.Rat), new(big.Rat)}
			cats[c.Category] = t
			order = append(order, c.Category)
		}
		v.Complies = v.Complies || v.NotApplicable
		if !v.NotApplicable {
			possible.Add(possible, w)
			t.possible.Add(t.possible, w)
		}
		if v.Complies && !v.NotApplicable {
			earned.Add(earned, w)
			t.earned.Add(t.earned, w)
		}
		switch {
		case v.NeedsReview:
			res.Pending = append(res.Pending, c.ID)
			open.Add(open, w)
			openCritical = openCritical || c.Critical
		case v.NotApplicable:
		case v.Complies:
			decided.Add(decided, w)
			weighed.Add(weighed, w)
		case c.Critical:
			res.FailedCritical = append(res.FailedCritical, c.ID)
			weighed.Add(weighed, w)
		default:
			weighed.Add(weighed, w)
		}
		res.Items = append(res.Items, Item{
			CriterionID: c.ID, Category: c.Category, Question: c.Question,
			Weight: c.Weight, Critical: c.Critical, Complies: v.Complies, NotApplicable: v.NotApplicable,
			Explanation: v.Explanation, Evidence: v.Evidence, Assessment: v.Assessment,
		})
	}
	for _, name := range order {
		t := cats[name]
		if t.possible.Sign() == 0 {
			continue // every criterion of it is not applicable
		}
		res.Categories = append(res.Categories, CategoryScore{
			Category: name,
			Earned:   ratFloat(t.earned),
			Possible: ratFloat(t.possible),
			Score:    percent(t.earned, t.possible),
		})
	}
	res.Earned, res.Possible = ratFloat(earned), ratFloat(possible)
	if len(res.FailedCritical) == 0 {
		res.Score = percent(earned, possible)
	}
	if len(res.Pending) > 0 {
		res.ScoreMin, res.ScoreMax = scoreRange(decided, open, weighed.Add(weighed, open), openCritical, len(res.FailedCritical) > 0)
	}
	// With a passing score of 0 a score of 0 would pass: a critical
	// failure must not. Nothing passes while verdicts are pending.
	res.Passed = len(res.FailedCritical) == 0 && len(res.Pending) == 0 && res.Score >= passingScore
	return res, nil
}

// scoreRange is the lowest and highest score an audit can still take: the
// weight decided verdicts meet, and with every pending one (open) met too,
// out of possible, the weight of the decided applicable verdicts and the
// pending ones; 0 at the bottom when a pending criterion is critical, 0 at
// both ends when a decided critical one already failed. A pending verdict
// decided not applicable lands between the two: leaving a criterion out
// of both sides of a ratio below 1 lowers it, leaving out one not met
// raises it.
func scoreRange(decided, open, possible *big.Rat, openCritical, failed bool) (lo, hi *float64) {
	low, high := 0.0, 0.0
	if !failed {
		high = percent(new(big.Rat).Add(decided, open), possible)
		if !openCritical {
			low = percent(decided, possible)
		}
	}
	return &low, &high
}

// matchVerdicts indexes verdicts by criterion id, checking that there is
// exactly one per applicable criterion and none for anything else.
func matchVerdicts(card Scorecard, kind string, verdicts []Verdict) (map[string]Verdict, error) {
	known := make(map[string]Criterion, len(card.Criteria))
	for _, c := range card.Criteria {
		known[c.ID] = c
	}
	e := &VerdictError{Kind: kind}
	byID := make(map[string]Verdict, len(verdicts))
	count := make(map[string]int, len(verdicts))
	for _, v := range verdicts {
		count[v.CriterionID]++
		c, ok := known[v.CriterionID]
		switch {
		case count[v.CriterionID] > 1:
			if count[v.CriterionID] == 2 { // name it once, however often repeated
				e.Duplicate = append(e.Duplicate, v.CriterionID)
			}
		case !ok:
			e.Unknown = append(e.Unknown, v.CriterionID)
		case !c.Applies(kind):
			e.NotApplicable = append(e.NotApplicable, v.CriterionID)
		default:
			byID[v.CriterionID] = v
		}
	}
	for _, c := range card.Criteria {
		if _, ok := byID[c.ID]; c.Applies(kind) && !ok {
			e.Missing = append(e.Missing, c.ID)
		}
	}
	if len(e.Missing)+len(e.Unknown)+len(e.NotApplicable)+len(e.Duplicate) > 0 {
		return nil, e
	}
	return byID, nil
}

// decimal is w's shortest decimal representation as an exact rational: a
// weight written 0.1 counts as one tenth, not as the binary float nearest it.
func decimal(w float64) (*big.Rat, error) {
	if !(w > 0) || math.IsInf(w, 0) {
		return nil, fmt.Errorf("weight %v is not a positive number", w)
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(w, 'g', -1, 64))
	if !ok {
		return nil, fmt.Errorf("weight %v is not a number", w)
	}
	return r, nil
}

// percent is earned / possible × 100 rounded to two decimals, half away
// from zero, computed exactly and converted to the float64 nearest the
// two-decimal result. possible must be positive.
func percent(earned, possible *big.Rat) float64 {
	// Hundredths of a percent, to be rounded to an integer: earned×10000/possible.
	x := new(big.Rat).Mul(earned, big.NewRat(10000, 1))
	x.Quo(x, possible)
	// x ≥ 0, so half away from zero is floor(x + 1/2) = (2·num + den) div (2·den).
	num := new(big.Int).Lsh(x.Num(), 1)
	num.Add(num, x.Denom())
	den := new(big.Int).Lsh(x.Denom(), 1)
	hundredths := num.Quo(num, den)
	// Both operands are exact in float64 (scores are at most 10000
	// hundredths), and IEEE division rounds correctly, so this is the
	// float64 nearest the decimal value.
	return float64(hundredths.Int64()) / 100
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}
