package db

import (
	"context"
	"time"
)

// DefaultCampaign is the name of the campaign that always exists; tasks
// uploaded without a campaign belong to it.
const DefaultCampaign = "default"

// Campaign groups the interactions of one line of business.
type Campaign struct {
	ID               string
	Name             string
	PassingScore     float64
	SupervisorEmails []string
	// Language is the default language of its interactions (BCP 47).
	Language string
	// AgentChannel is the channel of a stereo call recording that holds the
	// agent: "left" or "right".
	AgentChannel string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// CampaignGetByName returns the campaign called name, or ErrNotFound.
func CampaignGetByName(ctx context.Context, q DBTX, name string) (Campaign, error) {
	var c Campaign
	err := q.QueryRow(ctx, `
		SELECT id, name, passing_score::float8, supervisor_emails, language, agent_channel, created_at, updated_at
		FROM campaigns WHERE name = $1`, name).
		Scan(&c.ID, &c.Name, &c.PassingScore, &c.SupervisorEmails, &c.Language, &c.AgentChannel, &c.CreatedAt, &c.UpdatedAt)
	return c, one(err)
}
