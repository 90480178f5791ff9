package jobs

import (
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// AuditArgs asks for the automatic audit of a task against its campaign's
// current scorecard. It is inserted in the transaction that makes a call
// transcribed, and at upload for a chat.
type AuditArgs struct {
	// TaskUUID is the task to audit.
	TaskUUID string `json:"task_uuid" river:"unique"`
}

// Kind implements river.JobArgs.
func (AuditArgs) Kind() string { return "audit" }

// InsertOpts implements river.JobArgsWithInsertOpts: one audit of a task
// waits or runs at a time.
func (AuditArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 5,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

// unfinished are the states of jobs that have not ended: uniqueness over
// them allows a new job once the previous one is done.
var unfinished = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled,
}

// RecomputeAuditArgs applies an analyst's edit of an audit and re-scores it
// against the campaign's current scorecard. POST /compute-audit-results
// inserts it in the transaction that records the edit.
type RecomputeAuditArgs struct {
	// EditID is the edit to apply (with any earlier pending edit of the
	// same task, in order).
	EditID int64 `json:"edit_id"`
	// TaskUUID is the edited task, for people reading the job.
	TaskUUID string `json:"task_uuid"`
}

// Kind implements river.JobArgs.
func (RecomputeAuditArgs) Kind() string { return "recompute_audit" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RecomputeAuditArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 5}
}

// RecomputeAuditsArgs re-scores every audited, not yet validated task of a
// campaign against a newly published scorecard version, each as a new
// revision. Publishing the version inserts it in the same transaction.
type RecomputeAuditsArgs struct {
	CampaignID       string `json:"campaign_id" river:"unique"`
	ScorecardVersion int    `json:"scorecard_version" river:"unique"`
	// RequestedBy is the publisher, told of the progress; empty for none.
	RequestedBy string `json:"requested_by,omitempty"`
}

// Kind implements river.JobArgs.
func (RecomputeAuditsArgs) Kind() string { return "recompute_audits" }

// InsertOpts implements river.JobArgsWithInsertOpts: one recomputation per
// campaign and version at a time.
func (RecomputeAuditsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 10,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}
