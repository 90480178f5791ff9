// Package eval measures the automatic audit against an analyst's labels:
// interactions written and labelled by reading each criterion's question
// and guidance (never by running an engine), audited through
// auditor.Judge as the audit job does, and compared criterion by
// criterion. The cases live in cases/dev (used while tuning the rules) and
// cases/holdout (measured, never tuned on); FORMAT.md describes a case and
// CRITERIA.md the criteria as analysts read them.
package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Splits of the evaluation set.
const (
	Dev     = "dev"
	Holdout = "holdout"
)

// Case is one labelled interaction (see FORMAT.md).
type Case struct {
	ID       string           `json:"id"`
	Language string           `json:"language"`
	Locale   string           `json:"locale"`
	Domain   string           `json:"domain"`
	Kind     string           `json:"kind"`
	Format   string           `json:"format"`
	Chat     string           `json:"chat,omitempty"`
	Turns    json.RawMessage  `json:"turns,omitempty"`
	Segments []segment        `json:"segments,omitempty"`
	Labels   map[string]Label `json:"labels"`
	// Split is the folder the case came from (Dev or Holdout).
	Split string `json:"-"`
}

type segment struct {
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Speaker string  `json:"speaker"`
	Text    string  `json:"text"`
}

// Label is the analyst's judgement of one criterion.
type Label struct {
	Complies bool   `json:"complies"`
	Why      string `json:"why"`
}

// Load reads every case of the splits under dir of fsys (cases/dev,
// cases/holdout), sorted by split and id. A case that cannot be read,
// whose id is not its file name or with a label without its reason, is an
// error naming the file.
func Load(fsys fs.FS, splits ...string) ([]Case, error) {
	var out []Case
	for _, split := range splits {
		dir := path.Join("cases", split)
		entries, err := fs.ReadDir(fsys, dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a split not written yet
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			name := path.Join(dir, e.Name())
			b, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil, err
			}
			var c Case
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if c.ID != strings.TrimSuffix(e.Name(), ".json") {
				return nil, fmt.Errorf("%s: id %q is not the file's name", name, c.ID)
			}
			for _, id := range slices.Sorted(maps.Keys(c.Labels)) {
				if strings.TrimSpace(c.Labels[id].Why) == "" {
					return nil, fmt.Errorf("%s: the label of %s says nothing in why; every label needs its one-line reason", name, id)
				}
			}
			c.Split = split
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Case) int { return cmp.Or(cmp.Compare(a.Split, b.Split), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// Transcript returns the case's transcript as the service would hold it:
// a chat parsed from the upload's bytes by transcript.ParseChat, a call as
// transcription leaves it (timed segments by speaker).
func (c Case) Transcript() (transcript.Transcript, error) {
	switch {
	case c.Kind == scoring.Chat && c.Format == transcript.ChatText:
		t, _, err := transcript.ParseChat([]byte(c.Chat))
		t.Language = c.Language
		return t, err
	case c.Kind == scoring.Chat && c.Format == transcript.ChatJSON:
		t, _, err := transcript.ParseChat(c.Turns)
		t.Language = c.Language
		return t, err
	case c.Kind == scoring.Call && c.Format == "segments":
		t := transcript.Transcript{Engine: "eval", Language: c.Language}
		texts := make([]string, len(c.Segments))
		for i, s := range c.Segments {
			start, end := s.Start, s.End
			t.Segments = append(t.Segments, transcript.Segment{Start: &start, End: &end, Speaker: s.Speaker, Text: s.Text})
			texts[i] = s.Text
		}
		t.Text = strings.Join(texts, "\n")
		return t, nil
	}
	return transcript.Transcript{}, fmt.Errorf("kind %q with format %q: want a chat in text or json, or a call in segments", c.Kind, c.Format)
}

// Outcome is one criterion of one case: the label beside the verdict.
type Outcome struct {
	Case      *Case
	Criterion scoring.Criterion
	Label     Label
	Verdict   scoring.Item
}

// Agrees reports whether the verdict is the label.
func (o Outcome) Agrees() bool { return o.Verdict.Complies == o.Label.Complies }

// Run audits every case, its transcript redacted of every type of package
// redact, with e against the scorecard cards gives for the
// case's language (scoring.DefaultScorecard), marking for review below the review confidence, and
// returns one outcome per labelled criterion. A case whose labels do not
// match the criteria that apply is an error: the set is wrong, not the
// engine.
func Run(ctx context.Context, e auditor.Engine, cards func(lang string) (scoring.Scorecard, error), cases []Case, review float64) ([]Outcome, error) {
	var out []Outcome
	err := each(cards, cases, func(c *Case, card scoring.Scorecard, t transcript.Transcript) error {
		res, err := auditor.Judge(ctx, e, card, c.Kind, t, c.Language, 85, review)
		if err != nil {
			return err
		}
		var problems []string
		for _, it := range res.Items {
			l, ok := c.Labels[it.CriterionID]
			if !ok {
				problems = append(problems, "no label for "+it.CriterionID)
				continue
			}
			cr, _ := card.ByQuestion(it.Question)
			out = append(out, Outcome{Case: c, Criterion: cr, Label: l, Verdict: it})
		}
		if len(c.Labels) != len(res.Items) {
			problems = append(problems, fmt.Sprintf("%d labels for %d criteria that apply", len(c.Labels), len(res.Items)))
		}
		if len(problems) > 0 {
			return errors.New(strings.Join(problems, "; "))
		}
		return nil
	})
	return out, err
}

// each calls fn with every case, the scorecard cards gives for its
// language and its transcript redacted of every type of package redact;
// fn's errors are returned naming the case.
func each(cards func(lang string) (scoring.Scorecard, error), cases []Case,
	fn func(c *Case, card scoring.Scorecard, t transcript.Transcript) error) error {
	// The service audits transcripts redacted as their campaign says; the
	// set is audited as the strictest campaign would redact it.
	redactor, err := redact.New(redact.RedactionSettings{Types: redact.Types})
	if err != nil {
		return err
	}
	for i := range cases {
		c := &cases[i]
		card, err := cards(c.Language)
		if err != nil {
			return err
		}
		t, err := c.Transcript()
		if err != nil {
			return fmt.Errorf("%s: %w", c.ID, err)
		}
		t, _ = redactor.Transcript(t)
		if err := fn(c, card, t); err != nil {
			return fmt.Errorf("%s: %w", c.ID, err)
		}
	}
	return nil
}
