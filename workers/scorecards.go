package workers

import (
	"context"
	"fmt"
	"sync"

	"github.com/auditd/auditd/db"
)

// scorecards keeps the current scorecard of each campaign as the workers
// last read it. A published version never changes, so a worker reads a
// version's criteria (and parses them) once, not once a task: each task
// costs one read of its campaign and the current version's number.
type scorecards struct {
	mu    sync.Mutex
	cards map[string]db.Scorecard // by campaign id
}

func newScorecards() *scorecards { return &scorecards{cards: map[string]db.Scorecard{}} }

// current returns task's campaign and its current scorecard, read through
// q (a transaction reads the version it sees). A campaign without one is a
// permanent error.
func (s *scorecards) current(ctx context.Context, q db.DBTX, task db.Task) (db.Campaign, db.Scorecard, error) {
	campaign, version, err := db.CampaignCurrent(ctx, q, task.CampaignID)
	if err != nil {
		return db.Campaign{}, db.Scorecard{}, err
	}
	if version == 0 {
		return db.Campaign{}, db.Scorecard{}, permanent(fmt.Errorf("campaign %q has no scorecard", campaign.Name))
	}
	s.mu.Lock()
	card, ok := s.cards[campaign.ID]
	s.mu.Unlock()
	if ok && card.Version == version {
		return campaign, card, nil
	}
	if card, err = db.ScorecardGet(ctx, q, campaign.ID, version); err != nil {
		return db.Campaign{}, db.Scorecard{}, err
	}
	s.mu.Lock()
	if kept, ok := s.cards[campaign.ID]; !ok || kept.Version < version {
		s.cards[campaign.ID] = card
	}
	s.mu.Unlock()
	return campaign, card, nil
}
