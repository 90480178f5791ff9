package intake

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/storage"
)

const (
	// copyBufferSize is the unit of a request's writes to the blob store;
	// multipart parts yield a few KiB per read.
	copyBufferSize = 1 << 20
	// copyBuffers is how many buffers a request's pipeline cycles through:
	// one each being read, hashed and written, and one spare.
	copyBuffers = 4
)

// ErrTooLarge is a file longer than its limit; its blob is not kept.
var ErrTooLarge = errors.New("file over its limit")

// ReadError is a failure to read a file from its source (the request):
// the client's doing, or its connection's, never the service's.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return "reading the file: " + e.Err.Error() }

// Unwrap returns the reader's error.
func (e *ReadError) Unwrap() error { return e.Err }

// errStore marks a failure to write to the blob store, as opposed to one
// reading the request.
var errStore = errors.New("blob store")

// Blobs are the blobs one request writes. They belong to nobody until a
// row that refers to them commits, in a transaction that called Keep and
// ends with Commit; Close then deletes those no row took, and the sweeper
// any it missed.
type Blobs struct {
	store *storage.Store
	log   *slog.Logger
	start time.Time
	keys  []string
	bufs  [][]byte
	// committed is set once the rows that refer to the blobs are stored;
	// unknown when a commit failed in a way that leaves its outcome
	// unknown (the blobs may be referenced, so only the sweeper, which
	// checks, may delete them).
	committed, unknown bool
}

// NewBlobs starts the blobs of a request that begins now.
func NewBlobs(store *storage.Store, log *slog.Logger) *Blobs {
	return &Blobs{store: store, log: log, start: time.Now()}
}

// Blob is one stored file.
type Blob struct {
	Key  string
	Size int64
	// Head is the first media.HeadSize bytes.
	Head []byte
	// SHA256 is the hex SHA-256 of the content.
	SHA256 string
}

// Put streams src into a new blob, hashing it on the way, and keeps it
// only when src ends within limit bytes. The blob is registered before
// anything is written, so Discard deletes it whatever happens. Beyond
// limit it returns ErrTooLarge; a blob store's failure is an Internal
// error; an error reading src is a *ReadError.
func (b *Blobs) Put(ctx context.Context, src io.Reader, limit int64) (Blob, error) {
	key := storage.NewKey(b.start)
	b.keys = append(b.keys, key)
	wctx, abandon := context.WithCancel(ctx)
	defer abandon()
	w, err := b.store.Create(wctx, key)
	if err != nil {
		return Blob{}, errcode.Wrap(errcode.Internal, err, "store "+key)
	}
	hash := sha256.New()
	n, head, err := b.copy(w, hash, io.LimitReader(src, limit+1))
	if err == nil && n > limit {
		err = ErrTooLarge
	}
	if err != nil {
		abandon()
		_ = w.Close()
		switch {
		case errors.Is(err, errStore):
			return Blob{}, errcode.Wrap(errcode.Internal, err, "store "+key)
		case errors.Is(err, ErrTooLarge):
			return Blob{}, err
		}
		return Blob{}, &ReadError{err}
	}
	if err := w.Close(); err != nil {
		return Blob{}, errcode.Wrap(errcode.Internal, err, "store "+key)
	}
	return Blob{Key: key, Size: n, Head: head, SHA256: hex.EncodeToString(hash.Sum(nil))}, nil
}

// copy copies src to w and to hash in a pipeline: this goroutine reads,
// one hashes and one writes, each on its own buffer (reused for every blob
// of the request), so that the three overlap on several cores. It returns
// the bytes read, the first media.HeadSize of them, and the first error: a
// reading error as it is, a writing error wrapping errStore.
func (b *Blobs) copy(w io.Writer, hash io.Writer, src io.Reader) (int64, []byte, error) {
	if b.bufs == nil {
		for range copyBuffers {
			b.bufs = append(b.bufs, make([]byte, copyBufferSize))
		}
	}
	free := make(chan []byte, len(b.bufs))
	for _, buf := range b.bufs {
		free <- buf
	}
	toHash := make(chan []byte, len(b.bufs))
	toWrite := make(chan []byte, len(b.bufs))
	written := make(chan error, 1)
	var failed atomic.Bool
	go func() {
		for buf := range toHash {
			hash.Write(buf)
			toWrite <- buf
		}
		close(toWrite)
	}()
	go func() {
		var err error
		for buf := range toWrite {
			if err == nil {
				if _, err = w.Write(buf); err != nil {
					failed.Store(true)
				}
			}
			free <- buf[:cap(buf)]
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

// Keep takes, in tx, the lock that keeps the blob sweeper out, for rows
// about to refer to the blobs. A slow request's first blobs may have looked
// orphaned to the sweeper: Keep checks they are still there, and is an
// Unavailable error when they are not.
func (b *Blobs) Keep(ctx context.Context, tx pgx.Tx) error {
	if len(b.keys) == 0 {
		return nil
	}
	if err := db.BlobSweepLockShared(ctx, tx); err != nil {
		return err
	}
	if time.Since(b.start) <= storage.OrphanAge/4 {
		return nil
	}
	for _, k := range b.keys {
		if ok, err := b.store.Exists(ctx, k); err != nil || !ok {
			return errcode.New(errcode.Unavailable,
				"the request took too long (%s) and its first files were cleaned up; send fewer files per request", time.Since(b.start).Round(time.Second))
		}
	}
	return nil
}

// Commit commits tx, the transaction that called Keep, and records its
// outcome for Close.
func (b *Blobs) Commit(ctx context.Context, tx pgx.Tx) error {
	if err := tx.Commit(ctx); err != nil {
		b.unknown = true
		return err
	}
	b.committed = true
	return nil
}

// Close ends the request's hold on its blobs, even when ctx has ended: it
// deletes every blob when nothing was committed, only unused (blobs no row
// took) when it was, and none when the commit's outcome is unknown. What it
// misses, the sweeper deletes.
func (b *Blobs) Close(ctx context.Context, unused ...string) {
	switch {
	case b.unknown:
		return
	case !b.committed:
		unused = b.keys
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	for _, k := range unused {
		if err := b.store.Delete(cctx, k); err != nil {
			b.log.WarnContext(ctx, "cannot delete a request's blob; the sweeper will", "key", k, "error", err)
		}
	}
}
