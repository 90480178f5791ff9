package workers

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"net"
	netmail "net/mail"
	"net/url"
	"strings"
	"text/template"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/validation"
	"github.com/auditd/auditd/visibility"
	"github.com/auditd/auditd/workers/mail"
)

// SendValidationEmailWorker e-mails a task's validation (its score, every
// criterion, the validator's notes and attachments) to the recipients
// recorded with it, and records each attempt on the validation.
//
// Delivery is at least once. SMTP cannot tell a client whether a message it
// sent before was received, so a worker that dies after the server took the
// message but before the attempt was recorded (or an attempt whose record
// fails) is retried by River and sends again. Every attempt carries the same
// Message-ID (validation-<task>@<PUBLIC_URL host>), so receivers that
// drop duplicates keep one.
type SendValidationEmailWorker struct {
	river.WorkerDefaults[jobs.SendValidationEmailArgs]
	pool         *pgxpool.Pool
	store        *storage.Store
	mailer       *mail.Mailer
	dashboardURL string
}

// Timeout implements river.Worker: the attachments are read before the
// delivery, which the mailer bounds.
func (w *SendValidationEmailWorker) Timeout(*river.Job[jobs.SendValidationEmailArgs]) time.Duration {
	return 2 * w.mailer.Timeout()
}

// Work implements river.Worker. A temporary failure (a 4xx reply, an
// unreachable server) is returned so River retries it with backoff; a
// permanent one (a 5xx reply, a missing attachment), or the last attempt's
// failure, marks the e-mail failed and tells the validator.
func (w *SendValidationEmailWorker) Work(ctx context.Context, job *river.Job[jobs.SendValidationEmailArgs]) error {
	v, err := db.ValidationGet(ctx, w.pool, job.Args.TaskUUID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("task %s has no validation", job.Args.TaskUUID))
	}
	if err != nil {
		return err
	}
	if v.EmailStatus == db.EmailSent {
		// Delivered by a run whose job did not complete.
		return nil
	}
	task, err := db.TaskGetByUUID(ctx, w.pool, v.TaskUUID)
	if err != nil {
		return err
	}
	msg, err := w.message(ctx, validation.Reader(task), v, task)
	if err == nil {
		err = w.mailer.Send(ctx, msg)
	}
	return w.record(ctx, job, task, w.messageID(task.UUID), err)
}

// record stores the outcome of an attempt, tells the validator when it is
// final (or a success after failures), and returns what River should do.
func (w *SendValidationEmailWorker) record(ctx context.Context, job *river.Job[jobs.SendValidationEmailArgs], task db.Task, messageID string, sendErr error) error {
	a := db.EmailAttempt{Attempt: job.Attempt, MessageID: messageID, Status: db.EmailSent}
	temporary := false
	if sendErr != nil {
		temporary = isTemporary(sendErr)
		a.Error = truncate(sendErr.Error(), 1000)
		a.Status = db.EmailPending
		if !temporary || job.Attempt >= job.MaxAttempts {
			a.Status = db.EmailFailed
		}
	}
	// Recorded even when the job's own context has ended.
	ctx = context.WithoutCancel(ctx)
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		v, err := db.ValidationRecordAttempt(ctx, tx, task.UUID, a)
		if err != nil {
			return err
		}
		var variant string
		var text l10n.Text
		switch {
		case a.Status == db.EmailFailed && temporary:
			variant, text = "error", l10n.T("The validation e-mail for %s could not be delivered after %d attempts (%s). The validation stays recorded.",
				task.FileName, v.EmailAttempts, a.Error)
		case a.Status == db.EmailFailed:
			variant, text = "error", l10n.T("The validation e-mail for %s was refused (%s). It will not be retried; the validation stays recorded.",
				task.FileName, a.Error)
		case a.Status == db.EmailSent && v.EmailAttempts > 1:
			variant, text = "success", l10n.T("The validation e-mail for %s was delivered after %d attempts.", task.FileName, v.EmailAttempts)
		default:
			return nil
		}
		_, err = db.NotificationCreate(ctx, tx, lifecycle.Notice(v.ValidatorID, task, variant, text))
		return err
	})
	switch {
	case err != nil:
		// Retried; if the e-mail went out, it goes out again with the same
		// Message-ID.
		return errors.Join(sendErr, err)
	case sendErr == nil:
		return nil
	case a.Status == db.EmailFailed && !temporary:
		return river.JobCancel(sendErr)
	}
	return sendErr
}

// isTemporary reports whether an attempt that failed with err may succeed
// later: SMTP says so for its replies; a missing attachment stays missing;
// anything else (the blob store or the database failing) is worth a retry.
func isTemporary(err error) bool {
	if de, ok := errors.AsType[*mail.DeliveryError](err); ok {
		return de.Temporary
	}
	return !errors.Is(err, storage.ErrNotFound)
}

// messageID is the Message-ID of task uuid's validation e-mail: the same on
// every attempt, from any worker.
func (w *SendValidationEmailWorker) messageID(uuid string) string {
	host := "auditd.invalid"
	if u, err := url.Parse(w.dashboardURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		host = "[" + host + "]" // an IPv6 literal is not a dot-atom
	}
	return "validation-" + uuid + "@" + host
}

// message builds the e-mail of validation v of task as reader sees the
// audit (validation.Reader: its agent, who may be among its recipients).
func (w *SendValidationEmailWorker) message(ctx context.Context, reader visibility.Viewer, v db.Validation, task db.Task) (mail.Message, error) {
	campaign, err := db.CampaignGet(ctx, w.pool, task.CampaignID)
	if err != nil {
		return mail.Message{}, err
	}
	operator, err := w.operator(ctx, task.OperatorID)
	if err != nil {
		return mail.Message{}, err
	}
	data := validationEmail{
		IsCall: v.IsCall, FileName: task.FileName, Campaign: campaign.Name, Operator: operator,
		Link:  strings.TrimRight(w.dashboardURL, "/") + lifecycle.Link(task.UUID),
		Notes: v.Notes, Validator: v.ValidatorName, ValidatedAt: v.ValidatedAt,
	}
	if err := w.audit(ctx, reader, v, task, &data); err != nil {
		return mail.Message{}, err
	}
	msg := mail.Message{ID: w.messageID(task.UUID), To: v.SentTo, Bcc: v.Bcc}
	for _, a := range v.Attachments {
		data.Attachments = append(data.Attachments, emailAttachment{Name: a.Name, Size: humanize.IBytes(uint64(a.Size))})
		key := a.BlobKey
		msg.Attachments = append(msg.Attachments, mail.Attachment{Name: a.Name, ContentType: a.ContentType,
			Open: func(ctx context.Context) (io.ReadCloser, error) { return w.store.Open(ctx, key) }})
	}
	msg.Subject, msg.Text, msg.HTML, err = renderValidationEmail(campaign.Language, data)
	return msg, err
}

// operator is how the e-mail names the agent id: name <e-mail>, or the id
// given at upload when they are not a known user.
func (w *SendValidationEmailWorker) operator(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	u, err := db.UserGet(ctx, w.pool, id)
	switch {
	case errcode.Is(err, errcode.NotFound):
		return id, nil
	case err != nil:
		return "", err
	}
	name := cmp.Or(u.Name, u.Username, u.ID)
	if a, err := netmail.ParseAddress(u.Email); err == nil {
		name += " <" + a.Address + ">"
	}
	return name, nil
}

// audit fills data with what reader is shown of the validated audit of
// task: nothing when it is hidden from them; its score and result alone
// when its verdicts are (retention or an erasure deleted them); else the
// validated revision's score and verdicts.
func (w *SendValidationEmailWorker) audit(ctx context.Context, reader visibility.Viewer, v db.Validation, task db.Task, data *validationEmail) error {
	row := task.Row()
	switch {
	case reader.AuditHidden(row):
		data.AuditHidden, data.VerdictsHidden = true, true
		return nil
	case reader.VerdictsHidden(row):
		data.VerdictsHidden = true
		if task.Score != nil && task.Passed != nil {
			data.Score, data.Passed = *task.Score, *task.Passed
		}
		return nil
	}
	audit, err := db.AuditRevisionGet(ctx, w.pool, task.UUID, v.AuditRevision)
	if err != nil {
		return fmt.Errorf("task %s audit: %w", task.UUID, err)
	}
	data.Score, data.PassingScore, data.Passed, data.Items = audit.Result.Score, audit.Result.PassingScore, audit.Result.Passed, audit.Result.Items
	for _, id := range audit.Result.FailedCritical {
		question := id
		for _, it := range audit.Result.Items {
			if it.CriterionID == id {
				question = it.Question
			}
		}
		data.FailedCritical = append(data.FailedCritical, question)
	}
	return nil
}

// validationEmail is what the e-mail templates show.
type validationEmail struct {
	IsCall   bool
	FileName string
	Link     string
	Campaign string
	// Operator is the audited agent: name <e-mail>, or the id given at upload.
	Operator            string
	Score, PassingScore float64
	Passed              bool
	// AuditHidden: the reader is not shown the audit (no score, result or
	// verdict); VerdictsHidden: nor its verdicts (Items and
	// FailedCritical are empty, and so is PassingScore).
	AuditHidden, VerdictsHidden bool
	// FailedCritical are the questions of the critical criteria not met.
	FailedCritical []string
	Items          []scoring.Item
	Notes          string
	Attachments    []emailAttachment
	Validator      string
	ValidatedAt    time.Time
}

type emailAttachment struct{ Name, Size string }

//go:embed templates/validation.*
var templateFS embed.FS

// emailTemplates are one language's templates: "subject" and "text" (plain
// text), "html" (escaped as HTML).
type emailTemplates struct {
	text *template.Template
	html *htmltemplate.Template
}

// validationTemplates holds the e-mail's languages; parsed once, never
// changed.
var validationTemplates = map[string]emailTemplates{
	"es": parseTemplates("es", ","),
	"en": parseTemplates("en", "."),
}

func parseTemplates(lang, decimalMark string) emailTemplates {
	funcs := map[string]any{
		"score": func(f float64) string { return strings.Replace(fmt.Sprintf("%.2f", f), ".", decimalMark, 1) },
		"date":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	}
	return emailTemplates{
		text: template.Must(template.New(lang).Funcs(funcs).ParseFS(templateFS, "templates/validation."+lang+".txt")),
		html: htmltemplate.Must(htmltemplate.New(lang).Funcs(funcs).ParseFS(templateFS, "templates/validation."+lang+".html")),
	}
}

// renderValidationEmail renders the e-mail in language (BCP 47; Spanish for
// es-*, English otherwise).
func renderValidationEmail(language string, data validationEmail) (subject, text, html string, err error) {
	lang := "en"
	if base, _, _ := strings.Cut(strings.ToLower(language), "-"); base == "es" {
		lang = "es"
	}
	t := validationTemplates[lang]
	var s, p, h bytes.Buffer
	if err := t.text.ExecuteTemplate(&s, "subject", data); err != nil {
		return "", "", "", err
	}
	if err := t.text.ExecuteTemplate(&p, "text", data); err != nil {
		return "", "", "", err
	}
	if err := t.html.ExecuteTemplate(&h, "html", data); err != nil {
		return "", "", "", err
	}
	// A subject is one line, whatever a file name holds.
	return strings.Join(strings.Fields(s.String()), " "), p.String(), h.String(), nil
}
