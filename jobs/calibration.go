package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// CalibrationReminderInterval is how often the analysts of calibration
// sessions falling due are looked for.
const CalibrationReminderInterval = 15 * time.Minute

// CalibrationReminderLead is how long before a session's due time its
// analysts who have still to answer are reminded.
const CalibrationReminderLead = 24 * time.Hour

// RemindCalibrationsArgs reminds, once, each analyst of an open
// calibration session due within CalibrationReminderLead (or overdue) who
// has still to submit their answers, with a notification in their
// language.
type RemindCalibrationsArgs struct{}

// Kind implements river.JobArgs.
func (RemindCalibrationsArgs) Kind() string { return "remind_calibrations" }

// InsertOpts implements river.JobArgsWithInsertOpts: one an interval.
func (RemindCalibrationsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, UniqueOpts: river.UniqueOpts{ByPeriod: CalibrationReminderInterval}}
}
