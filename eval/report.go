package eval

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Tally counts outcomes.
type Tally struct {
	N, Agree int
	// FalseComplies: labelled not met, judged met; FalseFails the reverse.
	FalseComplies, FalseFails int
	// Confident: verdicts not marked for review; ConfidentAgree of them agree.
	Confident, ConfidentAgree int
	// CriticalFails: critical criteria labelled not met;
	// CriticalFalseComplies of them judged met.
	CriticalFails, CriticalFalseComplies int
	// Interactions counts the cases; Reviewed of them have a verdict
	// marked for review.
	Interactions, Reviewed int
	// Bins holds the verdicts by confidence (see Edges).
	Bins [len(Edges)]Bin

	last     *Case // the case of the last outcome added
	reviewed bool  // whether it has a verdict marked for review
}

// Edges are the lower bounds of the reliability table's confidence bins:
// fine at the top, where most verdicts and the review threshold are.
var Edges = [...]float64{0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99}

// Bin is the verdicts of one confidence bin.
type Bin struct {
	N, Agree int
	// Confidence is the sum of their confidences.
	Confidence float64
}

// Agreement is the share of the bin's verdicts the analysts agreed with.
func (b Bin) Agreement() float64 { return ratio(b.Agree, b.N) }

// MeanConfidence is the bin's mean confidence.
func (b Bin) MeanConfidence() float64 { return b.Confidence / float64(max(b.N, 1)) }

// bin is the index of the bin of confidence p.
func bin(p float64) int {
	i := len(Edges) - 1
	for i > 0 && p < Edges[i] {
		i--
	}
	return i
}

// Add counts o.
func (t *Tally) Add(o Outcome) {
	t.N++
	if o.Case != t.last {
		t.last, t.reviewed = o.Case, false
		t.Interactions++
	}
	if o.Verdict.NeedsReview && !t.reviewed {
		t.reviewed = true
		t.Reviewed++
	}
	agree := o.Agrees()
	b := &t.Bins[bin(o.Verdict.Confidence)]
	b.N++
	b.Confidence += o.Verdict.Confidence
	if agree {
		b.Agree++
	}
	switch {
	case agree:
		t.Agree++
	case o.Verdict.Complies:
		t.FalseComplies++
	default:
		t.FalseFails++
	}
	if !o.Verdict.NeedsReview {
		t.Confident++
		if agree {
			t.ConfidentAgree++
		}
	}
	if o.Criterion.Critical && !o.Label.Complies {
		t.CriticalFails++
		if o.Verdict.Complies {
			t.CriticalFalseComplies++
		}
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Agreement is the share of verdicts that agree with the labels.
func (t Tally) Agreement() float64 { return ratio(t.Agree, t.N) }

// ConfidentAgreement is the agreement of the verdicts not marked for review.
func (t Tally) ConfidentAgreement() float64 { return ratio(t.ConfidentAgree, t.Confident) }

// Routed is the share of verdicts marked for review.
func (t Tally) Routed() float64 { return 1 - ratio(t.Confident, t.N) }

// ReviewShare is the share of interactions with a verdict marked for
// review.
func (t Tally) ReviewShare() float64 { return ratio(t.Reviewed, t.Interactions) }

// ECE is the expected calibration error: over the bins, the gap between
// mean confidence and agreement, weighted by the bin's share of verdicts.
func (t Tally) ECE() float64 {
	e := 0.0
	for _, b := range t.Bins {
		if b.N > 0 {
			e += float64(b.N) / float64(t.N) * math.Abs(b.MeanConfidence()-b.Agreement())
		}
	}
	return e
}

// CriticalFalseComplyRate is the share of critical criteria labelled not
// met that the engine judged met.
func (t Tally) CriticalFalseComplyRate() float64 {
	return ratio(t.CriticalFalseComplies, t.CriticalFails)
}

// Summary tallies outcomes by split, and within a split by language, kind
// and criterion.
type Summary struct {
	// Groups maps "split", "split/es", "split/chat", "split/es/chat",
	// "split/criterion:greeting" (and "all") to their tallies.
	Groups map[string]*Tally
	// Order lists the groups in the order they were first seen.
	Order []string
}

// Summarise tallies outcomes.
func Summarise(outcomes []Outcome) Summary {
	s := Summary{Groups: map[string]*Tally{}}
	add := func(key string, o Outcome) {
		t, ok := s.Groups[key]
		if !ok {
			t = &Tally{}
			s.Groups[key] = t
			s.Order = append(s.Order, key)
		}
		t.Add(o)
	}
	for _, o := range outcomes {
		c := o.Case
		add("all", o)
		add(c.Split, o)
		add(c.Split+"/"+c.Language, o)
		add(c.Split+"/"+c.Kind, o)
		add(c.Split+"/"+c.Language+"/"+c.Kind, o)
		add(c.Split+"/criterion:"+o.Verdict.CriterionID, o)
	}
	return s
}

// Print writes the summary as tables, one per split, then the
// disagreements of the splits listed in show.
func (s Summary) Print(w io.Writer, outcomes []Outcome, show ...string) {
	for _, split := range []string{Dev, Holdout} {
		if _, ok := s.Groups[split]; !ok {
			continue
		}
		fmt.Fprintf(w, "\n## %s\n\n", split)
		fmt.Fprintln(w, "| group | verdicts | agreement | false complies | false fails | critical false complies | confident agreement | routed to review | ECE | interactions to review |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, key := range s.Order {
			if !strings.HasPrefix(key, split) {
				continue
			}
			t := s.Groups[key]
			crit := "—"
			if t.CriticalFails > 0 {
				crit = fmt.Sprintf("%.1f %% (%d/%d)", 100*t.CriticalFalseComplyRate(), t.CriticalFalseComplies, t.CriticalFails)
			}
			fmt.Fprintf(w, "| %s | %d | %.1f %% | %d | %d | %s | %.1f %% (%d) | %.1f %% | %.3f | %.1f %% (%d/%d) |\n", key, t.N,
				100*t.Agreement(), t.FalseComplies, t.FalseFails, crit, 100*t.ConfidentAgreement(), t.Confident, 100*t.Routed(),
				t.ECE(), 100*t.ReviewShare(), t.Reviewed, t.Interactions)
		}
		s.Groups[split].printReliability(w)
	}
	for _, split := range show {
		fmt.Fprintf(w, "\n## Disagreements (%s)\n\n", split)
		for _, o := range outcomes {
			if o.Case.Split != split || o.Agrees() {
				continue
			}
			v := o.Verdict
			fmt.Fprintf(w, "- %s %s: label %t (%s); engine %t, %s %.2f%s: %s\n", o.Case.ID, v.CriterionID, o.Label.Complies,
				o.Label.Why, v.Complies, v.Basis, v.Confidence, map[bool]string{true: " review", false: ""}[v.NeedsReview], v.Explanation)
		}
	}
}

// printReliability writes the reliability table: per confidence bin, the
// verdicts, their mean confidence and how often the analysts agreed.
func (t Tally) printReliability(w io.Writer) {
	fmt.Fprintf(w, "\nReliability (expected calibration error %.3f):\n\n", t.ECE())
	fmt.Fprintln(w, "| confidence | verdicts | mean confidence | agreement |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for i, b := range t.Bins {
		if b.N == 0 {
			continue
		}
		hi := 1.0
		if i+1 < len(Edges) {
			hi = Edges[i+1]
		}
		fmt.Fprintf(w, "| %.2f–%.2f | %d | %.3f | %.3f |\n", Edges[i], hi, b.N, b.MeanConfidence(), b.Agreement())
	}
}
