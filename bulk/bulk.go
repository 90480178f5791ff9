// Package bulk is what a bulk action may do to tasks: the actions, the
// least role each needs, whether a user may run one on a given task, and
// which tasks each applies to (the others are skipped, with the reason).
// The API refuses a request by it; the bulk_action job asks it again for
// every task, on the task as it then is and the requester as they then are.
package bulk

import (
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
)

// The actions.
const (
	// Reaudit audits a task again against its campaign's current
	// scorecard: a new engine revision of its audit.
	Reaudit = "reaudit"
	// Retry sends a failed task back to the step it failed at.
	Retry = "retry"
	// Assign assigns a task to an analyst.
	Assign = "assign"
	// Unassign leaves a task assigned to no one, without a due date.
	Unassign = "unassign"
	// Validate validates a task's audit with notes, e-mailing the result.
	Validate = "validate"
)

// Actions returns the actions, in the order the documentation lists them.
func Actions() []string { return []string{Reaudit, Retry, Assign, Unassign, Validate} }

// LeastRole is the least role action needs: that of the operation doing
// it to one task (POST /tasks/{uuid}/retry and POST /validate-audit:
// quality), quality for a re-audit, which an analyst may ask for too, and
// supervisor for assigning analysts their work or taking it back.
func LeastRole(action string) role.Role {
	if action == Assign || action == Unassign {
		return role.Supervisor
	}
	return role.Quality
}

// Irreversible reports whether action cannot be undone (a validation, an
// engine's revision that becomes the current audit): its request must
// confirm it.
func Irreversible(action string) bool { return action == Reaudit || action == Validate }

// Forbidden says why user u may not run action on task, the zero reason
// when they may: a deactivated user, a role below the action's, or a task
// the role does not see (below quality, only the tasks where they are the
// agent).
func Forbidden(u db.User, action string, task db.Task) db.BulkReason {
	r := role.Highest(u.Roles)
	switch least := LeastRole(action); {
	case !u.Active:
		return reason(RequesterDeactivated, db.BulkReasonParams{Requester: u.ID})
	case r < least:
		return reason(RequesterRole, db.BulkReasonParams{Requester: u.ID, Role: least.String(), Action: action})
	case r < role.Quality && task.OperatorID != u.ID:
		return reason(RequesterCannotSee, db.BulkReasonParams{Requester: u.ID})
	}
	return db.BulkReason{}
}

// Skip says why action, with parameters p, does not apply to task as it
// is, the zero reason when it does.
func Skip(action string, p db.BulkParams, task db.Task) db.BulkReason {
	status := db.BulkReasonParams{Status: task.Status}
	switch action {
	case Reaudit:
		switch task.Status {
		case pipeline.Audited:
			return db.BulkReason{}
		case pipeline.Validated:
			return reason(AuditValidated, db.BulkReasonParams{})
		case pipeline.Failed:
			return reason(TaskFailed, db.BulkReasonParams{})
		}
		return reason(NotAuditedYet, status)
	case Retry:
		if task.Status != pipeline.Failed {
			return reason(NotFailed, status)
		}
	case Assign:
		if task.AssigneeID == p.AssigneeID {
			return reason(AssignedAlready, db.BulkReasonParams{AssigneeID: p.AssigneeID})
		}
	case Unassign:
		if task.AssigneeID == "" {
			return reason(NotAssigned, db.BulkReasonParams{})
		}
	case Validate:
		switch {
		case task.Pending():
			return reason(PendingVerdicts, db.BulkReasonParams{Pending: task.PendingCriteria})
		case task.Status == pipeline.Audited:
			return db.BulkReason{}
		case task.Status == pipeline.Validated:
			return reason(ValidatedAlready, db.BulkReasonParams{})
		}
		return reason(NotAudited, status)
	}
	return db.BulkReason{}
}

// names are the actions as a notification names them.
var names = map[string]l10n.Text{
	Reaudit: l10n.T("re-audit"), Retry: l10n.T("retry"), Assign: l10n.T("assign"), Unassign: l10n.T("unassign"),
	Validate: l10n.T("validate"),
}

// Notice is the notification that tells a's requester how it ended (done,
// failed or cancelled), in their language.
func Notice(a db.BulkAction) db.NotificationNew {
	name := names[a.Action]
	var text l10n.Text
	variant := "success"
	switch a.Status {
	case db.BulkDone:
		text = l10n.T("Bulk action “%s” on %d tasks finished: %d succeeded, %d skipped, %d failed.",
			name, a.Done, a.Succeeded, a.Skipped, a.Failed)
		if a.Failed > 0 {
			variant = "warning"
		}
	case db.BulkCancelled:
		variant = "info"
		text = l10n.T("Bulk action “%s” was cancelled after %d tasks: %d succeeded, %d skipped, %d failed.",
			name, a.Done, a.Succeeded, a.Skipped, a.Failed)
	default:
		variant = "error"
		text = l10n.T("Bulk action “%s” stopped after %d tasks (%d succeeded, %d skipped, %d failed): %s.",
			name, a.Done, a.Succeeded, a.Skipped, a.Failed, l10n.Plain(a.Error))
	}
	return db.NotificationNew{UserID: a.RequestedBy, Text: text, Variant: variant, Link: Link(a.ID)}
}

// AssigneeNotice is the notification that tells the analyst a bulk assign
// gave tasks to how many it gave them, in their language, linking to their
// queue ("My reviews"); ok is false when there is no one to tell (another
// action, nothing assigned, or the requester assigned themselves).
func AssigneeNotice(a db.BulkAction) (n db.NotificationNew, ok bool) {
	if a.Action != Assign || a.Succeeded == 0 || a.Params.AssigneeID == a.RequestedBy {
		return n, false
	}
	return db.NotificationNew{UserID: a.Params.AssigneeID, Variant: "info", Link: reviewsLink,
		Text: l10n.T("%d tasks were assigned to you for review.", a.Succeeded)}, true
}

// reviewsLink is where the dashboard shows an analyst's queue, as the
// sampling's notices link to it (sampling.ReviewsLink).
const reviewsLink = "/reviews"

// Link is where the dashboard shows bulk action id: the task list with its
// progress.
func Link(id string) string { return "/tasks?bulk=" + id }
