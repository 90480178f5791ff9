// Package calibration is calibration sessions: a supervisor has analysts
// answer every criterion of the same interactions blind, and reads how
// consistently they judge. This package owns the workflow (session.go):
// starting a session, the analysts' submissions, closing it, recording the
// calibrated (agreed) answers and applying them to an audit as an edit
// (revision.Record), reminders of sessions falling due; each step is one
// transaction with its record, its event and its notifications. And it
// owns the arithmetic (this file, pure: no I/O, no clock): agreement
// figures per criterion (percent agreement, Krippendorff's alpha,
// agreement with the automatic verdict) and the analysts who most often
// differ from the majority.
//
// Rules: a session holds 1 to 50 audited tasks, each answered against the
// scorecard version of its current revision, and 2 to 20 active analysts
// of the quality role or above. While it is open it is blind: an analyst
// sees only their own answers, no automatic verdict, no figures (the rest
// of the service hides the task's audit from them too, see visibility);
// they submit every answer at once, once, and the last submission closes
// the session. A supervisor reads every session, an analyst only theirs:
// any other is NotFound, as one that does not exist.
package calibration

import (
	"slices"
	"strings"

	"github.com/auditd/auditd/scoring"
)

// The answers an analyst gives a criterion of an interaction.
const (
	Complies      = "complies"
	DoesNotComply = "does_not_comply"
	NotApplicable = "not_applicable"
)

// Answers lists the valid answers, in the order a form shows them.
var Answers = []string{Complies, DoesNotComply, NotApplicable}

// Valid reports whether a is one of Answers.
func Valid(a string) bool { return slices.Contains(Answers, a) }

// Of is the answer that says a verdict: NotApplicable, Complies or
// DoesNotComply.
func Of(complies, notApplicable bool) string {
	switch {
	case notApplicable:
		return NotApplicable
	case complies:
		return Complies
	}
	return DoesNotComply
}

// Verdict is the verdict answer a says, with why as its explanation: a
// criterion not applicable is met as not applicable (scoring.Verdict).
func Verdict(criterionID, a, why string) scoring.Verdict {
	return scoring.Verdict{CriterionID: criterionID, Complies: a != DoesNotComply, NotApplicable: a == NotApplicable, Explanation: why}
}

// Unit is one criterion of one interaction with every analyst's answer.
type Unit struct {
	TaskUUID    string
	CriterionID string
	// Automatic is the automatic audit's verdict (Complies, DoesNotComply
	// or NotApplicable); "" when it has none.
	Automatic string
	// Answers are the analysts' answers by analyst id; an analyst who
	// did not answer is absent.
	Answers map[string]string
}

// Agreement is the agreement over a set of units: one criterion's, or a
// whole session's.
type Agreement struct {
	// Units counts the units, Answers the analysts' answers to them.
	Units   int `json:"units"`
	Answers int `json:"answers"`
	// PercentAgreement is the share of pairs of analysts' answers to the
	// same unit that are equal, 0..1; nil when no unit has two answers.
	PercentAgreement *float64 `json:"percent_agreement" doc:"Share of pairs of analysts' answers to the same interaction that are equal (0..1); null when no interaction has two answers"`
	// Alpha is Krippendorff's alpha (nominal) among the analysts; nil
	// when undefined (see Alpha).
	Alpha *float64 `json:"alpha" doc:"Krippendorff's alpha (nominal) among the analysts: 1 perfect, 0 chance, below 0 systematic disagreement; null when undefined (fewer than two answers to any interaction, or every answer the same)"`
	// AutomaticAgreement is the share of answers equal to the automatic
	// verdict, over the units that have one;
	// nil when none has.
	AutomaticAgreement *float64 `json:"automatic_agreement" doc:"Share of the analysts' answers equal to the automatic verdict (not applicable included), 0..1; null when no interaction has an automatic verdict"`
}

// Differing is how often one analyst's answers differ from the majority.
type Differing struct {
	AnalystID string `json:"analyst_id"`
	// Judged counts the analyst's answers to units that have a majority
	// (an answer given by more than half of the analysts who answered);
	// Differs those of them that are not the majority's.
	Judged  int `json:"judged" doc:"The analyst's answers to interactions where more than half of the analysts gave one answer (the majority)"`
	Differs int `json:"differs" doc:"Those answers that differ from the majority's"`
	// Rate is Differs / Judged; nil when Judged is 0.
	Rate *float64 `json:"rate" doc:"differs / judged; null when judged is 0"`
}

// CriterionAgreement is the agreement on one criterion, with its outliers.
type CriterionAgreement struct {
	CriterionID string `json:"criterion_id"`
	Agreement
	// Analysts is every analyst's Differing on this criterion, most
	// differing first.
	Analysts []Differing `json:"analysts"`
	// Outliers are the analysts who differ from the majority most often
	// (the highest rate, when above 0), by id.
	Outliers []string `json:"outliers" doc:"The analysts who differ from the majority most often on this criterion (the highest rate, when above 0)"`
}

// Results are a session's figures: per criterion, and over all its units.
type Results struct {
	Criteria []CriterionAgreement `json:"criteria"`
	Overall  Agreement            `json:"overall"`
	// Analysts is each analyst's Differing over all units, most
	// differing first.
	Analysts []Differing `json:"analysts"`
	// Outliers are the analysts who differ from the majority most often
	// over the whole session.
	Outliers []string `json:"outliers" doc:"The analysts who differ from the majority most often over the whole session (the highest rate, when above 0)"`
}

// Compute computes the results of units for analysts; criteria gives the
// order of the criteria (those with no unit are left out).
func Compute(units []Unit, criteria []string, analysts []string) Results {
	by := map[string][]Unit{}
	for _, u := range units {
		by[u.CriterionID] = append(by[u.CriterionID], u)
	}
	res := Results{Criteria: []CriterionAgreement{}}
	for _, id := range criteria {
		us := by[id]
		if len(us) == 0 {
			continue
		}
		diff := differing(us, analysts)
		res.Criteria = append(res.Criteria, CriterionAgreement{CriterionID: id, Agreement: agreement(us), Analysts: diff, Outliers: outliers(diff)})
	}
	res.Overall = agreement(units)
	res.Analysts = differing(units, analysts)
	res.Outliers = outliers(res.Analysts)
	return res
}

func agreement(units []Unit) Agreement {
	a := Agreement{Units: len(units)}
	var pairs, same, automatic, matches int
	values := make([][]string, 0, len(units))
	for _, u := range units {
		counts := map[string]int{}
		vs := make([]string, 0, len(u.Answers))
		for _, v := range u.Answers {
			counts[v]++
			vs = append(vs, v)
		}
		m := len(vs)
		a.Answers += m
		pairs += m * (m - 1) / 2
		for _, c := range counts {
			same += c * (c - 1) / 2
		}
		if u.Automatic != "" {
			automatic += m
			matches += counts[u.Automatic]
		}
		values = append(values, vs)
	}
	a.PercentAgreement = share(same, pairs)
	a.AutomaticAgreement = share(matches, automatic)
	if alpha, ok := Alpha(values); ok {
		a.Alpha = &alpha
	}
	return a
}

// majority is the answer more than half of u's answers give, if any.
func majority(u Unit) (string, bool) {
	counts := map[string]int{}
	for _, v := range u.Answers {
		counts[v]++
		if 2*counts[v] > len(u.Answers) {
			return v, true
		}
	}
	return "", false
}

func differing(units []Unit, analysts []string) []Differing {
	out := make([]Differing, 0, len(analysts))
	for _, id := range analysts {
		d := Differing{AnalystID: id}
		for _, u := range units {
			v, answered := u.Answers[id]
			m, ok := majority(u)
			if !answered || !ok {
				continue
			}
			d.Judged++
			if v != m {
				d.Differs++
			}
		}
		d.Rate = share(d.Differs, d.Judged)
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b Differing) int {
		ra, rb := rate(a), rate(b)
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return strings.Compare(a.AnalystID, b.AnalystID)
	})
	return out
}

func rate(d Differing) float64 {
	if d.Rate == nil {
		return -1
	}
	return *d.Rate
}

func outliers(sorted []Differing) []string {
	out := []string{}
	if len(sorted) == 0 || rate(sorted[0]) <= 0 {
		return out
	}
	for _, d := range sorted {
		if rate(d) == rate(sorted[0]) {
			out = append(out, d.AnalystID)
		}
	}
	return out
}

func share(part, whole int) *float64 {
	if whole == 0 {
		return nil
	}
	v := float64(part) / float64(whole)
	return &v
}
