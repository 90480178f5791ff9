package api

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	humavalidation "github.com/danielgtaylor/huma/v2/validation"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/validation"
)

// ValidationOptions configure POST /validate-audit. Zero limits take their
// defaults.
type ValidationOptions struct {
	// To receive every validation e-mail, beside the agent and the
	// campaign's supervisors (VALIDATION_TO).
	To []string
	// Bcc receive every validation e-mail in blind copy (VALIDATION_BCC).
	Bcc []string
	// MaxAttachments caps the files attached to one validation
	// (VALIDATION_MAX_ATTACHMENTS). Defaults to 10.
	MaxAttachments int
	// MaxAttachmentBytes caps a validation's attachments together
	// (VALIDATION_MAX_ATTACHMENT_BYTES). Defaults to 25 MiB.
	MaxAttachmentBytes int64
}

func (o ValidationOptions) withDefaults() ValidationOptions {
	if o.MaxAttachments == 0 {
		o.MaxAttachments = 10
	}
	if o.MaxAttachmentBytes == 0 {
		o.MaxAttachmentBytes = 25 << 20
	}
	return o
}

const (
	// maxNotes caps the notes, in characters.
	maxNotes = 10000
	// maxValidationField caps a text field of the form, in bytes.
	maxValidationField = 4*maxNotes + 1024
	// maxValidationJSON caps a JSON body.
	maxValidationJSON = 1 << 20
	// validationFormOverhead is what a multipart body may hold beyond its
	// attachments: the fields and every part's headers.
	validationFormOverhead = 1 << 20
)

// validationFields are the fields of a validation; in multipart, every
// other file part is an attachment.
var validationFields = []string{"task_uuid", "notes", "isCall", "accept_pending"}

// requiredValidationFields are those a validation must give.
var requiredValidationFields = validationFields[:3]

// validationsResource validates audits and has their results e-mailed.
type validationsResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	store *storage.Store
	// wait bounds how long a request waits for the e-mail's first attempt.
	wait time.Duration
	opts ValidationOptions
	// timeouts bound the time a validation's body takes to arrive.
	timeouts BodyTimeouts
}

// ValidateAuditRequest is the JSON body of POST /validate-audit; a
// multipart body has the same fields, plus attachments.
type ValidateAuditRequest struct {
	TaskUUID string `json:"task_uuid" format:"uuid" doc:"The task (call or chat) whose audit is validated"`
	Notes    string `json:"notes" minLength:"1" maxLength:"10000" doc:"The validator's observations, sent in the e-mail"`
	IsCall   bool   `json:"isCall" doc:"true for a call, false for a chat; must match the task"`
	// AcceptPending records the audit's pending verdicts as the
	// validator's, in the validation's transaction.
	AcceptPending bool `json:"accept_pending,omitempty" doc:"true to validate an audit whose verdicts still await an analyst's confirmation (pending): they are recorded as the validator's (a revision of the audit by them) in the same transaction as the validation. Without it such a validation is 409 CONFLICT, its details listing the pending verdicts"`
}

// ValidationResult is the outcome of a validation.
type ValidationResult struct {
	Type        string    `json:"type" enum:"llamada,chat" doc:"llamada for a call, chat for a chat"`
	TaskUUID    string    `json:"task_uuid" format:"uuid"`
	SentTo      []string  `json:"sent_to" doc:"The e-mail's recipients: the agent (when their address is known), the campaign's supervisors and the fixed recipients, else the validator"`
	Bcc         []string  `json:"bcc" doc:"The blind copies"`
	ValidatedAt time.Time `json:"validated_at" doc:"When the validation was recorded (ISO 8601, UTC)"`
	EmailStatus string    `json:"email_status" enum:"sent,pending,failed" doc:"sent: the SMTP server accepted the e-mail (or it was written to the outbox); pending: not yet, it is being delivered in the background; failed: refused for good (only when the same validation is sent again)"`
}

// EmailSendErrorDetails are the details of EMAIL_SEND_ERROR: the
// validation is recorded whatever became of its e-mail.
type EmailSendErrorDetails struct {
	ValidationResult
	ValidationRecorded bool   `json:"validation_recorded" doc:"Always true: the task is validated"`
	WillRetry          bool   `json:"will_retry" doc:"Whether delivery is retried automatically"`
	EmailAttempts      int    `json:"email_attempts"`
	EmailError         string `json:"email_error" doc:"Why the attempt failed, as the mail server said"`
}

// ValidationRecipients is who would receive the e-mail of a validation.
type ValidationRecipients struct {
	SentTo      []string `json:"sent_to" doc:"The e-mail's recipients, as sent_to of POST /validate-audit would list them"`
	Bcc         []string `json:"bcc" doc:"The blind copies"`
	ToValidator bool     `json:"to_validator" doc:"true when nobody else has an address, so the e-mail would go to the caller alone"`
	ToAgent     bool     `json:"to_agent" doc:"true when the task's agent is among the recipients; false when the task names no agent or the agent has no usable address or was deactivated, so nobody tells them by e-mail"`
}

func (v *validationsResource) recipients(ctx context.Context, in *taskInput) (*Output[ValidationRecipients], error) {
	task, err := db.TaskGetByUUID(ctx, v.pool, in.UUID)
	if err != nil {
		return nil, err
	}
	a, err := validation.Recipients(ctx, v.deps(ctx), task, principal(ctx).User.Email)
	if err != nil {
		return nil, err
	}
	return ok(ValidationRecipients{SentTo: a.To, Bcc: a.Bcc, ToValidator: a.ToValidator, ToAgent: a.ToAgent}), nil
}

func validationResult(v db.Validation) ValidationResult {
	return ValidationResult{Type: v.Type, TaskUUID: v.TaskUUID, SentTo: nonNilStrings(v.SentTo), Bcc: nonNilStrings(v.Bcc),
		ValidatedAt: v.ValidatedAt.UTC(), EmailStatus: v.EmailStatus}
}

func (v *validationsResource) register(api huma.API) {
	o := v.opts
	op := operation(http.MethodPost, "/validate-audit", "validate-audit", "Validate an audit and e-mail its result", role.Quality,
		http.StatusBadRequest, http.StatusNotFound, http.StatusRequestTimeout, http.StatusConflict, http.StatusRequestEntityTooLarge,
		http.StatusUnsupportedMediaType, http.StatusBadGateway)
	op.Tags = []string{"tasks"}
	op.Description += fmt.Sprintf(` Send application/json or multipart/form-data with task_uuid, notes and isCall (in multipart,
true/false/1/0); in multipart every file part is attached to the e-mail (at most %d files and %s together, 413 beyond).
A body that sends nothing for %s, or takes longer than %s (%s for JSON), is 408 REQUEST_TIMEOUT.
The task must be audited (409 otherwise), and not one the caller calibrates blind (409 until they submit their
answers to the session). An audit whose verdicts still await an analyst's confirmation is 409 CONFLICT,
its details listing them (pending: criterion_id, question, complies, not_applicable when so), unless
accept_pending is true (JSON boolean, or in multipart true/false/1/0): the pending verdicts are then recorded as
the validator's (a new revision of the audit, by them) in the validation's transaction. In one transaction the validation is recorded, the task becomes validated
and the e-mail is queued; the request then waits (JOB_WAIT_TIMEOUT) for the first delivery attempt: 200 when the mail
server accepted it, 502 EMAIL_SEND_ERROR when it refused it (the validation stays recorded; details say whether delivery
is retried), 200 with email_status "pending" when the wait ran out. The e-mail goes to the agent (when their address is
known), the campaign's supervisors and VALIDATION_TO, else to the validator; VALIDATION_BCC get a blind copy. The same
request sent again answers with the recorded validation and sends nothing; a different one for a validated task is 409.
The optional x-username header names the validator in the e-mail.`, o.MaxAttachments, size(o.MaxAttachmentBytes),
		span(v.timeouts.Idle), span(v.timeouts.Total), span(bodyReadTimeout))
	huma.Register(api, op, v.validate)

	op = operation(http.MethodGet, "/tasks/{uuid}/validation-recipients", "get-validation-recipients",
		"Who would receive the e-mail of a task's validation", role.Quality, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Tags = []string{"tasks"}
	op.Description += ` The addresses POST /validate-audit would write to if the caller validated the task now: the agent
(when their address is known), the campaign's supervisors and VALIDATION_TO, else the caller; VALIDATION_BCC get a blind
copy. 409 CONFLICT when there is nobody to write to (the message says what to set).`
	huma.Register(api, op, v.recipients)

	// Documented after registering: a request body declared before would be
	// parsed by Huma, whole, before the handler runs.
	reg := api.OpenAPI().Components.Schemas
	post := api.OpenAPI().Paths["/validate-audit"].Post
	post.Parameters = append(post.Parameters, &huma.Param{Name: "x-username", In: "header",
		Description: "The validator's name as the e-mail shows it; defaults to the name in the token",
		Schema:      &huma.Schema{Type: "string", MaxLength: new(200)}})
	post.RequestBody = &huma.RequestBody{
		Required: true,
		Content: map[string]*huma.MediaType{
			"application/json": {Schema: reg.Schema(reflect.TypeFor[ValidateAuditRequest](), true, "ValidateAuditRequest")},
			"multipart/form-data": {Schema: &huma.Schema{
				Type:     "object",
				Required: slices.Clone(requiredValidationFields),
				Properties: map[string]*huma.Schema{
					"task_uuid": {Type: "string", Format: "uuid", Description: "The task whose audit is validated"},
					"notes":     {Type: "string", Description: "The validator's observations"},
					"isCall":    {Type: "string", Enum: []any{"true", "false", "1", "0"}, Description: "true for a call, false for a chat"},
					"accept_pending": {Type: "string", Enum: []any{"true", "false", "1", "0"},
						Description: "true to record the audit's pending verdicts as the validator's and validate (409 otherwise when any is pending)"},
					"attachments": {Type: "array", Description: "Files to attach to the e-mail (any other file field is attached too)",
						Items: &huma.Schema{Type: "string", Format: "binary"}},
				},
			}},
		},
	}
}

func (v *validationsResource) validate(ctx context.Context, in *streamedInput) (*Output[ValidationResult], error) {
	q := &validationRequest{v: v, seen: map[string]bool{}, blobs: intake.NewBlobs(v.store, logger(ctx))}
	defer q.blobs.Close(ctx) // the attachments' blobs, unless the validation took them
	if err := q.read(ctx, in); err != nil {
		return nil, err
	}
	if err := q.requireFields(); err != nil {
		return nil, err
	}
	task, err := db.TaskGetByUUID(ctx, v.pool, q.taskUUID)
	if err != nil {
		return nil, err
	}
	if err := notBlind(ctx, v.pool, task.UUID); err != nil {
		return nil, err
	}
	if isCall := task.Kind == db.TaskCall; *q.isCall != isCall {
		return nil, invalidBody("isCall", fmt.Sprintf("must be %t: task %s is a %s", isCall, task.UUID, task.Kind), *q.isCall)
	}
	caller := principal(ctx)
	n := db.NewValidation{TaskUUID: task.UUID, Notes: q.notes, ValidatorID: caller.User.ID,
		ValidatorName: validatorName(in.req, caller.User), IsCall: *q.isCall, Attachments: q.files, RequestHash: q.hash(),
		AcceptPending: q.acceptPending}
	deps := v.deps(ctx)
	if task.Status != pipeline.Audited {
		return again(ctx, deps, task, n)
	}
	to, err := validation.Recipients(ctx, deps, task, caller.User.Email)
	if err != nil {
		return nil, err
	}
	n.SentTo, n.Bcc = to.To, to.Bcc
	val, err := validation.Record(ctx, deps, task, n, q.blobs)
	if errors.Is(err, db.ErrTaskStatus) {
		// Validated (or changed) by another request meanwhile.
		if task, err = db.TaskGetByUUID(ctx, v.pool, task.UUID); err != nil {
			return nil, err
		}
		return again(ctx, deps, task, n)
	}
	if err != nil {
		return nil, err
	}
	waited, err := v.awaitFirstAttempt(ctx, val.TaskUUID)
	if err != nil {
		// The validation is recorded and its e-mail queued: only its
		// progress is unknown.
		logger(ctx).WarnContext(ctx, "cannot follow the validation e-mail", "task", val.TaskUUID, "error", err)
		return ok(validationResult(val)), nil
	}
	return answer(waited)
}

// deps are what the validation domain needs for a request.
func (v *validationsResource) deps(ctx context.Context) validation.Deps {
	return validation.Deps{Deps: db.Deps{Pool: v.pool, River: v.river}, Log: logger(ctx), To: v.opts.To, Bcc: v.opts.Bcc}
}

// again answers a request for a task that is not audited: the recorded
// validation when it is the same request sent again, else CONFLICT.
func again(ctx context.Context, deps validation.Deps, task db.Task, n db.NewValidation) (*Output[ValidationResult], error) {
	val, same, err := validation.Again(ctx, deps, task, n.RequestHash)
	if err != nil {
		return nil, err
	}
	if !same {
		return nil, Errorf(CodeConflict, fmt.Sprintf("task %s was validated already, by %s at %s; a validation cannot be changed",
			task.UUID, val.ValidatorName, val.ValidatedAt.UTC().Format(time.RFC3339))).
			WithDetails(validationResult(val))
	}
	// The same request again (a client retrying): nothing is sent twice.
	return ok(validationResult(val)), nil
}

// answer turns the state of a validation's e-mail after the wait into the
// response.
func answer(val db.Validation) (*Output[ValidationResult], error) {
	if val.EmailStatus == db.EmailSent || val.EmailAttempts == 0 {
		return ok(validationResult(val)), nil
	}
	d := EmailSendErrorDetails{ValidationResult: validationResult(val), ValidationRecorded: true,
		WillRetry: val.EmailStatus == db.EmailPending, EmailAttempts: val.EmailAttempts, EmailError: val.EmailError}
	msg := fmt.Sprintf("the validation is recorded, but the e-mail could not be delivered (%s); delivery will be retried automatically, and GET /tasks/%s shows its progress",
		val.EmailError, val.TaskUUID)
	if !d.WillRetry {
		msg = fmt.Sprintf("the validation is recorded, but the e-mail cannot be delivered (%s); it will not be retried, and you were notified",
			val.EmailError)
	}
	return nil, Errorf(CodeEmailSendError, msg).WithDetails(d)
}

// awaitFirstAttempt waits (bounded) until the e-mail's first delivery
// attempt is recorded on the validation, and returns the validation as it
// then is.
func (v *validationsResource) awaitFirstAttempt(ctx context.Context, taskUUID string) (db.Validation, error) {
	var val db.Validation
	err := poll(ctx, v.wait, func(ctx context.Context) (bool, error) {
		var err error
		val, err = db.ValidationGet(ctx, v.pool, taskUUID)
		return err == nil && (val.EmailAttempts > 0 || val.EmailStatus != db.EmailPending), err
	})
	if errors.Is(err, errJobWaitExpired) {
		return val, nil
	}
	return val, err
}

// validatorName is the name the e-mail gives the validator: the x-username
// header (as compute-audit-results takes it), else the user's name.
func validatorName(r *http.Request, u db.User) string {
	return cmp.Or(printable(r.Header.Get("x-username"), 200), validation.ValidatorName(u))
}

// invalidBody is a VALIDATION_ERROR about body field name.
func invalidBody(name, msg string, value any) *Error {
	if s, ok := value.(string); ok && !plainText(s) {
		value = nil // a response never echoes hidden characters back
	} else if ok && utf8.RuneCountInString(s) > 200 {
		value = string([]rune(s)[:200]) + "…"
	}
	return Errorf(CodeValidation, fmt.Sprintf("the field %q %s", name, msg)).
		WithDetail("body."+name, msg, value)
}

// hundredths refuses a number with more decimals than the two a
// percentage is stored with (numeric(5,2)): 99.999 would be kept as 100,
// and 0.001 as 0, which is not what was asked for. The decimals are those
// of the shortest text that reads back as v, which is the text sent for
// any number a float64 holds (99.9999999999 included).
func hundredths(name string, v float64) error {
	if _, frac, _ := strings.Cut(strconv.FormatFloat(v, 'f', -1, 64), "."); len(frac) > 2 {
		return invalidBody(name, "has more than two decimals; it is kept with two (for example 12.5 or 99.99)", v)
	}
	return nil
}

// validationRequest is the state of one POST /validate-audit.
type validationRequest struct {
	v *validationsResource
	// seen are the fields given so far, to refuse one given twice.
	seen     map[string]bool
	taskUUID string
	notes    string
	isCall   *bool
	// acceptPending: record the pending verdicts as the validator's.
	acceptPending bool
	// form is the multipart body, when the request is one.
	form  *formReader
	files []db.ValidationAttachment
	// blobs are the attachments' blobs.
	blobs *intake.Blobs
	total int64
}

// read reads the body: JSON, or multipart with attachments streamed to the
// blob store. No body at all leaves every field missing.
func (q *validationRequest) read(ctx context.Context, in *streamedInput) error {
	r := in.req
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	switch {
	case ct == "" && r.ContentLength == 0:
		return nil
	case err == nil && mt == "application/json":
		// Bounded in time as Huma bounds the other JSON bodies.
		return q.readJSON(in.body(maxValidationJSON, BodyTimeouts{Idle: q.v.timeouts.Idle, Total: bodyReadTimeout}))
	case err == nil && mt == "multipart/form-data" && params["boundary"] != "":
		q.form = in.form(params["boundary"], q.v.opts.MaxAttachmentBytes+validationFormOverhead, "validation", q.v.timeouts)
		return q.form.each(func(part *multipart.Part) error { return q.part(ctx, part) })
	}
	return Errorf(CodeUnsupportedMediaType, "send the fields as application/json or multipart/form-data (with attachments)")
}

func (q *validationRequest) readJSON(body io.Reader) error {
	data, err := io.ReadAll(body)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return Errorf(CodePayloadTooLarge, fmt.Sprintf("the JSON body is larger than the limit of %s", size(maxValidationJSON)))
		}
		if e, ok := timedOut(err, ""); ok {
			return e
		}
		return Errorf(CodeValidation, "the request body could not be read in full; send it again")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := strictUnmarshal(data, &raw); err != nil {
		je, _ := errors.AsType[*jsonError](err)
		return Errorf(CodeValidation, "the body is not a JSON object of the validation's fields").WithDetail(je.at, je.msg, nil)
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		value := raw[name]
		if !slices.Contains(validationFields, name) {
			return Errorf(CodeValidation, fmt.Sprintf("unknown field %q; the fields are %s", name, strings.Join(validationFields, ", "))).
				WithDetail("body."+name, humavalidation.MsgUnexpectedProperty, nil)
		}
		if string(value) == "null" {
			continue
		}
		if name == "isCall" || name == "accept_pending" {
			var b bool
			if json.Unmarshal(value, &b) != nil {
				return invalidBody(name, "must be a boolean (true or false)", value)
			}
			if name == "isCall" {
				q.isCall = &b
			} else {
				q.acceptPending = b
			}
			continue
		}
		var s string
		if json.Unmarshal(value, &s) != nil {
			return invalidBody(name, "must be a string", value)
		}
		if err := q.set(name, s); err != nil {
			return err
		}
	}
	return nil
}

// set sets text field name from its value as sent.
func (q *validationRequest) set(name, value string) error {
	if !utf8.ValidString(value) {
		return invalidBody(name, "must be UTF-8 text", nil)
	}
	v := strings.TrimSpace(value)
	switch name {
	case "task_uuid":
		if v == "" {
			return nil
		}
		if !canonicalUUIDRe.MatchString(v) {
			return invalidBody(name, "must be a UUID such as 6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90", value)
		}
		q.taskUUID = strings.ToLower(v)
	case "notes":
		notes := cleanNotes(v)
		if n := utf8.RuneCountInString(notes); n > maxNotes {
			return invalidBody(name, fmt.Sprintf("must be at most %d characters (it has %d)", maxNotes, n), nil)
		}
		q.notes = notes
	case "isCall", "accept_pending":
		var b *bool
		switch strings.ToLower(v) {
		case "":
		case "true", "1":
			b = new(true)
		case "false", "0":
			b = new(false)
		default:
			return invalidBody(name, "must be true or false (or 1 or 0)", value)
		}
		if name == "isCall" {
			q.isCall = b
		} else {
			q.acceptPending = b != nil && *b
		}
	}
	return nil
}

// cleanNotes keeps line breaks (as \n) and tabs and drops every other
// control character, then trims.
func cleanNotes(s string) string {
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, s))
}

// requireFields checks that every field was given, listing the missing ones.
func (q *validationRequest) requireFields() error {
	var missing []string
	var details []*huma.ErrorDetail
	for name, given := range map[string]bool{"task_uuid": q.taskUUID != "", "notes": q.notes != "", "isCall": q.isCall != nil} {
		if !given {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.SortFunc(missing, func(a, b string) int { return slices.Index(validationFields, a) - slices.Index(validationFields, b) })
	for _, name := range missing {
		details = append(details, &huma.ErrorDetail{Location: "body." + name, Message: "required"})
	}
	return Errorf(CodeMissingFields, "required fields are missing or empty: "+strings.Join(missing, ", ")).WithDetails(details)
}

// hash identifies the request: the task, the notes, the kind and the
// attachments' contents, in order.
func (q *validationRequest) hash() string {
	sums := make([]string, len(q.files))
	for i, f := range q.files {
		sums[i] = f.SHA256
	}
	return validation.RequestHash(q.taskUUID, q.notes, *q.isCall, sums)
}

// part reads one part: a field, or a file to attach.
func (q *validationRequest) part(ctx context.Context, part *multipart.Part) error {
	name := part.FormName()
	_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	fileName, isFile := params["filename"]
	if isFile {
		if slices.Contains(validationFields, name) {
			return Errorf(CodeValidation, fmt.Sprintf("the field %q is a file part; send it as a text field", name))
		}
		return q.attach(ctx, part, fileName)
	}
	if !slices.Contains(validationFields, name) {
		return Errorf(CodeValidation, fmt.Sprintf("unknown field %q; the fields are %s, and attachments go in file parts (curl -F attachment=@PATH)",
			name, strings.Join(validationFields, ", ")))
	}
	if q.seen[name] {
		return Errorf(CodeValidation, fmt.Sprintf("the field %q is given twice", name))
	}
	q.seen[name] = true
	b, err := io.ReadAll(io.LimitReader(part, maxValidationField+1))
	if err != nil {
		return q.form.error(err, "")
	}
	if len(b) > maxValidationField {
		return invalidBody(name, fmt.Sprintf("must be at most %d bytes", maxValidationField), nil)
	}
	return q.set(name, string(b))
}

// attach stores one file part in the blob store, hashing it on the way.
func (q *validationRequest) attach(ctx context.Context, part *multipart.Part, fileName string) error {
	o := q.v.opts
	src := bufio.NewReaderSize(part, 512)
	if _, err := src.Peek(1); fileName == "" && errors.Is(err, io.EOF) {
		// A form's file input left empty.
		return nil
	}
	name := "attachment"
	if fileName != "" {
		name = displayName(fileName)
	}
	if len(q.files) == o.MaxAttachments {
		return Errorf(CodePayloadTooLarge, fmt.Sprintf("at most %d attachments per validation; %q is one more", o.MaxAttachments, name)).
			WithDetails(map[string]any{"file": name, "limit_files": o.MaxAttachments})
	}
	blob, err := q.blobs.Put(ctx, src, o.MaxAttachmentBytes-q.total)
	switch {
	case errors.Is(err, intake.ErrTooLarge):
		return Errorf(CodePayloadTooLarge, fmt.Sprintf("the attachments are larger than the limit of %s per validation; %q goes over it",
			size(o.MaxAttachmentBytes), name)).WithDetails(map[string]any{"file": name, "limit_bytes": o.MaxAttachmentBytes})
	case errors.As(err, new(*intake.ReadError)):
		return q.form.error(err, name)
	case err != nil:
		return err
	}
	q.total += blob.Size
	q.files = append(q.files, db.ValidationAttachment{Name: name, ContentType: partContentType(part), Size: blob.Size,
		SHA256: blob.SHA256, BlobKey: blob.Key})
	return nil
}

// partContentType is a part's declared type, normalised so that it is safe
// in a MIME header; application/octet-stream when absent or unreadable.
func partContentType(part *multipart.Part) string {
	if mt, params, err := mime.ParseMediaType(part.Header.Get("Content-Type")); err == nil {
		if ct := mime.FormatMediaType(mt, params); ct != "" {
			return ct
		}
	}
	return "application/octet-stream"
}
