package eval

import (
	"fmt"
	"io"
	"strings"
)

// ConfidentTarget is how often the verdicts not sent to review must agree
// with the analysts on dev, in each language and each kind, at the review
// threshold ChooseThreshold picks: the goal of 97 % on unseen writing plus
// the gap between dev and unseen writing last measured. The rules
// themselves were tuned on dev (the cross-validated confidences hold out
// only the calibration), so dev flatters them: issue 38's third held-out
// set, read once at 0.81, had its confident verdicts right 96.6 % of the
// time where dev, cross-validated, said 97.8 %, 1.2 points more. Dev must
// therefore say 98.2 % for unseen writing to reach 97 %. Where that sends
// more than ReviewBudget of a language's or kind's interactions to review,
// the budget binds and the threshold is the highest within it: each
// verdict more reviewed is one fewer unseen mistake left unreviewed.
const ConfidentTarget = 0.97 + 0.012

// ThresholdRow is a candidate review threshold measured on outcomes.
type ThresholdRow struct {
	Threshold float64
	// Confident is the agreement of the verdicts at or above the
	// threshold; WorstConfident the lowest over languages and kinds.
	Confident, WorstConfident float64
	// Review is the share of interactions with a verdict below the
	// threshold; WorstReview the highest over languages and kinds.
	Review, WorstReview float64
}

// Thresholds measures the review thresholds from 0.50 to 0.99, by
// hundredths, on outcomes of one split (their verdicts' confidences).
func Thresholds(outcomes []Outcome) []ThresholdRow {
	var rows []ThresholdRow
	marked := make([]Outcome, len(outcomes))
	for h := 50; h <= 99; h++ {
		th := float64(h) / 100
		for i, o := range outcomes {
			o.Verdict.NeedsReview = o.Verdict.Basis != "" && o.Verdict.Confidence < th
			marked[i] = o
		}
		s := Summarise(marked)
		row := ThresholdRow{Threshold: th, WorstConfident: 1}
		for _, key := range s.Order {
			t := s.Groups[key]
			switch {
			case key == "all":
				row.Confident, row.Review = t.ConfidentAgreement(), t.ReviewShare()
			case strings.Count(key, "/") == 1 && !strings.Contains(key, "criterion:"): // a language or a kind
				row.WorstConfident = min(row.WorstConfident, t.ConfidentAgreement())
				row.WorstReview = max(row.WorstReview, t.ReviewShare())
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// ReviewBudget is the most share of interactions with a verdict to review
// that a language or kind may have on dev at the threshold chosen: the
// issue's goal of 25 %, what a team can keep up with, less a margin for
// unseen writing, as ConfidentTarget adds one. Dev flatters the review
// share too: issue 38's seventh held-out set, read once at 0.78, sent
// 34.8 % of its calls to review where dev, cross-validated, said 24.7 %.
// Part of that was resolution's absence verdicts of calls, calibrated
// just below the threshold; with those split by how the customer ends
// (settled), five points is the margin kept.
const ReviewBudget = 0.25 - 0.05

// ChooseThreshold returns the lowest of rows' thresholds at which the
// confident verdicts of each language and each kind agree at least
// ConfidentTarget, the fewest interactions sent to review that keeps what
// is not reviewed right; if every such threshold sends more than
// ReviewBudget of a language's or kind's interactions to review, the
// highest that does not (the lowest threshold if none is within it).
func ChooseThreshold(rows []ThresholdRow) ThresholdRow {
	within := rows[0]
	for _, r := range rows {
		if r.WorstReview > ReviewBudget {
			break
		}
		within = r
		if r.WorstConfident >= ConfidentTarget {
			return r
		}
	}
	return within
}

// PrintThresholds writes rows as a table, and the threshold chosen.
func PrintThresholds(w io.Writer, rows []ThresholdRow) {
	fmt.Fprintln(w, "| review below | confident agreement | lowest of a language or kind | interactions to review | highest of a language or kind |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %.2f | %.1f %% | %.1f %% | %.1f %% | %.1f %% |\n", r.Threshold, 100*r.Confident, 100*r.WorstConfident,
			100*r.Review, 100*r.WorstReview)
	}
	c := ChooseThreshold(rows)
	fmt.Fprintf(w, "\nChosen: %.2f, the lowest at which confident verdicts agree at least %.1f %% in each language and each kind, "+
		"or the highest that sends at most %.0f %% of any language's or kind's interactions to review.\n",
		c.Threshold, 100*ConfidentTarget, 100*ReviewBudget)
}
