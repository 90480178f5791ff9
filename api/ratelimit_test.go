package api

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func requireLimited(t *testing.T, r response) {
	t.Helper()
	requireError(t, r, http.StatusTooManyRequests, CodeRateLimited)
	after, err := strconv.Atoi(r.Header.Get("Retry-After"))
	require.NoError(t, err, r.Header.Get("Retry-After"))
	require.Positive(t, after)
	require.Equal(t, float64(after), details(r)["retry_after_seconds"])
}

func TestRateLimitedWrites(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rateLimit: RateLimits{Writes: 3, Uploads: 1}})
	alice, bob, _ := b.users(t)
	note := func(token, text string) response {
		return b.json(t, http.MethodPost, "/notifications", token, map[string]any{"text": text, "variant": "info", "user_id": "alice"})
	}
	for i := range 3 {
		require.Equal(t, http.StatusCreated, note(alice, strconv.Itoa(i)).Status)
	}
	r := note(alice, "one too many")
	requireLimited(t, r)
	require.Contains(t, r.Body["message"], "3 a minute")
	// Every write method counts, refused ones do not reach the handler.
	requireLimited(t, b.do(t, http.MethodDelete, "/notifications", alice, nil))
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM notifications").Scan(&n))
	require.Equal(t, 3, n)

	// Reads are not limited, nor are other users.
	for range 5 {
		require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/notifications", alice, nil).Status)
	}
	require.NotEqual(t, http.StatusTooManyRequests, b.json(t, http.MethodPatch, "/notifications/00000000-0000-4000-8000-000000000000", bob, nil).Status)

	// Requests refused before authentication do not count against anyone.
	requireError(t, b.do(t, http.MethodPost, "/notifications", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
}

func TestRateLimitedUploads(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rateLimit: RateLimits{Writes: 100, Uploads: 1}})
	alice, _, root := b.users(t)
	uploaded(t, b.upload(t, alice, file("a.txt", []byte(goodChat))))
	r := b.upload(t, alice, file("b.txt", []byte(rudeChat)))
	requireLimited(t, r)
	require.Contains(t, r.Body["message"], "uploads")
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM tasks").Scan(&n))
	require.Equal(t, 1, n, "the refused upload stored nothing")
	require.Len(t, b.blobs(t), 1)
	// The upload limit is apart from the writes limit, and per user.
	require.Equal(t, http.StatusCreated, b.json(t, http.MethodPost, "/notifications", alice,
		map[string]any{"text": "x", "variant": "info", "user_id": "alice"}).Status)
	uploaded(t, b.upload(t, root, file("b.txt", []byte(rudeChat))))
}

func TestRateLimitDocumented(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, rt := range routes(t, b.server) {
		_, documented := rt.op.Responses["429"]
		switch {
		case !rt.secured():
			require.False(t, documented, rt.String())
		case rt.method == http.MethodGet:
			require.False(t, documented, rt.String())
		default:
			require.True(t, documented, rt.String())
		}
	}
}
