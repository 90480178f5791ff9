package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// SettleTasksArgs fails the tasks a transcribe or audit job left under way
// when it ended discarded or cancelled, telling their uploaders. It runs
// periodically.
type SettleTasksArgs struct{}

// Kind implements river.JobArgs.
func (SettleTasksArgs) Kind() string { return "settle_tasks" }

// InsertOpts implements river.JobArgsWithInsertOpts: one a minute.
func (SettleTasksArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}
