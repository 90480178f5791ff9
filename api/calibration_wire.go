package api

import (
	"time"

	"github.com/auditd/auditd/db"
)

// The calibration sessions' wire types, as the API shows db's.

// CalibrationRef names a calibration session (db.CalibrationRef).
type CalibrationRef struct {
	ID   string `json:"id" format:"uuid"`
	Name string `json:"name"`
}

// calibrationRefOf is r as the API shows it; nil for none.
func calibrationRefOf(r *db.CalibrationRef) *CalibrationRef {
	if r == nil {
		return nil
	}
	w := CalibrationRef(*r)
	return &w
}

// CalibrationSession is a calibration session with its counts; its
// calibration.updated events carry the same (db.CalibrationSession).
type CalibrationSession struct {
	ID            string     `json:"id" format:"uuid"`
	Name          string     `json:"name"`
	CreatedBy     string     `json:"created_by" doc:"The supervisor who created it (user id)"`
	CreatedByName string     `json:"created_by_name" doc:"Their display name, else username"`
	DueAt         *time.Time `json:"due_at,omitempty"`
	Status        string     `json:"status" enum:"open,closed"`
	CreatedAt     time.Time  `json:"created_at"`
	ClosedAt      *time.Time `json:"closed_at,omitempty"`
	ClosedBy      string     `json:"closed_by,omitempty" doc:"The supervisor who closed it; absent when the last submission did"`
	// Alpha and PercentAgreement are the session's overall figures, kept
	// when it closed.
	Alpha            *float64 `json:"alpha" doc:"Krippendorff's alpha (nominal) among the analysts over the whole session, once closed; null while open or when undefined"`
	PercentAgreement *float64 `json:"percent_agreement" doc:"Share of pairs of analysts' answers that agree over the whole session, once closed; null while open or when undefined"`
	Tasks            int      `json:"tasks" doc:"Interactions in the session"`
	Analysts         int      `json:"analysts" doc:"Analysts in the session"`
	Submitted        int      `json:"submitted" doc:"Analysts who have submitted"`
}

// CalibrationTask is an interaction of a calibration session
// (db.CalibrationTask).
type CalibrationTask struct {
	TaskUUID         string     `json:"task_uuid" format:"uuid"`
	FileName         string     `json:"file_name"`
	Kind             string     `json:"kind" enum:"call,chat"`
	OperatorID       string     `json:"operator_id,omitempty" doc:"The audited agent"`
	AuditRevision    int        `json:"audit_revision" doc:"The audit revision the session took the interaction's criteria from"`
	ScorecardVersion int        `json:"scorecard_version" doc:"The scorecard version the analysts answer against: that revision's"`
	AppliedEditID    *int64     `json:"applied_edit_id,omitempty" doc:"The edit the calibrated answers became, once applied"`
	AppliedRevision  *int       `json:"applied_revision,omitempty" doc:"The audit revision that edit became, once the recomputation applied it"`
	AppliedAt        *time.Time `json:"applied_at,omitempty"`
}

// CalibrationItem is a criterion of an interaction of a calibration
// session, as the session's scorecard version has it, with the automatic
// verdict and the calibrated answer (db.CalibrationItem).
type CalibrationItem struct {
	TaskUUID    string `json:"task_uuid" format:"uuid"`
	CriterionID string `json:"criterion_id"`
	Category    string `json:"category"`
	Question    string `json:"question"`
	Critical    bool   `json:"critical"`
	// Automatic is the automatic audit's verdict, nil when it has none;
	// shown only once the session is closed.
	Automatic *bool `json:"automatic,omitempty" doc:"The automatic audit's verdict (complies; true when not applicable); only once the session is closed, absent when it has none"`
	// AutomaticNotApplicable: the automatic verdict is not applicable.
	AutomaticNotApplicable bool `json:"automatic_not_applicable,omitempty" doc:"true when the automatic verdict is that the criterion does not apply (automatic is then true); absent otherwise"`
	// Calibrated is the agreed answer, "" until the supervisor records it.
	Calibrated        string     `json:"calibrated,omitempty" enum:"complies,does_not_comply,not_applicable" doc:"The agreed (calibrated) answer the supervisor recorded"`
	CalibratedComment string     `json:"calibrated_comment,omitempty"`
	CalibratedBy      string     `json:"calibrated_by,omitempty"`
	CalibratedAt      *time.Time `json:"calibrated_at,omitempty"`
}

// CalibrationAnalyst is an analyst of a calibration session
// (db.CalibrationAnalyst).
type CalibrationAnalyst struct {
	UserID      string     `json:"user_id"`
	Name        string     `json:"name" doc:"Their display name, else username"`
	SubmittedAt *time.Time `json:"submitted_at,omitempty" doc:"When they submitted their answers; absent until then"`
}

// calibrationAnalystOf is a as the API shows it.
func calibrationAnalystOf(a db.CalibrationAnalyst) CalibrationAnalyst {
	return CalibrationAnalyst{UserID: a.UserID, Name: a.Name, SubmittedAt: a.SubmittedAt}
}

// CalibrationAnswer is an answer to a criterion of an interaction of a
// calibration session: an analyst's, or the calibrated one
// (db.CalibrationAnswer).
type CalibrationAnswer struct {
	TaskUUID    string `json:"task_uuid" format:"uuid"`
	CriterionID string `json:"criterion_id"`
	AnalystID   string `json:"analyst_id,omitempty" doc:"The analyst who gave it"`
	Answer      string `json:"answer" enum:"complies,does_not_comply,not_applicable"`
	Comment     string `json:"comment,omitempty"`
}
