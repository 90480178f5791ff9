package storage

import (
	"context"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
)

func TestFileStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "blobs") // created on open
	s, err := Open(ctx, "file://"+dir)
	require.NoError(t, err)
	defer s.Close()

	now := time.Date(2024, 5, 2, 23, 30, 0, 0, time.FixedZone("x", -3*3600))
	key := NewKey(now)
	require.Regexp(t, `^uploads/2024/05/03/[0-9a-f-]{36}$`, key, "dated in UTC")
	require.True(t, strings.HasPrefix(key, DayPrefix(now)))
	require.NotEqual(t, key, NewKey(now))

	w, err := s.Create(ctx, key)
	require.NoError(t, err)
	_, err = io.WriteString(w, "hello, world")
	require.NoError(t, err)
	exists, err := s.Exists(ctx, key)
	require.NoError(t, err)
	require.False(t, exists, "not there before Close")
	require.NoError(t, w.Close())

	r, err := s.Open(ctx, key)
	require.NoError(t, err)
	_, err = r.Seek(7, io.SeekStart)
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, "world", string(b))
	require.NoError(t, r.Close())

	// A cancelled write leaves nothing behind, not even a temporary file.
	wctx, cancel := context.WithCancel(ctx)
	abandoned := NewKey(now)
	w, err = s.Create(wctx, abandoned)
	require.NoError(t, err)
	_, err = io.WriteString(w, "partial")
	require.NoError(t, err)
	cancel()
	require.Error(t, w.Close())

	var listed []Object
	for o, err := range s.List(ctx, DayPrefix(now)) {
		require.NoError(t, err)
		listed = append(listed, o)
	}
	require.Len(t, listed, 1)
	require.Equal(t, key, listed[0].Key)
	require.Equal(t, int64(12), listed[0].Size)
	require.WithinDuration(t, time.Now(), listed[0].ModTime, time.Minute)

	require.NoError(t, s.Delete(ctx, key))
	require.NoError(t, s.Delete(ctx, key), "deleting twice is fine")
	_, err = s.Open(ctx, key)
	require.ErrorIs(t, err, ErrNotFound)
	entries, err := os.ReadDir(filepath.Join(dir, "uploads/2024/05/03"))
	require.NoError(t, err)
	require.Empty(t, entries, "no temporary or attribute files left")
}

func TestOpenRejectsUnknownScheme(t *testing.T) {
	t.Parallel()
	_, err := Open(context.Background(), "gopher://bucket")
	require.ErrorContains(t, err, "BLOB_URL")
}

func TestS3Store(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("recordings"))
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()

	// A MinIO-style endpoint: path-style addressing, plain HTTP.
	s, err := Open(ctx, "s3://recordings?region=us-east-1&anonymous=true&use_path_style=true&endpoint="+url.QueryEscape(srv.URL))
	require.NoError(t, err)
	defer s.Close()
	key := NewKey(time.Now())
	w, err := s.Create(ctx, key)
	require.NoError(t, err)
	_, err = io.WriteString(w, "hello, s3")
	require.NoError(t, err)
	require.NoError(t, w.Close())

	r, err := s.Open(ctx, key)
	require.NoError(t, err)
	_, err = r.Seek(7, io.SeekStart)
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.Equal(t, "s3", string(b))

	var keys []string
	for o, err := range s.List(ctx, DayPrefix(time.Now())) {
		require.NoError(t, err)
		keys = append(keys, o.Key)
	}
	require.Equal(t, []string{key}, keys)
	require.NoError(t, s.Delete(ctx, key))
	_, err = s.Open(ctx, key)
	require.ErrorIs(t, err, ErrNotFound)
}
