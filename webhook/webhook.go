// Package webhook tells other systems (Slack, Teams, a CRM, the
// workforce-management tool) what happened: the event types a subscription
// may choose, what each event carries, the formats of its body, and the
// signed HTTP request that delivers it.
//
// A webhook goes to a system, not to a person, so an event carries what a
// system acts on and nothing a campaign keeps private: ids, the campaign,
// the agent's user id, the score and result, the questions of the criteria
// failed, pending or not applicable. Never the transcript, an explanation
// or an evidence quote, a file name, a validation's notes or a dispute's
// comments: free text that may hold what redaction removes, or was never
// redacted.
//
// Each event that a subscription takes is one River job (jobs.DeliverWebhookArgs)
// inserted by Queue in the transaction that produced the event.
package webhook

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
)

// The event types a subscription may choose.
const (
	// TaskAudited: the automatic audit of a task is stored.
	TaskAudited = "task.audited"
	// CriticalFailure: an automatic audit failed a critical criterion.
	CriticalFailure = "task.critical_failure"
	// NeedsReview: an automatic audit has verdicts pending an analyst's review.
	NeedsReview = "task.needs_review"
	// Validated: an analyst validated an audit.
	Validated = "task.validated"
	// DisputeOpened: an agent disputed criteria of a validated audit.
	DisputeOpened = "dispute.opened"
	// DisputeResolved: a supervisor accepted or rejected a dispute.
	DisputeResolved = "dispute.resolved"
	// CalibrationClosed: a calibration session closed, with its figures.
	CalibrationClosed = "calibration.closed"
)

// Test is the event of a test delivery (POST /webhooks/{id}/test), sent
// whatever the subscription's event types.
const Test = "webhook.test"

// Types returns the event types a subscription may choose, in the order of
// an audit's life.
func Types() []string {
	return []string{TaskAudited, CriticalFailure, NeedsReview, Validated, DisputeOpened, DisputeResolved, CalibrationClosed}
}

// Event is something that happened, to deliver to the subscriptions that
// take it.
type Event struct {
	Type string
	// CampaignIDs are the campaigns it concerns: a subscription filtered by
	// campaign takes it when its campaign is one of them.
	CampaignIDs []string
	Data        Data
}

// Payload is the body of the json format.
type Payload struct {
	// ID is the delivery's id, also sent as X-Auditd-Delivery.
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	Data      Data      `json:"data"`
}

// Data is what an event is about: one of its fields is set.
type Data struct {
	Task        *Task        `json:"task,omitempty"`
	Dispute     *Dispute     `json:"dispute,omitempty"`
	Calibration *Calibration `json:"calibration,omitempty"`
	// Message is a test delivery's text.
	Message string `json:"message,omitempty"`
}

// Task is a task's audit as an event carries it.
type Task struct {
	UUID       string `json:"uuid"`
	Kind       string `json:"kind"`
	Campaign   string `json:"campaign"`
	OperatorID string `json:"operator_id,omitempty"`
	Language   string `json:"language"`
	Status     string `json:"status"`
	// Score and Passed are nil while verdicts are pending.
	Score          *float64    `json:"score"`
	Passed         *bool       `json:"passed"`
	FailedCriteria []Criterion `json:"failed_criteria"`
	// PendingCriteria await an analyst's review.
	PendingCriteria []Criterion `json:"pending_criteria"`
	// NotApplicableCriteria were judged not to apply: neither met nor
	// failed, they count nowhere in the score.
	NotApplicableCriteria []Criterion `json:"not_applicable_criteria"`
	ValidatedBy           string      `json:"validated_by,omitempty"`
	ValidatedAt           *time.Time  `json:"validated_at,omitempty"`
}

// Criterion is a criterion of an audit, by its id and question.
type Criterion struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Critical bool   `json:"critical"`
}

// Dispute is a dispute as an event carries it: no comment, no reply.
type Dispute struct {
	ID          string              `json:"id"`
	TaskUUID    string              `json:"task_uuid"`
	Campaign    string              `json:"campaign"`
	AgentID     string              `json:"agent_id"`
	ValidatorID string              `json:"validator_id"`
	Status      string              `json:"status"`
	Criteria    []DisputedCriterion `json:"criteria"`
	ScoreBefore float64             `json:"score_before"`
}

// DisputedCriterion is a criterion of a dispute, with the resolver's
// decision once resolved, and where its verdict is not applicable: the
// one disputed, the one the agent claims, the one accepted.
type DisputedCriterion struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// NotApplicable: the verdict disputed is that the criterion does not apply.
	NotApplicable bool `json:"not_applicable,omitempty"`
	// ClaimsNotApplicable: the agent claims that it does not apply.
	ClaimsNotApplicable bool   `json:"claims_not_applicable,omitempty"`
	Decision            string `json:"decision,omitempty"`
	// AcceptedNotApplicable: accepted as not applicable.
	AcceptedNotApplicable bool `json:"accepted_not_applicable,omitempty"`
}

// Calibration is a closed calibration session and its figures.
type Calibration struct {
	ID               string     `json:"id"`
	Name             string     `json:"name"`
	Tasks            int        `json:"tasks"`
	Analysts         int        `json:"analysts"`
	Submitted        int        `json:"submitted"`
	Alpha            *float64   `json:"alpha"`
	PercentAgreement *float64   `json:"percent_agreement"`
	ClosedAt         *time.Time `json:"closed_at,omitempty"`
}

// Queue inserts, through rc in tx (the transaction that produced them), a
// deliver_webhook job for each event and each enabled subscription that
// takes it.
func Queue(ctx context.Context, tx pgx.Tx, rc *river.Client[pgx.Tx], events ...Event) error {
	var params []river.InsertManyParams
	for _, e := range events {
		subs, err := db.WebhookSubscriptionsFor(ctx, tx, e.Type, e.CampaignIDs)
		if err != nil {
			return err
		}
		for _, sub := range subs {
			args, err := delivery(sub, e.Type, e.Data)
			if err != nil {
				return err
			}
			params = append(params, river.InsertManyParams{Args: args})
		}
	}
	if len(params) == 0 {
		return nil
	}
	_, err := rc.InsertManyTx(ctx, tx, params)
	return err
}

// delivery returns the job that delivers an event of typ about data to
// subscription sub, under a new delivery id.
func delivery(sub, typ string, data Data) (jobs.DeliverWebhookArgs, error) {
	id := uuid.NewString()
	payload, err := jsonBody(Payload{ID: id, Type: typ, CreatedAt: time.Now().UTC(), Data: data})
	return jobs.DeliverWebhookArgs{SubscriptionID: sub, DeliveryID: id, Event: typ, Payload: payload}, err
}

// TestDelivery returns the job of a test delivery to subscription sub.
func TestDelivery(sub string) (jobs.DeliverWebhookArgs, error) {
	return delivery(sub, Test, Data{Message: "A test delivery from auditd: the subscription works."})
}

// Audited returns the events of task's automatic audit r, as it was just
// stored: task audited, and critical failure or needs review when it is so.
func Audited(task db.Task, r scoring.Result) []Event {
	t := taskOf(task, r)
	events := []Event{{Type: TaskAudited, CampaignIDs: []string{task.CampaignID}, Data: Data{Task: t}}}
	if len(r.FailedCritical) > 0 {
		events = append(events, Event{Type: CriticalFailure, CampaignIDs: []string{task.CampaignID}, Data: Data{Task: t}})
	}
	if len(r.Pending) > 0 {
		events = append(events, Event{Type: NeedsReview, CampaignIDs: []string{task.CampaignID}, Data: Data{Task: t}})
	}
	return events
}

// ValidatedEvent returns the event of task's validation v, whose audit
// revision is r.
func ValidatedEvent(task db.Task, r scoring.Result, v db.Validation) Event {
	t := taskOf(task, r)
	t.Status, t.ValidatedBy, t.ValidatedAt = string(pipeline.Validated), v.ValidatorID, &v.ValidatedAt
	return Event{Type: Validated, CampaignIDs: []string{task.CampaignID}, Data: Data{Task: t}}
}

// taskOf is what an event says of task and its audit r.
func taskOf(task db.Task, r scoring.Result) *Task {
	t := &Task{UUID: task.UUID, Kind: task.Kind, Campaign: task.CampaignName, OperatorID: task.OperatorID,
		Language: task.Language, Status: string(task.Status), Score: task.Score, Passed: task.Passed,
		FailedCriteria: []Criterion{}, PendingCriteria: []Criterion{}, NotApplicableCriteria: []Criterion{}}
	for _, it := range r.Items {
		c := Criterion{ID: it.CriterionID, Question: it.Question, Critical: it.Critical}
		switch {
		case slices.Contains(r.Pending, it.CriterionID):
			t.PendingCriteria = append(t.PendingCriteria, c)
		case it.NotApplicable:
			t.NotApplicableCriteria = append(t.NotApplicableCriteria, c)
		case !it.Complies:
			t.FailedCriteria = append(t.FailedCriteria, c)
		}
	}
	return t
}

// DisputeEvent returns the event of type typ (DisputeOpened or
// DisputeResolved) of dispute d of task.
func DisputeEvent(typ string, task db.Task, d db.Dispute) Event {
	out := &Dispute{ID: d.ID, TaskUUID: d.TaskUUID, Campaign: task.CampaignName, AgentID: d.AgentID,
		ValidatorID: d.ValidatorID, Status: d.Status, ScoreBefore: d.ScoreBefore}
	for _, it := range d.Items {
		out.Criteria = append(out.Criteria, DisputedCriterion{ID: it.CriterionID, Question: it.Question,
			NotApplicable: it.NotApplicable, ClaimsNotApplicable: it.ClaimsNotApplicable, Decision: it.Decision,
			AcceptedNotApplicable: it.AcceptedNotApplicable})
	}
	return Event{Type: typ, CampaignIDs: []string{task.CampaignID}, Data: Data{Dispute: out}}
}

// CalibrationEvent returns the event of closed session s, whose
// interactions are of campaigns.
func CalibrationEvent(s db.CalibrationSession, campaigns []string) Event {
	return Event{Type: CalibrationClosed, CampaignIDs: campaigns, Data: Data{Calibration: &Calibration{
		ID: s.ID, Name: s.Name, Tasks: s.Tasks, Analysts: s.Analysts, Submitted: s.Submitted,
		Alpha: s.Alpha, PercentAgreement: s.PercentAgreement, ClosedAt: s.ClosedAt}}}
}
