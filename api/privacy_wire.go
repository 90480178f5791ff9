package api

import (
	"time"

	"github.com/auditd/auditd/db"
)

// The privacy surfaces' wire types: legal holds, a task's privacy state,
// erasures, the deletions' log and the access record, as the API shows db's rows.

// legalHoldOf is h as the API shows it.
func legalHoldOf(h db.LegalHold) LegalHold { return LegalHold(h) }

// taskPrivacyOf is p as the API shows it.
func taskPrivacyOf(p db.TaskPrivacy) TaskPrivacy {
	out := TaskPrivacy{RecordingDeletedAt: p.RecordingDeletedAt, TranscriptDeletedAt: p.TranscriptDeletedAt, AuditDeletedAt: p.AuditDeletedAt}
	if p.LegalHold != nil {
		h := legalHoldOf(*p.LegalHold)
		out.LegalHold = &h
	}
	return out
}

// erasureOf is e as the API shows it.
func erasureOf(e db.Erasure) Erasure { return Erasure(e) }

// privacyDeletionOf is d as the API shows it.
func privacyDeletionOf(d db.PrivacyDeletion) PrivacyDeletion { return PrivacyDeletion(d) }

// accessRecordOf is r as the API shows it.
func accessRecordOf(r db.AccessRecord) AccessRecord { return AccessRecord(r) }

// LegalHold keeps a task from retention and erasure until an admin lifts it.
type LegalHold struct {
	TaskUUID string    `json:"task_uuid" format:"uuid"`
	Reason   string    `json:"reason" doc:"Why the task is held (a case, a claim)"`
	PlacedBy string    `json:"placed_by" doc:"The user id of the admin who placed it"`
	PlacedAt time.Time `json:"placed_at"`
}

// TaskPrivacy is what retention, erasure and holds have done to a task.
type TaskPrivacy struct {
	// LegalHold is nil when the task is not held.
	LegalHold           *LegalHold `json:"legal_hold" doc:"The legal hold on the task; null when not held"`
	RecordingDeletedAt  *time.Time `json:"recording_deleted_at,omitempty" doc:"When the uploaded file (a call's recording, a chat's file) was deleted"`
	TranscriptDeletedAt *time.Time `json:"transcript_deleted_at,omitempty" doc:"When the transcript was deleted"`
	AuditDeletedAt      *time.Time `json:"audit_deleted_at,omitempty" doc:"When the audit's revisions were deleted (the score and pass stay)"`
}

// Erasure is an erasure of a person's data and what it deleted.
type Erasure struct {
	ID          string     `json:"id" format:"uuid"`
	RequestedBy string     `json:"requested_by" doc:"The user id of the admin who asked for it"`
	OperatorID  string     `json:"operator_id,omitempty" doc:"Tasks where this is the agent"`
	CustomerRef string     `json:"customer_ref,omitempty" doc:"Tasks with this customer reference (a task's customer_ref)"`
	Status      string     `json:"status" enum:"queued,done"`
	Tasks       int64      `json:"tasks" doc:"Tasks something was deleted from"`
	Held        int64      `json:"held" doc:"Tasks left untouched because they are on legal hold"`
	Recordings  int64      `json:"recordings"`
	Transcripts int64      `json:"transcripts"`
	Audits      int64      `json:"audits"`
	JobID       int64      `json:"job_id,omitempty" doc:"The erase_person job doing it"`
	CreatedAt   time.Time  `json:"created_at"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
}

// AccessRecord is one read of personal content by a user.
type AccessRecord struct {
	ID       int64     `json:"id"`
	At       time.Time `json:"at"`
	UserID   string    `json:"user_id" doc:"Who read it: their user id"`
	UserName string    `json:"user_name,omitempty" doc:"Their username, when known"`
	Kind     string    `json:"kind" enum:"recording,transcript,revision,validation,export,subject_export" doc:"What was read: a recording, a task's transcript, an audit revision, a validation's e-mail content, an export of tasks, a person's data export"`
	TaskUUID string    `json:"task_uuid,omitempty" format:"uuid" doc:"The task read (none for an export)"`
	// TaskFileName names the task where the screen shows it.
	TaskFileName string `json:"task_file_name,omitempty" doc:"The file name of the task read; absent without a task"`
	// Detail holds an export's filter and rows, a data export's subject.
	Detail    map[string]any `json:"detail,omitempty" doc:"An export's query and rows; a data export's user_id"`
	ClientIP  string         `json:"client_ip,omitempty" doc:"The address the request came from, as the service saw it"`
	UserAgent string         `json:"user_agent,omitempty" doc:"The request's User-Agent"`
}

// PrivacyDeletion is one batch's count of one kind in one campaign.
type PrivacyDeletion struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	Cause     string    `json:"cause" enum:"retention,erasure"`
	ErasureID string    `json:"erasure_id,omitempty" format:"uuid" doc:"The erasure that deleted it"`
	Campaign  string    `json:"campaign" doc:"The campaign's name"`
	Kind      string    `json:"kind" enum:"recording,transcript,audit"`
	Count     int       `json:"count" doc:"How many tasks lost this kind of content"`
}
