package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// SamplingInterval is how often apply_sampling runs by default
// (SAMPLING_INTERVAL).
const SamplingInterval = 5 * time.Minute

// ApplySamplingArgs applies the enabled sampling rules of a campaign (of
// every campaign when CampaignID is empty) to its newly audited tasks: the
// tasks each rule picks are assigned to the campaign's analysts. It runs
// periodically (SAMPLING_INTERVAL); a supervisor can run a campaign's rules
// at once (POST /campaigns/{id}/sampling-rules/run).
type ApplySamplingArgs struct {
	CampaignID string `json:"campaign_id,omitempty" river:"unique"`
	// RequestedBy is the subject of the supervisor who asked; empty for the
	// periodic run.
	RequestedBy string `json:"requested_by,omitempty"`
}

// Kind implements river.JobArgs.
func (ApplySamplingArgs) Kind() string { return "apply_sampling" }

// InsertOpts implements river.JobArgsWithInsertOpts: one run per campaign
// (or for all) at a time; asking again while one waits returns it.
func (ApplySamplingArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 5,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}
