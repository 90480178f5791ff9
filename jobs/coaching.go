package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// CoachingReminderLead is how long before a coaching item's due date its
// agent is reminded of it.
const CoachingReminderLead = 24 * time.Hour

// RemindCoachingArgs reminds the agent of coaching item CoachingID, with a
// notification in their language, that it is due at DueAt. It is inserted
// with the item (and again when its due date changes), scheduled
// CoachingReminderLead before DueAt; it does nothing once the item is done
// or its due date changed, and reminds of a due date once.
type RemindCoachingArgs struct {
	CoachingID string    `json:"coaching_id"`
	DueAt      time.Time `json:"due_at"`
}

// Kind implements river.JobArgs.
func (RemindCoachingArgs) Kind() string { return "remind_coaching" }

// InsertOpts implements river.JobArgsWithInsertOpts: one per item and due
// date.
func (RemindCoachingArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
