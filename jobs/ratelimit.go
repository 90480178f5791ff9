package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// PruneRateBucketsInterval is how often the idle rate-limit buckets are
// dropped.
const PruneRateBucketsInterval = 5 * time.Minute

// PruneRateBucketsArgs drops the rate-limit buckets full again, as good as
// none (db.RateBucketsPrune), so that addresses seen once do not pile up.
type PruneRateBucketsArgs struct{}

// Kind implements river.JobArgs.
func (PruneRateBucketsArgs) Kind() string { return "prune_rate_buckets" }

// InsertOpts implements river.JobArgsWithInsertOpts: one an interval.
func (PruneRateBucketsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: PruneRateBucketsInterval}}
}
