package db

import (
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// Deps are what every domain workflow (a dispute, a calibration session, a
// validation, an upload, an audit's revision) works with: the pool its
// transactions begin on, the River client that queues in them the jobs they
// cause, and its clock. A workflow that needs more embeds it in its own.
type Deps struct {
	Pool  *pgxpool.Pool
	River *river.Client[pgx.Tx]
	// Clock is the time a step happens (a dispute's window, a session's
	// due date). Defaults to time.Now.
	Clock func() time.Time
}

// Now is the time by d's clock.
func (d Deps) Now() time.Time {
	if d.Clock == nil {
		return time.Now()
	}
	return d.Clock()
}
