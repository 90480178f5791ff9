package db

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// Retention is how long a campaign keeps what its tasks hold, in days from
// a task's upload; nil keeps that kind forever.
type Retention struct {
	RecordingsDays  *int
	TranscriptsDays *int
	AuditsDays      *int
}

// CampaignPrivacy is a campaign's retention and whether its agents may
// read who opened their interactions.
type CampaignPrivacy struct {
	Retention
	// AgentsSeeAccess lets operators list the access records of their own tasks.
	AgentsSeeAccess bool
	UpdatedAt       *time.Time
}

// CampaignPrivacyGet returns campaign id's privacy settings; a campaign
// that never set them keeps everything forever and hides the access record
// from its agents.
func CampaignPrivacyGet(ctx context.Context, q DBTX, id string) (CampaignPrivacy, error) {
	var p CampaignPrivacy
	err := q.QueryRow(ctx, `
		SELECT recordings_days, transcripts_days, audits_days, agents_see_access, updated_at
		FROM campaign_privacy WHERE campaign_id = $1`, id).
		Scan(&p.RecordingsDays, &p.TranscriptsDays, &p.AuditsDays, &p.AgentsSeeAccess, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return CampaignPrivacy{}, nil
	}
	return p, err
}

// CampaignPrivacySet stores campaign id's privacy settings.
func CampaignPrivacySet(ctx context.Context, q DBTX, id string, p CampaignPrivacy) error {
	_, err := q.Exec(ctx, `
		INSERT INTO campaign_privacy (campaign_id, recordings_days, transcripts_days, audits_days, agents_see_access)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (campaign_id) DO UPDATE SET recordings_days = excluded.recordings_days,
			transcripts_days = excluded.transcripts_days, audits_days = excluded.audits_days,
			agents_see_access = excluded.agents_see_access, updated_at = now()`,
		id, p.RecordingsDays, p.TranscriptsDays, p.AuditsDays, p.AgentsSeeAccess)
	return err
}

// CampaignRetention is one campaign's retention, for the retention job.
type CampaignRetention struct {
	CampaignID string
	Retention
}

// CampaignRetentionList returns the campaigns that delete something.
func CampaignRetentionList(ctx context.Context, q DBTX) ([]CampaignRetention, error) {
	rows, err := q.Query(ctx, `
		SELECT campaign_id, recordings_days, transcripts_days, audits_days FROM campaign_privacy
		WHERE num_nonnulls(recordings_days, transcripts_days, audits_days) > 0 ORDER BY campaign_id`)
	if err != nil {
		return nil, err
	}
	var out []CampaignRetention
	for rows.Next() {
		var c CampaignRetention
		if err := rows.Scan(&c.CampaignID, &c.RecordingsDays, &c.TranscriptsDays, &c.AuditsDays); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
