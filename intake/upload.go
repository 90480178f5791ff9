// Package intake decides what an uploaded file is and where it goes. It
// recognises each file of a request by its content, never by its name: a
// recording is streamed into the blob store while hashed (Blobs); a chat
// transcript, parsed whole anyway, is read into memory and stored at
// commit, redacted (package redact). It records the new tasks with their
// history, their transcript (chats) and their first job in one
// transaction; the blobs no task took are deleted.
package intake

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/transcript"
)

// Deps are what an upload writes to.
type Deps struct {
	db.Deps
	Store *storage.Store
	// Speech is what the speech engine transcribes: calls in other
	// languages are refused.
	Speech Speech
	// Log receives what a person should not see (ffprobe's words) and
	// blobs that could not be deleted.
	Log *slog.Logger
}

// Limits bound one upload request's files.
type Limits struct {
	MaxFileBytes int64
	MaxFiles     int
}

// Upload is one upload request: its files, stored and recognised as they
// arrive, then committed as tasks all together or not at all. Call Close
// when the request ends.
type Upload struct {
	deps   Deps
	limits Limits
	blobs  *Blobs
	files  []*file
}

// file is one stored file of an upload.
type file struct {
	name        string
	blob        Blob
	kind        string
	contentType string
	duration    *float64
	transcript  *transcript.Transcript
	// content is a new chat's file, held until commit: then it is stored
	// as it came or, when redaction replaced something (redactions), as
	// written from the redacted transcript, so that what was redacted is
	// never stored. blob has no key until then.
	content    []byte
	redactions []redact.Record
	// language is the task's, decided at commit.
	language string
	// existing is the task that already had this content.
	existing *db.Task
	// duplicate is set when the blob turned out not to be needed.
	duplicate bool
}

// New starts an upload.
func New(deps Deps, limits Limits) *Upload {
	return &Upload{deps: deps, limits: limits, blobs: NewBlobs(deps.Store, deps.Log)}
}

// Files counts the files added so far.
func (u *Upload) Files() int { return len(u.files) }

// Add stores the file called name, read from src, and recognises it, so a
// file that cannot be a task ends the request before the rest is sent. A
// recording is streamed to the blob store; a text file, which can only be
// a chat transcript and is parsed whole, is read into memory and stored at
// commit, once redacted. It returns an Invalid error beyond the files a
// request may hold, TooLarge beyond a file's size, Unsupported for what is
// neither a recording nor a chat transcript; an error reading src is a
// *ReadError.
func (u *Upload) Add(ctx context.Context, name string, src io.Reader) error {
	if len(u.files) == u.limits.MaxFiles {
		return errcode.New(errcode.Invalid, "at most %d files per upload request; %q is one more", u.limits.MaxFiles, name).
			With(map[string]any{"file": name, "limit_files": u.limits.MaxFiles})
	}
	f := &file{name: name}
	u.files = append(u.files, f)
	br := bufio.NewReaderSize(src, media.HeadSize)
	head, err := br.Peek(media.HeadSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return &ReadError{err}
	}
	if len(head) == 0 {
		return errcode.New(errcode.Invalid, "the file %q is empty: there is nothing to transcribe or audit; send the recording or the chat transcript itself", name).
			With(map[string]any{"file": name})
	}
	if _, audio := media.Sniff(head); !audio && isText(head) {
		return u.addText(ctx, f, br)
	}
	f.blob, err = u.blobs.Put(ctx, br, u.limits.MaxFileBytes)
	if errors.Is(err, ErrTooLarge) {
		return u.tooLarge(f)
	}
	if err != nil {
		return err
	}
	return u.recognise(ctx, f)
}

// tooLarge is the error of a file over the limit per file.
func (u *Upload) tooLarge(f *file) error {
	return errcode.New(errcode.TooLarge, "the file %q is larger than the limit of %s per file", f.name, humanize.IBytes(uint64(u.limits.MaxFileBytes))).
		With(map[string]any{"file": f.name, "limit_bytes": u.limits.MaxFileBytes})
}

// addText reads the text file f from src into memory, hashing it, and
// recognises it as a chat transcript.
func (u *Upload) addText(ctx context.Context, f *file, src io.Reader) error {
	limit := min(u.limits.MaxFileBytes, transcript.MaxChatBytes)
	b, err := io.ReadAll(io.LimitReader(src, limit+1))
	if err != nil {
		return &ReadError{err}
	}
	if int64(len(b)) > limit {
		// Which limit it is over decides the answer, as for a stored file.
		rest, err := io.Copy(io.Discard, io.LimitReader(src, max(u.limits.MaxFileBytes+1-int64(len(b)), 0)))
		if err != nil {
			return &ReadError{err}
		}
		if int64(len(b))+rest > u.limits.MaxFileBytes {
			return u.tooLarge(f)
		}
		return errcode.New(errcode.TooLarge, "the chat transcript %q is larger than the limit of %s per chat", f.name, humanize.IBytes(transcript.MaxChatBytes)).
			With(map[string]any{"file": f.name, "limit_bytes": transcript.MaxChatBytes})
	}
	sum := sha256.Sum256(b)
	f.blob = Blob{Size: int64(len(b)), Head: b[:min(len(b), media.HeadSize)], SHA256: hex.EncodeToString(sum[:])}
	if found, err := u.existing(ctx, f); found || err != nil {
		return err
	}
	f.content = b
	return u.recogniseChat(f, b)
}

// existing looks for a task with f's content and reports whether there is
// one: accepted before, the same bytes need no second look.
func (u *Upload) existing(ctx context.Context, f *file) (bool, error) {
	existing, err := db.TaskGetBySHA256(ctx, u.deps.Pool, f.blob.SHA256)
	switch {
	case err == nil:
		f.existing = &existing
		return true, nil
	case errcode.Is(err, errcode.NotFound):
		return false, nil
	}
	return false, err
}

// recognise decides what a stored file is by its content: audio by magic
// bytes and then ffprobe, else a chat transcript.
func (u *Upload) recognise(ctx context.Context, f *file) error {
	if found, err := u.existing(ctx, f); found || err != nil {
		return err
	}
	if format, ok := media.Sniff(f.blob.Head); ok {
		rd, err := u.deps.Store.Open(ctx, f.blob.Key)
		if err != nil {
			return err
		}
		defer rd.Close()
		pctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		info, err := media.ProbeReader(pctx, rd)
		if errors.Is(err, media.ErrNoAudioTrack) {
			return unsupported(f, "the file has no audio track: it is "+format.Name+" without sound; send a recording with audio")
		}
		if errors.Is(err, media.ErrNotAudio) {
			// ffprobe's words (with heap addresses) are for the log only.
			u.deps.Log.InfoContext(ctx, "upload: unreadable audio", "file", f.name, "error", err)
			return unsupported(f, "it looks like "+format.Name+" but its audio cannot be read: damaged, cut short, or not "+format.Name+" at all")
		}
		if err != nil {
			return err
		}
		f.kind, f.contentType = db.TaskCall, format.ContentType
		d := info.Duration
		if d == 0 {
			if d, err = u.measure(pctx, f); err != nil {
				return err
			}
		}
		if d > 0 {
			seconds := d.Seconds()
			f.duration = &seconds
		}
		return nil
	}
	return unsupported(f, "its content is not a known audio format, nor text")
}

// measure measures how long the stored recording f lasts, reading it again
// whole (media.MeasureReader): a pipe's probe does not tell for WAV, MP3
// and Ogg. A recording it cannot read through is unsupported, as the probe's.
func (u *Upload) measure(ctx context.Context, f *file) (time.Duration, error) {
	rd, err := u.deps.Store.Open(ctx, f.blob.Key)
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	d, err := media.MeasureReader(ctx, rd)
	if errors.Is(err, media.ErrNotAudio) {
		u.deps.Log.InfoContext(ctx, "upload: unreadable audio", "file", f.name, "error", err)
		return 0, unsupported(f, "its audio cannot be read through: damaged or cut short")
	}
	return d, err
}

// unsupported is the error of f, neither a recording nor a chat transcript.
func unsupported(f *file, reason string) error {
	return errcode.New(errcode.Unsupported, "the file %q is neither a supported recording (WAV, MP3, OGG/Opus, FLAC, M4A, WebM) nor a chat transcript: %s", f.name, reason).
		With(map[string]any{"file": f.name, "reason": reason})
}

// recogniseChat parses the text file f, whose content is b, as a chat
// transcript.
func (u *Upload) recogniseChat(f *file, b []byte) error {
	tr, format, err := transcript.ParseChat(b)
	if errors.Is(err, transcript.ErrNotChat) {
		return unsupported(f, err.Error())
	}
	if tl, ok := errors.AsType[*transcript.TooLargeError](err); ok {
		return errcode.New(errcode.TooLarge, "the chat transcript %q is too long: %s per chat; split it", f.name, tl).
			With(map[string]any{"file": f.name, "limit_" + tl.What: tl.Limit})
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

// Settings are what an upload says of all its files.
type Settings struct {
	// Campaign receives the tasks; nil for the default campaign.
	Campaign *db.Campaign
	// OperatorID is the audited agent's user id (or the reference given
	// when no user matches); "" for none.
	OperatorID string
	// Language is BCP 47; "" for the campaign's (which a call's speech
	// engine must speak: see Speech.callLanguage).
	Language  string
	Direction string
	StartedAt *time.Time
	// CustomerRef is the customer's reference in another system (a CRM's
	// id): an erasure finds their tasks by it. Personal data: quality and
	// above see it.
	CustomerRef string
	// CallID is the platform's id of the call or chat, unique per campaign:
	// an upload of one file at most. Commit refuses one another task of
	// the campaign has (Conflict) unless the file is that task's.
	CallID string
	// Queue is the platform's queue or skill.
	Queue string
	// Caller and Called are phone numbers (PhoneNumber), personal data:
	// deleted with the transcript, RedactedPhone where the campaign
	// redacts phone numbers.
	Caller, Called string
	// Metadata is what else the platform says (CheckMetadata): its text
	// values are redacted as the campaign's transcripts are.
	Metadata map[string]any
	// UploadedBy is the caller's user id.
	UploadedBy string
}

// Outcome is what became of one file: its task, new or the earlier one
// with the same content (Duplicate).
type Outcome struct {
	FileName  string
	Task      db.Task
	Duplicate bool
}

// Commit stores the new chats' files (redacted, see redact) and inserts
// every new task, its transcript (chats, redacted as the campaign says,
// with the records of what was redacted), its history, its first job (a call's
// transcription, a chat's audit) and its event in one transaction, and returns one outcome per file in the order they were
// added. Each of also runs in that transaction, last, with the outcomes:
// what another part records of the same upload (an ingest source's
// record of the object) commits with its tasks or not at all.
func (u *Upload) Commit(ctx context.Context, s Settings, also ...func(context.Context, pgx.Tx, []Outcome) error) ([]Outcome, error) {
	campaign := s.Campaign
	if campaign == nil {
		c, err := db.CampaignGetByName(ctx, u.deps.Pool, db.DefaultCampaign)
		if err != nil {
			// The migrations create it and nothing deletes it.
			return nil, errcode.Wrap(errcode.Internal, err, "the default campaign is missing")
		}
		campaign = &c
	}
	for _, f := range u.files {
		f.language = cmp.Or(s.Language, campaign.Language)
		if f.existing == nil && f.kind == db.TaskCall {
			var err error
			if f.language, err = u.deps.Speech.callLanguage(f.name, s.Language, campaign.Name, campaign.Language,
				campaign.DetectLanguage); err != nil {
				return nil, err
			}
		}
	}
	if err := s.Check(""); err != nil {
		return nil, err
	}
	redactor, err := u.redact(ctx, campaign)
	if err != nil {
		return nil, err
	}
	s = s.redacted(redactor, campaign.EffectiveRedaction().Types)
	if err := u.callTaken(ctx, campaign, s.CallID); err != nil {
		return nil, err
	}
	tx, err := u.deps.Pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
	if err := u.blobs.Keep(ctx, tx); err != nil {
		return nil, err
	}
	out := make([]Outcome, 0, len(u.files))
	var created []db.Task
	var firstJobs []river.InsertManyParams
	for _, f := range u.files {
		task := f.existing
		if task == nil {
			status := pipeline.Queued
			if f.kind == db.TaskChat {
				status = pipeline.Transcribed
			}
			inserted, isNew, err := db.TaskInsert(ctx, tx, db.NewTask{
				UUID: uuid.NewString(), Kind: f.kind, Status: status, FileName: f.name, ContentType: f.contentType,
				SizeBytes: f.blob.Size, SHA256: f.blob.SHA256, BlobKey: f.blob.Key, CampaignID: campaign.ID,
				OperatorID: s.OperatorID, Language: f.language, Direction: s.Direction, StartedAt: s.StartedAt,
				CustomerRef: s.CustomerRef, UploadedBy: s.UploadedBy, DurationSeconds: f.duration,
				CallID: s.CallID, Queue: s.Queue, Caller: s.Caller, Called: s.Called, Metadata: s.Metadata,
			})
			if err != nil {
				return nil, err
			}
			task = &inserted
			if isNew {
				created = append(created, inserted)
				if f.transcript != nil {
					tr := *f.transcript
					tr.Language = f.language
					if err := db.TranscriptSave(ctx, tx, inserted.UUID, tr); err != nil {
						return nil, err
					}
					if len(f.redactions) > 0 {
						if err := db.RedactionsSave(ctx, tx, inserted.UUID, f.redactions); err != nil {
							return nil, err
						}
					}
				}
				if f.kind == db.TaskCall {
					firstJobs = append(firstJobs, river.InsertManyParams{Args: jobs.TranscribeArgs{TaskUUID: inserted.UUID}})
				} else {
					firstJobs = append(firstJobs, river.InsertManyParams{Args: jobs.AuditArgs{TaskUUID: inserted.UUID}})
				}
			}
		}
		f.duplicate = task.BlobKey != f.blob.Key
		out = append(out, Outcome{FileName: f.name, Task: *task, Duplicate: f.duplicate})
	}
	if len(firstJobs) > 0 {
		if _, err := u.deps.River.InsertManyTx(ctx, tx, firstJobs); err != nil {
			return nil, err
		}
	}
	events := make([]db.EventNew, len(created))
	for i, task := range created {
		events[i] = db.TaskEvent(db.EventTaskCreated, task)
	}
	if err := db.EventsInsert(ctx, tx, events...); err != nil {
		return nil, err
	}
	for _, f := range also {
		if err := f(ctx, tx, out); err != nil {
			return nil, err
		}
	}
	if err := u.blobs.Commit(ctx, tx); err != nil {
		return nil, err
	}
	return out, nil
}

// redact redacts the new chats' transcripts as campaign says and stores
// their files: as uploaded, or, for a chat where something was redacted,
// as written from the redacted transcript (JSON turns), so that what was
// redacted is never stored. The file keeps the upload's hash, which finds
// the same file uploaded again. It returns the campaign's redactor.
func (u *Upload) redact(ctx context.Context, campaign *db.Campaign) (*redact.Redactor, error) {
	redactor, err := redact.New(campaign.EffectiveRedaction())
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "campaign "+campaign.Name+": its stored redaction settings are not valid")
	}
	for _, f := range u.files {
		if f.content == nil {
			continue
		}
		tr, recs := redactor.Transcript(*f.transcript)
		f.transcript, f.redactions = &tr, recs
		content := f.content
		if len(recs) > 0 {
			if content, err = transcript.MarshalChat(tr); err != nil {
				return nil, err
			}
			f.contentType = "application/json"
		}
		stored, err := u.blobs.Put(ctx, bytes.NewReader(content), int64(len(content)))
		if err != nil {
			return nil, err
		}
		f.blob.Key, f.blob.Size, f.content = stored.Key, stored.Size, nil
	}
	return redactor, nil
}

// callTaken returns an error when the upload may not have the call id
// callID ("" for none) in campaign: an Invalid one for an upload of more
// than one file (an id names one interaction), a Conflict naming the task
// of the campaign that has it, unless the file is that task's (then it is
// a duplicate, as any content uploaded again).
func (u *Upload) callTaken(ctx context.Context, campaign *db.Campaign, callID string) error {
	if callID == "" {
		return nil
	}
	if len(u.files) > 1 {
		return errcode.New(errcode.Invalid, "call_id names one call or chat, and this upload has %d files: upload each with its own call_id", len(u.files)).
			WithProblems(errcode.Problem{Location: "call_id", Message: "names one interaction; send one file", Value: callID})
	}
	if f := u.files[0]; f.existing != nil {
		return nil
	}
	task, err := db.TaskGetByCallID(ctx, u.deps.Pool, campaign.ID, callID)
	if errcode.Is(err, errcode.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return errcode.New(errcode.Conflict, "the call id %q is task %s's in campaign %s, uploaded from %q with other content: "+
		"a call is uploaded once; to replace it, ask an admin", callID, task.UUID, campaign.Name, task.FileName).
		With(map[string]any{"call_id": callID, "task_uuid": task.UUID, "campaign": campaign.Name, "file": u.files[0].name})
}

// Close deletes the blobs no task took: all of them when the upload was
// not committed, the duplicates' when it was; none when the outcome of a
// commit is unknown.
func (u *Upload) Close(ctx context.Context) {
	var duplicates []string
	for _, f := range u.files {
		if f.duplicate && f.blob.Key != "" {
			duplicates = append(duplicates, f.blob.Key)
		}
	}
	u.blobs.Close(ctx, duplicates...)
}
