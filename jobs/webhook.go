package jobs

import (
	"encoding/json"

	"github.com/riverqueue/river"
)

// DeliverWebhookArgs delivers one event to one webhook subscription. It is
// inserted in the transaction that produced the event; River retries it
// with its backoff until the receiver answers 2xx or the attempts run out.
type DeliverWebhookArgs struct {
	// SubscriptionID is the subscription; a deleted one cancels the job.
	SubscriptionID string `json:"subscription_id"`
	// DeliveryID names the delivery to the receiver (X-Auditd-Delivery),
	// the same on every attempt, so that it can drop a repeat.
	DeliveryID string `json:"delivery_id"`
	// Event is the event type (X-Auditd-Event).
	Event string `json:"event"`
	// Payload is the event's body in the json format, fixed when the event
	// happened; the subscription's format is applied when it is sent.
	Payload json.RawMessage `json:"payload"`
}

// Kind implements river.JobArgs.
func (DeliverWebhookArgs) Kind() string { return "deliver_webhook" }

// WebhookMaxAttempts is how many times a delivery is tried: with River's
// backoff (attempt⁴ seconds) the last comes about 11 hours after the first.
const WebhookMaxAttempts = 12

// InsertOpts implements river.JobArgsWithInsertOpts.
func (DeliverWebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: WebhookMaxAttempts}
}
