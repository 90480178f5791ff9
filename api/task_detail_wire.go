package api

import (
	"time"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/pipeline"
)

// The task page's wire types: its audit's revisions, its history and its
// validation, as the API shows db's.

// AuditRevisionInfo is one entry of a task's revision list
// (db.AuditRevisionInfo).
type AuditRevisionInfo struct {
	Revision   int    `json:"revision"`
	Source     string `json:"source" enum:"engine,analyst,recompute"`
	Engine     string `json:"engine,omitempty"`
	AuthorID   string `json:"author_id,omitempty" doc:"The token subject of the analyst"`
	AuthorName string `json:"author_name,omitempty" doc:"The x-username the analyst sent"`
	// Calibration names the calibration session the revision applies.
	Calibration      *CalibrationRef `json:"calibration,omitempty" doc:"The calibration session whose calibrated answers this revision applies (its reason); absent otherwise"`
	ScorecardVersion int             `json:"scorecard_version"`
	ScoreBefore      *float64        `json:"score_before,omitempty" doc:"The previous revision's score"`
	Score            float64         `json:"score"`
	Passed           bool            `json:"passed"`
	// Pending counts the revision's verdicts pending an analyst's
	// confirmation: its score is then provisional, and it did not pass.
	Pending   int       `json:"pending,omitempty" doc:"How many of the revision's verdicts were pending an analyst's confirmation: its score was provisional, neither a pass nor a fail"`
	CreatedAt time.Time `json:"created_at"`
}

// auditRevisionInfoOf is r as the API shows it.
func auditRevisionInfoOf(r db.AuditRevisionInfo) AuditRevisionInfo {
	return AuditRevisionInfo{Revision: r.Revision, Source: r.Source, Engine: r.Engine, AuthorID: r.AuthorID,
		AuthorName: r.AuthorName, Calibration: calibrationRefOf(r.Calibration), ScorecardVersion: r.ScorecardVersion,
		ScoreBefore: r.ScoreBefore, Score: r.Score, Passed: r.Passed, Pending: r.Pending, CreatedAt: r.CreatedAt}
}

// TaskStateChange is one entry of a task's history (db.TaskStateChange).
type TaskStateChange struct {
	From    pipeline.Status `json:"from,omitempty" doc:"The previous status; absent for the creation"`
	To      pipeline.Status `json:"to"`
	Error   string          `json:"error,omitempty"`
	Attempt int             `json:"attempt,omitempty"`
	At      time.Time       `json:"at"`
}

// ValidationView is a validation as the API shows it; its events carry
// the same (db.ValidationView).
type ValidationView struct {
	TaskUUID      string    `json:"task_uuid" format:"uuid"`
	AuditRevision int       `json:"audit_revision" doc:"The revision of the audit that was validated"`
	Type          string    `json:"type" enum:"llamada,chat" doc:"llamada for a call, chat for a chat"`
	Notes         string    `json:"notes"`
	ValidatorID   string    `json:"validator_id" doc:"The token subject of the validator"`
	ValidatorName string    `json:"validator_name" doc:"The x-username the validator sent, else their name"`
	ValidatedAt   time.Time `json:"validated_at"`
	SentTo        []string  `json:"sent_to" doc:"Where the e-mail goes"`
	// Bcc is left out for operators: they are among the recipients who must
	// not see the blind copies.
	Bcc         []string                   `json:"bcc,omitzero" doc:"Blind copies; shown to quality and above only"`
	Attachments []ValidationAttachmentView `json:"attachments"`
	Email       ValidationEmailView        `json:"email"`
}

// ValidationAttachmentView is an attachment as the API shows it
// (db.ValidationAttachmentView).
type ValidationAttachmentView struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
}

// ValidationEmailView is the delivery state of a validation's e-mail
// (db.ValidationEmailView).
type ValidationEmailView struct {
	Status    string     `json:"status" enum:"pending,sent,failed" doc:"sent: accepted by the SMTP server (or written to the outbox); pending: not yet, being retried; failed: refused for good or out of attempts"`
	Attempts  int        `json:"attempts" doc:"Delivery attempts made"`
	Error     string     `json:"error,omitempty" doc:"Why the last attempt failed; shown to quality and above only"`
	MessageID string     `json:"message_id,omitempty" doc:"The e-mail's Message-ID, the same on every attempt"`
	SentAt    *time.Time `json:"sent_at,omitempty"`
}

// validationViewOf is v as the API shows it.
func validationViewOf(v db.ValidationView) ValidationView {
	return ValidationView{TaskUUID: v.TaskUUID, AuditRevision: v.AuditRevision, Type: v.Type, Notes: v.Notes,
		ValidatorID: v.ValidatorID, ValidatorName: v.ValidatorName, ValidatedAt: v.ValidatedAt, SentTo: v.SentTo, Bcc: v.Bcc,
		Attachments: each(v.Attachments, func(a db.ValidationAttachmentView) ValidationAttachmentView { return ValidationAttachmentView(a) }),
		Email:       ValidationEmailView(v.Email)}
}
