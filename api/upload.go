package api

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/dustin/go-humanize"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/storage"
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

const (
	// maxFieldBytes caps a text field of the upload form.
	maxFieldBytes = 1 << 10
	// copyBufferSize is the unit of the upload's writes to the blob store;
	// multipart parts yield a few KiB per read.
	copyBufferSize = 1 << 20
	// copyBuffers is how many buffers an upload's pipeline cycles through:
	// one each being read, hashed and written, and one spare.
	copyBuffers = 4
)

// uploadFields are the text fields of the upload form.
var uploadFields = []string{"campaign", "operator", "language", "direction", "started_at", "external_id"}

var languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// UploadedTask is the outcome of one uploaded file.
type UploadedTask struct {
	UUID      string `json:"uuid" format:"uuid"`
	FileName  string `json:"file_name" doc:"The file's name, without any directory"`
	Kind      string `json:"kind" enum:"call,chat"`
	Status    string `json:"status" enum:"queued,transcribing,transcribed,auditing,audited,validated,failed"`
	Duplicate bool   `json:"duplicate" doc:"The same content was uploaded before: this is that earlier task"`
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
(RATE_LIMIT_UPLOADS a minute; 429 RATE_LIMITED with Retry-After beyond it).`, size(l.MaxFileBytes), l.MaxFiles, size(l.MaxRequestBytes),
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
				"campaign":    text("The campaign's name. Defaults to \"default\"."),
				"operator":    text("The audited agent: a user id or username (kept as given when no user matches)."),
				"language":    text("BCP 47 language of the interactions, such as \"es\". Defaults to the campaign's."),
				"direction":   {Type: "string", Enum: []any{"inbound", "outbound"}},
				"started_at":  {Type: "string", Format: "date-time", Description: "When the interactions started (RFC 3339)."},
				"external_id": text("The interaction's id in another system."),
			},
		}}},
	}
}

// size is a limit in bytes as people read it ("4.0 MiB").
func size(n int64) string { return humanize.IBytes(uint64(n)) }

func (t *tasksResource) upload(ctx context.Context, in *streamedInput) (*Output[UploadResult], error) {
	r := in.req
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, Errorf(CodeUnsupportedMediaType, "send the files as multipart/form-data")
	}
	if r.ContentLength > t.limits.MaxRequestBytes {
		return nil, Errorf(CodePayloadTooLarge, fmt.Sprintf("the request is larger than the limit of %s per upload request",
			size(t.limits.MaxRequestBytes))).WithDetails(map[string]any{"limit_bytes": t.limits.MaxRequestBytes})
	}
	u := &intake{t: t, caller: principal(ctx), start: time.Now(), fields: map[string]string{}}
	committed := false
	defer func() {
		// Blobs not taken by a task: all of them on failure, the
		// duplicates' on success.
		var unused []string
		for _, f := range u.files {
			if (!committed && !u.commitUnknown) || f.duplicate {
				unused = append(unused, f.key)
			}
		}
		discardBlobs(ctx, t.store, unused)
	}()
	u.form = in.form(params["boundary"], t.limits.MaxRequestBytes, "upload request", t.timeouts)
	if err := u.form.each(func(part *multipart.Part) error { return u.part(ctx, part) }); err != nil {
		return nil, err
	}
	if len(u.files) == 0 {
		return nil, Errorf(CodeMissingFields, `no file: send one or more file parts (field "files")`).
			WithDetail("body.files", "required", nil)
	}
	res, err := u.commit(ctx)
	if err != nil {
		return nil, err
	}
	committed = true
	return accepted(res), nil
}

// intake is the state of one upload request.
type intake struct {
	t      *tasksResource
	caller Principal
	start  time.Time
	fields map[string]string
	form   *formReader
	// campaign is resolved when its field arrives.
	campaign *db.Campaign
	files    []*intakeFile
	// commitUnknown is set when the commit failed in a way that leaves its
	// outcome unknown: the blobs may be referenced, so only the sweeper,
	// which checks, may delete them.
	commitUnknown bool
	copier        copier
}

// intakeFile is one stored file of an upload.
type intakeFile struct {
	name        string
	key         string
	size        int64
	sum         string
	kind        string
	contentType string
	duration    *float64
	transcript  *transcript.Transcript
	// existing is the task that already had this content.
	existing *db.Task
	// duplicate is set when the blob turned out not to be needed.
	duplicate bool
}

// part reads one part: a text field, checked as it comes, or a file,
// stored and recognised at once, so a bad file ends the request before the
// rest is sent.
func (u *intake) part(ctx context.Context, part *multipart.Part) error {
	if name := part.FileName(); name != "" {
		return u.file(ctx, part, displayName(name))
	}
	return u.field(ctx, part)
}

// discardBlobs deletes the blobs of a request that no row refers to, even
// when the request's context has ended. What it misses, the sweeper deletes.
func discardBlobs(ctx context.Context, store *storage.Store, keys []string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for _, k := range keys {
		if err := store.Delete(cctx, k); err != nil {
			logger(ctx).WarnContext(ctx, "cannot delete a request's blob; the sweeper will", "key", k, "error", err)
		}
	}
}

// keepBlobs takes, in tx, the lock that keeps the blob sweeper out, for a
// request that wrote keys since start and is about to refer to them. A
// slow request's first blobs may have looked orphaned to the sweeper; it
// checks they are still there.
func keepBlobs(ctx context.Context, tx pgx.Tx, store *storage.Store, start time.Time, keys []string) error {
	if err := db.BlobSweepLockShared(ctx, tx); err != nil {
		return err
	}
	if time.Since(start) <= storage.OrphanAge/4 {
		return nil
	}
	for _, k := range keys {
		if ok, err := store.Exists(ctx, k); err != nil || !ok {
			return Errorf(CodeServiceUnavailable,
				fmt.Sprintf("the request took too long (%s) and its first files were cleaned up; send fewer files per request", time.Since(start).Round(time.Second)))
		}
	}
	return nil
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

// printable drops control characters (line breaks included) and invalid
// UTF-8 from s, trims it and keeps at most max characters: what a client
// sends that is shown on one line.
func printable(s string, max int) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s))
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return s
}

func (u *intake) field(ctx context.Context, part *multipart.Part) error {
	name := part.FormName()
	if name == "files" || name == "file" {
		return Errorf(CodeValidation, fmt.Sprintf("the %q part has no file name: send files as file parts (curl -F %s=@PATH)", name, name))
	}
	if !slices.Contains(uploadFields, name) {
		return Errorf(CodeValidation, fmt.Sprintf("unknown field %q; the fields are %s, and file parts", name, strings.Join(uploadFields, ", ")))
	}
	if _, seen := u.fields[name]; seen {
		return Errorf(CodeValidation, fmt.Sprintf("the field %q is given twice", name))
	}
	b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
	if err != nil {
		return u.form.error(err, "")
	}
	invalid := func(msg string) error {
		return Errorf(CodeValidation, fmt.Sprintf("the field %q %s", name, msg)).
			WithDetail("body."+name, msg, string(b))
	}
	if len(b) > maxFieldBytes || !utf8.Valid(b) {
		return invalid(fmt.Sprintf("must be UTF-8 text of at most %d bytes", maxFieldBytes))
	}
	v := strings.TrimSpace(string(b))
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
	case "operator", "external_id":
		if utf8.RuneCountInString(v) > 200 {
			return invalid("must be at most 200 characters")
		}
	}
	return nil
}

// file stores one file part in the blob store, hashing it on the way, then
// recognises it.
func (u *intake) file(ctx context.Context, part *multipart.Part, name string) error {
	l := u.t.limits
	if len(u.files) == l.MaxFiles {
		return Errorf(CodeValidation, fmt.Sprintf("at most %d files per upload request; %q is one more", l.MaxFiles, name)).
			WithDetails(map[string]any{"file": name, "limit_files": l.MaxFiles})
	}
	f := &intakeFile{name: name, key: storage.NewKey(u.start)}
	// Registered before writing, so a failure deletes it too.
	u.files = append(u.files, f)
	var head []byte
	var err error
	f.size, head, f.sum, err = u.copier.storePart(ctx, u.t.store, f.key, part, l.MaxFileBytes)
	switch {
	case errors.Is(err, errTooLarge):
		return Errorf(CodePayloadTooLarge, fmt.Sprintf("the file %q is larger than the limit of %s per file", name, size(l.MaxFileBytes))).
			WithDetails(map[string]any{"file": name, "limit_bytes": l.MaxFileBytes})
	case err != nil:
		return u.form.error(err, name)
	}
	return u.recognise(ctx, f, head)
}

// errStore marks a failure to write to the blob store, as opposed to one
// reading the request.
var errStore = errors.New("blob store")

// errTooLarge is a part longer than its limit.
var errTooLarge = errors.New("part over its limit")

// copier copies request parts to the blob store; its buffers are reused for
// every part of a request.
type copier struct {
	bufs [][]byte
}

// storePart streams src into a new blob at key, hashing it on the way, and
// keeps it only when src ends within limit bytes. It returns the bytes
// read, the first media.HeadSize of them and their hex SHA-256. A blob
// store's failure is an INTERNAL_ERROR (*Error); beyond limit, errTooLarge;
// else the error reading src.
func (c *copier) storePart(ctx context.Context, store *storage.Store, key string, src io.Reader, limit int64) (int64, []byte, string, error) {
	wctx, abandon := context.WithCancel(ctx)
	defer abandon()
	w, err := store.Create(wctx, key)
	if err != nil {
		return 0, nil, "", translate(ctx, fmt.Errorf("store %s: %w", key, err))
	}
	hash := sha256.New()
	n, head, err := c.copy(w, hash, io.LimitReader(src, limit+1))
	if err == nil && n > limit {
		err = errTooLarge
	}
	if err != nil {
		abandon()
		_ = w.Close()
		if errors.Is(err, errStore) {
			return n, head, "", translate(ctx, fmt.Errorf("store %s: %w", key, err))
		}
		return n, head, "", err
	}
	if err := w.Close(); err != nil {
		return n, head, "", translate(ctx, fmt.Errorf("store %s: %w", key, err))
	}
	return n, head, hex.EncodeToString(hash.Sum(nil)), nil
}

// copy copies src to w and to hash in a pipeline: this goroutine reads,
// one hashes and one writes, each on its own buffer, so that the three
// overlap on several cores. It returns the bytes read, the first
// media.HeadSize of them, and the first error: a reading error as it is,
// a writing error wrapping errStore.
func (c *copier) copy(w io.Writer, hash io.Writer, src io.Reader) (int64, []byte, error) {
	if c.bufs == nil {
		for range copyBuffers {
			c.bufs = append(c.bufs, make([]byte, copyBufferSize))
		}
	}
	free := make(chan []byte, len(c.bufs))
	for _, b := range c.bufs {
		free <- b
	}
	toHash := make(chan []byte, len(c.bufs))
	toWrite := make(chan []byte, len(c.bufs))
	written := make(chan error, 1)
	var failed atomic.Bool
	go func() {
		for b := range toHash {
			hash.Write(b)
			toWrite <- b
		}
		close(toWrite)
	}()
	go func() {
		var err error
		for b := range toWrite {
			if err == nil {
				if _, err = w.Write(b); err != nil {
					failed.Store(true)
				}
			}
			free <- b[:cap(b)]
		}
		written <- err
	}()

	var n int64
	var head []byte
	var rerr error
	for !failed.Load() {
		buf := <-free
		m, err := fill(src, buf)
		if head == nil {
			head = bytes.Clone(buf[:min(m, media.HeadSize)])
		}
		n += int64(m)
		toHash <- buf[:m]
		if err != nil {
			if !errors.Is(err, io.EOF) {
				rerr = err
			}
			break
		}
	}
	close(toHash)
	if werr := <-written; werr != nil {
		return n, head, fmt.Errorf("%w: %w", errStore, werr)
	}
	return n, head, rerr
}

// fill reads r into buf until buf is full or r fails; io.EOF means r ended
// cleanly (io.ReadFull would blur it with a truncated part's
// io.ErrUnexpectedEOF).
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// recognise decides what a stored file is by its content: audio by magic
// bytes and then ffprobe, else a chat transcript.
func (u *intake) recognise(ctx context.Context, f *intakeFile, head []byte) error {
	existing, err := db.TaskGetBySHA256(ctx, u.t.pool, f.sum)
	switch {
	case err == nil:
		// Accepted before: the same bytes need no second look.
		f.existing = &existing
		return nil
	case !errcode.Is(err, errcode.NotFound):
		return err
	}
	unsupported := func(reason string) error {
		return Errorf(CodeUnsupportedMediaType, fmt.Sprintf("the file %q is neither a supported recording (WAV, MP3, OGG/Opus, FLAC, M4A, WebM) nor a chat transcript: %s", f.name, reason)).
			WithDetails(map[string]any{"file": f.name, "reason": reason})
	}
	if format, ok := media.Sniff(head); ok {
		rd, err := u.t.store.Open(ctx, f.key)
		if err != nil {
			return err
		}
		defer rd.Close()
		pctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		info, err := media.ProbeReader(pctx, rd)
		if errors.Is(err, media.ErrNotAudio) {
			// ffprobe's words (with heap addresses) are for the log only.
			logger(ctx).InfoContext(ctx, "upload: unreadable audio", "file", f.name, "error", err)
			return unsupported("it looks like " + format.Name + " but its audio cannot be read: damaged, cut short, or not " + format.Name + " at all")
		}
		if err != nil {
			return err
		}
		f.kind, f.contentType = db.TaskCall, format.ContentType
		if info.Duration > 0 {
			seconds := info.Duration.Seconds()
			f.duration = &seconds
		}
		return nil
	}
	if !isText(head) {
		return unsupported("its content is not a known audio format, nor text")
	}
	if f.size > transcript.MaxChatBytes {
		return Errorf(CodePayloadTooLarge, fmt.Sprintf("the chat transcript %q is larger than the limit of %s per chat", f.name, size(transcript.MaxChatBytes))).
			WithDetails(map[string]any{"file": f.name, "limit_bytes": transcript.MaxChatBytes})
	}
	rd, err := u.t.store.Open(ctx, f.key)
	if err != nil {
		return err
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	tr, format, err := transcript.ParseChat(b)
	if errors.Is(err, transcript.ErrNotChat) {
		return unsupported(err.Error())
	}
	if tl, ok := errors.AsType[*transcript.TooLargeError](err); ok {
		return Errorf(CodePayloadTooLarge, fmt.Sprintf("the chat transcript %q is too long: %s per chat; split it", f.name, tl)).
			WithDetails(map[string]any{"file": f.name, "limit_" + tl.What: tl.Limit})
	}
	if err != nil {
		return err
	}
	f.kind, f.transcript = db.TaskChat, &tr
	f.contentType = "text/plain; charset=utf-8"
	if format == transcript.ChatJSON {
		f.contentType = "application/json"
	}
	return nil
}

// isText reports whether head could start a UTF-8 text: no NUL bytes and
// valid UTF-8, allowing a rune cut at the end of head.
func isText(head []byte) bool {
	if len(head) == 0 || bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	for i := 0; i < utf8.UTFMax && len(head) > 0; i++ {
		if utf8.Valid(head) {
			return true
		}
		head = head[:len(head)-1]
	}
	return false
}

// commit inserts every new task, its transcript (chats), its history, its
// transcription job (calls) and its event in one transaction.
func (u *intake) commit(ctx context.Context) (UploadResult, error) {
	t := u.t
	campaign := u.campaign
	if campaign == nil {
		c, err := db.CampaignGetByName(ctx, t.pool, db.DefaultCampaign)
		if err != nil {
			// The migrations create it and nothing deletes it.
			return UploadResult{}, errcode.Wrap(errcode.Internal, err, "the default campaign is missing")
		}
		campaign = &c
	}
	operator := u.fields["operator"]
	if operator != "" {
		var err error
		if operator, err = resolveOperator(ctx, t.pool, operator, "body.operator"); err != nil {
			return UploadResult{}, err
		}
	}
	language := cmp.Or(u.fields["language"], campaign.Language)
	var startedAt *time.Time
	if v := u.fields["started_at"]; v != "" {
		at, _ := time.Parse(time.RFC3339Nano, v) // checked when the field arrived
		startedAt = &at
	}

	tx, err := t.pool.Begin(ctx)
	if err != nil {
		return UploadResult{}, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
	keys := make([]string, len(u.files))
	for i, f := range u.files {
		keys[i] = f.key
	}
	if err := keepBlobs(ctx, tx, t.store, u.start, keys); err != nil {
		return UploadResult{}, err
	}
	res := UploadResult{Tasks: make([]UploadedTask, 0, len(u.files))}
	var created []db.Task
	var firstJobs []river.InsertManyParams
	for _, f := range u.files {
		task := f.existing
		if task == nil {
			status := db.TaskQueued
			if f.kind == db.TaskChat {
				status = db.TaskTranscribed
			}
			inserted, isNew, err := db.TaskInsert(ctx, tx, db.NewTask{
				UUID: uuid.NewString(), Kind: f.kind, Status: status, FileName: f.name, ContentType: f.contentType,
				SizeBytes: f.size, SHA256: f.sum, BlobKey: f.key, CampaignID: campaign.ID, OperatorID: operator,
				Language: language, Direction: u.fields["direction"], StartedAt: startedAt,
				ExternalID: u.fields["external_id"], UploadedBy: u.caller.User.ID, DurationSeconds: f.duration,
			})
			if err != nil {
				return UploadResult{}, err
			}
			task = &inserted
			if isNew {
				created = append(created, inserted)
				if f.transcript != nil {
					tr := *f.transcript
					tr.Language = language
					if err := db.TranscriptSave(ctx, tx, inserted.UUID, tr); err != nil {
						return UploadResult{}, err
					}
				}
				// A call's first step is transcription; a chat's, the audit.
				if f.kind == db.TaskCall {
					firstJobs = append(firstJobs, river.InsertManyParams{Args: jobs.TranscribeArgs{TaskUUID: inserted.UUID}})
				} else {
					firstJobs = append(firstJobs, river.InsertManyParams{Args: jobs.AuditArgs{TaskUUID: inserted.UUID}})
				}
			}
		}
		f.duplicate = task.BlobKey != f.key
		res.Tasks = append(res.Tasks, UploadedTask{UUID: task.UUID, FileName: f.name, Kind: task.Kind, Status: task.Status, Duplicate: f.duplicate})
	}
	if len(firstJobs) > 0 {
		if _, err := t.river.InsertManyTx(ctx, tx, firstJobs); err != nil {
			return UploadResult{}, err
		}
	}
	// Events last: they take the lock that orders event writers.
	for _, task := range created {
		if err := db.TaskEventInsert(ctx, tx, db.EventTaskCreated, task); err != nil {
			return UploadResult{}, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		u.commitUnknown = true
		return UploadResult{}, err
	}
	return res, nil
}
