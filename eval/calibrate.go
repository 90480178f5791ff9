package eval

import (
	"context"
	"hash/fnv"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Calibration settings, shared by the fit and its cross-validation.
const (
	// Strength is the smoothing of the calibration table (rules.Calibration):
	// 50 verdicts' worth at every level, not 20, so a narrow cell (a
	// phrase, a language and kind) moves less from the criterion's figure.
	// Fitted on the 1,062 cases before issue 38's held-out set and measured
	// on that set (140 cases the rules had never been tuned on), 50 was the
	// only smoothing that made the unseen verdicts' confidences more honest
	// (ECE 0.052 against 0.054; see docs/engines.md).
	Strength = 50
	// Folds is how many parts cross-validation splits the cases into.
	Folds = 5
)

// Samples audits every case with the rules engine without its calibration
// table and returns, per case, each labelled verdict's calibration cell and
// whether the analyst agreed: what rules.Fit counts.
func Samples(r *auditor.Rules, cards func(lang string) (scoring.Scorecard, error), cases []Case) ([][]rules.Sample, error) {
	out := make([][]rules.Sample, len(cases))
	i := 0
	err := each(cards, cases, func(c *Case, card scoring.Scorecard, t transcript.Transcript) error {
		e, err := r.Compile(card)
		if err != nil {
			return err
		}
		verdicts, cells := e.Judge(c.Kind, t, c.Language)
		for k, v := range verdicts {
			if l, ok := c.Labels[v.CriterionID]; ok {
				out[i] = append(out[i], rules.Sample{Cell: cells[k], Agrees: l.Complies == v.Complies})
			}
		}
		i++
		return nil
	})
	return out, err
}

// Fit fits the calibration table on every case's samples.
func Fit(samples [][]rules.Sample) *rules.Calibration {
	var all []rules.Sample
	for _, s := range samples {
		all = append(all, s...)
	}
	return rules.Fit(all, Strength)
}

// fold is the part of the cross-validation case c falls in, fixed by its id.
func fold(c *Case) int {
	h := fnv.New32a()
	h.Write([]byte(c.ID))
	return int(h.Sum32() % Folds)
}

// CrossValidate is Run with the rules engine whose confidences come, for
// each case, from a table fitted on the other folds' cases (samples are
// Samples' for cases): every figure about confidence is then measured on
// verdicts the table never counted. The outcomes come fold by fold.
func CrossValidate(ctx context.Context, cards func(lang string) (scoring.Scorecard, error), cases []Case,
	samples [][]rules.Sample, review float64) ([]Outcome, error) {
	var out []Outcome
	for f := range Folds {
		var train [][]rules.Sample
		var test []Case
		for i := range cases {
			if fold(&cases[i]) == f {
				test = append(test, cases[i])
			} else {
				train = append(train, samples[i])
			}
		}
		o, err := Run(ctx, &auditor.Rules{Calibration: Fit(train)}, cards, test, review)
		if err != nil {
			return nil, err
		}
		out = append(out, o...)
	}
	return out, nil
}
