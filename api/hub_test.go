package api

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/role"
)

// TestHubThatCannotStartRefusesStreams: a hub that cannot read where the
// events stand (here, their table is gone) refuses a new stream after a
// bounded wait, instead of holding it for ever.
func TestHubThatCannotStartRefusesStreams(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	_, err := pool.Exec(t.Context(), `ALTER TABLE events RENAME TO gone_events`)
	require.NoError(t, err)
	hub := NewHub(pool, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = hub.Run(ctx) }()
	_, _, err = hub.subscribe(t.Context(), "u1", role.Admin)
	require.ErrorIs(t, err, errHubNotStarted)
}
