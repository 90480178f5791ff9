package scoring

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed default_scorecard.json
var defaultScorecard string

// DefaultScorecard returns the scorecard seeded into the default campaign:
// a contact-centre QA scorecard (categories OPENING, COMPLIANCE, SKILLS,
// CLOSING) whose rules hold Spanish and English phrases. Each call returns a
// fresh copy. The error, a malformed embedded file, cannot happen in a build
// whose tests pass.
func DefaultScorecard() (Scorecard, error) {
	var card Scorecard
	if err := json.Unmarshal([]byte(defaultScorecard), &card); err != nil {
		return Scorecard{}, fmt.Errorf("default scorecard: %w", err)
	}
	return card, nil
}
