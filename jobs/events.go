package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// PruneEventsArgs deletes events older than the retention period. It runs
// periodically; a stream resuming from a pruned id gets what is left.
type PruneEventsArgs struct{}

// Kind implements river.JobArgs.
func (PruneEventsArgs) Kind() string { return "prune_events" }

// InsertOpts implements river.JobArgsWithInsertOpts: one at a time.
func (PruneEventsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Hour}}
}
