// Package validation closes an audit: who receives its e-mail, the one
// transaction that records the validation (the task made validated, the
// e-mail queued, the validator told), and what a request sent again gets.
package validation

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/visibility"
	"github.com/auditd/auditd/webhook"
)

// ErrNoRecipients is the cause of Recipients' error when there is nobody
// to e-mail a validation to.
var ErrNoRecipients = errors.New("no recipients")

// Deps are what a validation reads and writes.
type Deps struct {
	db.Deps
	// Log receives the addresses left out because they do not parse.
	Log *slog.Logger
	// To and Bcc receive every validation's e-mail (VALIDATION_TO,
	// VALIDATION_BCC).
	To, Bcc []string
}

// Addressees are who gets the e-mail of a validation.
type Addressees struct {
	To, Bcc []string
	// ToValidator: nobody else has an address, so the e-mail goes to the
	// validator alone.
	ToValidator bool
	// ToAgent: the task's agent is among To; false when the task names no
	// agent, or the agent is no user of ours, has no usable address or
	// was deactivated: nobody tells them by e-mail.
	ToAgent bool
}

// Recipients returns who gets the e-mail of task's validation: the agent
// (when their address is known), the campaign's supervisors and d.To, else
// the validator (validatorEmail); and the blind copies, d.Bcc; never the
// address of a deactivated user (db.UsersInactiveEmails). Addresses
// are deduplicated (ignoring case), in that order; one that does not parse
// is left out, so nothing a token or a directory holds can reach a header.
// With nobody to write to it is a Conflict error wrapping ErrNoRecipients.
func Recipients(ctx context.Context, d Deps, task db.Task, validatorEmail string) (Addressees, error) {
	campaign, err := db.CampaignGet(ctx, d.Pool, task.CampaignID)
	if err != nil {
		return Addressees{}, err
	}
	var agent []string // the agent's address, when known
	if task.OperatorID != "" {
		u, err := db.UserGet(ctx, d.Pool, task.OperatorID)
		switch {
		case err == nil:
			agent = []string{u.Email}
		case !errcode.Is(err, errcode.NotFound):
			return Addressees{}, err
		}
	}
	others := append(slices.Clone(campaign.SupervisorEmails), d.To...)
	// A deactivated user's address counts as already taken: it is left out.
	inactive, err := db.UsersInactiveEmails(ctx, d.Pool, append(slices.Clone(agent), others...))
	if err != nil {
		return Addressees{}, err
	}
	seen := map[string]bool{}
	for _, e := range inactive {
		seen[e] = true
	}
	// The agent first: told when their address is one and not left out.
	a := Addressees{To: addresses(ctx, d.Log, seen, agent)}
	a.ToAgent = len(a.To) > 0
	a.To = append(a.To, addresses(ctx, d.Log, seen, others)...)
	if len(a.To) == 0 {
		a.To, a.ToValidator = addresses(ctx, d.Log, seen, []string{validatorEmail}), true
	}
	if len(a.To) == 0 {
		return Addressees{}, errcode.Wrap(errcode.Conflict, ErrNoRecipients, fmt.Sprintf("nobody to e-mail the validation to: the agent's "+
			"address is unknown, campaign %q has no supervisor e-mails, no VALIDATION_TO is configured, and your token carries no e-mail; "+
			"add the campaign's supervisor e-mails", campaign.Name))
	}
	a.Bcc = addresses(ctx, d.Log, seen, d.Bcc)
	return a, nil
}

// addresses returns the bare addresses of list that parse and are not in
// seen yet, adding them to seen.
func addresses(ctx context.Context, log *slog.Logger, seen map[string]bool, list []string) []string {
	out := []string{}
	for _, raw := range list {
		if raw == "" {
			continue
		}
		a, err := mail.ParseAddress(raw)
		if err != nil {
			log.WarnContext(ctx, "not an e-mail address; left out of the recipients", "address", raw)
			continue
		}
		if key := strings.ToLower(a.Address); !seen[key] {
			seen[key] = true
			out = append(out, a.Address)
		}
	}
	return out
}

// Reader is whose view the e-mail of task's validation shows, since it
// goes to its agent among others: the agent's (visibility.Agent), so it
// quotes no audit and no verdict the agent is not shown (an audit that
// retention or an erasure deleted keeps only its score and result).
func Reader(task db.Task) visibility.Viewer {
	return visibility.Agent(task.OperatorID, task.CampaignID, !task.OperatorSeesAutomatic)
}

// Record records n as the validation of task, whose attachments are in
// blobs (which keep its outcome for their Close), and tells the validator,
// in one transaction (Apply). It returns a Conflict error wrapping
// db.ErrTaskStatus when the task is no longer audited.
func Record(ctx context.Context, d Deps, task db.Task, n db.NewValidation, blobs *intake.Blobs) (db.Validation, error) {
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		return db.Validation{}, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
	if err := blobs.Keep(ctx, tx); err != nil {
		return db.Validation{}, err
	}
	val, err := Apply(ctx, tx, d, task, n)
	if err != nil {
		return db.Validation{}, err
	}
	if _, err := db.NotificationCreate(ctx, tx, lifecycle.Notice(n.ValidatorID, task, "success",
		l10n.T("You validated %s; its result is being e-mailed to %s.", task.FileName, listed(n.SentTo)))); err != nil {
		return db.Validation{}, err
	}
	if err := blobs.Commit(ctx, tx); err != nil {
		return db.Validation{}, err
	}
	return val, nil
}

// Apply records n as the validation of task, makes the task validated and
// queues the e-mail (through d.River), in tx, the caller's transaction,
// which refers to n's attachments if it has any. The validator is not told:
// Record tells them of their validation, a bulk validation of all of them
// at once. An audit with pending verdicts (db.Task.Pending) is not
// validated: a Conflict error wrapping ErrPending names them, unless
// n.AcceptPending, which records them as the validator's first (a revision
// of the audit by them). It returns a Conflict error wrapping db.ErrTaskStatus when
// the task is no longer audited.
func Apply(ctx context.Context, tx pgx.Tx, d Deps, task db.Task, n db.NewValidation) (db.Validation, error) {
	if err := settlePending(ctx, tx, task.UUID, n); err != nil {
		return db.Validation{}, err
	}
	val, err := db.ValidationInsert(ctx, tx, n)
	if err != nil {
		return db.Validation{}, err
	}
	if _, err := d.River.InsertTx(ctx, tx, jobs.SendValidationEmailArgs{TaskUUID: task.UUID}, nil); err != nil {
		return db.Validation{}, err
	}
	validated, err := lifecycle.Move(ctx, tx, task.UUID, lifecycle.Validate, lifecycle.With{})
	if err != nil {
		return db.Validation{}, err
	}
	if err := db.ValidationEventInsert(ctx, tx, db.EventValidationCreated, val); err != nil {
		return db.Validation{}, err
	}
	audit, err := db.AuditCurrent(ctx, tx, task.UUID)
	if err != nil {
		return db.Validation{}, err
	}
	if err := tellAgent(ctx, tx, validated, audit.Result, n.SentTo); err != nil {
		return db.Validation{}, err
	}
	return val, webhook.Queue(ctx, tx, d.River, webhook.ValidatedEvent(validated, audit.Result, val))
}

// tellAgent tells the agent of validated task, in tx, that its evaluation
// (result) was validated, in a notification of kind db.NotificationEvaluation
// from which they acknowledge or dispute it: when the validation's e-mail
// goes to them too (Addressees.ToAgent: their address is in sentTo). A
// validated audit is never hidden from its agent (Reader); should a later
// rule hide it, the notification is hidden with it (db.NotificationList).
func tellAgent(ctx context.Context, tx pgx.Tx, task db.Task, result scoring.Result, sentTo []string) error {
	if task.OperatorID == "" {
		return nil
	}
	agent, err := db.UserGet(ctx, tx, task.OperatorID)
	if errcode.Is(err, errcode.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	addr, err := mail.ParseAddress(agent.Email)
	if err != nil || !slices.ContainsFunc(sentTo, func(a string) bool { return strings.EqualFold(a, addr.Address) }) {
		return nil
	}
	note := lifecycle.Notice(agent.ID, task, "info", l10n.T("Your evaluation of %s was validated: %s. Acknowledge it, or dispute it from the task.",
		task.FileName, revision.Describe(result)))
	note.Kind = db.NotificationEvaluation
	_, err = db.NotificationCreate(ctx, tx, note)
	return err
}

// ErrPending is the cause of Apply's Conflict error for an audit with
// pending verdicts.
var ErrPending = errors.New("verdicts pending")

// PendingVerdict is a verdict that awaits an analyst's confirmation, as a
// refused validation names it.
type PendingVerdict struct {
	CriterionID string `json:"criterion_id"`
	Question    string `json:"question"`
	Complies    bool   `json:"complies" doc:"The engine's verdict, still to confirm"`
	// NotApplicable: the engine's verdict is that the criterion does not
	// apply (complies is then true).
	NotApplicable bool `json:"not_applicable,omitempty"`
}

// settlePending checks the pending verdicts of task uuid, locked in tx,
// before its validation: none, or accepted (n.AcceptPending) and then
// recorded as the validator's in a revision; otherwise a Conflict error
// wrapping ErrPending whose details list them.
func settlePending(ctx context.Context, tx pgx.Tx, uuid string, n db.NewValidation) error {
	task, err := db.TaskLock(ctx, tx, uuid)
	if err != nil || !task.Pending() {
		return err
	}
	current, err := db.AuditCurrent(ctx, tx, uuid)
	if err != nil {
		return err
	}
	if !n.AcceptPending {
		var pending []PendingVerdict
		for _, it := range current.Result.Items {
			if it.NeedsReview {
				pending = append(pending, PendingVerdict{CriterionID: it.CriterionID, Question: it.Question, Complies: it.Complies,
					NotApplicable: it.NotApplicable})
			}
		}
		return errcode.Wrap(errcode.Conflict, ErrPending, fmt.Sprintf("%d verdict(s) of the audit of %s await an analyst's confirmation: "+
			"confirm or change them first, or validate with accept_pending to record them as yours", len(pending), task.FileName)).
			With(map[string]any{"task_uuid": uuid, "pending": pending})
	}
	card, err := db.ScorecardGet(ctx, tx, task.CampaignID, current.Result.ScorecardVersion)
	if err != nil {
		return err
	}
	verdicts := make([]scoring.Verdict, 0, len(current.Result.Items))
	for _, v := range current.Result.Verdicts() {
		if v.NeedsReview {
			v.Assessment = scoring.Assessment{} // the validator's now
		}
		verdicts = append(verdicts, v)
	}
	result, err := scoring.Score(card.Scorecard, task.Kind, verdicts, current.Result.PassingScore)
	if err != nil {
		return err
	}
	stored, err := db.AuditAppendAfter(ctx, tx, current, db.AuditRevision{TaskUUID: uuid, Result: result,
		Source: db.AuditByAnalyst, AuthorID: n.ValidatorID, AuthorName: n.ValidatorName})
	if err != nil {
		return err
	}
	if task, err = db.TaskGetByUUID(ctx, tx, uuid); err != nil {
		return err
	}
	return db.AuditEventInsert(ctx, tx, task, stored, &current.Result.Score)
}

// RequestHash identifies a validation request, so that the same request
// sent again is recognised (Again): the task, the notes, the kind and the
// attachments' contents (their hex SHA-256 sums), in order.
func RequestHash(taskUUID, notes string, isCall bool, attachmentSums []string) string {
	h := sha256.New()
	_ = json.NewEncoder(h).Encode([]any{taskUUID, notes, isCall, nonNil(attachmentSums)})
	return hex.EncodeToString(h.Sum(nil))
}

// nonNil is s, or an empty list for nil: a request without attachments
// hashes the same whichever it was given as.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ValidatorName is the name a validation's e-mail gives validator u when
// the request names none: theirs, else their username, else their id.
func ValidatorName(u db.User) string { return cmp.Or(u.Name, u.Username, u.ID) }

// listed names the first few addresses of list and counts the others, so
// that a notification stays short however many supervisors a campaign has.
func listed(list []string) l10n.Text {
	const shown = 3
	if len(list) <= shown+1 {
		return l10n.Plain(strings.Join(list, ", "))
	}
	return l10n.T("%s and %d others", strings.Join(list[:shown], ", "), len(list)-shown)
}

// Again answers a request for a task that is not audited: the recorded
// validation, and whether it was recorded for the same request
// (requestHash) sent again, which must then get the same answer and send
// nothing twice. A task neither audited nor validated is a Conflict error.
func Again(ctx context.Context, d Deps, task db.Task, requestHash string) (db.Validation, bool, error) {
	if task.Status != pipeline.Validated {
		return db.Validation{}, false, errcode.New(errcode.Conflict, "task %s is %s: only an audited task can be validated", task.UUID, task.Status).
			With(map[string]any{"task_uuid": task.UUID, "status": task.Status})
	}
	val, err := db.ValidationGet(ctx, d.Pool, task.UUID)
	if err != nil {
		return db.Validation{}, false, err
	}
	return val, val.RequestHash == requestHash, nil
}
