package jobs

import (
	"github.com/riverqueue/river"
)

// SyncUsersArgs syncs users from the configured directory: creates and
// updates every user it lists and deactivates the ones it no longer lists.
// An admin inserts it through POST /users/sync; it also runs periodically
// (USER_SYNC_INTERVAL).
type SyncUsersArgs struct {
	// RequestedBy is the subject of the admin who asked; empty for the
	// periodic run.
	RequestedBy string `json:"requested_by,omitempty"`
}

// Kind implements river.JobArgs.
func (SyncUsersArgs) Kind() string { return "sync_users" }

// InsertOpts implements river.JobArgsWithInsertOpts: one sync at a time.
// While one is queued, running, snoozed or waiting to be retried, inserting
// another returns it instead (whoever asked, whatever the args); once it
// has finished a new one may be inserted. River requires available,
// pending, running and scheduled in ByState; retryable is added so a sync
// waiting out its backoff is not doubled.
func (SyncUsersArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue:       QueueDefault,
		MaxAttempts: 5,
		UniqueOpts:  river.UniqueOpts{ByState: unfinished},
	}
}
