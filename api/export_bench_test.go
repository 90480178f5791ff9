package api

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
)

// BenchmarkExport1M exports a million tasks as CSV, a row per task with a
// column per criterion (GET /tasks/export), reading the download as a
// client would, and reports rows a second and the peak RSS growth of the
// process (server and client) against Postgres writing the same tasks'
// columns as CSV itself (COPY … TO STDOUT), the least such an export
// costs. Goal: RSS bounded (under 64 MiB) whatever the number of rows.
func BenchmarkExport1M(b *testing.B) {
	const n = 1_000_000
	bundle := setup(b)
	dbtest.SeedTasks(b, bundle.pool, n)
	token := bundle.issuer.token(b, "qa", "quality")
	ctx := context.Background()
	var export, copied time.Duration
	var growth int64
	for b.Loop() {
		resetPeakRSS(b)
		before := procStatus(b, "VmRSS")
		start := time.Now()
		req, err := http.NewRequest(http.MethodGet, bundle.http.URL+"/tasks/export", nil)
		require.NoError(b, err)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		require.Equal(b, http.StatusOK, res.StatusCode)
		rows := 0
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			rows++
		}
		require.NoError(b, sc.Err())
		require.NoError(b, res.Body.Close())
		require.Equal(b, n+1, rows, "a header and a row per task")
		export += time.Since(start)
		growth = max(growth, procStatus(b, "VmHWM")-before)

		b.StopTimer()
		start = time.Now()
		conn, err := bundle.pool.Acquire(ctx)
		require.NoError(b, err)
		_, err = conn.Conn().PgConn().CopyTo(ctx, io.Discard, `COPY (SELECT t.uuid, t.file_name, t.kind, t.status, c.name,
			t.operator_id, t.language, t.created_at, t.audited_at, t.score, t.passed, t.review_items, t.audit_revision,
			t.judged_criteria, t.failed_criteria FROM tasks t JOIN campaigns c ON c.id = t.campaign_id
			ORDER BY t.created_at DESC, t.uuid DESC) TO STDOUT (FORMAT csv)`)
		conn.Release()
		require.NoError(b, err)
		copied += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/export.Seconds(), "rows/s")
	b.ReportMetric(float64(n)*float64(b.N)/copied.Seconds(), "copy-rows/s")
	b.ReportMetric(copied.Seconds()/export.Seconds(), "export/copy")
	b.ReportMetric(float64(growth)/(1<<20), "rss-growth-MiB")
}
