package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// FoldInterval is how often the changes of tasks are folded into the
// figures kept for the dashboard.
const FoldInterval = 5 * time.Second

// FoldTaskStatsArgs folds the changes of tasks into the figures kept for the
// dashboard (db.TaskStatsFold). It runs periodically; readers add what is
// not folded yet, so it bounds how much they add, not what they see.
type FoldTaskStatsArgs struct{}

// Kind implements river.JobArgs.
func (FoldTaskStatsArgs) Kind() string { return "fold_task_stats" }

// InsertOpts implements river.JobArgsWithInsertOpts: one an interval.
func (FoldTaskStatsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: FoldInterval}}
}
