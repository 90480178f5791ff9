package scoring

import (
	"maps"
	"slices"
	"strings"
)

// Words are a criterion's question and guidance in one language.
type Words struct {
	Question string `json:"question" doc:"The criterion's question in this language" example:"Did the agent greet the customer?"`
	Guidance string `json:"guidance,omitempty" doc:"How to judge the criterion, in this language"`
}

// In returns c with its question and guidance in lang (a BCP 47 tag): the
// translation under the exact tag (ignoring case and "_" for "-"), else the
// one under its primary language ("en" for "en-GB"), else c's own. c's
// translations are kept, so the criterion can still be named by any of its
// questions.
func (c Criterion) In(lang string) Criterion {
	w, ok := c.words(lang)
	if !ok {
		return c
	}
	c.Question, c.Guidance = w.Question, w.Guidance
	return c
}

// words finds the translation In picks for lang.
func (c Criterion) words(lang string) (Words, bool) {
	tag := tagKey(lang)
	base, _, _ := strings.Cut(tag, "-")
	for _, want := range []string{tag, base} {
		for _, k := range slices.Sorted(maps.Keys(c.Translations)) {
			if tagKey(k) == want {
				return c.Translations[k], true
			}
		}
	}
	return Words{}, false
}

// In returns s with every criterion's question and guidance in lang
// (Criterion.In): the scorecard an interaction in lang is audited, scored
// and shown with.
func (s Scorecard) In(lang string) Scorecard {
	out := Scorecard{Version: s.Version, Criteria: make([]Criterion, len(s.Criteria))}
	for i, c := range s.Criteria {
		out.Criteria[i] = c.In(lang)
	}
	return out
}

// questions are c's question in each of its languages.
func (c Criterion) questions() []string {
	out := []string{c.Question}
	for _, k := range slices.Sorted(maps.Keys(c.Translations)) {
		out = append(out, c.Translations[k].Question)
	}
	return out
}

// tagKey folds a BCP 47 tag's case and separators: "es_MX" and "es-mx"
// are the same tag.
func tagKey(tag string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(tag)), "_", "-")
}
