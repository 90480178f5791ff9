package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// IngestDispatchInterval is how often the enabled ingest sources are looked
// at for a poll that is due; a source's own interval is at least this.
const IngestDispatchInterval = 10 * time.Second

// DispatchIngestArgs is the periodic job that queues a PollIngestSourceArgs
// for each enabled ingest source whose interval has passed since its last
// poll.
type DispatchIngestArgs struct{}

// Kind implements river.JobArgs.
func (DispatchIngestArgs) Kind() string { return "dispatch_ingest" }

// InsertOpts implements river.JobArgsWithInsertOpts: one at a time is
// enough, however many processes schedule one.
func (DispatchIngestArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByState: unfinished}}
}

// PollIngestSourceArgs polls one ingest source: each source is its own
// job, so that a slow or unreachable one holds up no other. One poll of a
// source at a time (unique by source while unfinished); objects are
// claimed in the database besides, so a poll that River rescues and runs
// again takes nothing twice.
type PollIngestSourceArgs struct {
	// SourceID is the source; a deleted one cancels the job.
	SourceID string `json:"source_id" river:"unique"`
}

// Kind implements river.JobArgs.
func (PollIngestSourceArgs) Kind() string { return "poll_ingest_source" }

// InsertOpts implements river.JobArgsWithInsertOpts. A failed poll is not
// retried: the next one comes at the source's interval.
func (PollIngestSourceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 1,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}
