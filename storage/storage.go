// Package storage keeps uploaded files in a blob store (gocloud.dev/blob):
// a directory (file://) or an S3-compatible bucket (s3://, AWS or MinIO).
// Keys are generated, never taken from file names.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"time"

	"github.com/google/uuid"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// URLs
	_ "gocloud.dev/blob/s3blob"   // s3:// URLs
	"gocloud.dev/gcerrors"
)

// OrphanAge is how long a blob may exist without a task referring to it
// before the sweeper deletes it. An upload writes its blobs before the
// transaction that inserts their tasks, so this must exceed any upload.
const OrphanAge = time.Hour

// uploadsPrefix is where uploads go: uploads/YYYY/MM/DD/<uuid>.
const uploadsPrefix = "uploads/"

// ErrNotFound is returned when a key does not exist in the store.
var ErrNotFound = errors.New("blob not found")

// Store is a blob store.
type Store struct {
	bucket *blob.Bucket
}

// Open opens the store at rawURL (BLOB_URL). A file:// directory is created
// when missing; its temporary files are written beside the final ones, so
// that committing a blob is a rename on the same file system (never a copy
// out of a RAM-backed /tmp); and no attribute files are kept beside the
// blobs (the database has what matters, and their MD5 costs as much as
// the upload's SHA-256). Each can be overridden in the URL. It returns an
// error naming BLOB_URL when the URL is not usable.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("BLOB_URL: %w", err)
	}
	if u.Scheme == "file" {
		q := u.Query()
		for p, v := range map[string]string{"create_dir": "true", "no_tmp_dir": "true", "metadata": "skip"} {
			if !q.Has(p) {
				q.Set(p, v)
			}
		}
		u.RawQuery = q.Encode()
	}
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("BLOB_URL: %w", err)
	}
	return &Store{bucket: b}, nil
}

// Close releases the store.
func (s *Store) Close() error { return s.bucket.Close() }

// NewKey returns a fresh key for an upload made at now.
func NewKey(now time.Time) string {
	return DayPrefix(now) + uuid.NewString()
}

// DayPrefix is the prefix of the keys NewKey makes on day's UTC date.
func DayPrefix(day time.Time) string {
	return uploadsPrefix + day.UTC().Format("2006/01/02/")
}

// Create returns a writer for key. The blob exists only once Close returns
// nil; cancelling ctx before that abandons it.
func (s *Store) Create(ctx context.Context, key string) (*blob.Writer, error) {
	// A content type stops the library from buffering the head to sniff
	// one; the type that matters is the task's, kept in the database.
	return s.bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: "application/octet-stream"})
}

// Open returns a seekable reader of key, or ErrNotFound.
func (s *Store) Open(ctx context.Context, key string) (*blob.Reader, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return r, err
}

// Exists reports whether key exists.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	return s.bucket.Exists(ctx, key)
}

// Delete removes key; a key that does not exist is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.bucket.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return err
}

// Object is a stored blob as a listing shows it.
type Object struct {
	Key     string
	ModTime time.Time
	Size    int64
}

// List yields the blobs whose keys start with prefix. A listing error ends
// the sequence with that error.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[Object, error] {
	return func(yield func(Object, error) bool) {
		it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
		for {
			o, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(Object{}, err)
				return
			}
			if o.IsDir {
				continue
			}
			if !yield(Object{Key: o.Key, ModTime: o.ModTime, Size: o.Size}, nil) {
				return
			}
		}
	}
}
