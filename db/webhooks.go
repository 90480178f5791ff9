package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// WebhookAttemptsKept is how many attempts of a subscription its delivery
// log keeps; each new attempt prunes the older ones.
const WebhookAttemptsKept = 100

// WebhookSubscription is a system's subscription to events, as stored.
type WebhookSubscription struct {
	ID   string
	Name string
	URL  string
	// Secret signs every request; shown once, when created or rotated.
	Secret string
	// PreviousSecret, until PreviousUntil, signs every request too: the
	// secret a rotation replaced, while receivers change theirs ("" and
	// nil when none).
	PreviousSecret string
	PreviousUntil  *time.Time
	// RotatedAt is when the secret was last rotated (nil: never).
	RotatedAt *time.Time
	Events    []string
	// CampaignID and CampaignName filter the events by campaign ("" for
	// every campaign).
	CampaignID   string
	CampaignName string
	Format       string
	Enabled      bool
	CreatedBy    string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// WebhookSubscriptionNew is a subscription to create, or the whole of one
// to replace.
type WebhookSubscriptionNew struct {
	Name       string
	URL        string
	Events     []string
	CampaignID string
	Format     string
	Enabled    bool
}

const webhookColumns = `s.id, s.name, s.url, s.secret, s.events, COALESCE(s.campaign_id::text, ''), COALESCE(c.name, ''),
	s.format, s.enabled, s.created_by, s.created_at, s.updated_at, COALESCE(s.previous_secret, ''),
	s.previous_secret_until, s.secret_rotated_at`

const webhookFrom = ` FROM webhook_subscriptions s LEFT JOIN campaigns c ON c.id = s.campaign_id`

func scanWebhook(row pgx.Row) (WebhookSubscription, error) {
	var s WebhookSubscription
	err := row.Scan(&s.ID, &s.Name, &s.URL, &s.Secret, &s.Events, &s.CampaignID, &s.CampaignName,
		&s.Format, &s.Enabled, &s.CreatedBy, &s.CreatedAt, &s.UpdatedAt, &s.PreviousSecret, &s.PreviousUntil, &s.RotatedAt)
	return s, err
}

func collectWebhooks(rows pgx.Rows, err error) ([]WebhookSubscription, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (WebhookSubscription, error) { return scanWebhook(row) })
}

func webhookMissing(err error, id string) error { return one(err, "no webhook subscription %s", id) }

// webhookNameTaken turns the unique violation of a subscription's name into
// a Conflict error.
func webhookNameTaken(err error, name string) error {
	return unique(err, fmt.Sprintf("a webhook subscription called %q exists already; choose another name", name))
}

// WebhookSubscriptionCreate stores n with secret, created by user by. It
// returns a Conflict error when another subscription has its name
// (ignoring case).
func WebhookSubscriptionCreate(ctx context.Context, q DBTX, n WebhookSubscriptionNew, secret, by string) (WebhookSubscription, error) {
	s, err := scanWebhook(q.QueryRow(ctx, `
		WITH s AS (
			INSERT INTO webhook_subscriptions (name, url, secret, events, campaign_id, format, enabled, created_by)
			VALUES ($1, $2, $3, $4, NULLIF($5, '')::uuid, $6, $7, $8) RETURNING *
		)
		SELECT `+webhookColumns+` FROM s LEFT JOIN campaigns c ON c.id = s.campaign_id`,
		n.Name, n.URL, secret, n.Events, n.CampaignID, n.Format, n.Enabled, by))
	return s, webhookNameTaken(err, n.Name)
}

// WebhookSubscriptionUpdate replaces subscription id's settings with n (its
// secret stays). It returns a NotFound error when there is no such
// subscription and a Conflict error when another has n's name.
func WebhookSubscriptionUpdate(ctx context.Context, q DBTX, id string, n WebhookSubscriptionNew) (WebhookSubscription, error) {
	s, err := scanWebhook(q.QueryRow(ctx, `
		WITH s AS (
			UPDATE webhook_subscriptions SET name = $2, url = $3, events = $4, campaign_id = NULLIF($5, '')::uuid,
				format = $6, enabled = $7, updated_at = now()
			WHERE id = $1 RETURNING *
		)
		SELECT `+webhookColumns+` FROM s LEFT JOIN campaigns c ON c.id = s.campaign_id`,
		id, n.Name, n.URL, n.Events, n.CampaignID, n.Format, n.Enabled))
	return s, webhookMissing(webhookNameTaken(err, n.Name), id)
}

// WebhookSubscriptionRotate makes secret subscription id's signing secret
// at now, and its current one the previous, which signs too until
// previousUntil. A previous secret still in its overlap is dropped: two
// secrets at most sign a delivery. It returns a NotFound error when there
// is no such subscription.
func WebhookSubscriptionRotate(ctx context.Context, q DBTX, id, secret string, now, previousUntil time.Time) (WebhookSubscription, error) {
	s, err := scanWebhook(q.QueryRow(ctx, `
		WITH s AS (
			UPDATE webhook_subscriptions SET previous_secret = secret, previous_secret_until = $4, secret = $2,
				secret_rotated_at = $3, updated_at = $3
			WHERE id = $1 RETURNING *
		)
		SELECT `+webhookColumns+` FROM s LEFT JOIN campaigns c ON c.id = s.campaign_id`, id, secret, now, previousUntil))
	return s, webhookMissing(err, id)
}

// WebhookSubscriptionGet returns subscription id, or a NotFound error.
func WebhookSubscriptionGet(ctx context.Context, q DBTX, id string) (WebhookSubscription, error) {
	s, err := scanWebhook(q.QueryRow(ctx, `SELECT `+webhookColumns+webhookFrom+` WHERE s.id = $1`, id))
	return s, webhookMissing(err, id)
}

// WebhookSubscriptionList returns every subscription by name.
func WebhookSubscriptionList(ctx context.Context, q DBTX) ([]WebhookSubscription, error) {
	return collectWebhooks(q.Query(ctx, `SELECT `+webhookColumns+webhookFrom+` ORDER BY lower(s.name), s.id`))
}

// WebhookSubscriptionDelete deletes subscription id and its delivery log,
// and returns it as it was, or a NotFound error. Its deliveries still
// queued find it gone and are cancelled.
func WebhookSubscriptionDelete(ctx context.Context, q DBTX, id string) (WebhookSubscription, error) {
	s, err := scanWebhook(q.QueryRow(ctx, `
		WITH s AS (DELETE FROM webhook_subscriptions WHERE id = $1 RETURNING *)
		SELECT `+webhookColumns+` FROM s LEFT JOIN campaigns c ON c.id = s.campaign_id`, id))
	return s, webhookMissing(err, id)
}

// WebhookSubscriptionsFor returns the ids of the enabled subscriptions to
// event whose campaign filter takes one of campaignIDs (a subscription
// without a filter takes every event).
func WebhookSubscriptionsFor(ctx context.Context, q DBTX, event string, campaignIDs []string) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT id::text FROM webhook_subscriptions
		WHERE enabled AND $1 = ANY(events) AND (campaign_id IS NULL OR campaign_id = ANY($2::uuid[]))
		ORDER BY id`, event, campaignIDs)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// WebhookAttempt is one attempt to deliver an event to a subscription.
type WebhookAttempt struct {
	DeliveryID string
	Event      string
	Attempt    int
	// StatusCode is the receiver's answer, nil when none came.
	StatusCode *int
	Error      string
	DurationMS int
	// OK is whether the receiver answered 2xx.
	OK bool
	At time.Time
}

// WebhookAttemptInsert records a of subscription id and deletes its
// attempts beyond the last WebhookAttemptsKept. A subscription deleted
// meanwhile records nothing.
func WebhookAttemptInsert(ctx context.Context, q DBTX, id string, a WebhookAttempt) error {
	_, err := q.Exec(ctx, `
		WITH ins AS (
			INSERT INTO webhook_attempts (subscription_id, delivery_id, event, attempt, status_code, error, duration_ms)
			SELECT id, $2, $3, $4, $5, NULLIF($6, ''), $7 FROM webhook_subscriptions WHERE id = $1
		)
		DELETE FROM webhook_attempts WHERE subscription_id = $1 AND id <= (
			SELECT id FROM webhook_attempts WHERE subscription_id = $1 ORDER BY id DESC OFFSET $8 - 1 LIMIT 1)`,
		id, a.DeliveryID, a.Event, a.Attempt, a.StatusCode, a.Error, a.DurationMS, WebhookAttemptsKept)
	return err
}

// WebhookAttemptList returns the attempts of subscription id, newest first.
func WebhookAttemptList(ctx context.Context, q DBTX, id string) ([]WebhookAttempt, error) {
	return webhookAttempts(q.Query(ctx, `SELECT `+attemptColumns+` FROM webhook_attempts
		WHERE subscription_id = $1 ORDER BY id DESC`, id))
}

// WebhookAttemptsOf returns the attempts of delivery deliveryID, newest first.
func WebhookAttemptsOf(ctx context.Context, q DBTX, deliveryID string) ([]WebhookAttempt, error) {
	return webhookAttempts(q.Query(ctx, `SELECT `+attemptColumns+` FROM webhook_attempts
		WHERE delivery_id = $1 ORDER BY id DESC`, deliveryID))
}

const attemptColumns = `delivery_id, event, attempt, status_code, COALESCE(error, ''), duration_ms, at`

func webhookAttempts(rows pgx.Rows, err error) ([]WebhookAttempt, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (WebhookAttempt, error) {
		var a WebhookAttempt
		err := row.Scan(&a.DeliveryID, &a.Event, &a.Attempt, &a.StatusCode, &a.Error, &a.DurationMS, &a.At)
		a.OK = a.StatusCode != nil && *a.StatusCode >= 200 && *a.StatusCode < 300
		return a, err
	})
}
