package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/dustin/go-humanize"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/transcript"
)

// UploadLimits bound upload requests. Zero fields take their defaults.
type UploadLimits struct {
	// MaxFileBytes caps each file (UPLOAD_MAX_FILE_BYTES). Defaults to 512 MiB.
	MaxFileBytes int64
	// MaxFiles caps the files of one request (UPLOAD_MAX_FILES). Defaults to 100.
	MaxFiles int
	// MaxRequestBytes caps a whole request (UPLOAD_MAX_REQUEST_BYTES). Defaults to 4 GiB.
	MaxRequestBytes int64
}

func (l UploadLimits) withDefaults() UploadLimits {
	if l.MaxFileBytes == 0 {
		l.MaxFileBytes = 512 << 20
	}
	if l.MaxFiles == 0 {
		l.MaxFiles = 100
	}
	if l.MaxRequestBytes == 0 {
		l.MaxRequestBytes = 4 << 30
	}
	return l
}

// maxFieldBytes caps a text field of the upload form.
const maxFieldBytes = 1 << 10

// uploadFields are the text fields of the upload form. external_id is
// customer_ref's former name.
var uploadFields = []string{"campaign", "operator", "language", "direction", "started_at", "call_id", "queue",
	"caller", "called", "customer_ref", "metadata", "external_id"}

// fieldBytes is the limit of the field name, in bytes.
func fieldBytes(name string) int {
	if name == "metadata" {
		return intake.MaxMetadataBytes
	}
	return maxFieldBytes
}

var languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// UploadedTask is the outcome of one uploaded file.
type UploadedTask struct {
	UUID      string          `json:"uuid" format:"uuid"`
	FileName  string          `json:"file_name" doc:"The file's name, without any directory"`
	Kind      string          `json:"kind" enum:"call,chat"`
	Status    pipeline.Status `json:"status" enum:"queued,transcribing,transcribed,auditing,audited,validated,failed"`
	Duplicate bool            `json:"duplicate" doc:"The same content was uploaded before: this is that earlier task"`
	Error     string          `json:"error,omitempty" doc:"Why the task failed, when it did (a duplicate of a failed task): POST /tasks/{uuid}/retry retries it"`
}

// UploadResult lists the tasks of an upload, one per file in request order.
type UploadResult struct {
	Tasks []UploadedTask `json:"tasks"`
}

// streamedInput captures the request so the handler can read (and stream)
// its body itself: with no Body field, Huma never reads (and never buffers)
// it. Its body is documented by hand after the operation is registered.
type streamedInput struct {
	req *http.Request
	w   http.ResponseWriter
}

// Resolve implements huma.Resolver.
func (in *streamedInput) Resolve(ctx huma.Context) []error {
	in.req, in.w = unwrap(ctx)
	return nil
}

func (t *tasksResource) registerUpload(api huma.API) {
	l := t.limits
	op := operation(http.MethodPost, "/tasks/upload", "upload-tasks", "Upload calls and chats", role.Quality,
		http.StatusBadRequest, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	op.DefaultStatus = http.StatusAccepted
	op.Tags = []string{"tasks"}
	op.Metadata[metaUpload] = true
	op.Description += fmt.Sprintf(` Send multipart/form-data with one or more file parts (field "files", or any field with a file name)
and optional fields. Audio (WAV, MP3, OGG/Opus, FLAC, M4A, WebM) becomes a call task, queued for transcription;
a chat transcript (a JSON list of turns {speaker, text, timestamp?}, or UTF-8 lines "Speaker: text") becomes a
chat task, already transcribed. Files are recognised by their content, never by their name; anything else is
415 UNSUPPORTED_MEDIA_TYPE naming the file. Limits: %s per file, %d files and %s per request (413 / 400);
a chat transcript of at most %s, %d turns and %d characters (413 beyond); a body that sends nothing for %s, or takes longer than %s, is 408 REQUEST_TIMEOUT. A file whose content was
uploaded before returns that task with "duplicate": true. The request is all or nothing: when any file is
refused, no task is created. Uploads have their own per-user rate limit
(RATE_LIMIT_UPLOADS a minute; 429 RATE_LIMITED with Retry-After beyond it).
Or send application/json {"url": …, and the same fields} for a platform that pushes a signed link: the service
fetches the file (http or https, at most 5 redirects, the same limits) and takes it as an uploaded file; a link
that cannot be fetched, or answers other than 2xx, is 400 VALIDATION_ERROR at body.url.`, size(l.MaxFileBytes), l.MaxFiles, size(l.MaxRequestBytes),
		size(transcript.MaxChatBytes), transcript.MaxChatTurns, transcript.MaxChatChars, span(t.timeouts.Idle), span(t.timeouts.Total))
	huma.Register(api, op, t.upload)

	// Documented after registering: a request body declared before would be
	// parsed by Huma, whole, before the handler runs.
	text := func(doc string) *huma.Schema { return &huma.Schema{Type: "string", Description: doc} }
	api.OpenAPI().Paths["/tasks/upload"].Post.RequestBody = &huma.RequestBody{
		Required: true,
		Content: map[string]*huma.MediaType{"multipart/form-data": {Schema: &huma.Schema{
			Type:     "object",
			Required: []string{"files"},
			Properties: map[string]*huma.Schema{
				"files": {Type: "array", Description: "The recordings and chat transcripts",
					Items: &huma.Schema{Type: "string", Format: "binary"}},
				"campaign": text("The campaign's name. Defaults to \"default\"."),
				"operator": text("The audited agent: a user id or username (kept as given when no user matches)."),
				"language": text("BCP 47 language of the interactions, such as \"es\". Defaults to the campaign's. A call in a " +
					"language the speech engine does not transcribe (GET /client-config lists them), given or the campaign's, is " +
					"refused (400): a call is never transcribed in a language nobody asked for."),
				"direction":  {Type: "string", Enum: []any{"inbound", "outbound"}},
				"started_at": {Type: "string", Format: "date-time", Description: "When the interactions started (RFC 3339)."},
				"call_id": text(fmt.Sprintf("The platform's id of the call or chat (at most %d characters), unique in its campaign: "+
					"with one file only. The same file uploaded again is its task, a duplicate; another file with a call_id a task of "+
					"the campaign has is 409 CONFLICT naming that task.", intake.MaxReferenceLength)),
				"queue": text("The platform's queue or skill the interaction came through."),
				"caller": text("The calling phone number: digits with an optional leading + (spaces, dots, dashes, parentheses, " +
					"tel: are left out). Personal data: shown to quality and above, deleted with the transcript (retention, erasure), " +
					"stored as [PHONE] in a campaign that redacts phone numbers."),
				"called":       text("The called phone number, as caller."),
				"customer_ref": text("The customer's reference in another system, such as a CRM id: POST /admin/erasures erases by it. Shown to quality and above."),
				"metadata": text(fmt.Sprintf("What else the platform says of the interaction, as a JSON object of at most %d keys "+
					"(each 1 to %d characters, without =) whose values are strings (at most %d characters), numbers or true/false; "+
					"%s at most. Text values are redacted as the campaign's transcripts. Shown to quality and above.",
					intake.MaxMetadataKeys, intake.MaxMetadataKeyLength, intake.MaxMetadataValueLength, size(intake.MaxMetadataBytes))),
				"external_id": {Type: "string", Deprecated: true, Description: "customer_ref's former name: the same field."},
			},
		}}},
	}
	t.documentURLUpload(api)
}

// size is a limit in bytes as people read it ("4.0 MiB").
func size(n int64) string { return humanize.IBytes(uint64(n)) }

func (t *tasksResource) upload(ctx context.Context, in *streamedInput) (*Output[UploadResult], error) {
	r := in.req
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil && mt == "application/json" {
		return t.uploadURL(ctx, in)
	}
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, Errorf(CodeUnsupportedMediaType, `send the files as multipart/form-data, or a recording's link as JSON {"url": …}`)
	}
	if r.ContentLength > t.limits.MaxRequestBytes {
		return nil, Errorf(CodePayloadTooLarge, fmt.Sprintf("the request is larger than the limit of %s per upload request",
			size(t.limits.MaxRequestBytes))).WithDetails(map[string]any{"limit_bytes": t.limits.MaxRequestBytes})
	}
	u := t.newUpload(ctx, t.limits.MaxFiles)
	defer u.upload.Close(ctx)
	u.form = in.form(params["boundary"], t.limits.MaxRequestBytes, "upload request", t.timeouts)
	if err := u.form.each(func(part *multipart.Part) error { return u.part(ctx, part) }); err != nil {
		return nil, err
	}
	if u.upload.Files() == 0 {
		return nil, Errorf(CodeMissingFields, `no file: send one or more file parts (field "files")`).
			WithDetail("body.files", "required", nil)
	}
	return u.commit(ctx)
}

// commit commits the request's files as tasks with its fields.
func (u *uploadRequest) commit(ctx context.Context) (*Output[UploadResult], error) {
	s := intake.Settings{Campaign: u.campaign, Language: u.fields["language"], Direction: u.fields["direction"],
		CustomerRef: u.fields["customer_ref"], CallID: u.fields["call_id"], Queue: u.fields["queue"],
		Caller: u.fields["caller"], Called: u.fields["called"], Metadata: u.metadata, UploadedBy: principal(ctx).User.ID}
	if s.CallID != "" && u.upload.Files() > 1 {
		msg := fmt.Sprintf("names one call or chat, and this upload has %d files: upload each with its own call_id", u.upload.Files())
		return nil, Errorf(CodeValidation, "the field \"call_id\" "+msg).WithDetail("body.call_id", msg, s.CallID)
	}
	if err := s.Check("body."); err != nil {
		return nil, err
	}
	if v := u.fields["started_at"]; v != "" {
		at, _ := time.Parse(time.RFC3339Nano, v) // checked when the field arrived
		s.StartedAt = &at
	}
	if ref := u.fields["operator"]; ref != "" {
		var err error
		if s.OperatorID, err = resolveOperator(ctx, u.t.pool, ref, "body.operator"); err != nil {
			return nil, err
		}
	}
	outcomes, err := u.upload.Commit(ctx, s)
	if err != nil {
		return nil, err
	}
	res := UploadResult{Tasks: make([]UploadedTask, len(outcomes))}
	for i, o := range outcomes {
		res.Tasks[i] = UploadedTask{UUID: o.Task.UUID, FileName: o.FileName, Kind: o.Task.Kind, Status: o.Task.Status,
			Duplicate: o.Duplicate, Error: o.Task.Error}
	}
	return accepted(res), nil
}

// newUpload starts an upload request of at most files files.
func (t *tasksResource) newUpload(ctx context.Context, files int) *uploadRequest {
	return &uploadRequest{t: t, fields: map[string]string{},
		upload: intake.New(intake.Deps{Deps: db.Deps{Pool: t.pool, River: t.river}, Store: t.store, Speech: t.speech, Log: logger(ctx)},
			intake.Limits{MaxFileBytes: t.limits.MaxFileBytes, MaxFiles: files})}
}

// uploadRequest is the state of one upload request: its text fields,
// checked as they come, and its files, handed to intake.
type uploadRequest struct {
	t      *tasksResource
	fields map[string]string
	form   *formReader
	// campaign is resolved when its field arrives.
	campaign *db.Campaign
	// metadata is read when its field arrives.
	metadata map[string]any
	upload   *intake.Upload
}

// part reads one part: a text field, checked as it comes, or a file,
// stored and recognised at once, so a bad file ends the request before the
// rest is sent.
func (u *uploadRequest) part(ctx context.Context, part *multipart.Part) error {
	if name := part.FileName(); name != "" {
		name = displayName(name)
		err := u.upload.Add(ctx, name, part)
		if _, ok := errors.AsType[*intake.ReadError](err); ok {
			return u.form.error(err, name)
		}
		return err
	}
	return u.field(ctx, part)
}

// displayName keeps only the last element of a client's file name (with
// either slash), without control characters, for display.
func displayName(name string) string {
	name = printable(path.Base(strings.ReplaceAll(name, `\`, "/")), 255)
	if name == "" || name == "." || name == ".." || name == "/" {
		return "upload"
	}
	return name
}

func (u *uploadRequest) field(ctx context.Context, part *multipart.Part) error {
	name := part.FormName()
	if name == "files" || name == "file" {
		return Errorf(CodeValidation, fmt.Sprintf("the %q part has no file name: send files as file parts (curl -F %s=@PATH)", name, name))
	}
	if !slices.Contains(uploadFields, name) {
		return Errorf(CodeValidation, fmt.Sprintf("unknown field %q; the fields are %s, and file parts", name, strings.Join(uploadFields, ", ")))
	}
	b, err := io.ReadAll(io.LimitReader(part, int64(fieldBytes(name))+1))
	if err != nil {
		return u.form.error(err, "")
	}
	return u.set(ctx, name, b)
}

// set checks the text field name's value b and keeps it; the campaign's
// is resolved at once.
func (u *uploadRequest) set(ctx context.Context, name string, b []byte) error {
	if name == "external_id" {
		name = "customer_ref" // its former name
	}
	if _, seen := u.fields[name]; seen {
		return Errorf(CodeValidation, fmt.Sprintf("the field %q is given twice (external_id is customer_ref's former name)", name))
	}
	limit := fieldBytes(name)
	invalid := func(msg string) error {
		var sent any = string(b)
		if len(b) > maxEchoedValue {
			sent = nil
		}
		return Errorf(CodeValidation, fmt.Sprintf("the field %q %s", name, msg)).WithDetail("body."+name, msg, sent)
	}
	if len(b) > limit || !utf8.Valid(b) {
		return invalid(fmt.Sprintf("must be UTF-8 text of at most %d bytes", limit))
	}
	v := strings.TrimSpace(string(b))
	if name == "metadata" && v != "" {
		u.fields[name] = v
		m, err := intake.ParseMetadata(b)
		if err != nil {
			return invalid(err.Error())
		}
		u.metadata = m
		return nil
	}
	if badText(v) {
		return invalid("must be one line of text, without NUL or other control characters")
	}
	u.fields[name] = v
	if v == "" {
		return nil
	}
	switch name {
	case "campaign":
		c, err := db.CampaignGetByName(ctx, u.t.pool, v)
		if errcode.Is(err, errcode.NotFound) {
			return invalid(fmt.Sprintf("names no campaign: %q does not exist", v))
		}
		if err != nil {
			return err
		}
		u.campaign = &c
	case "language":
		if !languageTag.MatchString(v) {
			return invalid("must be a BCP 47 language tag such as es or en-US")
		}
	case "direction":
		if v != "inbound" && v != "outbound" {
			return invalid("must be inbound or outbound")
		}
	case "started_at":
		if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
			return invalid("must be an RFC 3339 time such as 2024-05-02T10:00:00Z")
		}
	case "operator", "call_id", "queue", "customer_ref":
		if utf8.RuneCountInString(v) > intake.MaxReferenceLength {
			return invalid(fmt.Sprintf("must be at most %d characters", intake.MaxReferenceLength))
		}
	case "caller", "called":
		if _, ok := intake.PhoneNumber(v); !ok {
			return invalid("must be a phone number: digits with an optional leading + (spaces, dots, dashes, parentheses and tel: are left out); leave it out when withheld")
		}
	}
	return nil
}
