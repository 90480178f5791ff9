package scoring

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed default_scorecard.json
var defaultScorecard []byte

// defaultCard is default_scorecard.json: criteria whose question and
// guidance are written in each language the scorecard ships in.
type defaultCard struct {
	Version  int `json:"version"`
	Criteria []struct {
		Criterion
		Question map[string]string `json:"question"`
		Guidance map[string]string `json:"guidance"`
	} `json:"criteria"`
}

// DefaultScorecard returns the scorecard seeded into the default campaign
// and copied into new campaigns, in lang: questions and guidance in
// Spanish for "es" and its regional variants, in English otherwise, with
// the other language in each criterion's Translations (so an interaction
// in either reads its own words: Scorecard.In). Its
// criteria (categories OPENING, COMPLIANCE, SKILLS, CLOSING) carry rules
// with Spanish and English phrases whatever the language, so an
// interaction in either is judged. Each call returns a fresh copy. The
// error, a malformed embedded file, cannot happen in a build whose tests
// pass.
func DefaultScorecard(lang string) (Scorecard, error) {
	var d defaultCard
	if err := json.Unmarshal(defaultScorecard, &d); err != nil {
		return Scorecard{}, fmt.Errorf("default scorecard: %w", err)
	}
	key := "en"
	if IsSpanish(lang) {
		key = "es"
	}
	card := Scorecard{Version: d.Version, Criteria: make([]Criterion, len(d.Criteria))}
	for i, c := range d.Criteria {
		card.Criteria[i] = c.Criterion
		card.Criteria[i].Question = c.Question[key]
		card.Criteria[i].Guidance = c.Guidance[key]
		card.Criteria[i].Translations = map[string]Words{}
		for k, q := range c.Question {
			if k != key {
				card.Criteria[i].Translations[k] = Words{Question: q, Guidance: c.Guidance[k]}
			}
		}
	}
	return card, nil
}

// IsSpanish reports whether a BCP 47 language tag ("es", "es-MX", "es_AR")
// is Spanish.
func IsSpanish(lang string) bool {
	base, _, _ := strings.Cut(tagKey(lang), "-")
	return base == "es"
}
