package jobs

import "github.com/riverqueue/river"

// RedactBlobArgs asks for the redacted copy of a task's stored file: a
// call's recording with the redacted spans silenced, a chat's file
// rewritten from its redacted transcript; the copy replaces the original,
// which is then deleted. Inserted in the transaction that stores a
// transcript with redactions.
type RedactBlobArgs struct {
	// TaskUUID is the task whose file is redacted.
	TaskUUID string `json:"task_uuid" river:"unique"`
}

// Kind implements river.JobArgs.
func (RedactBlobArgs) Kind() string { return "redact_blob" }

// InsertOpts implements river.JobArgsWithInsertOpts: ffmpeg's work, on the
// media queue; one unfinished job per task.
func (RedactBlobArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMedia, MaxAttempts: 10,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}
