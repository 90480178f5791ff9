package jobs

import (
	"time"

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

// PruneBulkResultsInterval is how often the per-task results of old bulk
// actions are deleted.
const PruneBulkResultsInterval = time.Hour

// PruneBulkResultsArgs deletes the per-task results of the bulk actions
// that ended more than BULK_RESULTS_DAYS days ago, a batch per
// transaction; each action and its counts stay, marked with when its
// results were deleted. Running it again deletes nothing twice.
type PruneBulkResultsArgs struct{}

// Kind implements river.JobArgs.
func (PruneBulkResultsArgs) Kind() string { return "prune_bulk_results" }

// InsertOpts implements river.JobArgsWithInsertOpts: one an interval.
func (PruneBulkResultsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, UniqueOpts: river.UniqueOpts{ByPeriod: PruneBulkResultsInterval}}
}
