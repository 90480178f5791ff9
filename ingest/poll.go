package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"gocloud.dev/blob"
	"golang.org/x/sync/errgroup"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/intake"
)

// Defaults of a Poller.
const (
	// DefaultPerPoll is how many objects one poll of a source reads at
	// most; the next poll goes on.
	DefaultPerPoll = 500
	// DefaultParallel is how many objects one poll reads at a time.
	DefaultParallel = 4
	// MaxAttempts is how many times an object whose reading failed in
	// passing is tried before it is recorded as failed.
	MaxAttempts = 3
	// StaleClaim is how long an object's claim holds: a process that died
	// reading it leaves it to the poll after.
	StaleClaim = time.Hour
)

// Poller polls ingest sources.
type Poller struct {
	// Intake is what the objects are uploaded with.
	Intake intake.Deps
	// Limits bound each object as an upload's files are bound.
	Limits intake.Limits
	// PerPoll is how many objects one poll reads at most. Defaults to
	// DefaultPerPoll.
	PerPoll int
	// Parallel is how many objects one poll reads at a time. Defaults to
	// DefaultParallel.
	Parallel int
	// Now is the clock. Defaults to time.Now.
	Now func() time.Time
}

// Result is what one poll did.
type Result struct {
	Listed, Taken, Skipped, Failed, Retry int
	// Waiting are recordings left for a later poll, their sidecar awaited.
	Waiting int
}

// object is an object of a listing.
type object struct {
	key     string
	modTime time.Time
	size    int64
}

// Poll polls source id once: it lists the source, and reads each object
// not recorded yet (at most PerPoll), claimed first so that no other poll
// reads it too. A listing that fails is recorded on the source, and is the
// error returned; an object's failure is recorded on the object. It
// returns a NotFound error when there is no such source.
func (p *Poller) Poll(ctx context.Context, id string) (Result, error) {
	q := *p
	q.Intake.Log = p.log()
	return q.poll(ctx, id)
}

func (p *Poller) poll(ctx context.Context, id string) (Result, error) {
	var res Result
	pool := p.Intake.Pool
	src, err := db.IngestSourceGet(ctx, pool, id)
	if err != nil {
		return res, err
	}
	now := p.now()
	objects, err := p.list(ctx, src)
	if err != nil {
		if perr := db.IngestSourcePolled(ctx, pool, id, now, err.Error()); perr != nil {
			return res, perr
		}
		return res, err
	}
	if err := db.IngestSourcePolled(ctx, pool, id, now, ""); err != nil {
		return res, err
	}
	res.Listed = len(objects)
	work, err := p.plan(ctx, src, objects, now, &res)
	if err != nil {
		return res, err
	}
	outcomes := make([]string, len(work))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(p.Parallel, DefaultParallel))
	bucket, _, err := open(ctx, src)
	if err != nil {
		return res, err
	}
	defer bucket.Close()
	for i, w := range work {
		g.Go(func() error {
			var err error
			outcomes[i], err = p.take(gctx, bucket, src, w)
			return err
		})
	}
	err = g.Wait()
	for _, o := range outcomes {
		switch o {
		case db.IngestTaken:
			res.Taken++
		case db.IngestSkipped:
			res.Skipped++
		case db.IngestFailed:
			res.Failed++
		case db.IngestRetry:
			res.Retry++
		}
	}
	return res, err
}

func (p *Poller) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// ErrList is a listing of a source that failed.
var ErrList = errors.New("cannot list the source")

// list lists src's objects, without directories, hidden files (a name
// that starts with ".") and files still being written by their usual
// names (.part, .tmp, .crdownload).
func (p *Poller) list(ctx context.Context, src db.IngestSource) ([]object, error) {
	bucket, prefix, err := open(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrList, err)
	}
	defer bucket.Close()
	var out []object
	it := bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s", ErrList, listError(err))
		}
		base := path.Base(o.Key)
		if o.IsDir || strings.HasPrefix(base, ".") || hasExt(base, ".part", ".tmp", ".crdownload") {
			continue
		}
		out = append(out, object{key: o.Key, modTime: o.ModTime, size: o.Size})
	}
	slices.SortFunc(out, func(a, b object) int { return strings.Compare(a.key, b.key) })
	return out, nil
}

// listError is a listing's error as an admin reads it: the storage
// service's words, without the Go call chain before them.
func listError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "api error "); i >= 0 {
		return msg[i+len("api error "):]
	}
	return msg
}

func hasExt(name string, exts ...string) bool {
	return slices.Contains(exts, strings.ToLower(path.Ext(name)))
}

// work is an object to read, with its sidecar's key ("" for none).
type work struct {
	object
	sidecar string
}

// plan picks the objects of a listing to read now: those not recorded
// yet, but not a sidecar whose recording is there (it is read with its
// recording), nor a recording whose sidecar may still come (younger than
// the source's wait), nor a lone sidecar younger than the wait (its
// recording may still come). A lone .json older than that is read as
// what it is: a chat transcript, or a file refused.
func (p *Poller) plan(ctx context.Context, src db.IngestSource, objects []object, now time.Time, res *Result) ([]work, error) {
	byKey := make(map[string]bool, len(objects))
	recordings := map[string]bool{} // keys without extension of the objects that are not .json
	for _, o := range objects {
		byKey[o.key] = true
		if !isSidecar(o.key) {
			recordings[stem(o.key)] = true
		}
	}
	wait := time.Duration(src.SidecarWaitSeconds) * time.Second
	limit := cmp.Or(p.PerPoll, DefaultPerPoll)
	var out []work
	for chunk := range slices.Chunk(objects, 1000) {
		keys := make([]string, len(chunk))
		for i, o := range chunk {
			keys[i] = o.key
		}
		known, err := db.IngestObjectsKnown(ctx, p.Intake.Pool, src.ID, keys)
		if err != nil {
			return nil, err
		}
		for _, o := range chunk {
			young := now.Sub(o.modTime) < wait
			switch {
			case known[o.key]:
				continue
			case isSidecar(o.key) && (recordings[stem(o.key)] || young):
				continue
			case isSidecar(o.key):
				out = append(out, work{object: o})
			case byKey[stem(o.key)+".json"]:
				out = append(out, work{object: o, sidecar: stem(o.key) + ".json"})
			case young:
				res.Waiting++
				continue
			default:
				out = append(out, work{object: o})
			}
			if len(out) == limit {
				return out, nil
			}
		}
	}
	return out, nil
}

func isSidecar(key string) bool { return strings.EqualFold(path.Ext(key), ".json") }

// stem is key without its extension.
func stem(key string) string { return strings.TrimSuffix(key, path.Ext(key)) }

// take claims w and reads it, and returns what became of it ("" when
// another poll has it). Only a failure to record that is its error.
func (p *Poller) take(ctx context.Context, bucket *blob.Bucket, src db.IngestSource, w work) (string, error) {
	pool := p.Intake.Pool
	attempt, err := db.IngestObjectClaim(ctx, pool, src.ID, w.key, StaleClaim)
	if err != nil || attempt == 0 {
		return "", err
	}
	rec := db.IngestObject{Key: w.key, Sidecar: w.sidecar, SizeBytes: w.size}
	err = p.ingest(ctx, bucket, src, w, &rec)
	switch {
	case err == nil:
		return rec.Status, nil
	case refused(err):
		rec.Status, rec.Reason = db.IngestFailed, errcode.Message(err)
	case attempt >= MaxAttempts:
		rec.Status, rec.Reason = db.IngestFailed, fmt.Sprintf("gave up after %d attempts: %s", attempt, passing(err))
	default:
		rec.Status, rec.Reason = db.IngestRetry, fmt.Sprintf("attempt %d of %d failed: %s", attempt, MaxAttempts, passing(err))
	}
	if !refused(err) {
		p.log().WarnContext(ctx, "ingest: reading an object failed", "source", src.ID, "key", w.key, "attempt", attempt, "error", err)
	}
	return rec.Status, db.IngestObjectRecord(context.WithoutCancel(ctx), pool, src.ID, rec)
}

func (p *Poller) log() *slog.Logger { return cmp.Or(p.Intake.Log, slog.Default()) }

// refused reports whether err refuses the object for good: what it is
// (Invalid, TooLarge, Unsupported), never a passing failure.
func refused(err error) bool {
	return errcode.Is(err, errcode.Invalid) || errcode.Is(err, errcode.TooLarge) || errcode.Is(err, errcode.Unsupported)
}

// passing is a passing failure as an admin reads it.
func passing(err error) string {
	if re, ok := errors.AsType[*intake.ReadError](err); ok {
		return "reading it from the source: " + listError(re.Err)
	}
	if errcode.Is(err, errcode.Internal) || errcode.Is(err, errcode.Unavailable) {
		return errcode.Message(err)
	}
	return listError(err)
}

// ingest reads w (and its sidecar) and uploads it through intake, and
// records in the task's transaction what became of it (in rec).
func (p *Poller) ingest(ctx context.Context, bucket *blob.Bucket, src db.IngestSource, w work, rec *db.IngestObject) error {
	var sc Sidecar
	if w.sidecar != "" {
		b, err := readAll(ctx, bucket, w.sidecar, MaxSidecarBytes)
		if err != nil {
			return err
		}
		if sc, err = ParseSidecar(path.Base(w.sidecar), b); err != nil {
			return err
		}
	}
	s, err := p.settings(ctx, src, sc)
	if err != nil {
		return err
	}
	r, err := bucket.NewReader(ctx, w.key, nil)
	if err != nil {
		return &intake.ReadError{Err: err}
	}
	defer r.Close()
	up := intake.New(p.Intake, intake.Limits{MaxFileBytes: p.Limits.MaxFileBytes, MaxFiles: 1})
	defer up.Close(ctx)
	if err := up.Add(ctx, path.Base(w.key), r); err != nil {
		return err
	}
	_, err = up.Commit(ctx, s, func(ctx context.Context, tx pgx.Tx, out []intake.Outcome) error {
		o := out[0]
		rec.TaskUUID, rec.SHA256, rec.SizeBytes, rec.Status = o.Task.UUID, o.Task.SHA256, r.Size(), db.IngestTaken
		if o.Duplicate {
			rec.Status, rec.Reason = db.IngestSkipped, "duplicate of task "+o.Task.UUID+
				" ("+o.Task.FileName+"): the same content was taken before"
		}
		if err := db.IngestObjectRecord(ctx, tx, src.ID, *rec); err != nil {
			return err
		}
		if w.sidecar == "" {
			return nil
		}
		return db.IngestObjectSkip(ctx, tx, src.ID, w.sidecar, "sidecar of "+path.Base(w.key))
	})
	return err
}

// readAll reads key whole, refusing it beyond limit bytes.
func readAll(ctx context.Context, bucket *blob.Bucket, key string, limit int64) ([]byte, error) {
	r, err := bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, &intake.ReadError{Err: err}
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &intake.ReadError{Err: err}
	}
	return b, nil
}

// settings are what an object's upload says: the sidecar's fields, else
// the source's, else the campaign's.
func (p *Poller) settings(ctx context.Context, src db.IngestSource, sc Sidecar) (intake.Settings, error) {
	pool := p.Intake.Pool
	s := intake.Settings{Language: cmp.Or(sc.Language, src.Language), Direction: sc.Direction,
		StartedAt: sc.StartedAt, CustomerRef: sc.CustomerRef, CallID: sc.CallID, Queue: sc.Queue,
		Caller: sc.Caller, Called: sc.Called, UploadedBy: src.CreatedBy}
	if len(sc.Custom) > 0 {
		s.Metadata = sc.Custom
	}
	// The checks an upload's fields get, the sidecar's fields named.
	if err := s.Check("sidecar."); err != nil {
		return s, err
	}
	campaign := src.CampaignName
	if sc.Campaign != "" {
		campaign = sc.Campaign
	}
	if campaign != "" {
		c, err := db.CampaignGetByName(ctx, pool, campaign)
		if errcode.Is(err, errcode.NotFound) {
			where := "the source's campaign"
			if sc.Campaign != "" {
				where = "the sidecar's field \"campaign\""
			}
			return s, errcode.New(errcode.Invalid, "%s names no campaign: %q does not exist", where, campaign)
		}
		if err != nil {
			return s, err
		}
		s.Campaign = &c
	}
	if sc.Agent != "" {
		ref := sc.Agent
		if mapped, ok := src.Agents[ref]; ok {
			ref = mapped
		}
		id, err := db.UserResolve(ctx, pool, ref)
		if errcode.Is(err, errcode.Invalid) {
			return s, errcode.New(errcode.Invalid, "the sidecar's field \"agent\": %s", errcode.Message(err))
		}
		if err != nil {
			return s, err
		}
		s.OperatorID = id
	}
	return s, nil
}
