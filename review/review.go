// Package review is the review state of a task's audit and the rule by
// which a new revision changes it: an analyst's revision (one with its
// author) reviews the audit, and the first such review is kept; a new
// engine revision (a re-audit) makes it automatic again; a recomputation
// against a new scorecard keeps whatever review it had. Migration 00030
// explains the states.
//
// The rule is written twice, side by side: in Go (After, for what is
// already read) and as the SQL that db runs when it appends a revision
// (SetSQL). The package test runs both on the same rows and fails when they
// disagree.
package review

import "time"

// Sources of a revision, as db stores them (db.AuditByAnalyst…).
const (
	ByEngine    = "engine"
	ByAnalyst   = "analyst"
	ByRecompute = "recompute"
)

// State is who reviewed a task's current audit and when; the zero State
// is an automatic (unreviewed) audit.
type State struct {
	At *time.Time
	By string
}

// After is the state a revision from source, by author ("" for the
// system), leaves a task's audit in, from s, at now.
func After(s State, source, author string, now time.Time) State {
	switch {
	case source == ByAnalyst && author != "":
		if s.At == nil {
			s.At = &now
		}
		if s.By == "" {
			s.By = author
		}
		return s
	case source == ByEngine:
		return State{}
	}
	return s
}

// SetSQL is After as the assignments of an UPDATE of the tasks row
// (reviewed_at, reviewed_by) that a revision from source, by author,
// makes; source and author are SQL expressions (the statement's
// parameters), now is the transaction's now().
func SetSQL(source, author string) string {
	reviews := source + " = '" + ByAnalyst + "' AND " + author + " <> ''"
	clears := source + " = '" + ByEngine + "'"
	return "reviewed_at = CASE WHEN " + reviews + " THEN COALESCE(reviewed_at, now()) WHEN " + clears + " THEN NULL ELSE reviewed_at END, " +
		"reviewed_by = CASE WHEN " + reviews + " THEN COALESCE(reviewed_by, " + author + ") WHEN " + clears + " THEN NULL ELSE reviewed_by END"
}
