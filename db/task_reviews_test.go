package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

// TestMigrationFillsReviewStates: migration 00030 marks reviewed the audits
// an analyst edited after the engine's last revision, by the first such
// edit, and dates the assignments made before it.
func TestMigrationFillsReviewStates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.PoolFor(t, dbtest.EmptyURL(t))
	require.NoError(t, db.MigrateSchemaTo(ctx, pool, 25))
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('qa', 'qa'), ('maria', 'maria'), ('pedro', 'pedro')`)
	require.NoError(t, err)
	var campaign string
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM campaigns WHERE name = 'default'`).Scan(&campaign))
	at := func(hour int) time.Time { return time.Date(2026, 10, 5, hour, 0, 0, 0, time.UTC) }
	score := 90.0
	revision := func(uuid string, n int, source, author string, when time.Time) {
		t.Helper()
		_, err := pool.Exec(ctx, `INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed, result,
			source, author_id, created_at) VALUES ($1, $2, 1, 90, true, '{}', $3, NULLIF($4, ''), $5)`, uuid, n, source, author, when)
		require.NoError(t, err)
		_, err = pool.Exec(ctx, `UPDATE tasks SET audit_revision = $2 WHERE uuid = $1`, uuid, n)
		require.NoError(t, err)
	}
	edited := reportTask(t, pool, campaign, "ana", at(1), &score, nil, nil)
	revision(edited, 1, "engine", "", at(2))
	revision(edited, 2, "analyst", "maria", at(3))
	revision(edited, 3, "analyst", "pedro", at(4))
	revision(edited, 4, "recompute", "", at(5))
	reaudited := reportTask(t, pool, campaign, "ana", at(1), &score, nil, nil)
	revision(reaudited, 1, "engine", "", at(2))
	revision(reaudited, 2, "analyst", "maria", at(3))
	revision(reaudited, 3, "engine", "", at(4))
	automatic := reportTask(t, pool, campaign, "ana", at(1), &score, nil, nil)
	revision(automatic, 1, "engine", "", at(2))
	queued := reportTask(t, pool, campaign, "ana", at(1), nil, nil, nil)
	_, err = pool.Exec(ctx, `UPDATE tasks SET assignee_id = 'pedro', updated_at = $2 WHERE uuid = $1`, automatic, at(6))
	require.NoError(t, err)

	require.NoError(t, db.Migrate(ctx, pool))
	get := func(uuid string) db.Task {
		t.Helper()
		task, err := db.TaskGetByUUID(ctx, pool, uuid)
		require.NoError(t, err)
		return task
	}
	task := get(edited)
	require.Equal(t, db.ReviewReviewed, task.ReviewState())
	require.Equal(t, "maria", task.ReviewedBy, "the first edit after the engine's")
	require.True(t, at(3).Equal(*task.ReviewedAt))
	require.Equal(t, db.ReviewAutomatic, get(reaudited).ReviewState(), "re-audited since")
	task = get(automatic)
	require.Equal(t, db.ReviewAutomatic, task.ReviewState())
	require.True(t, at(6).Equal(*task.AssignedAt))
	require.Nil(t, task.DueAt)
	require.Equal(t, "", get(queued).ReviewState(), "no audit yet")
	require.False(t, task.OperatorSeesAutomatic, "campaigns hide automatic audits from agents by default")
	require.True(t, task.AuditHiddenFromOperator())
}
