package intake_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/storage"
)

func TestBlobs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	store, err := storage.Open(ctx, "file://"+dir)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	blobs := intake.NewBlobs(store, slog.New(slog.DiscardHandler))

	// Within the limit: stored whole (across the pipeline's buffers), hashed.
	content := strings.Repeat("0123456789abcdef", 200_000) // 3.2 MB
	b, err := blobs.Put(ctx, strings.NewReader(content), int64(len(content)))
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(content))
	require.Equal(t, hex.EncodeToString(sum[:]), b.SHA256)
	require.Equal(t, int64(len(content)), b.Size)
	require.Equal(t, content[:len(b.Head)], string(b.Head))
	rd, err := store.Open(ctx, b.Key)
	require.NoError(t, err)
	stored, err := io.ReadAll(rd)
	rd.Close()
	require.NoError(t, err)
	require.Equal(t, content, string(stored))

	// One byte over: refused, and its blob, registered first, is discarded.
	_, err = blobs.Put(ctx, strings.NewReader("12345"), 4)
	require.ErrorIs(t, err, intake.ErrTooLarge)
	// A reader that fails: its error, as it is.
	broken := errors.New("the client went away")
	_, err = blobs.Put(ctx, iotest.ErrReader(broken), 10)
	require.ErrorIs(t, err, broken)

	// Nothing committed: Close deletes every blob the request wrote.
	blobs.Close(ctx)
	ok, err := store.Exists(ctx, b.Key)
	require.NoError(t, err)
	require.False(t, ok, "%s discarded", b.Key)
	var left []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, path)
		}
		return err
	}))
	require.Empty(t, left, "no blob is left in the store")
}
