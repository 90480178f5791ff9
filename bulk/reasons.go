package bulk

import (
	"strings"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/pipeline"
)

// The codes of a result's reason (db.BulkReason): what a bulk action did
// to a task, or why it did not. A code is stable: results keep it, and
// it is written in the reader's language when read (Text).
const (
	// RequesterDeactivated (failed): the requester is deactivated.
	RequesterDeactivated = "requester_deactivated"
	// RequesterRole (failed): the requester no longer has the role the
	// action needs (params: requester, role, action).
	RequesterRole = "requester_role"
	// RequesterCannotSee (failed): the requester may not see the task.
	RequesterCannotSee = "requester_cannot_see"
	// AuditValidated (skipped, reaudit): the task is validated.
	AuditValidated = "audit_validated"
	// TaskFailed (skipped, reaudit): the task failed; retry it instead.
	TaskFailed = "task_failed"
	// NotAuditedYet (skipped, reaudit): its first audit is still to come
	// (params: status).
	NotAuditedYet = "not_audited_yet"
	// NoTranscript (skipped, reaudit): the task has no transcript.
	NoTranscript = "no_transcript"
	// AuditedMeanwhile (skipped, reaudit): audited while the action ran.
	AuditedMeanwhile = "audited_meanwhile"
	// AuditFailed (failed, reaudit): the engine refused the task (params:
	// error).
	AuditFailed = "audit_failed"
	// NotFailed (skipped, retry): only a failed task can be retried
	// (params: status).
	NotFailed = "not_failed"
	// AssignedAlready (skipped, assign): assigned to the analyst already
	// (params: assignee_id).
	AssignedAlready = "assigned_already"
	// NotAssigned (skipped, unassign): assigned to no one.
	NotAssigned = "not_assigned"
	// ValidatedAlready (skipped, validate): validated already.
	ValidatedAlready = "validated_already"
	// NotAudited (skipped, validate): only an audited task can be
	// validated (params: status).
	NotAudited = "not_audited"
	// PendingVerdicts (skipped, validate): verdicts of its audit await an
	// analyst's confirmation (params: pending); validating it alone can
	// accept them (accept_pending).
	PendingVerdicts = "pending_verdicts"
	// NoRecipients (failed, validate): nobody to e-mail the validation to
	// (params: campaign).
	NoRecipients = "no_recipients"
	// Refused (failed): a rule of the service refused it (params: error,
	// in English).
	Refused = "refused"
	// Reaudited (succeeded): the new revision of its audit (params:
	// revision, score, passed, passing_score, scorecard_version).
	Reaudited = "reaudited"
	// Retried (succeeded): sent back to a step (params: status).
	Retried = "retried"
	// Assigned (succeeded): assigned to the analyst (params: assignee_id).
	Assigned = "assigned"
	// Unassigned (succeeded): no longer assigned to the analyst (params:
	// assignee_id).
	Unassigned = "unassigned"
	// Validated (succeeded): validated, its e-mail on its way (params:
	// recipients).
	Validated = "validated"
)

// reason is the reason of code with params p.
func reason(code string, p db.BulkReasonParams) db.BulkReason {
	return db.BulkReason{Code: code, Params: p}
}

// statuses are the task statuses as the reasons name them.
var statuses = map[pipeline.Status]l10n.Text{
	pipeline.Queued: l10n.T("queued"), pipeline.Transcribing: l10n.T("transcribing"), pipeline.Transcribed: l10n.T("transcribed"),
	pipeline.Auditing: l10n.T("auditing"), pipeline.Audited: l10n.T("audited"), pipeline.Validated: l10n.T("validated"),
	pipeline.Failed: l10n.T("failed"),
}

// status is task status s as the reasons name it.
func status(s pipeline.Status) l10n.Text {
	if t, ok := statuses[s]; ok {
		return t
	}
	return l10n.Plain(string(s))
}

// action is action a as the reasons name it.
func action(a string) l10n.Text {
	if t, ok := names[a]; ok {
		return t
	}
	return l10n.Plain(a)
}

// texts write each code's reason, from its parameters.
var texts = map[string]func(p db.BulkReasonParams) l10n.Text{
	RequesterDeactivated: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("the requester (%s) is deactivated", p.Requester)
	},
	RequesterRole: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("the requester (%s) no longer has the %s role, which “%s” needs", p.Requester, p.Role, action(p.Action))
	},
	RequesterCannotSee: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("the requester (%s) may not see this task", p.Requester)
	},
	AuditValidated: func(db.BulkReasonParams) l10n.Text { return l10n.T("it is validated: its audit can no longer change") },
	TaskFailed:     func(db.BulkReasonParams) l10n.Text { return l10n.T("it has failed: retry it instead") },
	NotAuditedYet: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("it is %s: its first audit is still to come", status(p.Status))
	},
	NoTranscript: func(db.BulkReasonParams) l10n.Text { return l10n.T("it has no transcript") },
	AuditedMeanwhile: func(db.BulkReasonParams) l10n.Text {
		return l10n.T("audited while the action ran: its audit is already against the current scorecard")
	},
	AuditFailed: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("the audit engine refused it: %s", l10n.Plain(p.Error))
	},
	NotFailed: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("it is %s: only a failed task can be retried", status(p.Status))
	},
	AssignedAlready: func(p db.BulkReasonParams) l10n.Text { return l10n.T("it is assigned to %s already", p.AssigneeID) },
	NotAssigned:     func(db.BulkReasonParams) l10n.Text { return l10n.T("it is not assigned to anyone") },
	ValidatedAlready: func(db.BulkReasonParams) l10n.Text {
		return l10n.T("it is validated already")
	},
	NotAudited: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("it is %s: only an audited task can be validated", status(p.Status))
	},
	PendingVerdicts: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("%d verdict(s) of its audit await an analyst's confirmation (%s): confirm or change them, or validate it alone accepting them",
			len(p.Pending), l10n.Plain(strings.Join(p.Pending, ", ")))
	},
	NoRecipients: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("nobody to e-mail the validation to: the agent's address is unknown, campaign %q has no supervisor "+
			"e-mails, no VALIDATION_TO is configured, and the requester has no e-mail address; add the campaign's supervisor e-mails",
			p.Campaign)
	},
	Refused: func(p db.BulkReasonParams) l10n.Text { return l10n.Plain(p.Error) },
	Reaudited: func(p db.BulkReasonParams) l10n.Text {
		verdict := l10n.T("%.2f, did not pass (passing score %.2f)", deref(p.Score), deref(p.PassingScore))
		switch {
		case len(p.Pending) > 0:
			verdict = l10n.T("pending review of %d verdict(s) (%s)", len(p.Pending), l10n.Plain(strings.Join(p.Pending, ", ")))
		case p.Passed != nil && *p.Passed:
			verdict = l10n.T("%.2f, passed (passing score %.2f)", deref(p.Score), deref(p.PassingScore))
		}
		return l10n.T("revision %d: %s, against scorecard version %d", p.Revision, verdict, p.ScorecardVersion)
	},
	Retried:    func(p db.BulkReasonParams) l10n.Text { return l10n.T("sent back to %s", status(p.Status)) },
	Assigned:   func(p db.BulkReasonParams) l10n.Text { return l10n.T("assigned to %s", p.AssigneeID) },
	Unassigned: func(p db.BulkReasonParams) l10n.Text { return l10n.T("no longer assigned to %s", p.AssigneeID) },
	Validated: func(p db.BulkReasonParams) l10n.Text {
		return l10n.T("validated; the result is being e-mailed to %s", l10n.Plain(strings.Join(p.Recipients, ", ")))
	},
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// Text is what r says, to be written in a language; ok is false for the
// zero reason and for a code this version does not know (a result
// written by a later one), whose stored message stands.
func Text(r db.BulkReason) (t l10n.Text, ok bool) {
	write, ok := texts[r.Code]
	if !ok {
		return l10n.Text{}, false
	}
	return write(r.Params), true
}

// Message is r in English: the message a result stores beside its code.
func Message(r db.BulkReason) string {
	t, _ := Text(r)
	return t.String()
}
