package jobs

import (
	"github.com/riverqueue/river"
)

// SendValidationEmailArgs e-mails the result of a task's validation to its
// recipients. POST /validate-audit inserts it in the transaction that
// records the validation; everything it sends (recipients, notes,
// attachments in the blob store) is read from that record, so the
// arguments carry only the task.
type SendValidationEmailArgs struct {
	// TaskUUID is the validated task.
	TaskUUID string `json:"task_uuid" river:"unique"`
}

// Kind implements river.JobArgs.
func (SendValidationEmailArgs) Kind() string { return "send_validation_email" }

// InsertOpts implements river.JobArgsWithInsertOpts: one job per
// validation, completed ones included (a task is validated once). With
// River's backoff (attempt⁴ seconds), 15 attempts keep trying for about a
// day and a half, longer than a mail server is usually down.
func (SendValidationEmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 15,
		UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
