package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/scoring"
)

// DefaultCampaign is the name of the campaign that always exists; tasks
// uploaded without a campaign belong to it.
const DefaultCampaign = "default"

// Campaign groups the interactions of one line of business.
type Campaign struct {
	ID   string
	Name string
	CampaignSettings
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CampaignSettings are what a supervisor sets on a campaign.
type CampaignSettings struct {
	// PassingScore is the score (0..100) an audit needs to pass.
	PassingScore float64
	// SupervisorEmails receive every validation of the campaign's audits.
	SupervisorEmails []string
	// Language is the default language of its interactions (BCP 47).
	Language string
	// AgentChannel is the channel of a stereo call recording that holds the
	// agent: "left" or "right".
	AgentChannel string
	// DetectLanguage lets the speech server detect the language of a call
	// uploaded without one (when it transcribes any language), instead of
	// taking Language.
	DetectLanguage bool
	// OperatorSeesAutomatic shows agents their audits before an analyst
	// reviewed them (Task.AuditHiddenFromOperator).
	OperatorSeesAutomatic bool
	// ReviewAnalysts are the user ids sampling assigns work to; empty:
	// every active user whose highest role is quality.
	ReviewAnalysts []string
	// DisputeWindowDays is how many days after its validation an agent may
	// dispute an audit of the campaign; 0 turns disputes off.
	DisputeWindowDays int
	// Redaction is what is removed from its transcripts and recordings
	// before anything stores them; nil: the defaults of its language
	// (EffectiveRedaction).
	Redaction *redact.RedactionSettings
}

// EffectiveRedaction is what the campaign redacts: its setting, or the
// defaults of its language.
func (s CampaignSettings) EffectiveRedaction() redact.RedactionSettings {
	if s.Redaction != nil {
		return *s.Redaction
	}
	return redact.DefaultSettings(s.Language)
}

const campaignColumns = `id, name, passing_score::float8, supervisor_emails, language, agent_channel, created_at, updated_at,
	operator_sees_automatic, review_analysts, dispute_window_days, redaction, detect_language`

func scanCampaign(row pgx.Row) (Campaign, error) {
	var c Campaign
	err := row.Scan(&c.ID, &c.Name, &c.PassingScore, &c.SupervisorEmails, &c.Language, &c.AgentChannel, &c.CreatedAt, &c.UpdatedAt,
		&c.OperatorSeesAutomatic, &c.ReviewAnalysts, &c.DisputeWindowDays, &c.Redaction, &c.DetectLanguage)
	return c, err
}

// CampaignGetByName returns the campaign called name, or a NotFound error.
func CampaignGetByName(ctx context.Context, q DBTX, name string) (Campaign, error) {
	c, err := scanCampaign(q.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE name = $1`, name))
	return c, one(err, "no campaign is called %q", name)
}

// CampaignCurrent returns the campaign with id and the version of its
// current scorecard (0 when it has none), or a NotFound error.
func CampaignCurrent(ctx context.Context, q DBTX, id string) (Campaign, int, error) {
	var version int
	c, err := scanCampaign(withDest{q.QueryRow(ctx, `SELECT `+campaignColumns+`,
		(SELECT COALESCE(max(version), 0) FROM scorecards WHERE campaign_id = campaigns.id)
		FROM campaigns WHERE id = $1`, id), []any{&version}})
	return c, version, one(err, "no campaign %s", id)
}

// withDest is a row whose Scan fills dest after the caller's destinations:
// a scan function of a table's columns reads a query that adds more.
type withDest struct {
	pgx.Row
	dest []any
}

func (r withDest) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.dest...)...) }

// CampaignGet returns the campaign with id, or a NotFound error.
func CampaignGet(ctx context.Context, q DBTX, id string) (Campaign, error) {
	c, err := scanCampaign(q.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE id = $1`, id))
	return c, one(err, "no campaign %s", id)
}

// CampaignList returns every campaign by name.
func CampaignList(ctx context.Context, q DBTX) ([]Campaign, error) {
	rows, err := q.Query(ctx, `SELECT `+campaignColumns+` FROM campaigns ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Campaign, error) { return scanCampaign(row) })
}

// CampaignCreate inserts a campaign with version 1 of its scorecard:
// criteria, or the default scorecard's (in the campaign's language) when
// criteria is empty. It returns
// a Conflict error when the name is taken.
func CampaignCreate(ctx context.Context, tx pgx.Tx, name string, s CampaignSettings, criteria []scoring.Criterion, by string) (Campaign, error) {
	if len(criteria) == 0 {
		card, err := scoring.DefaultScorecard(s.Language)
		if err != nil {
			return Campaign{}, err
		}
		criteria = card.Criteria
	}
	c, err := scanCampaign(tx.QueryRow(ctx, `
		INSERT INTO campaigns (name, passing_score, supervisor_emails, language, agent_channel, operator_sees_automatic, review_analysts,
			dispute_window_days, redaction, detect_language)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING `+campaignColumns,
		name, s.PassingScore, nonNil(s.SupervisorEmails), s.Language, s.AgentChannel, s.OperatorSeesAutomatic, nonNil(s.ReviewAnalysts), s.DisputeWindowDays, redaction(s.Redaction),
		s.DetectLanguage))
	if err != nil {
		return Campaign{}, nameTaken(err, name)
	}
	raw, err := json.Marshal(criteria)
	if err != nil {
		return Campaign{}, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO scorecards (campaign_id, version, criteria, published_by) VALUES ($1, 1, $2, NULLIF($3, ''))`,
		c.ID, raw, by)
	return c, err
}

// CampaignUpdate replaces a campaign's name and settings, returning the
// updated campaign, a NotFound error, or a Conflict error for a taken name.
func CampaignUpdate(ctx context.Context, q DBTX, id, name string, s CampaignSettings) (Campaign, error) {
	c, err := scanCampaign(q.QueryRow(ctx, `
		UPDATE campaigns SET name = $2, passing_score = $3, supervisor_emails = $4, language = $5,
			agent_channel = $6, operator_sees_automatic = $7, review_analysts = $8,
			dispute_window_days = $9, redaction = $10, detect_language = $11, updated_at = now()
		WHERE id = $1 RETURNING `+campaignColumns,
		id, name, s.PassingScore, nonNil(s.SupervisorEmails), s.Language, s.AgentChannel, s.OperatorSeesAutomatic,
		nonNil(s.ReviewAnalysts), s.DisputeWindowDays, redaction(s.Redaction), s.DetectLanguage))
	return c, nameTaken(one(err, "no campaign %s", id), name)
}

// redaction is s as stored: lists, never null; NULL for the defaults.
func redaction(s *redact.RedactionSettings) *redact.RedactionSettings {
	if s == nil {
		return nil
	}
	return &redact.RedactionSettings{Types: nonNil(s.Types), Patterns: nonNil(s.Patterns)}
}

// nameTaken turns the unique violation of a campaign's name into a
// Conflict error.
func nameTaken(err error, name string) error {
	return unique(err, fmt.Sprintf("a campaign called %q exists already", name))
}
