// Command traintone trains the tone models of package auditor/tone that
// the default scorecard's respect and empathy criteria use, from the
// training data in the repository, and writes them where the package
// embeds them:
//
//	go run ./cmd/traintone          # writes auditor/tone/respect.model and empathy.model
//	go run ./cmd/traintone -cv 5    # only measures the respect model, by 5-fold cross-validation
//
// The empathy model trains on the agent turns of the development cases
// alone (eval.ToneExamples): the turns an empathy label quotes are
// positives, every agent turn of a case whose agent showed none a
// negative. How it serves the audit is measured by make eval.
//
// The respect model trains on (a) the agent turns of the evaluation set's development
// cases (eval/cases/dev; never the held-out ones): every agent turn of a
// case whose agent was respectful is a negative, and the turn a rude
// case's label quotes is a positive (the other turns of a rude case are
// left out: they may be rude too); (b) eval/respect-lines.tsv; (c) the
// files of lines in auditor/tone/testdata, each a different writer's.
// Training is deterministic.
//
// With -cv, the development cases are split into k folds by case; each
// fold is judged by a model trained on the other folds and all the lines,
// and the report gives, per threshold and language, the share of rude
// agents caught and of respectful ones failed, by the model alone and by
// the whole rules engine (its phrases and the model); then each file of
// lines is judged by a model trained without it (a writer it never read).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/auditor/tone"
	"github.com/auditd/auditd/eval"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

const criterion = "no_forbidden_phrases"

func main() {
	folds := flag.Int("cv", 0, "measure by cross-validation over this many folds of the dev cases instead of writing the model")
	dir := flag.String("dir", "auditor/tone", "where to write the models, each as <name>.model")
	errorsAt := flag.Float64("errors", 0, "with -cv, also list the cases the model alone gets wrong at this threshold")
	flag.IntVar(&tone.DefaultTraining.Epochs, "epochs", tone.DefaultTraining.Epochs, "passes over the examples")
	flag.Float64Var(&tone.DefaultTraining.Rate, "rate", tone.DefaultTraining.Rate, "learning rate")
	flag.Float64Var(&tone.DefaultTraining.L2, "l2", tone.DefaultTraining.L2, "weight decay")
	flag.Parse()
	log.SetFlags(0)
	cases, err := eval.Load(os.DirFS("eval"), eval.Dev)
	if err != nil {
		log.Fatal(err)
	}
	writers, err := eval.ReadWriters(os.DirFS("."))
	if err != nil {
		log.Fatal(err)
	}
	var lines []tone.Example
	for _, w := range writers {
		lines = append(lines, w.Lines...)
	}
	labelled, unmatched := caseExamples(cases)
	log.Printf("%d lines; %d dev cases, %d case turns to train on; %d rude cases whose quoted turn was not found", len(lines),
		len(cases), countTurns(labelled), unmatched)
	if *folds > 1 {
		if err := crossValidate(os.Stdout, cases, labelled, lines, *folds, *errorsAt); err != nil {
			log.Fatal(err)
		}
		if err := otherWriters(os.Stdout, labelled, writers); err != nil {
			log.Fatal(err)
		}
		return
	}
	models, err := eval.TrainShipped(cases, writers)
	if err != nil {
		log.Fatal(err)
	}
	for name, m := range models {
		path := filepath.Join(*dir, name+".model")
		if err := os.WriteFile(path, m.Encode(), 0o644); err != nil {
			log.Fatal(err)
		}
		log.Printf("wrote %s", path)
	}
}

// labelledCase is a dev case's training examples.
type labelledCase struct {
	c        *eval.Case
	examples []tone.Example
}

func countTurns(ls []labelledCase) int {
	n := 0
	for _, l := range ls {
		n += len(l.examples)
	}
	return n
}

// caseExamples returns each dev case's agent turns to train on
// (eval.ToneExamples), and how many rude cases quote no agent turn that
// could be found.
func caseExamples(cases []eval.Case) ([]labelledCase, int) {
	var out []labelledCase
	unmatched := 0
	for i := range cases {
		c := &cases[i]
		l, ok := c.Labels[criterion]
		if !ok {
			continue
		}
		examples, err := eval.ToneExamples(c, tone.Respect)
		if err != nil {
			log.Fatal(err)
		}
		if !l.Complies && len(examples) == 0 {
			unmatched++
		}
		out = append(out, labelledCase{c: c, examples: examples})
	}
	return out, unmatched
}

// judged is a dev case as cross-validation saw it.
type judged struct {
	id, lang string
	turn     string // the agent turn scored highest
	rude     bool
	// score is the highest of the agent's turns, by a model that did not
	// see the case.
	score float64
	// lexicon: the rules engine without the model said not met.
	lexicon bool
	// engine: the whole engine, at the default scorecard's thresholds,
	// said not met; review: it routed the verdict to review.
	engine, review bool
}

func crossValidate(w io.Writer, cases []eval.Case, labelled []labelledCase, lines []tone.Example, k int, errorsAt float64) error {
	redactor, err := redact.New(redact.RedactionSettings{Types: redact.Types})
	if err != nil {
		return err
	}
	order := rand.New(rand.NewPCG(15, 15)).Perm(len(labelled))
	fold := make([]int, len(labelled))
	for i, j := range order {
		fold[j] = i % k
	}
	var results []judged
	for f := range k {
		train := slices.Clone(lines)
		for i, l := range labelled {
			if fold[i] != f {
				train = append(train, l.examples...)
			}
		}
		m := tone.Train(train, tone.DefaultTraining)
		es, err := newEngines(func(name string) (*tone.Model, bool) { return m, name == tone.Respect })
		if err != nil {
			return err
		}
		for i, l := range labelled {
			if fold[i] != f {
				continue
			}
			j, err := judge(l.c, m, es, redactor)
			if err != nil {
				return err
			}
			results = append(results, j)
		}
	}
	report(w, results)
	if errorsAt > 0 {
		for _, j := range results {
			if j.rude != (j.score >= errorsAt) {
				fmt.Fprintf(w, "%s rude=%v %.2f «%s»\n", j.id, j.rude, j.score, j.turn)
			}
		}
	}
	return nil
}

// engines are the rules engines of one fold: the default scorecard of
// each language, with its tone model and without.
type engines struct{ with, without map[string]*rules.Engine }

func newEngines(models func(string) (*tone.Model, bool)) (engines, error) {
	es := engines{with: map[string]*rules.Engine{}, without: map[string]*rules.Engine{}}
	for _, lang := range []string{"es", "en"} {
		card, err := scoring.DefaultScorecard(lang)
		if err != nil {
			return es, err
		}
		if es.with[lang], err = rules.NewWithModels(card, models); err != nil {
			return es, err
		}
		for i := range card.Criteria {
			if card.Criteria[i].ID == criterion {
				var r map[string]json.RawMessage
				if err := json.Unmarshal(card.Criteria[i].Rule, &r); err != nil {
					return es, err
				}
				delete(r, "tone")
				card.Criteria[i].Rule, _ = json.Marshal(r)
			}
		}
		if es.without[lang], err = rules.New(card); err != nil {
			return es, err
		}
	}
	return es, nil
}

// judge scores c's agent turns with m and audits c with and without it.
func judge(c *eval.Case, m *tone.Model, es engines, redactor *redact.Redactor) (judged, error) {
	j := judged{id: c.ID, lang: c.Language, rude: !c.Labels[criterion].Complies}
	t, err := c.Transcript()
	if err != nil {
		return j, err
	}
	t, _ = redactor.Transcript(t)
	for _, s := range t.Segments {
		if score := m.Score(s.Text, c.Language); s.Speaker == transcript.Agent && score > j.score {
			j.score, j.turn = score, s.Text
		}
	}
	lang := "en"
	if scoring.IsSpanish(c.Language) {
		lang = "es"
	}
	withModel, err := verdict(es.with[lang], c, t)
	if err != nil {
		return j, err
	}
	without, err := verdict(es.without[lang], c, t)
	if err != nil {
		return j, err
	}
	j.lexicon, j.engine = !without.Complies, !withModel.Complies
	j.review = withModel.Confidence < reviewConfidence
	return j, nil
}

// reviewConfidence is the review threshold make eval uses.
const reviewConfidence = 0.8

func verdict(e *rules.Engine, c *eval.Case, t transcript.Transcript) (scoring.Verdict, error) {
	vs, err := e.Audit(c.Kind, t, c.Language)
	if err != nil {
		return scoring.Verdict{}, err
	}
	for _, v := range vs {
		if v.CriterionID == criterion {
			return v, nil
		}
	}
	return scoring.Verdict{}, fmt.Errorf("%s: no verdict of %s", c.ID, criterion)
}

// otherWriters measures how far the model finds the rudeness of a writer
// it never read: for each file of lines, a model trained on everything
// else (the dev cases and the other files) judges that file's lines.
func otherWriters(w io.Writer, labelled []labelledCase, writers []eval.Writer) error {
	fmt.Fprintln(w, "\nEach file of lines judged by a model trained without it (a writer the model never read): rude caught, courteous failed")
	// The lexicon's verdicts need no model: its engines are compiled once.
	es, err := newEngines(tone.Builtin)
	if err != nil {
		return err
	}
	for i, held := range writers {
		var train []tone.Example
		for j, other := range writers {
			if j != i {
				train = append(train, other.Lines...)
			}
		}
		for _, l := range labelled {
			train = append(train, l.examples...)
		}
		m := tone.Train(train, tone.DefaultTraining)
		lexicon := make([]bool, len(held.Lines))
		for k, l := range held.Lines {
			v, err := verdict(es.without[l.Lang], &eval.Case{ID: "line", Kind: scoring.Chat, Language: l.Lang},
				transcript.Transcript{Segments: []transcript.Segment{{Speaker: transcript.Agent, Text: l.Text}}})
			if err != nil {
				return err
			}
			lexicon[k] = !v.Complies
		}
		fmt.Fprintf(w, "\n%s\n", held.Name)
		count := func(name string, fails func(k int) bool) {
			var rude, caught, ok, failed int
			for k, l := range held.Lines {
				if l.Positive {
					rude++
					caught += b2i(fails(k))
				} else {
					ok++
					failed += b2i(fails(k))
				}
			}
			fmt.Fprintf(w, "%-22s %s caught, %s failed\n", name, pct(caught, rude), pct(failed, ok))
		}
		count("lexicon", func(k int) bool { return lexicon[k] })
		for _, t := range []float64{0.5, 0.7, 0.75, 0.8, 0.85, 0.9, 0.92} {
			count(fmt.Sprintf("lexicon+model ≥ %.2f", t), func(k int) bool {
				return lexicon[k] || m.Score(held.Lines[k].Text, held.Lines[k].Lang) >= t
			})
		}
	}
	return nil
}

// pct is a of b as a percentage, with both.
func pct(a, b int) string {
	return fmt.Sprintf("%5.1f %% (%d/%d)", 100*float64(a)/float64(max(b, 1)), a, b)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// report prints, per language and threshold, the rude agents caught and
// the respectful ones failed.
func report(w io.Writer, results []judged) {
	type rate struct{ rude, caught, ok, failed int }
	tally := func(lang string, fails func(j judged) bool) rate {
		var r rate
		for _, j := range results {
			if lang != "all" && j.lang != lang {
				continue
			}
			if j.rude {
				r.rude++
				if fails(j) {
					r.caught++
				}
			} else {
				r.ok++
				if fails(j) {
					r.failed++
				}
			}
		}
		return r
	}
	row := func(name string, fails func(j judged) bool) {
		fmt.Fprintf(w, "%-22s", name)
		for _, lang := range []string{"es", "en", "all"} {
			r := tally(lang, fails)
			fmt.Fprintf(w, " | %s caught, %s failed", pct(r.caught, r.rude), pct(r.failed, r.ok))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "rude agents caught, respectful agents failed; columns: Spanish | English | all")
	row("lexicon", func(j judged) bool { return j.lexicon })
	thresholds := []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99}
	for _, t := range thresholds {
		row(fmt.Sprintf("model ≥ %.2f", t), func(j judged) bool { return j.score >= t })
	}
	for _, t := range thresholds {
		row(fmt.Sprintf("lexicon+model ≥ %.2f", t), func(j judged) bool { return j.lexicon || j.score >= t })
	}
	row("engine (scorecard)", func(j judged) bool { return j.engine })
	row("engine, sent to review", func(j judged) bool { return j.review })
}
