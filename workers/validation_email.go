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
	"slices"
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
	// zone is DEFAULT_TIME_ZONE, the zone of recipients without one.
	zone *time.Location
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
	msgs, err := w.messages(ctx, validation.Reader(task), v, task)
	for _, msg := range msgs {
		if err != nil {
			break
		}
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

// messages builds the e-mails of validation v of task as reader sees the
// audit (validation.Reader: its agent, who may be among its recipients):
// one per edition (editions), the first with the validation's Message-ID.
func (w *SendValidationEmailWorker) messages(ctx context.Context, reader visibility.Viewer, v db.Validation, task db.Task) ([]mail.Message, error) {
	campaign, err := db.CampaignGet(ctx, w.pool, task.CampaignID)
	if err != nil {
		return nil, err
	}
	operator, err := w.operator(ctx, task.OperatorID)
	if err != nil {
		return nil, err
	}
	data := validationEmail{
		IsCall: v.IsCall, FileName: task.FileName, Campaign: campaign.Name, Operator: operator,
		Link:  strings.TrimRight(w.dashboardURL, "/") + lifecycle.Link(task.UUID),
		Notes: v.Notes, Validator: v.ValidatorName,
	}
	if err := w.audit(ctx, reader, v, task, &data); err != nil {
		return nil, err
	}
	var attachments []mail.Attachment
	for _, a := range v.Attachments {
		data.Attachments = append(data.Attachments, emailAttachment{Name: a.Name, Size: humanize.IBytes(uint64(a.Size))})
		key := a.BlobKey
		attachments = append(attachments, mail.Attachment{Name: a.Name, ContentType: a.ContentType,
			Open: func(ctx context.Context) (io.ReadCloser, error) { return w.store.Open(ctx, key) }})
	}
	eds, err := w.editions(ctx, v, campaign.Language)
	if err != nil {
		return nil, err
	}
	msgs := make([]mail.Message, len(eds))
	for i, ed := range eds {
		id := task.UUID
		if i > 0 {
			id += "." + ed.key()
		}
		msgs[i] = mail.Message{ID: w.messageID(id), To: ed.to, Bcc: ed.bcc, Attachments: attachments}
		data.ValidatedAt = v.ValidatedAt.In(ed.zone)
		if msgs[i].Subject, msgs[i].Text, msgs[i].HTML, err = renderValidationEmail(ed.lang, data); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

// edition is the e-mail of a validation as some of its recipients read it:
// in their language (es or en) and time zone.
type edition struct {
	lang    string
	zone    *time.Location
	to, bcc []string
}

// key tells an edition from the others of its validation, as a Message-ID
// may write it: its language and zone (Europe/Madrid as Europe.Madrid).
func (e edition) key() string {
	return e.lang + "." + strings.ReplaceAll(e.zone.String(), "/", ".")
}

// editions splits v's recipients by how they read: an address of a user
// in their language and time zone (their locale, else the campaign's
// language; their zone, else w.zone), any other address in the campaign's
// language and w.zone; in the order of their first recipient. The blind
// copies go with the first edition, so nobody learns of them.
func (w *SendValidationEmailWorker) editions(ctx context.Context, v db.Validation, campaignLanguage string) ([]edition, error) {
	users, err := db.UsersByEmail(ctx, w.pool, v.SentTo)
	if err != nil {
		return nil, err
	}
	var eds []edition
	for _, addr := range v.SentTo {
		ed := edition{lang: emailLanguage(campaignLanguage), zone: w.zone}
		if u, ok := users[strings.ToLower(addr)]; ok {
			if u.Locale != "" {
				ed.lang = emailLanguage(u.Locale)
			}
			if loc, err := l10n.Zone(u.TimeZone); err == nil {
				ed.zone = loc
			}
		}
		i := slices.IndexFunc(eds, func(e edition) bool { return e.lang == ed.lang && e.zone.String() == ed.zone.String() })
		if i < 0 {
			i, eds = len(eds), append(eds, ed)
		}
		eds[i].to = append(eds[i].to, addr)
	}
	if len(eds) == 0 {
		eds = []edition{{lang: emailLanguage(campaignLanguage), zone: w.zone}}
	}
	eds[0].bcc = v.Bcc
	return eds, nil
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
	for _, it := range audit.Result.Items {
		if it.NotApplicable {
			data.NotApplicable++
		}
	}
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
	// Items are the verdicts, each met, not met or not applicable;
	// NotApplicable counts the last, which Score leaves out.
	Items         []scoring.Item
	NotApplicable int
	Notes         string
	Attachments   []emailAttachment
	Validator     string
	ValidatedAt   time.Time
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
		"score":    func(f float64) string { return strings.Replace(fmt.Sprintf("%.2f", f), ".", decimalMark, 1) },
		"date":     func(t time.Time) string { return t.Format("2006-01-02 15:04") + " " + t.Location().String() },
		"category": func(code string) string { return l10n.Category(code, lang) },
	}
	return emailTemplates{
		text: template.Must(template.New(lang).Funcs(funcs).ParseFS(templateFS, "templates/validation."+lang+".txt")),
		html: htmltemplate.Must(htmltemplate.New(lang).Funcs(funcs).ParseFS(templateFS, "templates/validation."+lang+".html")),
	}
}

// emailLanguage is the e-mail's language for language (BCP 47): es for
// es-*, en otherwise.
func emailLanguage(language string) string {
	if base, _, _ := strings.Cut(strings.ToLower(language), "-"); base == "es" {
		return "es"
	}
	return "en"
}

// renderValidationEmail renders the e-mail in language (BCP 47; Spanish for
// es-*, English otherwise), its times in data.ValidatedAt's zone.
func renderValidationEmail(language string, data validationEmail) (subject, text, html string, err error) {
	t := validationTemplates[emailLanguage(language)]
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
