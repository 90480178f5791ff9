package workers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/webhook"
)

// DeliverWebhookWorker sends an event to a webhook subscription's URL,
// signed with its secret (and its previous one while a rotation's overlap
// lasts), and records the attempt in its delivery log. An
// answer other than 2xx, or none, is an error River retries with its
// backoff.
type DeliverWebhookWorker struct {
	river.WorkerDefaults[jobs.DeliverWebhookArgs]
	pool         *pgxpool.Pool
	client       *http.Client
	dashboardURL string
	// now is the time an attempt is signed at and a rotated secret's
	// overlap is judged by.
	now func() time.Time
}

// Timeout implements river.Worker: one attempt, and time to record it.
func (w *DeliverWebhookWorker) Timeout(*river.Job[jobs.DeliverWebhookArgs]) time.Duration {
	return webhook.Timeout + 10*time.Second
}

// Work implements river.Worker. A subscription deleted or disabled
// meanwhile cancels the delivery.
func (w *DeliverWebhookWorker) Work(ctx context.Context, job *river.Job[jobs.DeliverWebhookArgs]) error {
	a := job.Args
	sub, err := db.WebhookSubscriptionGet(ctx, w.pool, a.SubscriptionID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("webhook subscription %s no longer exists", a.SubscriptionID))
	}
	if err != nil {
		return err
	}
	if !sub.Enabled && a.Event != webhook.Test {
		return river.JobCancel(fmt.Errorf("webhook subscription %s is disabled", sub.ID))
	}
	body, err := webhook.Body(sub.Format, a.Payload, w.dashboardURL)
	if err != nil {
		return river.JobCancel(err)
	}
	now := w.now()
	res := webhook.Send(ctx, w.client, webhook.Request{URL: sub.URL, Secrets: webhook.Secrets(sub, now), Event: a.Event,
		DeliveryID: a.DeliveryID, Body: body}, now)
	attempt := db.WebhookAttempt{DeliveryID: a.DeliveryID, Event: a.Event, Attempt: job.Attempt,
		Error: res.Error, DurationMS: int(res.Duration.Milliseconds())}
	if res.StatusCode != 0 {
		attempt.StatusCode = &res.StatusCode
	}
	if err := db.WebhookAttemptInsert(ctx, w.pool, sub.ID, attempt); err != nil {
		return err
	}
	if !res.OK() {
		return fmt.Errorf("webhook %s: %s", sub.ID, res.Error)
	}
	return nil
}
