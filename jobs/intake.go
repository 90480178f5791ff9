package jobs

import (
	"github.com/riverqueue/river"
)

// QueueMedia is the queue of slow media work (transcription, redaction of a
// recording), kept apart so it cannot starve the rest.
const QueueMedia = "media"

// TranscribeArgs asks for the transcription of a call task. The upload
// inserts it in the transaction that creates the task; an admin's retry of
// a task that failed transcribing inserts another.
type TranscribeArgs struct {
	// TaskUUID is the call task to transcribe.
	TaskUUID string `json:"task_uuid"`
}

// Kind implements river.JobArgs.
func (TranscribeArgs) Kind() string { return "transcribe" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (TranscribeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMedia, MaxAttempts: 5}
}

// SweepBlobsArgs is the periodic job that deletes uploaded blobs no task
// refers to: what remains of uploads that failed half-way or of processes
// that died mid-request.
type SweepBlobsArgs struct{}

// Kind implements river.JobArgs.
func (SweepBlobsArgs) Kind() string { return "sweep_blobs" }

// InsertOpts implements river.JobArgsWithInsertOpts: one sweep at a time is
// enough, however many processes schedule one.
func (SweepBlobsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 3,
		UniqueOpts: river.UniqueOpts{ByState: unfinished}}
}
