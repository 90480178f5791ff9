package jobs

import "github.com/riverqueue/river"

// RedactRecordingArgs asks for the redacted copy of a call's recording:
// the spans of its redacted words silenced, the copy replacing the
// original, which is then deleted. Inserted in the transaction that stores
// a call's transcript with redactions.
type RedactRecordingArgs struct {
	// TaskUUID is the call whose recording is redacted.
	TaskUUID string `json:"task_uuid" river:"unique"`
}

// Kind implements river.JobArgs.
func (RedactRecordingArgs) Kind() string { return "redact_recording" }

// InsertOpts implements river.JobArgsWithInsertOpts: ffmpeg's work, on the
// media queue; one unfinished job per task.
func (RedactRecordingArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMedia, MaxAttempts: 10,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}
