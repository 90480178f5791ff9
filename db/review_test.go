package db_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/scoring"
)

// Assessments of the items below, as the engines give them.
var (
	sure    = scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.95}
	unsure  = scoring.Assessment{Basis: scoring.BasisAbsence, Confidence: 0.5, NeedsReview: true}
	torn    = scoring.Assessment{Basis: scoring.BasisConflict, Confidence: 0.6, NeedsReview: true}
	absent  = scoring.Assessment{Basis: scoring.BasisAbsence, Confidence: 0.9}
	analyst = scoring.Assessment{}
)

// result is an audit whose items judge the criteria of assessments (id →
// assessment), all met.
func result(version int, assessments map[string]scoring.Assessment) scoring.Result {
	r := scoring.Result{Score: 100, Passed: true, PassingScore: 85, ScorecardVersion: version}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if as, ok := assessments[id]; ok {
			r.Items = append(r.Items, scoring.Item{CriterionID: id, Category: "C", Question: id + "?", Weight: 10,
				Complies: true, Explanation: "x", Assessment: as})
		}
	}
	return r
}

// reviewFigures are a task's review_items, engine_verdicts and engine_confident.
func reviewFigures(t *testing.T, pool *pgxpool.Pool, uuid string) (review *int, engine, confident int) {
	t.Helper()
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT review_items, engine_verdicts, engine_confident
		FROM tasks WHERE uuid = $1`, uuid).Scan(&review, &engine, &confident))
	return review, engine, confident
}

func ptr[T any](v T) *T { return &v }

func TestAuditAppendKeepsTheReviewFigures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	task := b.insertTask(t, "review")
	other := b.insertTask(t, "clean")
	appendRev := func(uuid, source string, r scoring.Result) {
		t.Helper()
		require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
			_, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: uuid, Result: r, Source: source}, 0)
			return err
		}))
	}
	review, engine, confident := reviewFigures(t, b.pool, task.UUID)
	require.Equal(t, []any{(*int)(nil), 0, 0}, []any{review, engine, confident}, "nothing before the audit")

	// The engine's audit: b and c to review.
	appendRev(task.UUID, db.AuditByEngine, result(1, map[string]scoring.Assessment{"a": sure, "b": unsure, "c": torn, "d": absent}))
	appendRev(other.UUID, db.AuditByEngine, result(1, map[string]scoring.Assessment{"a": sure, "b": absent}))
	review, engine, confident = reviewFigures(t, b.pool, task.UUID)
	require.Equal(t, []any{ptr(2), 4, 2}, []any{review, engine, confident})

	// An analyst decides b: one item left to review; the engine's figures stay.
	appendRev(task.UUID, db.AuditByAnalyst, result(1, map[string]scoring.Assessment{"a": sure, "b": analyst, "c": torn, "d": absent}))
	review, engine, confident = reviewFigures(t, b.pool, task.UUID)
	require.Equal(t, []any{ptr(1), 4, 2}, []any{review, engine, confident})

	// A new scorecard drops d and adds e, which the engine judges: only e
	// is a new verdict of the engine's.
	appendRev(task.UUID, db.AuditByRecompute, result(2, map[string]scoring.Assessment{"a": sure, "b": analyst, "c": torn, "e": unsure}))
	review, engine, confident = reviewFigures(t, b.pool, task.UUID)
	require.Equal(t, []any{ptr(2), 5, 2}, []any{review, engine, confident})

	got, err := db.TaskGetByUUID(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	require.Equal(t, ptr(2), got.Summary().ReviewItems)

	names := func(needsReview bool) []string {
		tasks, err := db.TaskList(ctx, b.pool, db.TaskFilter{NeedsReview: &needsReview},
			db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 10})
		require.NoError(t, err)
		n, estimated, err := db.TaskCount(ctx, b.pool, db.TaskFilter{NeedsReview: &needsReview})
		require.NoError(t, err)
		require.False(t, estimated)
		require.EqualValues(t, len(tasks), n)
		var out []string
		for _, t := range tasks {
			out = append(out, t.FileName)
		}
		return out
	}
	b.insertTask(t, "not audited")
	require.Equal(t, []string{"review.wav"}, names(true))
	require.Equal(t, []string{"clean.wav"}, names(false))
}

// TestMigrationCountsStoredReviews: audits stored before migration 00010
// get their review figures from their items; those stored before verdicts
// carried an assessment need no review and count as nobody's.
func TestMigrationCountsStoredReviews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.PoolFor(t, dbtest.EmptyURL(t))
	require.NoError(t, db.MigrateSchemaTo(ctx, pool, 9))
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('qa', 'qa')`)
	require.NoError(t, err)
	insert := func(name string, revisions ...scoring.Result) string {
		t.Helper()
		var uuid string
		require.NoError(t, pool.QueryRow(ctx, `
			INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
				language, uploaded_by, audit_revision)
			SELECT gen_random_uuid(), 'chat', CASE WHEN $2 > 0 THEN 'audited' ELSE 'transcribed' END, $1::text, 'text/plain', 1,
				encode(sha256($1::text::bytea), 'hex'), $1::text, c.id, 'es', 'qa', NULLIF($2::int, 0)
			FROM campaigns c WHERE c.name = 'default'
			RETURNING uuid`, name, len(revisions)).Scan(&uuid))
		for i, r := range revisions {
			raw, err := json.Marshal(r)
			require.NoError(t, err)
			_, err = pool.Exec(ctx, `INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed,
				result, source) VALUES ($1, $2, $3, 100, true, $4, 'engine')`, uuid, i+1, r.ScorecardVersion, raw)
			require.NoError(t, err)
		}
		return uuid
	}
	old := insert("old", result(1, map[string]scoring.Assessment{"a": analyst, "b": analyst}),
		result(1, map[string]scoring.Assessment{"a": analyst, "b": analyst}))
	assessed := insert("assessed", result(1, map[string]scoring.Assessment{"a": sure, "b": unsure, "c": torn, "d": absent}),
		result(1, map[string]scoring.Assessment{"a": sure, "b": analyst, "c": torn, "d": absent}),
		result(2, map[string]scoring.Assessment{"a": sure, "b": analyst, "c": torn, "e": absent}))
	none := insert("none")

	require.NoError(t, db.Migrate(ctx, pool))
	review, engine, confident := reviewFigures(t, pool, old)
	require.Equal(t, []any{ptr(0), 0, 0}, []any{review, engine, confident})
	review, engine, confident = reviewFigures(t, pool, assessed)
	require.Equal(t, []any{ptr(1), 5, 3}, []any{review, engine, confident}, "a, b, c, d, then e")
	review, engine, confident = reviewFigures(t, pool, none)
	require.Equal(t, []any{(*int)(nil), 0, 0}, []any{review, engine, confident})
}
