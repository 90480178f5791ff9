package api

import (
	"context"
	"fmt"
	"net/http"
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
	b.seedTask(t, "olga", day(2, 9), "audited", f64(90), all, []string{"verification"}, "chat", 0)
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
	require.Equal(t, "greeting", failed[0].(map[string]any)["criterion_id"])
	require.Equal(t, float64(2), failed[0].(map[string]any)["failed"])
	require.Equal(t, float64(4), failed[0].(map[string]any)["judged"])
	require.Equal(t, 0.5, failed[0].(map[string]any)["rate"])
	require.NotEmpty(t, failed[0].(map[string]any)["question"], "named from the scorecard")
	require.Len(t, failed, 3)
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

	for _, q := range []string{"from=yesterday", "tz=Mars/Olympus", "from=2026-10-05&to=2026-10-01", "campaign=nope"} {
		requireError(t, b.do(t, http.MethodGet, "/stats/dashboard?"+q, alice, nil), http.StatusBadRequest, CodeValidation)
	}
}
