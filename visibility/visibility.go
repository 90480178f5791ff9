// Package visibility is the one place that decides who may see which part
// of a task's audit. Every surface (the task view, lists, search and its
// snippets, the export, statistics, review queues, notifications,
// disputes, bulk actions, the event stream) answers as some Viewer, and
// asks it; each rule is written here twice, side by side: as a Go
// predicate over a Row (for what is already read) and as a SQL fragment
// over the tasks table (for what a query selects, counts or sorts). The
// package test runs both on the same rows and fails when they disagree.
//
// The rules:
//   - an analyst calibrating a task blind (an open calibration session
//     they have still to answer) is not shown its audit: score, result,
//     review items, verdicts, explanations, revisions, validation;
//   - an agent (below quality) is not shown their task's audit while no
//     analyst has reviewed it, when its campaign hides automatic audits,
//     even once retention or an erasure deleted the audit's revisions (its
//     score and result stay, and stay hidden); nor, in any campaign, while
//     some of its verdicts are pending an analyst's confirmation (the
//     score is then provisional);
//   - nobody is shown the verdicts of an audit whose revisions retention
//     or an erasure deleted: only its score and result stay;
//   - an agent is not shown how the pipeline retries their call's
//     transcription (the attempts, the speech server's errors, when the
//     next attempt is due: RetryHidden): that is for those who can act
//     on it, quality and above; the agent sees the status and, if it
//     fails, why.
package visibility

import (
	"regexp"
	"slices"
	"strings"

	"github.com/auditd/auditd/role"
)

// Viewer is whose view an answer is: the user, their role, the tasks they
// calibrate blind and, for an agent, the campaigns that hide automatic
// audits from agents. It is a value, built once per request (db.ViewerOf)
// and kept with what outlives it (a bulk action's filter).
type Viewer struct {
	// User is the viewer's user id ("" for nobody in particular: the
	// audience of an event is decided by Audience).
	User string `json:"user,omitempty"`
	// Role is the viewer's role.
	Role role.Role `json:"role"`
	// Blind are the tasks whose audit the viewer calibrates blind.
	Blind []string `json:"blind,omitempty"`
	// Hiding are the campaigns that hide automatic audits from agents;
	// read only for a viewer below quality.
	Hiding []string `json:"hiding,omitempty"`
}

// Row is what the rules read of a task.
type Row struct {
	UUID       string
	CampaignID string
	// Validated: the task is validated. Current: its audit has a current
	// revision. Reviewed: an analyst reviewed its current audit.
	// AuditDeleted: retention or an erasure deleted its audit's revisions
	// (it had an audit: its score and result stay). Pending: it is not
	// validated and its audit has verdicts pending an analyst's
	// confirmation (PendingWhere).
	Validated, Current, Reviewed, AuditDeleted, Pending bool
}

// Agent is the view of a task's agent (an operator), for a task of a
// campaign that hides automatic audits from agents when hides is set:
// what an event written for them may carry.
func Agent(user, campaignID string, hides bool) Viewer {
	v := Viewer{User: user, Role: role.Operator}
	if hides {
		v.Hiding = []string{campaignID}
	}
	return v
}

// HidesAny reports whether some audit may be hidden from v: an agent's
// view while some campaign hides automatic audits, or an analyst
// calibrating blind. A surface may skip the rules (and read faster, from
// rollups) when it does not; the zero Viewer hides nothing.
func (v Viewer) HidesAny() bool {
	return len(v.Blind) > 0 || v.Role < role.Quality && (len(v.Hiding) > 0 || v.User != "")
}

// BlindTo reports whether v calibrates task r blind.
func (v Viewer) BlindTo(r Row) bool { return slices.Contains(v.Blind, r.UUID) }

// BlindSQL is BlindTo over table alias t.
func (v Viewer) BlindSQL(t string) string { return inSet(t+".uuid", v.Blind) }

// AgentHidden reports whether v, an agent, is not shown r's audit: audited
// (even if its revisions were since deleted), neither reviewed nor
// validated, in a campaign that hides automatic audits; or, for a person
// (User set), pending. The zero Viewer, nobody's (a job's), hides nothing.
func (v Viewer) AgentHidden(r Row) bool {
	return v.Role < role.Quality && (r.Pending && v.User != "" ||
		(r.Current || r.AuditDeleted) && !r.Reviewed && !r.Validated && slices.Contains(v.Hiding, r.CampaignID))
}

// AgentHiddenSQL is AgentHidden over table alias t (tasks).
func (v Viewer) AgentHiddenSQL(t string) string {
	switch {
	case v.Role >= role.Quality:
		return "false"
	case v.User == "":
		return automaticHiddenWhere(t, inSet(t+".campaign_id", v.Hiding))
	}
	return AgentHiddenWhere(t, inSet(t+".campaign_id", v.Hiding))
}

// AgentHiddenWhere is the agent's rule (AgentHidden) over table alias t
// (tasks) with the condition that t's campaign hides automatic audits
// written by the caller: for a query over many agents' tasks that reads it
// from the campaigns (NOT c.operator_sees_automatic).
func AgentHiddenWhere(t, campaignHides string) string {
	return "(" + PendingWhere(t) + " OR " + automaticHiddenWhere(t, campaignHides) + ")"
}

// automaticHiddenWhere is the part of AgentHiddenWhere that does not
// depend on pending verdicts.
func automaticHiddenWhere(t, campaignHides string) string {
	return "((" + t + ".audit_revision IS NOT NULL OR " + t + ".audit_deleted_at IS NOT NULL) AND " + t +
		".reviewed_at IS NULL AND " + t + ".status <> 'validated' AND " + campaignHides + ")"
}

// PendingWhere is Row.Pending over table alias t (tasks).
func PendingWhere(t string) string {
	return "(" + t + ".status <> 'validated' AND cardinality(" + t + ".pending_criteria) > 0)"
}

// AuditHidden reports whether v is not shown r's audit at all: its
// score, result, review items, verdicts, explanations and revisions.
func (v Viewer) AuditHidden(r Row) bool { return v.BlindTo(r) || v.AgentHidden(r) }

// AuditHiddenSQL is AuditHidden over table alias t (tasks).
func (v Viewer) AuditHiddenSQL(t string) string {
	return "(" + v.BlindSQL(t) + " OR " + v.AgentHiddenSQL(t) + ")"
}

// VerdictsHidden reports whether v is not shown the verdicts of r's audit
// (each criterion's, and their explanations): when the audit is hidden,
// and for everyone once retention or an erasure deleted its revisions.
func (v Viewer) VerdictsHidden(r Row) bool { return v.AuditHidden(r) || r.AuditDeleted }

// VerdictsHiddenSQL is VerdictsHidden over table alias t (tasks).
func (v Viewer) VerdictsHiddenSQL(t string) string {
	return "(" + v.AuditHiddenSQL(t) + " OR " + t + ".audit_deleted_at IS NOT NULL)"
}

// RetryHidden reports whether v is not shown a task's retry state (a call's
// transcription between its attempts): below quality. It has no SQL form:
// no query selects, counts or sorts by it.
func (v Viewer) RetryHidden() bool { return v.Role < role.Quality }

// uuidText is an id as Postgres writes a uuid: the only text inSet puts in
// SQL.
var uuidText = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// inSet is the SQL condition that column (a uuid) is one of ids, the ids
// written in the text: a viewer's sets are a few ids read from the
// database, and a literal keeps the fragments free of parameters. An id
// not written as Postgres writes a uuid matches nothing.
func inSet(column string, ids []string) string {
	var ok []string
	for _, id := range ids {
		if uuidText.MatchString(id) {
			ok = append(ok, id)
		}
	}
	if len(ok) == 0 {
		return "false"
	}
	return column + " = ANY('{" + strings.Join(ok, ",") + "}'::uuid[])"
}
