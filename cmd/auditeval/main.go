// Command auditeval measures the automatic audit against the labelled
// evaluation set in eval/ (make eval): per split, language, kind and
// criterion, the agreement with the analyst's labels, false complies and
// false fails, false complies on critical criteria, the agreement of
// confident verdicts and the share routed to review; then the
// disagreements of the splits asked for.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/eval"
	"github.com/auditd/auditd/scoring"
)

func main() {
	dir := flag.String("dir", "eval", "the evaluation set's folder")
	show := flag.String("show", eval.Dev, "whose disagreements to list: dev, holdout, all or none")
	review := flag.Float64("review", 0.8, "the confidence below which a verdict goes to review (AUDIT_REVIEW_CONFIDENCE)")
	flag.Parse()
	if err := run(*dir, *show, *review); err != nil {
		fmt.Fprintln(os.Stderr, "auditeval:", err)
		os.Exit(1)
	}
}

func run(dir, show string, review float64) error {
	cases, err := eval.Load(os.DirFS(dir), eval.Dev, eval.Holdout)
	if err != nil {
		return err
	}
	outcomes, err := eval.Run(context.Background(), &auditor.Rules{}, scoring.DefaultScorecard, cases, review)
	if err != nil {
		return err
	}
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
	fmt.Printf("# Auditor evaluation: %d cases, engine rules, review below %.2f\n", len(cases), review)
	eval.Summarise(outcomes).Print(os.Stdout, outcomes, splits...)
	return nil
}
