package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

func TestStatsAnalysts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, campaign := dbtest.ForTasks(t)
	at := func(day, hour, minute int) time.Time { return time.Date(2026, 10, day, hour, minute, 0, 0, time.UTC) }
	var other string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO campaigns (name) VALUES ('other') RETURNING id`).Scan(&other))
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username, name) VALUES ('maria', 'maria', 'María López'), ('pedro', 'pedro', '')`)
	require.NoError(t, err)
	// task is audited at audited; its revision 1 is the engine's.
	task := func(campaign string, audited time.Time) string {
		t.Helper()
		score := 90.0
		uuid := reportTask(t, pool, campaign, "ana", audited.Add(-time.Minute), &score, []string{"greeting"}, nil)
		_, err := pool.Exec(ctx, `INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed, result,
			source, engine, created_at) VALUES ($1, 1, 1, 90, true, '{}', 'engine', 'rules', $2)`, uuid, audited)
		require.NoError(t, err)
		return uuid
	}
	edit := func(uuid, analyst string, when time.Time) {
		t.Helper()
		_, err := pool.Exec(ctx, `INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed,
			result, source, author_id, author_name, created_at)
			SELECT $1, max(revision) + 1, 1, 80, false, '{}', 'analyst', $2, $2, $3 FROM audit_revisions WHERE task_uuid = $1`,
			uuid, analyst, when)
		require.NoError(t, err)
	}
	validate := func(uuid, analyst string, when time.Time) {
		t.Helper()
		_, err := pool.Exec(ctx, `INSERT INTO validations (task_uuid, audit_revision, notes, validator_id, validator_name,
			validated_at, is_call, type, sent_to, request_hash)
			VALUES ($1, 1, 'ok', $2, $2, $3, false, 'chat', '{a@example.com}', repeat('0', 64))`, uuid, analyst, when)
		require.NoError(t, err)
	}
	// The week of 5 October. maria: A edited twice and validated (first
	// after 1 h), B validated (after 30 min), C edited before the week
	// and in it (not timed in it), E edited (after 2 h). pedro: D audited
	// before the week, edited in it (after 2 days) and validated, E
	// edited (after 1 h), F of another campaign validated (after 10 min).
	a, b, c, d, e, f := task(campaign.ID, at(5, 10, 0)), task(campaign.ID, at(5, 10, 0)), task(campaign.ID, at(3, 10, 0)),
		task(campaign.ID, at(3, 10, 0)), task(campaign.ID, at(6, 0, 0)), task(other, at(6, 0, 0))
	edit(a, "maria", at(5, 11, 0))
	edit(a, "maria", at(5, 12, 0))
	validate(a, "maria", at(6, 10, 0))
	validate(b, "maria", at(5, 10, 30))
	edit(c, "maria", at(4, 10, 0))
	edit(c, "maria", at(6, 10, 0))
	edit(d, "pedro", at(5, 10, 0))
	validate(d, "pedro", at(7, 10, 0))
	edit(e, "pedro", at(6, 1, 0))
	edit(e, "maria", at(6, 2, 0))
	validate(f, "pedro", at(6, 0, 10))
	g := task(campaign.ID, at(11, 0, 0))
	edit(g, "maria", at(12, 0, 0)) // the next week

	week := db.AnalystsFilter{From: at(5, 0, 0), To: at(12, 0, 0)}
	r, err := db.StatsAnalysts(ctx, pool, week)
	require.NoError(t, err)
	sec := func(s float64) *float64 { return &s }
	require.Equal(t, db.Analysts{
		Analysts: []db.AnalystWork{
			{AnalystID: "maria", Name: "María López", Productivity: db.Productivity{Reviewed: 3, Edits: 4, Validations: 2,
				MedianReviewSeconds: sec(3600), Timed: 3}}, // 1800, 3600, 7200
			{AnalystID: "pedro", Name: "pedro", Productivity: db.Productivity{Reviewed: 2, Edits: 2, Validations: 2,
				MedianReviewSeconds: sec(3600), Timed: 3}}, // 600, 3600, 172800
		},
		// 600, 1800, 3600, 3600, 7200, 172800; E counts once in reviewed.
		Total: db.Productivity{Reviewed: 4, Edits: 6, Validations: 4, MedianReviewSeconds: sec(3600), Timed: 6},
	}, r)

	// One campaign: F is out, pedro's median is between his two.
	week.CampaignID = campaign.ID
	r, err = db.StatsAnalysts(ctx, pool, week)
	require.NoError(t, err)
	require.Equal(t, db.Productivity{Reviewed: 2, Edits: 2, Validations: 1, MedianReviewSeconds: sec(88200), Timed: 2},
		r.Analysts[1].Productivity)
	require.Equal(t, db.Productivity{Reviewed: 4, Edits: 6, Validations: 3, MedianReviewSeconds: sec(3600), Timed: 5}, r.Total)

	// The week before holds C's first edit, timed there (1 day after its audit).
	r, err = db.StatsAnalysts(ctx, pool, db.AnalystsFilter{From: at(1, 0, 0), To: at(5, 0, 0)})
	require.NoError(t, err)
	require.Equal(t, []db.AnalystWork{{AnalystID: "maria", Name: "María López", Productivity: db.Productivity{
		Reviewed: 1, Edits: 1, MedianReviewSeconds: sec(86400), Timed: 1}}}, r.Analysts)
	// An analyst calibrating C blind is not told that its audit was edited.
	blind := visibility.Viewer{User: "pedro", Role: role.Quality, Blind: []string{c}}
	r, err = db.StatsAnalysts(ctx, pool, db.AnalystsFilter{From: at(1, 0, 0), To: at(5, 0, 0), Viewer: blind})
	require.NoError(t, err)
	require.Empty(t, r.Analysts)

	// Actions logged out of order: the review ends at the earliest.
	h := task(campaign.ID, at(20, 9, 0))
	validate(h, "maria", at(22, 9, 0))
	edit(h, "maria", at(20, 9, 30))
	r, err = db.StatsAnalysts(ctx, pool, db.AnalystsFilter{From: at(19, 0, 0), To: at(26, 0, 0)})
	require.NoError(t, err)
	require.Equal(t, db.Productivity{Reviewed: 1, Edits: 1, Validations: 1, MedianReviewSeconds: sec(1800), Timed: 1},
		r.Analysts[0].Productivity)

	// Nobody: no analysts, zeros and no median.
	r, err = db.StatsAnalysts(ctx, pool, db.AnalystsFilter{From: at(27, 0, 0), To: at(28, 0, 0)})
	require.NoError(t, err)
	require.Equal(t, db.Analysts{Analysts: []db.AnalystWork{}}, r)
}

// TestMigrationFillsTheReports: migration 00025 counts the passed audits of
// the agents' figures kept before it (folding what was pending first) and
// logs the analysts' revisions and validations made before it.
func TestMigrationFillsTheReports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.PoolFor(t, dbtest.EmptyURL(t))
	require.NoError(t, db.MigrateSchemaTo(ctx, pool, 19))
	_, err := pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('qa', 'qa'), ('maria', 'maria')`)
	require.NoError(t, err)
	var campaign string
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM campaigns WHERE name = 'default'`).Scan(&campaign))
	at := func(day, hour int) time.Time { return time.Date(2026, 10, day, hour, 0, 0, 0, time.UTC) }
	score := func(s float64) *float64 { return &s }
	a := reportTask(t, pool, campaign, "ana", at(5, 9), score(90), []string{"greeting"}, nil)
	reportTask(t, pool, campaign, "ana", at(6, 9), score(50), []string{"greeting"}, []string{"greeting"})
	_, err = db.TaskStatsFold(ctx, pool)
	require.NoError(t, err)
	reportTask(t, pool, campaign, "ana", at(7, 9), score(95), []string{"greeting"}, nil) // pending
	_, err = pool.Exec(ctx, `
		INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed, result, source, author_id, created_at)
		VALUES ($1, 2, 1, 90, true, '{}', 'analyst', 'maria', $2), ($1, 3, 1, 90, true, '{}', 'analyst', 'maria', $3)`,
		a, at(5, 11), at(5, 10))
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO validations (task_uuid, audit_revision, notes, validator_id, validator_name,
		validated_at, is_call, type, sent_to, request_hash)
		VALUES ($1, 3, 'ok', 'maria', 'maria', $2, false, 'chat', '{a@example.com}', repeat('0', 64))`, a, at(6, 9))
	require.NoError(t, err)

	require.NoError(t, db.Migrate(ctx, pool))
	require.Empty(t, rollupDrift(t, pool))
	r, err := db.StatsTrends(ctx, pool, db.StatsFilter{From: at(5, 0), To: at(12, 0), TZ: "UTC"}, db.AgentOrder{Limit: 10})
	require.NoError(t, err)
	require.Equal(t, [][3]float64{{3, 2, 235.0 / 3}}, agentWeeks(r.Agents[0]))
	an, err := db.StatsAnalysts(ctx, pool, db.AnalystsFilter{From: at(5, 0), To: at(12, 0)})
	require.NoError(t, err)
	require.Equal(t, db.Productivity{Reviewed: 1, Edits: 2, Validations: 1, MedianReviewSeconds: ptr(3540.0), Timed: 1},
		an.Analysts[0].Productivity, "the first revision, logged second, 59 minutes after the audit")
}
