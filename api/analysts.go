package api

import "github.com/auditd/auditd/db"

// Analysts is what the analysts did in a period: each one's work, and
// everyone's.
type Analysts struct {
	Analysts []AnalystWork `json:"analysts" doc:"Everyone who edited or validated an audit in the period, most audits reviewed first"`
	Total    Productivity  `json:"total" doc:"Everyone's together (an audit two analysts reviewed counts once in reviewed, twice in the median)"`
}

// AnalystWork is one analyst's work.
type AnalystWork struct {
	AnalystID string `json:"analyst_id" doc:"The analyst's user id"`
	Name      string `json:"name" doc:"Their display name, else their username"`
	Productivity
}

// Productivity counts audits reviewed, edits and validations, and how long
// audits waited for their review (db.Productivity).
type Productivity struct {
	Reviewed            int64    `json:"reviewed" doc:"Audits (distinct tasks) with an analyst revision in the period"`
	Edits               int64    `json:"edits" doc:"Analyst revisions in the period"`
	Validations         int64    `json:"validations" doc:"Validations in the period"`
	MedianReviewSeconds *float64 `json:"median_review_seconds" doc:"The median time from a task's first audit to the analyst's first revision or validation of it, over the reviews whose first action lies in the period (null when none does)"`
	Timed               int64    `json:"timed" doc:"How many reviews the median is taken over"`
}

// analystsOf is a as the API shows it.
func analystsOf(a db.Analysts) Analysts {
	out := Analysts{Analysts: make([]AnalystWork, len(a.Analysts)), Total: Productivity(a.Total)}
	for i, w := range a.Analysts {
		out.Analysts[i] = AnalystWork{AnalystID: w.AnalystID, Name: w.Name, Productivity: Productivity(w.Productivity)}
	}
	return out
}
