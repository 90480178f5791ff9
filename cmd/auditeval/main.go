// Command auditeval measures the automatic audit against the labelled
// evaluation set in eval/ (make eval): per split, language, kind and
// criterion, the agreement with the analyst's labels, false complies and
// false fails, false complies on critical criteria, the agreement of
// confident verdicts, the share routed to review and of interactions with a
// verdict to review, and the calibration of confidences (a reliability
// table and its expected calibration error); then the review thresholds
// measured on the development set, the one chosen, and the disagreements
// of the splits asked for.
//
// On the development set, confidences come from calibration tables fitted
// on the other writer batches, and the tone models (of respect and
// empathy) are ones trained without the case's batch (eval.CrossValidate);
// on the held-out set, all are the embedded ones. With -fit it instead
// writes the calibration table fitted on the whole development set (each
// case judged with its batch's tone models) to
// auditor/rules/calibration.json.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/config"
	"github.com/auditd/auditd/eval"
	"github.com/auditd/auditd/scoring"
)

func main() {
	dir := flag.String("dir", "eval", "the evaluation set's folder")
	show := flag.String("show", eval.Dev, "whose disagreements to list: dev, holdout, all or none")
	review := flag.Float64("review", config.DefaultReviewConfidence, "the confidence below which a verdict goes to review (AUDIT_REVIEW_CONFIDENCE)")
	fit := flag.Bool("fit", false, "write the calibration table fitted on the development set to auditor/rules/calibration.json, and nothing else")
	flag.Parse()
	var err error
	if *fit {
		err = fitTable(*dir, filepath.Join("auditor", "rules", "calibration.json"))
	} else {
		err = run(*dir, *show, *review)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "auditeval:", err)
		os.Exit(1)
	}
}

func fitTable(dir, out string) error {
	cases, tones, err := load(dir)
	if err != nil {
		return err
	}
	samples, err := eval.Samples(scoring.DefaultScorecard, cases, tones)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(eval.Fit(samples), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

func run(dir, show string, review float64) error {
	var splits []string
	switch show {
	case "all":
		splits = []string{eval.Dev, eval.Holdout}
	case eval.Dev, eval.Holdout:
		splits = []string{show}
	case "none":
	default:
		return fmt.Errorf("-show: %q is not dev, holdout, all or none", show)
	}
	ctx := context.Background()
	dev, tones, err := load(dir)
	if err != nil {
		return err
	}
	samples, err := eval.Samples(scoring.DefaultScorecard, dev, tones)
	if err != nil {
		return err
	}
	devOut, err := eval.CrossValidate(ctx, scoring.DefaultScorecard, dev, samples, tones, review)
	if err != nil {
		return err
	}
	holdout, err := eval.Load(os.DirFS(dir), eval.Holdout)
	if err != nil {
		return err
	}
	holdOut, err := eval.Run(ctx, &auditor.Rules{}, scoring.DefaultScorecard, holdout, review)
	if err != nil {
		return err
	}
	outcomes := append(devOut, holdOut...)
	fmt.Printf("# Auditor evaluation: %d cases, engine rules, review below %.2f\n\n", len(dev)+len(holdout), review)
	fmt.Printf("Dev's confidences are cross-validated: each case's come from a table fitted without its writer batch's cases.\n")
	eval.Summarise(outcomes).Print(os.Stdout, outcomes, splits...)
	fmt.Printf("\n## Review threshold (dev, cross-validated)\n\n")
	eval.PrintThresholds(os.Stdout, eval.Thresholds(devOut))
	return nil
}

// load reads the development set of the evaluation set in dir, and trains
// the tone models of its cross-validation on it and the lines of the
// repository dir is in.
func load(dir string) ([]eval.Case, eval.Tones, error) {
	cases, err := eval.Load(os.DirFS(dir), eval.Dev)
	if err != nil {
		return nil, eval.Tones{}, err
	}
	writers, err := eval.ReadWriters(os.DirFS(filepath.Dir(filepath.Clean(dir))))
	if err != nil {
		return nil, eval.Tones{}, err
	}
	tones, err := eval.TrainTones(cases, writers)
	return cases, tones, err
}
