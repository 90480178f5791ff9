// Package jobs holds the argument types of every River job: the contract
// between the API processes that insert jobs and the worker processes that
// work them. It imports nothing else of this module.
package jobs

import (
	"github.com/riverqueue/river"
)

// QueueDefault is River's default queue: every job but the slow media work
// (QueueMedia: a call's transcription, a recording's redaction) runs there.
const (
	QueueDefault = river.QueueDefault
)

// CanaryArgs is a job that does nothing but complete. An admin inserts one
// through the API to check end to end that worker processes are taking jobs.
type CanaryArgs struct {
	// RequestedBy is the subject of the admin who asked.
	RequestedBy string `json:"requested_by"`
}

// Kind implements river.JobArgs.
func (CanaryArgs) Kind() string { return "canary" }

// InsertOpts implements river.JobArgsWithInsertOpts: a canary nobody works
// within a minute has answered its question, so it is not retried for long.
func (CanaryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 1}
}
