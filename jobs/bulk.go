package jobs

import (
	"github.com/riverqueue/river"
)

// BulkActionArgs carries out a bulk action (POST /bulk-actions inserts it
// in the transaction that records the action): it walks the action's tasks
// a page at a time, records a result for each, and snoozes between slices
// of time. Everything it needs is in the action's row.
type BulkActionArgs struct {
	// BulkID is the bulk action.
	BulkID string `json:"bulk_id" river:"unique"`
}

// Kind implements river.JobArgs.
func (BulkActionArgs) Kind() string { return "bulk_action" }

// InsertOpts implements river.JobArgsWithInsertOpts: one job per action.
// A snooze uses no attempt, so the attempts bound failures only.
func (BulkActionArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 10,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}
