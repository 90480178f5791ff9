package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/role"
)

// Validation types, as the API names them: llamada for a call.
const (
	ValidationCall = "llamada"
	ValidationChat = "chat"
)

// Delivery statuses of a validation's e-mail.
const (
	// EmailPending: not delivered yet; the send_validation_email job is
	// waiting, running or retrying.
	EmailPending = "pending"
	// EmailSent: the SMTP server accepted it (or it was written to the outbox).
	EmailSent = "sent"
	// EmailFailed: refused for good, or out of attempts; not retried.
	EmailFailed = "failed"
)

// Event types of validations; their data is a ValidationView.
const (
	EventValidationCreated = "validation.created"
	EventValidationUpdated = "validation.updated"
)

// ValidationAttachment is a file attached to a validation, kept in the blob
// store.
type ValidationAttachment struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	// SHA256 is the hex SHA-256 of the content.
	SHA256  string `json:"sha256"`
	BlobKey string `json:"blob_key"`
}

// NewValidation is a validation to insert.
type NewValidation struct {
	TaskUUID string
	Notes    string
	// ValidatorID is the validator's user id; ValidatorName the name shown.
	ValidatorID   string
	ValidatorName string
	IsCall        bool
	SentTo, Bcc   []string
	Attachments   []ValidationAttachment
	// RequestHash identifies the request (hex SHA-256), so that the same
	// request sent again can be recognised.
	RequestHash string
	// AcceptPending is not stored: it asks the validation to record the
	// audit's pending verdicts as the validator's first (validation.Apply).
	AcceptPending bool
}

// Validation is a task's validation with the state of its e-mail.
type Validation struct {
	NewValidation
	// AuditRevision is the revision of the audit that was validated.
	AuditRevision int
	Type          string
	ValidatedAt   time.Time
	// EmailMessageID is the Message-ID of the e-mail, once an attempt was made.
	EmailMessageID string
	// EmailStatus is EmailPending, EmailSent or EmailFailed.
	EmailStatus   string
	EmailAttempts int
	// EmailError is why the last attempt failed ("" when it did not).
	EmailError  string
	EmailSentAt *time.Time
}

// ValidationType returns the type of a validation of a call (isCall) or a chat.
func ValidationType(isCall bool) string {
	if isCall {
		return ValidationCall
	}
	return ValidationChat
}

const validationColumns = `task_uuid, audit_revision, notes, validator_id, validator_name, is_call, sent_to, bcc, attachments,
	request_hash, type, validated_at, COALESCE(email_message_id, ''), email_status, email_attempts,
	COALESCE(email_error, ''), email_sent_at`

func scanValidation(row pgx.Row) (Validation, error) {
	var v Validation
	var attachments []byte
	err := row.Scan(&v.TaskUUID, &v.AuditRevision, &v.Notes, &v.ValidatorID, &v.ValidatorName, &v.IsCall, &v.SentTo, &v.Bcc, &attachments,
		&v.RequestHash, &v.Type, &v.ValidatedAt, &v.EmailMessageID, &v.EmailStatus, &v.EmailAttempts,
		&v.EmailError, &v.EmailSentAt)
	if err != nil {
		return Validation{}, err
	}
	v.ValidatedAt = v.ValidatedAt.UTC()
	return v, json.Unmarshal(attachments, &v.Attachments)
}

// ValidationInsert inserts n as the validation of its task's current audit
// revision, provided the task is audited; it locks the task's row until tx
// ends, so the audit cannot change before the task is made validated. A
// concurrent validation of the same task waits for the other transaction.
// When the task is not audited (or no longer), it is a Conflict error
// wrapping ErrTaskStatus. It writes no event: call ValidationEventInsert once the
// transaction's other writes are done.
func ValidationInsert(ctx context.Context, tx pgx.Tx, n NewValidation) (Validation, error) {
	attachments, err := json.Marshal(nonNil(n.Attachments))
	if err != nil {
		return Validation{}, err
	}
	v, err := scanValidation(tx.QueryRow(ctx, `
		INSERT INTO validations (task_uuid, audit_revision, notes, validator_id, validator_name, is_call, type,
			sent_to, bcc, attachments, request_hash)
		SELECT t.uuid, t.audit_revision, $2, $3, $4, $5, $6, $7, $8, $9, $10
		FROM tasks t WHERE t.uuid = $1 AND t.status = 'audited' AND t.audit_revision IS NOT NULL
		FOR UPDATE
		ON CONFLICT (task_uuid) DO NOTHING
		RETURNING `+validationColumns,
		n.TaskUUID, n.Notes, n.ValidatorID, n.ValidatorName, n.IsCall, ValidationType(n.IsCall),
		nonNil(n.SentTo), nonNil(n.Bcc), attachments, n.RequestHash))
	if errors.Is(err, pgx.ErrNoRows) {
		return Validation{}, errcode.Wrap(errcode.Conflict, ErrTaskStatus, fmt.Sprintf("task %s is not audited now; only an audited task can be validated", n.TaskUUID))
	}
	if err != nil {
		return Validation{}, err
	}
	// The notes are searchable.
	return v, TaskSearchRefresh(ctx, tx, n.TaskUUID)
}

// ValidationGet returns the validation of task taskUUID, or a NotFound
// error.
func ValidationGet(ctx context.Context, q DBTX, taskUUID string) (Validation, error) {
	v, err := scanValidation(q.QueryRow(ctx, `SELECT `+validationColumns+` FROM validations WHERE task_uuid = $1`, taskUUID))
	return v, one(err, "task %s has no validation", taskUUID)
}

// EmailAttempt is the outcome of one attempt to deliver a validation's e-mail.
type EmailAttempt struct {
	// Attempt is the job's attempt number; the count kept never goes below it,
	// so an attempt cut short before it was recorded still counts.
	Attempt   int
	MessageID string
	// Status is EmailSent, EmailPending (to be retried) or EmailFailed.
	Status string
	// Error is why it failed ("" when sent).
	Error string
}

// ValidationRecordAttempt records an attempt to deliver the e-mail of task
// taskUUID's validation and writes a validation.updated event. It returns
// the updated validation, or a NotFound error.
func ValidationRecordAttempt(ctx context.Context, tx pgx.Tx, taskUUID string, a EmailAttempt) (Validation, error) {
	v, err := scanValidation(tx.QueryRow(ctx, `
		UPDATE validations SET email_attempts = GREATEST(email_attempts + 1, $2), email_message_id = $3,
			email_status = $4, email_error = NULLIF($5, ''),
			email_sent_at = CASE WHEN $4 = 'sent' THEN now() ELSE email_sent_at END
		WHERE task_uuid = $1
		RETURNING `+validationColumns, taskUUID, a.Attempt, a.MessageID, a.Status, a.Error))
	if err != nil {
		return Validation{}, one(err, "task %s has no validation", taskUUID)
	}
	return v, ValidationEventInsert(ctx, tx, EventValidationUpdated, v)
}

// ValidationEventInsert writes an event of type typ carrying v's view, seen
// by users of the quality role and above (the view holds the blind copies).
func ValidationEventInsert(ctx context.Context, q DBTX, typ string, v Validation) error {
	quality := role.Quality
	err := EventInsert(ctx, q, typ, Audience{MinRole: &quality}, v.View(true))
	return err
}

// ValidationBlobKeysReferenced returns the subset of keys that some
// validation's attachment refers to.
func ValidationBlobKeysReferenced(ctx context.Context, q DBTX, keys []string) (map[string]bool, error) {
	// One containment probe per key, so each uses the GIN index.
	return keySet(q.Query(ctx, `
		SELECT k FROM unnest($1::text[]) AS k
		WHERE EXISTS (SELECT 1 FROM validations
			WHERE attachments @> jsonb_build_array(jsonb_build_object('blob_key', k)))`, keys))
}

// ValidationView is a validation as its events carry it (stored JSON) and
// the API shows it (api.ValidationView).
type ValidationView struct {
	TaskUUID      string    `json:"task_uuid"`
	AuditRevision int       `json:"audit_revision"`
	Type          string    `json:"type"`
	Notes         string    `json:"notes"`
	ValidatorID   string    `json:"validator_id"`
	ValidatorName string    `json:"validator_name"`
	ValidatedAt   time.Time `json:"validated_at"`
	SentTo        []string  `json:"sent_to"`
	// Bcc is left out for operators: they are among the recipients who must
	// not see the blind copies.
	Bcc         []string                   `json:"bcc,omitzero"`
	Attachments []ValidationAttachmentView `json:"attachments"`
	Email       ValidationEmailView        `json:"email"`
}

// ValidationAttachmentView is an attachment as a ValidationView has it.
type ValidationAttachmentView struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
}

// ValidationEmailView is the delivery state of a validation's e-mail.
type ValidationEmailView struct {
	Status    string     `json:"status"`
	Attempts  int        `json:"attempts"`
	Error     string     `json:"error,omitempty"`
	MessageID string     `json:"message_id,omitempty"`
	SentAt    *time.Time `json:"sent_at,omitempty"`
}

// View returns v as its events and the API show it; full includes what
// only quality and above may see (the blind copies and delivery errors).
func (v Validation) View(full bool) ValidationView {
	out := ValidationView{
		TaskUUID: v.TaskUUID, AuditRevision: v.AuditRevision, Type: v.Type, Notes: v.Notes, ValidatorID: v.ValidatorID, ValidatorName: v.ValidatorName,
		ValidatedAt: v.ValidatedAt, SentTo: nonNil(v.SentTo), Attachments: make([]ValidationAttachmentView, len(v.Attachments)),
		Email: ValidationEmailView{Status: v.EmailStatus, Attempts: v.EmailAttempts, MessageID: v.EmailMessageID, SentAt: v.EmailSentAt},
	}
	for i, a := range v.Attachments {
		out.Attachments[i] = ValidationAttachmentView{Name: a.Name, ContentType: a.ContentType, Size: a.Size, SHA256: a.SHA256}
	}
	if full {
		out.Bcc = nonNil(v.Bcc)
		out.Email.Error = v.EmailError
	}
	return out
}
