package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
)

// EventScorecardPublished is the event type of a new scorecard version; its
// data is a ScorecardInfo.
const EventScorecardPublished = "scorecard.published"

// Scorecard is one published version of a campaign's criteria.
type Scorecard struct {
	CampaignID string
	scoring.Scorecard
	PublishedBy string
	PublishedAt time.Time
}

// ScorecardInfo describes a version without its criteria.
type ScorecardInfo struct {
	CampaignID  string    `json:"campaign_id" format:"uuid"`
	Version     int       `json:"version"`
	Criteria    int       `json:"criteria" doc:"How many criteria it has"`
	PublishedBy string    `json:"published_by"`
	PublishedAt time.Time `json:"published_at"`
}

func scanScorecard(row pgx.Row) (Scorecard, error) {
	var s Scorecard
	var criteria []byte
	err := row.Scan(&s.CampaignID, &s.Version, &criteria, &s.PublishedBy, &s.PublishedAt)
	if err != nil {
		return Scorecard{}, one(err)
	}
	return s, json.Unmarshal(criteria, &s.Criteria)
}

const scorecardColumns = `campaign_id, version, criteria, COALESCE(published_by, ''), published_at`

// ScorecardCurrent returns the latest version of a campaign's scorecard, or
// ErrNotFound when it has none.
func ScorecardCurrent(ctx context.Context, q DBTX, campaignID string) (Scorecard, error) {
	return scanScorecard(q.QueryRow(ctx, `SELECT `+scorecardColumns+` FROM scorecards
		WHERE campaign_id = $1 ORDER BY version DESC LIMIT 1`, campaignID))
}

// ScorecardGet returns one version of a campaign's scorecard, or ErrNotFound.
func ScorecardGet(ctx context.Context, q DBTX, campaignID string, version int) (Scorecard, error) {
	return scanScorecard(q.QueryRow(ctx, `SELECT `+scorecardColumns+` FROM scorecards
		WHERE campaign_id = $1 AND version = $2`, campaignID, version))
}

// ScorecardVersions lists the versions of a campaign's scorecard, newest first.
func ScorecardVersions(ctx context.Context, q DBTX, campaignID string) ([]ScorecardInfo, error) {
	rows, err := q.Query(ctx, `SELECT campaign_id, version, jsonb_array_length(criteria), COALESCE(published_by, ''), published_at
		FROM scorecards WHERE campaign_id = $1 ORDER BY version DESC`, campaignID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ScorecardInfo, error) {
		var i ScorecardInfo
		err := row.Scan(&i.CampaignID, &i.Version, &i.Criteria, &i.PublishedBy, &i.PublishedAt)
		return i, err
	})
}

// ScorecardPublish adds the next version of a campaign's scorecard with
// criteria (already validated) and writes a scorecard.published event. Call
// it in a transaction: it locks the campaign so concurrent publications get
// consecutive versions. It returns ErrNotFound for an unknown campaign.
func ScorecardPublish(ctx context.Context, tx pgx.Tx, campaignID string, criteria []scoring.Criterion, by string) (Scorecard, error) {
	if _, err := tx.Exec(ctx, `SELECT 1 FROM campaigns WHERE id = $1 FOR UPDATE`, campaignID); err != nil {
		return Scorecard{}, err
	}
	raw, err := json.Marshal(criteria)
	if err != nil {
		return Scorecard{}, fmt.Errorf("scorecard: %w", err)
	}
	s, err := scanScorecard(tx.QueryRow(ctx, `
		INSERT INTO scorecards (campaign_id, version, criteria, published_by)
		SELECT c.id, COALESCE((SELECT max(version) FROM scorecards WHERE campaign_id = c.id), 0) + 1, $2, NULLIF($3, '')
		FROM campaigns c WHERE c.id = $1
		RETURNING `+scorecardColumns, campaignID, raw, by))
	if err != nil {
		return Scorecard{}, err
	}
	quality := role.Quality
	_, err = EventInsert(ctx, tx, EventScorecardPublished, Audience{MinRole: &quality}, s.Info())
	return s, err
}

// Info describes s without its criteria.
func (s Scorecard) Info() ScorecardInfo {
	return ScorecardInfo{CampaignID: s.CampaignID, Version: s.Version, Criteria: len(s.Criteria),
		PublishedBy: s.PublishedBy, PublishedAt: s.PublishedAt}
}

// scorecardSeedDefault gives every campaign without a scorecard the default
// one as version 1 (the default campaign after the first migration).
func scorecardSeedDefault(ctx context.Context, q DBTX) error {
	card, err := scoring.DefaultScorecard()
	if err != nil {
		return err
	}
	raw, err := json.Marshal(card.Criteria)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `
		INSERT INTO scorecards (campaign_id, version, criteria, published_by)
		SELECT c.id, 1, $1, 'system' FROM campaigns c
		WHERE NOT EXISTS (SELECT 1 FROM scorecards s WHERE s.campaign_id = c.id)`, raw)
	return err
}
