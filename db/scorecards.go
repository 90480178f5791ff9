package db

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
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

// ScorecardInfo describes a version without its criteria; stored as the
// JSON of its scorecard.published event.
type ScorecardInfo struct {
	CampaignID  string    `json:"campaign_id"`
	Version     int       `json:"version"`
	Criteria    int       `json:"criteria"`
	PublishedBy string    `json:"published_by"`
	PublishedAt time.Time `json:"published_at"`
}

// scanScorecard scans scorecardColumns, after the columns first scans into.
func scanScorecard(row pgx.Row, first ...any) (Scorecard, error) {
	var s Scorecard
	var criteria []byte
	err := row.Scan(append(first, &s.CampaignID, &s.Version, &criteria, &s.PublishedBy, &s.PublishedAt)...)
	if err != nil {
		return Scorecard{}, err
	}
	return s, json.Unmarshal(criteria, &s.Criteria)
}

const scorecardColumns = `campaign_id, version, criteria, COALESCE(published_by, ''), published_at`

// ScorecardCurrent returns the latest version of a campaign's scorecard, or
// a NotFound error when it has none.
func ScorecardCurrent(ctx context.Context, q DBTX, campaignID string) (Scorecard, error) {
	s, err := scanScorecard(q.QueryRow(ctx, `SELECT `+scorecardColumns+` FROM scorecards
		WHERE campaign_id = $1 ORDER BY version DESC LIMIT 1`, campaignID))
	return s, one(err, "campaign %s has no scorecard yet", campaignID)
}

// ScorecardGet returns one version of a campaign's scorecard, or a NotFound
// error.
func ScorecardGet(ctx context.Context, q DBTX, campaignID string, version int) (Scorecard, error) {
	s, err := scanScorecard(q.QueryRow(ctx, `SELECT `+scorecardColumns+` FROM scorecards
		WHERE campaign_id = $1 AND version = $2`, campaignID, version))
	return s, one(err, "campaign %s has no scorecard version %d", campaignID, version)
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
// consecutive versions. It returns a NotFound error for an unknown campaign.
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
		return Scorecard{}, one(err, "no campaign %s", campaignID)
	}
	quality := role.Quality
	err = EventInsert(ctx, tx, EventScorecardPublished, Audience{MinRole: &quality}, s.Info())
	return s, err
}

// Info describes s without its criteria.
func (s Scorecard) Info() ScorecardInfo {
	return ScorecardInfo{CampaignID: s.CampaignID, Version: s.Version, Criteria: len(s.Criteria),
		PublishedBy: s.PublishedBy, PublishedAt: s.PublishedAt}
}

// scorecardSeedDefault gives every campaign without a scorecard the default
// one, in the campaign's language, as version 1 (the default campaign after
// the first migration). Then it brings the default campaign's scorecard up
// to the default of this build when nobody ever edited it: every version
// is one the system published, and the latest differs from today's
// default. That publishes the next version by "system" (each build with a
// new default adds one); campaigns anyone published a version of keep
// theirs. Audits keep the version they were
// scored against (criterion ids are stable across defaults).
func scorecardSeedDefault(ctx context.Context, q DBTX) error {
	rows, err := q.Query(ctx, `
		SELECT c.id, c.language, COALESCE(max(s.version), 0),
		       COALESCE(bool_and(s.published_by = 'system'), false) AND c.name = 'default',
		       (array_agg(s.criteria ORDER BY s.version DESC))[1]
		FROM campaigns c LEFT JOIN scorecards s ON s.campaign_id = c.id
		GROUP BY c.id`)
	if err != nil {
		return err
	}
	type seed struct {
		id, lang    string
		version     int
		upgradeable bool
		current     []byte
	}
	seeds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (seed, error) {
		var s seed
		return s, row.Scan(&s.id, &s.lang, &s.version, &s.upgradeable, &s.current)
	})
	if err != nil {
		return err
	}
	for _, s := range seeds {
		if s.version > 0 && !s.upgradeable {
			continue
		}
		card, err := scoring.DefaultScorecard(s.lang)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(card.Criteria)
		if err != nil {
			return err
		}
		if s.version > 0 {
			// Compared as JSON values: jsonb does not keep the bytes.
			var current, want any
			if err := json.Unmarshal(s.current, &current); err != nil {
				return err
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				return err
			}
			if reflect.DeepEqual(current, want) {
				continue
			}
		}
		// ON CONFLICT: a concurrent migration (they hold a lock) or a
		// publication since the query leaves what it wrote.
		if _, err := q.Exec(ctx, `
			INSERT INTO scorecards (campaign_id, version, criteria, published_by)
			VALUES ($1, $2, $3, 'system') ON CONFLICT DO NOTHING`, s.id, s.version+1, raw); err != nil {
			return err
		}
	}
	return nil
}

// NamedScorecard is a campaign's scorecard with the campaign's name.
type NamedScorecard struct {
	Campaign string
	Scorecard
}

// ScorecardsCurrent returns the current scorecard of every campaign that
// has one, by campaign name.
func ScorecardsCurrent(ctx context.Context, q DBTX) ([]NamedScorecard, error) {
	rows, err := q.Query(ctx, `SELECT name, `+scorecardColumns+` FROM (
		SELECT DISTINCT ON (s.campaign_id) c.name, s.*
		FROM scorecards s JOIN campaigns c ON c.id = s.campaign_id
		ORDER BY s.campaign_id, s.version DESC) AS current ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (NamedScorecard, error) {
		var n NamedScorecard
		var err error
		n.Scorecard, err = scanScorecard(row, &n.Campaign)
		return n, err
	})
}
