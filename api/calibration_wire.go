package api

import "github.com/auditd/auditd/db"

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
