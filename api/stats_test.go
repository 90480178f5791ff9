package api

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seedTask inserts an audited (score non-nil) or unaudited task directly.
func (b *testBundle) seedTask(t *testing.T, operator string, created time.Time, status string, score *float64, judged, failed []string, kind string, duration float64) {
	t.Helper()
	var passed *bool
	var audited *time.Time
	if score != nil {
		p := *score >= 85
		passed = &p
		a := created.Add(90 * time.Second)
		audited = &a
	}
	n := b.count(t, "SELECT count(*) FROM tasks")
	_, err := b.pool.Exec(context.Background(), `
		INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
			operator_id, language, uploaded_by, duration_seconds, created_at, updated_at, score, passed, audited_at,
			judged_criteria, failed_criteria)
		SELECT gen_random_uuid(), $1, $2, 'f', 'audio/wav', 1, encode(sha256($3::bytea), 'hex'), $3,
			(SELECT id FROM campaigns WHERE name = 'default'), $4, 'es', 'alice', $5, $6, $6, $7, $8, $9, $10, $11`,
		kind, status, fmt.Sprintf("seed-%d", n), operator, duration, created, score, passed, audited, judged, failed)
	require.NoError(t, err)
}

func f64(v float64) *float64 { return &v }

func TestDashboardStats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	day := func(d, h int) time.Time { return time.Date(2026, 10, d, h, 30, 0, 0, time.UTC) }
	all := []string{"greeting", "verification", "no_forbidden_phrases"}
	// bob: 100 and a critical failure (0); olga: 90; one unaudited call; one
	// validated chat at 80 created 23:30 UTC (the next day in Madrid).
	b.seedTask(t, "bob", day(1, 10), "audited", f64(100), all, nil, "call", 120)
	b.seedTask(t, "bob", day(1, 11), "audited", f64(0), all, []string{"no_forbidden_phrases", "greeting"}, "call", 60)
	// Empathy, judged once and failed, is failed most by share (1 of 1)
	// though greeting is by count (2 of 4).
	b.seedTask(t, "olga", day(2, 9), "audited", f64(90), append(all, "empathy"), []string{"verification", "empathy"}, "chat", 0)
	b.seedTask(t, "olga", day(2, 10), "queued", nil, nil, nil, "call", 30)
	b.seedTask(t, "olga", day(2, 23), "validated", f64(80), all, []string{"greeting"}, "chat", 0)
	b.seedTask(t, "bob", day(20, 10), "audited", f64(50), all, []string{"greeting"}, "call", 60) // outside the range

	get := func(token, query string) map[string]any {
		r := b.do(t, http.MethodGet, "/stats/dashboard?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return details(r)
	}
	d := get(alice, "from=2026-10-01&to=2026-10-03")
	require.Equal(t, float64(5), d["tasks"])
	require.Equal(t, float64(4), d["audited"])
	require.Equal(t, float64(2), d["passed"])
	require.Equal(t, 0.5, d["approval_rate"])
	require.Equal(t, float64(1), d["validated"])
	require.Equal(t, 67.5, d["average_score"])        // (100+0+90+80)/4
	require.InDelta(t, 3.5, d["audio_minutes"], 1e-9) // calls only: 120+60+30 s
	require.Equal(t, map[string]any{"audited": float64(3), "queued": float64(1), "validated": float64(1)}, d["by_status"])
	dist := d["score_distribution"].([]any)
	require.Len(t, dist, 10)
	counts := make([]float64, 10)
	for i, bk := range dist {
		counts[i] = bk.(map[string]any)["count"].(float64)
	}
	require.Equal(t, []float64{1, 0, 0, 0, 0, 0, 0, 0, 1, 2}, counts)
	perDay := d["per_day"].([]any)
	require.Equal(t, []any{
		map[string]any{"day": "2026-10-01", "tasks": float64(2), "audited": float64(2), "passed": float64(1)},
		map[string]any{"day": "2026-10-02", "tasks": float64(3), "audited": float64(2), "passed": float64(1)},
	}, perDay)
	failed := d["criteria_failed"].([]any)
	require.Len(t, failed, 4)
	require.Equal(t, "empathy", failed[0].(map[string]any)["criterion_id"], "by the share plotted, not by the count")
	require.Equal(t, 1.0, failed[0].(map[string]any)["rate"])
	require.Equal(t, "greeting", failed[1].(map[string]any)["criterion_id"])
	require.Equal(t, float64(2), failed[1].(map[string]any)["failed"])
	require.Equal(t, float64(4), failed[1].(map[string]any)["judged"])
	require.Equal(t, 0.5, failed[1].(map[string]any)["rate"])
	require.NotEmpty(t, failed[1].(map[string]any)["question"], "named from the scorecard")
	top := d["operators"].(map[string]any)["top"].([]any)
	require.Equal(t, "olga", top[0].(map[string]any)["operator_id"])
	require.Equal(t, float64(85), top[0].(map[string]any)["average_score"])
	bottom := d["operators"].(map[string]any)["bottom"].([]any)
	require.Equal(t, "bob", bottom[0].(map[string]any)["operator_id"])
	require.InEpsilon(t, 90, d["processing_seconds"].(map[string]any)["p50"], 0.045, "estimated from a histogram")

	// The same period in Madrid: the 23:30 UTC task falls on the 3rd.
	madrid := get(alice, "from=2026-10-01&to=2026-10-04&tz=Europe/Madrid")
	days := map[string]float64{}
	for _, x := range madrid["per_day"].([]any) {
		days[x.(map[string]any)["day"].(string)] = x.(map[string]any)["tasks"].(float64)
	}
	require.Equal(t, map[string]float64{"2026-10-01": 2, "2026-10-02": 2, "2026-10-03": 1}, days)

	// An operator sees only their own figures, whatever they ask.
	own := get(bob, "from=2026-10-01&to=2026-10-03&operator=olga")
	require.Equal(t, float64(2), own["tasks"])
	require.Equal(t, float64(50), own["average_score"])

	// No data is not an error.
	empty := get(alice, "from=2020-01-01&to=2020-01-02")
	require.Equal(t, float64(0), empty["tasks"])
	require.Nil(t, empty["average_score"])
	require.Nil(t, empty["approval_rate"])
	require.Empty(t, empty["per_day"])

	for _, q := range []string{"from=yesterday", "tz=Mars/Olympus", "tz=Local", "from=2026-10-05&to=2026-10-01", "campaign=nope",
		"from=0000-01-01T00:00:00Z&to=0000-01-05T00:00:00Z", "to=0001-01-01"} {
		requireError(t, b.do(t, http.MethodGet, "/stats/dashboard?"+q, alice, nil), http.StatusBadRequest, CodeValidation)
	}
}

// detailsAt is the first error detail's location.
func detailsAt(r response) string {
	d, _ := r.Body["details"].([]any)
	if len(d) == 0 {
		return ""
	}
	loc, _ := d[0].(map[string]any)["location"].(string)
	return loc
}

func TestTrendsStats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	at := func(d, h int) time.Time { return time.Date(2026, 10, d, h, 30, 0, 0, time.UTC) }
	all := []string{"greeting", "verification"}
	// Weeks of 5 and 12 October; bob's Sunday 23:30 UTC is Monday in Madrid.
	b.seedTask(t, "bob", at(5, 10), "audited", f64(100), all, nil, "chat", 0)
	b.seedTask(t, "bob", at(11, 23), "audited", f64(70), all, []string{"greeting"}, "chat", 0)
	b.seedTask(t, "bob", at(13, 9), "validated", f64(80), all, []string{"verification"}, "chat", 0)
	b.seedTask(t, "olga", at(6, 9), "audited", f64(90), all, nil, "call", 60)
	b.seedTask(t, "olga", at(14, 9), "queued", nil, nil, nil, "call", 60)

	get := func(token, query string) map[string]any {
		t.Helper()
		r := b.do(t, http.MethodGet, "/stats/trends?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		return details(r)
	}
	d := get(alice, "from=2026-10-05&to=2026-10-19&tz=Europe/Madrid&sort=change&order=asc")
	require.Equal(t, "Europe/Madrid", d["tz"])
	require.Equal(t, "2026-10-05T00:00:00+02:00", d["from"])
	weeks := d["weeks"].([]any)
	require.Equal(t, []any{
		map[string]any{"week": "2026-10-05", "iso_week": "2026-W41", "from": "2026-10-05T00:00:00+02:00", "to": "2026-10-12T00:00:00+02:00"},
		map[string]any{"week": "2026-10-12", "iso_week": "2026-W42", "from": "2026-10-12T00:00:00+02:00", "to": "2026-10-19T00:00:00+02:00"},
	}, weeks)
	agents := d["agents"].([]any)
	require.Equal(t, float64(2), d["agents_total"])
	require.Len(t, agents, 2)
	first := agents[0].(map[string]any)
	require.Equal(t, "bob", first["operator_id"], "bob's change (-25) before olga's (none)")
	require.Equal(t, float64(3), first["audited"])
	require.Equal(t, float64(1), first["passed"])
	require.Equal(t, 250.0/3, first["average_score"])
	require.Equal(t, 1.0/3, first["approval_rate"])
	require.Equal(t, "2026-10-12", first["latest_week"])
	require.Equal(t, float64(75), first["latest_average"])
	require.Equal(t, float64(-25), first["change"])
	require.Equal(t, []any{
		map[string]any{"audited": float64(1), "passed": float64(1), "average_score": float64(100), "approval_rate": float64(1)},
		map[string]any{"audited": float64(2), "passed": float64(0), "average_score": float64(75), "approval_rate": float64(0)},
	}, first["weeks"])
	olga := agents[1].(map[string]any)
	require.Nil(t, olga["change"])
	require.Equal(t, map[string]any{"audited": float64(0), "passed": float64(0), "average_score": nil, "approval_rate": nil},
		olga["weeks"].([]any)[1])
	criteria := d["criteria"].([]any)
	require.Len(t, criteria, 2)
	greeting := criteria[0].(map[string]any)
	require.Equal(t, "greeting", greeting["criterion_id"])
	require.NotEmpty(t, greeting["question"])
	require.Equal(t, float64(4), greeting["judged"])
	require.Equal(t, float64(1), greeting["failed"])
	require.Equal(t, 0.25, greeting["rate"])
	require.Equal(t, []any{
		map[string]any{"judged": float64(2), "failed": float64(0), "rate": float64(0)},
		map[string]any{"judged": float64(2), "failed": float64(1), "rate": 0.5},
	}, greeting["weeks"])

	// In UTC bob's Sunday-night task is in the first week; limit cuts.
	d = get(alice, "from=2026-10-05&to=2026-10-19&sort=latest&order=desc&limit=1")
	require.Equal(t, float64(2), d["agents_total"])
	agents = d["agents"].([]any)
	require.Len(t, agents, 1)
	require.Equal(t, "olga", agents[0].(map[string]any)["operator_id"], "90 before 80")
	d = get(alice, "from=2026-10-05&to=2026-10-19&operator=bob")
	require.Equal(t, float64(85), d["agents"].([]any)[0].(map[string]any)["weeks"].([]any)[0].(map[string]any)["average_score"])

	// An operator sees only their own figures, whatever they ask.
	own := get(bob, "from=2026-10-05&to=2026-10-19&operator=olga")
	require.Len(t, own["agents"], 1)
	require.Equal(t, "bob", own["agents"].([]any)[0].(map[string]any)["operator_id"])
	require.Equal(t, float64(3), own["criteria"].([]any)[0].(map[string]any)["judged"], "their audits' criteria")

	// By default: the 12 weeks up to now, this one included.
	d = get(alice, "tz=Europe/Madrid")
	weeks = d["weeks"].([]any)
	require.Len(t, weeks, 12)
	start, err := time.Parse(time.RFC3339, weeks[0].(map[string]any)["from"].(string))
	require.NoError(t, err)
	madrid, err := time.LoadLocation("Europe/Madrid")
	require.NoError(t, err)
	require.Equal(t, time.Monday, start.In(madrid).Weekday())
	require.Equal(t, "00:00", start.In(madrid).Format("15:04"))
	require.Equal(t, d["from"], weeks[0].(map[string]any)["from"])
}

func TestAnalystStats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob, _ := b.users(t)
	ctx := context.Background()
	at := func(d, h int) time.Time { return time.Date(2026, 10, d, h, 0, 0, 0, time.UTC) }
	task := func(audited time.Time) string {
		b.seedTask(t, "olga", audited.Add(-90*time.Second), "audited", f64(90), nil, nil, "chat", 0)
		var uuid string
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT uuid FROM tasks ORDER BY created_at DESC LIMIT 1`).Scan(&uuid))
		return uuid
	}
	edit := func(uuid, who string, when time.Time, revision int) {
		_, err := b.pool.Exec(ctx, `INSERT INTO audit_revisions (task_uuid, revision, scorecard_version, score, passed,
			result, source, author_id, author_name, created_at) VALUES ($1, $4, 1, 80, false, '{}', 'analyst', $2, $2, $3)`,
			uuid, who, when, revision)
		require.NoError(t, err)
	}
	validate := func(uuid, who string, when time.Time) {
		_, err := b.pool.Exec(ctx, `INSERT INTO validations (task_uuid, audit_revision, notes, validator_id, validator_name,
			validated_at, is_call, type, sent_to, request_hash)
			VALUES ($1, 1, 'ok', $2, $2, $3, false, 'chat', '{a@example.com}', repeat('0', 64))`, uuid, who, when)
		require.NoError(t, err)
	}
	// alice: the first reviewed after 1 h (edited twice, then validated),
	// the second validated after 3 h; root: the second edited after 2 h.
	one, two := task(at(5, 9)), task(at(7, 9))
	edit(one, "alice", at(5, 10), 2)
	edit(one, "alice", at(5, 11), 3)
	validate(one, "alice", at(6, 9))
	edit(two, "root", at(7, 11), 2)
	validate(two, "alice", at(7, 12))

	r := b.do(t, http.MethodGet, "/stats/analysts?from=2026-10-05&to=2026-10-12", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	d := details(r)
	require.Equal(t, "2026-10-05T00:00:00Z", d["from"])
	require.Equal(t, []any{
		map[string]any{"analyst_id": "alice", "name": "User alice", "reviewed": float64(1), "edits": float64(2),
			"validations": float64(2), "median_review_seconds": float64(7200), "timed": float64(2)},
		map[string]any{"analyst_id": "root", "name": "User root", "reviewed": float64(1), "edits": float64(1),
			"validations": float64(0), "median_review_seconds": float64(7200), "timed": float64(1)},
	}, d["analysts"])
	require.Equal(t, map[string]any{"reviewed": float64(2), "edits": float64(3), "validations": float64(2),
		"median_review_seconds": float64(7200), "timed": float64(3)}, d["total"])

	// Operators may not see them.
	requireError(t, b.do(t, http.MethodGet, "/stats/analysts", bob, nil), http.StatusForbidden, CodeForbidden)
	// Nobody in another period.
	r = b.do(t, http.MethodGet, "/stats/analysts?from=2026-09-01&to=2026-09-08T00:00:00%2B02:00", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Empty(t, details(r)["analysts"])
	require.Nil(t, details(r)["total"].(map[string]any)["median_review_seconds"])
}

// TestReportsRefuseBadParameters: every parameter of the reports, wrong,
// is 400 VALIDATION_ERROR naming it.
func TestReportsRefuseBadParameters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, _, _ := b.users(t)
	long := strings.Repeat("x", 201)
	period := map[string]string{
		"from=yesterday":                       "query.from",
		"from=2026-02-30":                      "query.from",
		"to=2026-10-05T25:00:00Z":              "query.to",
		"from=0000-01-01T00:00:00Z":            "query.from",
		"to=0001-01-01":                        "query.to",
		"from=9999-06-01&to=9999-12-31":        "query.to",
		"from=2026-10-05&to=2026-10-01":        "query.from",
		"from=2026-10-05&to=2026-10-05":        "query.from",
		"from=2025-10-01&to=2026-10-15":        "query.from",
		"from=2020-01-01":                      "query.from",
		"tz=Mars/Olympus":                      "query.tz",
		"tz=Local":                             "query.tz",
		"tz=" + strings.Repeat("A", 65):        "query.tz",
		"campaign=nope":                        "query.campaign",
		"campaign=" + long:                     "query.campaign",
		"from=2026-10-05&to=2026-10-06&tz=%00": "query.tz",
	}
	for path, bad := range map[string]map[string]string{
		"/stats/trends": {
			"operator=" + long: "query.operator",
			"sort=best":        "query.sort",
			"order=up":         "query.order",
			"limit=0":          "query.limit",
			"limit=501":        "query.limit",
			"limit=ten":        "query.limit",
		},
		"/stats/analysts": {},
	} {
		maps.Copy(bad, period)
		for q, at := range bad {
			r := b.do(t, http.MethodGet, path+"?"+q, alice, nil)
			requireError(t, r, http.StatusBadRequest, CodeValidation)
			require.Equal(t, at, detailsAt(r), "%s?%s: %s", path, q, r.RawBody)
		}
	}
	// 53 weeks is the most a report covers.
	r := b.do(t, http.MethodGet, "/stats/trends?from=2025-10-06&to=2026-10-12", alice, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Len(t, details(r)["weeks"], 53)
}
