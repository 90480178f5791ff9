// Package pipeline names the statuses of a task on its way from upload to
// validation. Which status may follow which is lifecycle's table; this
// package, below the database, only names them, so that the rows the
// database returns, the domain and the API speak of one type.
package pipeline

// Status is where a task is in the pipeline.
type Status string

// The statuses, in pipeline order. Any status before Audited may end in
// Failed; chats start at Transcribed.
const (
	Queued       Status = "queued"
	Transcribing Status = "transcribing"
	Transcribed  Status = "transcribed"
	Auditing     Status = "auditing"
	Audited      Status = "audited"
	Validated    Status = "validated"
	Failed       Status = "failed"
)
