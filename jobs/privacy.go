package jobs

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// RetentionInterval is how often the retention job runs.
const RetentionInterval = time.Hour

// ApplyRetentionArgs deletes what every campaign's retention says has
// expired (recordings, transcripts, audits), a batch of tasks per
// transaction, skipping tasks on legal hold, and records the counts.
// Running it again deletes nothing twice.
type ApplyRetentionArgs struct{}

// Kind implements river.JobArgs.
func (ApplyRetentionArgs) Kind() string { return "apply_retention" }

// InsertOpts implements river.JobArgsWithInsertOpts: one waiting or
// running an interval. A completed run does not count, so a worker started
// within the hour of the last run still runs it at start (RunOnStart).
func (ApplyRetentionArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, UniqueOpts: river.UniqueOpts{ByPeriod: RetentionInterval,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled}}}
}

// DeleteBlobsArgs deletes blobs whose references were deleted in the
// transaction that inserted this job: the blob goes only once nothing
// committed points at it. A blob already gone is not an error.
type DeleteBlobsArgs struct {
	// Keys are the blob keys to delete.
	Keys []string `json:"keys"`
}

// Kind implements river.JobArgs.
func (DeleteBlobsArgs) Kind() string { return "delete_blobs" }

// ErasePersonArgs carries out an erasure (POST /admin/erasures inserts it
// in the transaction that records it): it deletes the recordings,
// transcripts and audits of the erasure's tasks, a batch per transaction,
// skipping tasks on legal hold, and records the counts on the erasure.
type ErasePersonArgs struct {
	// ErasureID is the erasure.
	ErasureID string `json:"erasure_id" river:"unique"`
}

// Kind implements river.JobArgs.
func (ErasePersonArgs) Kind() string { return "erase_person" }

// InsertOpts implements river.JobArgsWithInsertOpts: one job per erasure.
func (ErasePersonArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 10,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}
