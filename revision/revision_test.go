package revision_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
)

type testBundle struct {
	pool   *pgxpool.Pool
	river  *river.Client[pgx.Tx]
	task   db.Task
	card   db.Scorecard
	deps   revision.Deps
	judged [][]string
}

// setup stores an audited chat whose engine revision meets every
// criterion of the default campaign's scorecard.
func setup(t *testing.T) *testBundle {
	t.Helper()
	ctx := context.Background()
	pool, campaign := dbtest.ForTasks(t)
	b := &testBundle{pool: pool}
	var err error
	b.river, err = river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	b.card, err = db.ScorecardCurrent(ctx, pool, campaign.ID)
	require.NoError(t, err)
	n := db.NewTask{UUID: uuid.NewString(), Kind: db.TaskChat, Status: pipeline.Queued, FileName: "chat.txt",
		ContentType: "text/plain", SHA256: strings.Repeat("a", 64), CampaignID: campaign.ID, UploadedBy: "qa", Language: "es"}
	var verdicts []scoring.Verdict
	for _, c := range b.card.Applicable(db.TaskChat) {
		verdicts = append(verdicts, scoring.Verdict{CriterionID: c.ID, Complies: true, Explanation: "ok",
			Assessment: scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.99}})
	}
	result, err := scoring.Score(b.card.Scorecard, db.TaskChat, verdicts, campaign.PassingScore)
	require.NoError(t, err)
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, _, err := db.TaskInsert(ctx, tx, n); err != nil {
			return err
		}
		if _, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: n.UUID, Result: result, Source: db.AuditByEngine, Engine: "rules"}, 0); err != nil {
			return err
		}
		_, err := db.TaskTransition(ctx, tx, n.UUID, db.TaskChange{To: pipeline.Audited})
		return err
	}))
	b.task, err = db.TaskGetByUUID(ctx, pool, n.UUID)
	require.NoError(t, err)
	b.deps = revision.Deps{Deps: db.Deps{Pool: pool},
		Current: func(ctx context.Context, q db.DBTX, task db.Task) (db.Campaign, db.Scorecard, error) {
			c, err := db.CampaignGet(ctx, q, task.CampaignID)
			return c, b.card, err
		},
		Judge: func(_ context.Context, _ db.Task, _ db.Campaign, _ db.Scorecard, missing []string) (map[string]scoring.Verdict, error) {
			b.judged = append(b.judged, missing)
			return map[string]scoring.Verdict{}, nil
		},
		Language: func(task db.Task, _ db.Campaign) string { return task.Language },
	}
	return b
}

// record records an edit of b's task by qa, based on revision base,
// reversing the first criterion.
func (b *testBundle) record(t *testing.T, base int) (db.AuditEdit, error) {
	t.Helper()
	var edit db.AuditEdit
	err := pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) (err error) {
		edit, _, err = revision.Record(context.Background(), tx, b.river, db.AuditEdit{TaskUUID: b.task.UUID, BasedOn: base,
			Verdicts: []scoring.Verdict{{CriterionID: b.card.Applicable(db.TaskChat)[0].ID, Complies: false, Explanation: "no"}},
			AuthorID: "qa", AuthorName: "Quinn"})
		return err
	})
	return edit, err
}

// TestRecordAndApply: an edit is recorded with its job, refused when based
// on a revision that is not current; applied, it is the next revision,
// scored without running the engine, and it reviews the audit.
func TestRecordAndApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)

	_, err := b.record(t, 2)
	require.True(t, errcode.Is(err, errcode.Conflict), "%v", err)
	require.Equal(t, map[string]any{"current_revision": 1}, err.(*errcode.Error).Details)

	edit, err := b.record(t, 1)
	require.NoError(t, err)
	require.Equal(t, db.EditPending, edit.Status)
	var queued int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'recompute_audit'
		AND (args->>'edit_id')::bigint = $1`, edit.ID).Scan(&queued))
	require.Equal(t, 1, queued, "the job is queued with the edit")

	require.NoError(t, revision.Apply(ctx, b.deps, edit))
	require.Empty(t, b.judged, "nothing was missing: no engine ran")
	applied, err := db.AuditEditGet(ctx, b.pool, edit.ID)
	require.NoError(t, err)
	require.Equal(t, db.EditApplied, applied.Status)
	require.Equal(t, 2, applied.Revision)
	task, err := db.TaskGetByUUID(ctx, b.pool, b.task.UUID)
	require.NoError(t, err)
	require.Equal(t, 2, *task.AuditRevision)
	require.Equal(t, "qa", task.ReviewedBy, "an analyst's edit reviews the audit")
	require.NotNil(t, task.ReviewedAt)
	rev, err := db.AuditCurrent(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	require.Equal(t, db.AuditByAnalyst, rev.Source)
	require.False(t, rev.Result.Verdicts()[edit.Verdicts[0].CriterionID].Complies)

	require.NoError(t, revision.Apply(ctx, b.deps, edit), "an edit is applied once")
	task, err = db.TaskGetByUUID(ctx, b.pool, b.task.UUID)
	require.NoError(t, err)
	require.Equal(t, 2, *task.AuditRevision)
}

// TestApplyRejectsAStaleEdit: of two edits based on the same revision, the
// second is rejected with the reason, and its author told.
func TestApplyRejectsAStaleEdit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	first, err := b.record(t, 1)
	require.NoError(t, err)
	second, err := b.record(t, 1)
	require.NoError(t, err)
	require.NoError(t, revision.Apply(ctx, b.deps, second), "applies the first, then rejects the second")
	for id, want := range map[int64]string{first.ID: db.EditApplied, second.ID: db.EditRejected} {
		e, err := db.AuditEditGet(ctx, b.pool, id)
		require.NoError(t, err)
		require.Equal(t, want, e.Status)
	}
	e, err := db.AuditEditGet(ctx, b.pool, second.ID)
	require.NoError(t, err)
	require.Contains(t, e.Error, "based on revision 1 of the audit, but revision 2 is current")
	var told int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE user_id = 'qa' AND variant = 'warning'
		AND text LIKE 'Your edit of chat.txt was not applied: %'`).Scan(&told))
	require.Equal(t, 1, told, "the author is told")
}
