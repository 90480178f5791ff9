package api

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

// BenchmarkTaskViewAccessRecord reads tasks' views as the dashboard does
// (GET /tasks/{uuid}: the task, its transcript, its history…), each read
// of a transcript written to the access record first (privacy: nothing is
// served unrecorded), over 10,000 tasks with 60-word transcripts (those
// not audited yet), and
// reports the view's p50 and p95 against the record alone
// (db.AccessRecordInsert on the same database, its own p50), the cost the
// record adds to each view. Goal: the record adds under 1 ms (p50) to a
// view.
func BenchmarkTaskViewAccessRecord(b *testing.B) {
	bundle := setup(b)
	dbtest.SeedTasks(b, bundle.pool, 10_000)
	dbtest.SeedSearch(b, bundle.pool)
	token := bundle.issuer.token(b, "qa", "quality")
	ctx := context.Background()
	get := func(path string) {
		req, err := http.NewRequest(http.MethodGet, bundle.http.URL+path, nil)
		require.NoError(b, err)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		body, err := io.ReadAll(res.Body)
		require.NoError(b, err)
		require.NoError(b, res.Body.Close())
		require.Equal(b, http.StatusOK, res.StatusCode, path+string(body))
	}
	get("/users/me") // the user the records name
	// The seed's tasks not audited yet: the others have a score but no
	// audit revisions to show.
	rows, err := bundle.pool.Query(ctx, `SELECT uuid::text FROM tasks WHERE audit_revision IS NULL ORDER BY random() LIMIT 100`)
	require.NoError(b, err)
	uuids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(b, err)
	var views, records []time.Duration
	for b.Loop() {
		for _, u := range uuids {
			start := time.Now()
			get("/tasks/" + u)
			views = append(views, time.Since(start))

			start = time.Now()
			_, err := db.AccessRecordInsert(ctx, bundle.pool, db.AccessRecord{UserID: "qa", Kind: db.AccessTranscript, TaskUUID: u,
				ClientIP: "127.0.0.1", UserAgent: "Go-http-client/1.1"})
			require.NoError(b, err)
			records = append(records, time.Since(start))
		}
	}
	var recorded int
	require.NoError(b, bundle.pool.QueryRow(ctx, `SELECT count(*) FROM access_records WHERE user_id = 'qa' AND kind = 'transcript'`).Scan(&recorded))
	require.Equal(b, 2*len(views), recorded, "each view recorded once, and each record alone")
	view, record := dbtest.PercentileMS(views, 0.5), dbtest.PercentileMS(records, 0.5)
	b.ReportMetric(view, "view-p50-ms")
	b.ReportMetric(dbtest.PercentileMS(views, 0.95), "view-p95-ms")
	b.ReportMetric(record, "record-p50-ms")
	b.ReportMetric(record/view, "record/view")
}
