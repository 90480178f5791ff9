package eval

import (
	"bufio"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/auditd/auditd/auditor/tone"
	"github.com/auditd/auditd/transcript"
)

// modelled are the criteria the tone models judge, by model name, and the
// verdict that is each model's class: an agent's disrespect fails
// respect, an agent's empathy meets empathy.
var modelled = map[string]struct {
	criterion string
	class     bool
}{
	tone.Respect: {"no_forbidden_phrases", false},
	tone.Empathy: {"empathy", true},
}

// Writer is one file of labelled agent lines the tone model trains on,
// each file a different writer's.
type Writer struct {
	Name  string
	Lines []tone.Example
}

// ReadWriters reads the files of lines under the repository root: the
// eval folder's respect-lines.tsv, then those of auditor/tone/testdata.
// Each line is rude or ok, a language and the text, apart by tabs; a line
// that is not is an error naming the file and the line.
func ReadWriters(root fs.FS) ([]Writer, error) {
	names, err := fs.Glob(root, "auditor/tone/testdata/*.tsv")
	if err != nil {
		return nil, err
	}
	var out []Writer
	for _, name := range append([]string{"eval/respect-lines.tsv"}, names...) {
		lines, err := readLines(root, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Writer{name, lines})
	}
	return out, nil
}

func readLines(root fs.FS, name string) ([]tone.Example, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []tone.Example
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 || parts[0] != "rude" && parts[0] != "ok" {
			return nil, fmt.Errorf("%s:%d: want rude|ok, a language and the line, separated by tabs", name, n)
		}
		out = append(out, tone.Example{Text: parts[2], Lang: parts[1], Positive: parts[0] == "rude"})
	}
	return out, sc.Err()
}

// quoted finds the quotations of a label's reason.
var quoted = regexp.MustCompile(`«([^»]+)»|“([^”]+)”|"([^"]+)"`)

// elided splits a quotation where the writer left words out.
var elided = regexp.MustCompile(`…|\.\.\.`)

// sentenceWeight is the weight of each sentence of a respectful turn,
// trained on beside the turn: the model scores sentences too.
const sentenceWeight = 0.5

// ToneExamples returns the agent turns of case c to train the tone model
// named model on (none when its criterion is not labelled). A turn is
// trained on whole and sentence by sentence (tone.Sentences), as it is
// scored. In a case of the model's class (a rude agent, an empathic one),
// the turns and sentences that say a quotation of the label's reason are
// positives, and the other turns are left out (they may be of the class
// too); in any other case, every turn is a negative and every sentence a
// negative of less weight. A case of the class whose reason quotes no
// agent turn gives none.
func ToneExamples(c *Case, model string) ([]tone.Example, error) {
	m := modelled[model]
	l, ok := c.Labels[m.criterion]
	if !ok {
		return nil, nil
	}
	t, err := c.Transcript()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.ID, err)
	}
	class := l.Complies == m.class
	frags := fragments(l.Why)
	var out []tone.Example
	for _, s := range t.Segments {
		if s.Speaker != transcript.Agent || class && !saysAny(s.Text, frags) {
			continue
		}
		out = append(out, tone.Example{Text: s.Text, Lang: c.Language, Positive: class})
		for _, sentence := range tone.Sentences(s.Text) {
			switch {
			case !class:
				out = append(out, tone.Example{Text: sentence, Lang: c.Language, Weight: sentenceWeight})
			case saysAny(sentence, frags):
				out = append(out, tone.Example{Text: sentence, Lang: c.Language, Positive: true})
			}
		}
	}
	return out, nil
}

// fragments returns the normalised pieces of the quotations of why, split
// where the writer elided words ("…"), of three words or more (or a whole
// shorter quotation).
func fragments(why string) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(why, -1) {
		q := m[1] + m[2] + m[3]
		for _, piece := range elided.Split(q, -1) {
			words := transcript.NormalWords(piece)
			if len(words) >= 3 || len(words) > 0 && !strings.ContainsAny(q, "….") {
				out = append(out, " "+strings.Join(words, " ")+" ")
			}
		}
	}
	return out
}

// saysAny reports whether text says one of the fragments.
func saysAny(text string, frags []string) bool {
	norm := " " + strings.Join(transcript.NormalWords(text), " ") + " "
	for _, f := range frags {
		if strings.Contains(norm, f) {
			return true
		}
	}
	return false
}

// Tones are the tone models of a cross-validation over writer batches
// (see CrossValidate): for each batch, each model trained on the other
// batches' cases (and Respect on the lines too), so that no case is judged
// by a model that read it. The models shipped are trained on the whole
// development set, so their scores on a dev case say more than they would
// on writing they never saw; verdicts judged with these say as much as
// they would.
type Tones struct {
	of     []int                    // each case's batch, as folds numbers them
	n      int                      // how many batches
	models map[string][]*tone.Model // by name, then batch
}

// TrainTones trains the tone models of each writer batch of cases as
// TrainShipped does, on the other batches' cases, the batches in parallel.
func TrainTones(cases []Case, writers []Writer) (Tones, error) {
	sets, err := newToneSets(cases, writers)
	if err != nil {
		return Tones{}, err
	}
	of, n := folds(cases)
	t := Tones{of: of, n: n, models: map[string][]*tone.Model{}}
	var wg sync.WaitGroup
	for name := range modelled {
		t.models[name] = make([]*tone.Model, n)
		for f := range n {
			wg.Go(func() { t.models[name][f] = sets.train(name, func(i int) bool { return of[i] != f }) })
		}
	}
	wg.Wait()
	return t, nil
}

// TrainShipped trains the tone models cmd/traintone ships, by name, on
// every case of cases (ToneExamples), and Respect on the writers' lines
// too (tone.DefaultTraining, deterministic).
func TrainShipped(cases []Case, writers []Writer) (map[string]*tone.Model, error) {
	sets, err := newToneSets(cases, writers)
	if err != nil {
		return nil, err
	}
	out := map[string]*tone.Model{}
	for name := range modelled {
		out[name] = sets.train(name, func(int) bool { return true })
	}
	return out, nil
}

// toneSets are what each tone model trains on, by name: the writers'
// lines (Respect's only), and each case's ToneExamples.
type toneSets struct {
	lines    []tone.Example
	examples map[string][][]tone.Example
}

func newToneSets(cases []Case, writers []Writer) (toneSets, error) {
	s := toneSets{examples: map[string][][]tone.Example{}}
	for _, w := range writers {
		s.lines = append(s.lines, w.Lines...)
	}
	for name := range modelled {
		s.examples[name] = make([][]tone.Example, len(cases))
		for i := range cases {
			var err error
			if s.examples[name][i], err = ToneExamples(&cases[i], name); err != nil {
				return toneSets{}, err
			}
		}
	}
	return s, nil
}

// train trains the model named name on its lines and the examples of the
// cases whose index keep holds.
func (s toneSets) train(name string, keep func(i int) bool) *tone.Model {
	var examples []tone.Example
	if name == tone.Respect {
		examples = append(examples, s.lines...)
	}
	for i, e := range s.examples[name] {
		if keep(i) {
			examples = append(examples, e...)
		}
	}
	return tone.Train(examples, tone.DefaultTraining)
}

// batch returns the tone models of batch f, as rules.NewWithModels takes
// them.
func (t Tones) batch(f int) func(string) (*tone.Model, bool) {
	return func(name string) (*tone.Model, bool) {
		ms, ok := t.models[name]
		if !ok {
			return nil, false
		}
		return ms[f], true
	}
}
