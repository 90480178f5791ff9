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
