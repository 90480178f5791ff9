package sampling_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/sampling"
)

type testBundle struct {
	pool     *pgxpool.Pool
	campaign db.Campaign
	now      time.Time
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	pool, campaign := dbtest.ForTasks(t)
	_, err := pool.Exec(context.Background(), `INSERT INTO users (id, username, roles) VALUES
		('ana', 'ana', '{quality}'), ('beto', 'beto', '{quality}'), ('sue', 'sue', '{supervisor,quality}'),
		('bob', 'bob', '{operator}'), ('cid', 'cid', '{operator}')`)
	require.NoError(t, err)
	return &testBundle{pool: pool, campaign: campaign, now: time.Now()}
}

// task inserts an audited chat of agent op, audited at audited, whose
// audit failed a critical criterion when critical is set and has items
// that need review when review is set, and returns its id.
func (b *testBundle) task(t *testing.T, op string, audited time.Time, critical, review bool) string {
	t.Helper()
	var uuid string
	require.NoError(t, b.pool.QueryRow(context.Background(), `
		WITH t AS (
			INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
				operator_id, language, uploaded_by, score, passed, audited_at, audit_revision, review_items)
			SELECT gen_random_uuid(), 'chat', 'audited', 'f', 'text/plain', 1, encode(sha256(gen_random_uuid()::text::bytea), 'hex'),
				gen_random_uuid()::text, $1, NULLIF($2, ''), 'es', 'qa', 90, true, $3, 1, CASE WHEN $5 THEN 1 ELSE 0 END
			RETURNING uuid
		), r AS (
			INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed, result, source, engine)
			SELECT uuid, 1, 1, 90, true, jsonb_build_object('items', jsonb_build_array(
				jsonb_build_object('criterion_id', 'c', 'critical', $4::bool, 'complies', false))), 'engine', 'rules' FROM t
		)
		SELECT uuid FROM t`, b.campaign.ID, op, audited, critical, review).Scan(&uuid))
	return uuid
}

func (b *testBundle) rule(t *testing.T, f db.SamplingRuleFields) db.SamplingRule {
	t.Helper()
	if f.Period == "" {
		f.Period = "week"
	}
	if f.Strategy == "" {
		f.Strategy = db.AssignRoundRobin
	}
	f.Name, f.DueDays, f.Enabled = f.Kind, 3, true
	r, err := db.SamplingRuleCreate(context.Background(), b.pool, b.campaign.ID, "sue", f)
	require.NoError(t, err)
	return r
}

func (b *testBundle) run(t *testing.T) int {
	t.Helper()
	n, err := sampling.Run(context.Background(), b.pool, b.campaign.ID, b.now)
	require.NoError(t, err)
	return n
}

// assignees returns who each of uuids is assigned to ("" for nobody).
func (b *testBundle) assignees(t *testing.T, uuids ...string) []string {
	t.Helper()
	out := make([]string, len(uuids))
	for i, u := range uuids {
		task, err := db.TaskGetByUUID(context.Background(), b.pool, u)
		require.NoError(t, err)
		out[i] = task.AssigneeID
	}
	return out
}

func TestPerAgentCountsEachAgentsPeriodOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	n := 2
	b.rule(t, db.SamplingRuleFields{Kind: db.SamplePerAgent, PerAgent: &n, Period: "day"})
	today := b.now.Add(-time.Minute)
	bob := []string{b.task(t, "bob", today, false, false), b.task(t, "bob", today, false, false), b.task(t, "bob", today, false, false)}
	cid := b.task(t, "cid", today, false, false)
	nobody := b.task(t, "", today, false, false)
	// Before the rule's period: never looked at.
	old := b.task(t, "bob", today.AddDate(0, 0, -3), false, false)

	require.Equal(t, 3, b.run(t))
	got := b.assignees(t, append(bob, cid, nobody, old)...)
	picked := 0
	for _, a := range got[:3] {
		if a != "" {
			picked++
		}
	}
	require.Equal(t, 2, picked, "two of bob's: %v", got)
	require.NotEmpty(t, got[3], "cid's one")
	require.Equal(t, []string{"", ""}, got[4:], "a task without an agent, and one before the rule")
	// In turn, the supervisor left out of the default pool.
	counts := map[string]int{}
	for _, a := range got {
		if a != "" {
			counts[a]++
		}
	}
	require.Equal(t, map[string]int{"ana": 2, "beto": 1}, counts)

	// Nothing twice, and nothing more for bob today.
	require.Equal(t, 0, b.run(t))
	b.task(t, "bob", today, false, false)
	require.Equal(t, 0, b.run(t))
	// Round robin goes on from where it stopped: beto.
	fresh := b.task(t, "cid", today, false, false)
	require.Equal(t, 1, b.run(t))
	require.Equal(t, []string{"beto"}, b.assignees(t, fresh))

	// A due date, an open assignment and a notification.
	task, err := db.TaskGetByUUID(context.Background(), b.pool, fresh)
	require.NoError(t, err)
	require.WithinDuration(t, b.now.Add(72*time.Hour), *task.DueAt, time.Second)
	require.NotNil(t, task.AssignedAt)
	require.Equal(t, db.ReviewAutomatic, task.ReviewState())
	var notes int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications WHERE user_id = 'beto'`).Scan(&notes))
	require.Equal(t, 2, notes, "one a run that gave beto work")
}

func TestKindsAndLoad(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := b.now.Add(-time.Minute)
	// Ana has three open assignments already.
	for range 3 {
		_, err := db.TaskAssign(context.Background(), b.pool, b.task(t, "cid", now, false, false), "ana", nil)
		require.NoError(t, err)
	}
	critical, review, plain := b.task(t, "bob", now, true, false), b.task(t, "bob", now, false, true), b.task(t, "bob", now, false, false)
	b.rule(t, db.SamplingRuleFields{Kind: db.SampleFailedCritical, Strategy: db.AssignByLoad})
	require.Equal(t, 1, b.run(t))
	require.Equal(t, []string{"beto", "", ""}, b.assignees(t, critical, review, plain))
	b.rule(t, db.SamplingRuleFields{Kind: db.SampleNeedsReview, Strategy: db.AssignByLoad})
	require.Equal(t, 1, b.run(t))
	require.Equal(t, []string{"beto", "beto", ""}, b.assignees(t, critical, review, plain))

	// A random share decides each task once, the same way every time.
	share := 50.0
	r := b.rule(t, db.SamplingRuleFields{Kind: db.SampleRandomShare, Share: &share})
	many := make([]string, 40)
	for i := range many {
		many[i] = b.task(t, "cid", now, false, false)
	}
	picked := b.run(t)
	require.Greater(t, picked, 8)
	require.Less(t, picked, 32)
	var decided int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM sampling_picks WHERE rule_id = $1`, r.ID).Scan(&decided))
	require.Equal(t, 41, decided, "every candidate decided, plain included")
	require.Equal(t, 0, b.run(t))

	// A chosen pool; without any analyst nothing is decided.
	s := b.campaign.CampaignSettings
	s.ReviewAnalysts = []string{"sue"}
	_, err := db.CampaignUpdate(context.Background(), b.pool, b.campaign.ID, b.campaign.Name, s)
	require.NoError(t, err)
	late := b.task(t, "bob", now, true, false)
	require.Equal(t, 1, b.run(t), "the critical one (then assigned: not the random share's)")
	require.Equal(t, []string{"sue"}, b.assignees(t, late))
	_, err = b.pool.Exec(context.Background(), `UPDATE users SET active = false WHERE id = 'sue'`)
	require.NoError(t, err)
	last := b.task(t, "bob", now, true, false)
	require.Equal(t, 0, b.run(t))
	require.Equal(t, []string{""}, b.assignees(t, last))
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM sampling_picks WHERE task_uuid = $1`, last).Scan(&decided))
	require.Zero(t, decided, "it waits for an analyst")
}
