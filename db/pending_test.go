package db_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/visibility"
)

// pendingCard: a polite agent's audit whose only doubt is its critical
// respect criterion.
var pendingCard = scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{
	{ID: "greeting", Category: "OPENING", Question: "Greeted?", Weight: 40, AppliesTo: scoring.Both, Rule: json.RawMessage(`{}`)},
	{ID: "respect", Category: "COMPLIANCE", Question: "Respectful?", Weight: 60, Critical: true, AppliesTo: scoring.Both, Rule: json.RawMessage(`{}`)},
}}

// scored scores the verdicts of pendingCard: greeting met, respect as
// given, pending when doubtful.
func scored(t *testing.T, respect, doubtful bool) scoring.Result {
	t.Helper()
	r := scoring.Verdict{CriterionID: "respect", Complies: respect, Explanation: "x"}
	if doubtful {
		r.Assessment = scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.55, NeedsReview: true}
	}
	res, err := scoring.Score(pendingCard, scoring.Call, []scoring.Verdict{
		{CriterionID: "greeting", Complies: true, Explanation: "x", Assessment: scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.99}}, r,
	}, 85)
	require.NoError(t, err)
	return res
}

// TestPendingAuditCountsAsPendingReview: an audit whose critical verdict is
// pending has no score nor result on its task; the dashboard, the reports,
// the list's filters and the agent's view never count it as a 0 or a fail,
// only as pending review; once decided it counts as any other.
func TestPendingAuditCountsAsPendingReview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	pending, decided := b.insertTask(t, "polite"), b.insertTask(t, "decided")
	appendRev := func(uuid string, r scoring.Result) db.Task {
		t.Helper()
		var task db.Task
		require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
			task, err = db.AuditAppendAndMove(ctx, tx, db.AuditRevision{TaskUUID: uuid, Result: r, Source: db.AuditByEngine},
				[]db.TaskChange{{From: []pipeline.Status{pipeline.Queued, pipeline.Audited}, To: pipeline.Audited}})
			return err
		}))
		return task
	}
	task := appendRev(pending.UUID, scored(t, false, true))
	appendRev(decided.UUID, scored(t, true, false))

	require.True(t, task.Pending())
	require.Nil(t, task.Score)
	require.Nil(t, task.Passed)
	require.Equal(t, []string{"respect"}, task.PendingCriteria)
	require.Equal(t, []any{ptr(0.0), ptr(100.0)}, []any{task.ScoreMin, task.ScoreMax})
	require.True(t, task.AuditHiddenFromOperator(), "agents never see pending verdicts")
	hidden := task.Summary().WithoutAudit()
	require.Nil(t, hidden.Pending)
	require.Nil(t, hidden.ScoreMin)

	f := db.StatsFilter{From: time.Now().Add(-time.Hour), To: time.Now().Add(time.Hour), TZ: "UTC"}
	check := func(pendingReview, audited, passed int64, average float64, failedRespect int64) {
		t.Helper()
		for _, folded := range []bool{false, true} {
			if folded {
				_, err := db.TaskStatsFold(ctx, b.pool)
				require.NoError(t, err)
			}
			d, err := db.StatsDashboard(ctx, b.pool, f)
			require.NoError(t, err)
			require.Equal(t, []int64{pendingReview, audited, passed}, []int64{d.PendingReview, d.Audited, d.Passed})
			require.Equal(t, average, *d.AverageScore)
			require.Equal(t, []db.OperatorAverage{{OperatorID: "op-1", Audited: audited, AverageScore: average}}, d.Operators.Top)
			var failed int64
			for _, c := range d.CriteriaFailed {
				if c.CriterionID == "respect" {
					failed = c.Failed
					require.Equal(t, audited, c.Judged, "a pending verdict is not judged yet")
				}
			}
			require.Equal(t, failedRespect, failed, "a pending verdict is not a failure")
			tr, err := db.StatsTrends(ctx, b.pool, f, db.AgentOrder{By: db.AgentsByAgent, Limit: 10})
			require.NoError(t, err)
			require.Len(t, tr.Agents, 1)
			// The period may straddle the start of a week: the agent's
			// weeks, summed, count the tasks.
			var weeks db.AgentWeek
			for _, w := range tr.Agents[0].Weeks {
				weeks.Audited += w.Audited
				weeks.Passed += w.Passed
			}
			require.Equal(t, []int64{audited, passed}, []int64{weeks.Audited, weeks.Passed})
		}
		require.Empty(t, rollupDrift(t, b.pool))
	}
	check(1, 1, 1, 100, 0)

	names := func(f db.TaskFilter) []string {
		t.Helper()
		tasks, err := db.TaskList(ctx, b.pool, f, db.TaskPage{Sort: db.TaskSortScore, Limit: 10})
		require.NoError(t, err)
		var out []string
		for _, t := range tasks {
			out = append(out, t.FileName)
		}
		return out
	}
	yes, no, zero := true, false, 0.0
	require.Equal(t, []string{"decided.wav"}, names(db.TaskFilter{Passed: &yes}))
	require.Empty(t, names(db.TaskFilter{Passed: &no}), "pending is not a fail")
	require.Equal(t, []string{"decided.wav"}, names(db.TaskFilter{MinScore: &zero}), "nor a score")
	require.Equal(t, []string{"polite.wav"}, names(db.TaskFilter{NeedsReview: &yes}))
	require.Empty(t, names(db.TaskFilter{FailedCriterion: "respect"}))
	// Where agents see automatic audits, they still do not see a pending one.
	_, err := b.pool.Exec(ctx, `UPDATE campaigns SET operator_sees_automatic = true WHERE id = $1`, b.campaign.ID)
	require.NoError(t, err)
	bob := visibility.Viewer{User: "op-1", Role: role.Operator}
	agent := db.TaskFilter{Viewer: bob, OperatorID: "op-1"}
	require.Empty(t, names(db.TaskFilter{Viewer: bob, OperatorID: "op-1", NeedsReview: &yes}))
	agent.MinScore = &zero
	require.Equal(t, []string{"decided.wav"}, names(agent))
	task, err = db.TaskGetByUUID(ctx, b.pool, pending.UUID)
	require.NoError(t, err)
	require.True(t, task.AuditHiddenFromOperator())

	// An analyst decides: not respectful after all. It now counts, as a fail.
	r := scored(t, false, false)
	task = appendRev(pending.UUID, r)
	require.False(t, task.Pending())
	require.Equal(t, ptr(0.0), task.Score)
	require.Nil(t, task.ScoreMin)
	check(0, 2, 1, 50, 1)
	require.Equal(t, []string{"polite.wav"}, names(db.TaskFilter{FailedCriterion: "respect"}))
}

// TestMigrationLeavesStoredPendingAuditsUnscored: migration 00039 finds the
// audits stored with verdicts to review (not validated) and gives them and
// their tasks what scoring.Score now says of them.
func TestMigrationLeavesStoredPendingAuditsUnscored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.PoolFor(t, dbtest.EmptyURL(t))
	require.NoError(t, db.MigrateSchemaTo(ctx, pool, 38))
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('qa', 'qa')`)
	require.NoError(t, err)
	// What the old scoring stored: the pending critical verdict zeroed it.
	legacy := scored(t, false, true)
	legacy.Score, legacy.Passed, legacy.FailedCritical, legacy.Pending, legacy.ScoreMin, legacy.ScoreMax = 0, false, []string{"respect"}, nil, nil, nil
	insert := func(name string, status pipeline.Status, r scoring.Result) string {
		t.Helper()
		raw, err := json.Marshal(r)
		require.NoError(t, err)
		var uuid string
		require.NoError(t, pool.QueryRow(ctx, `
			WITH t AS (
				INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
					language, uploaded_by, operator_id, audit_revision, score, passed, judged_criteria, failed_criteria, review_items)
				SELECT gen_random_uuid(), 'call', $2, $1::text, 'audio/wav', 1, encode(sha256($1::text::bytea), 'hex'), $1::text,
					c.id, 'es', 'qa', 'op-1', 1, 0, false, '{greeting,respect}', '{respect}', 1
				FROM campaigns c WHERE c.name = 'default' RETURNING uuid
			)
			INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed, result, source)
			SELECT uuid, 1, 1, 0, false, $3, 'engine' FROM t RETURNING task_uuid`, name, status, raw).Scan(&uuid))
		return uuid
	}
	audited, validated := insert("audited", pipeline.Audited, legacy), insert("validated", pipeline.Validated, legacy)
	_, err = db.TaskStatsFold(ctx, pool)
	require.NoError(t, err)

	require.NoError(t, db.Migrate(ctx, pool))
	task, err := db.TaskGetByUUID(ctx, pool, audited)
	require.NoError(t, err)
	want := scored(t, false, true)
	require.True(t, task.Pending())
	require.Equal(t, []any{(*float64)(nil), (*bool)(nil), want.ScoreMin, want.ScoreMax, want.Pending},
		[]any{task.Score, task.Passed, task.ScoreMin, task.ScoreMax, task.PendingCriteria})
	rev, err := db.AuditCurrent(ctx, pool, audited)
	require.NoError(t, err)
	require.Equal(t, want, rev.Result)

	task, err = db.TaskGetByUUID(ctx, pool, validated)
	require.NoError(t, err)
	require.False(t, task.Pending(), "its validator decided it")
	require.Equal(t, ptr(0.0), task.Score)
	_, err = db.TaskStatsFold(ctx, pool)
	require.NoError(t, err)
	require.Empty(t, rollupDrift(t, pool))
}
