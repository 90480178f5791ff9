package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/auditd/auditd/auditor"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/workers"
)

// BenchmarkChatPipeline uploads chats through the API (100 files a request)
// and measures how many reach `audited` per second with the rules engine and
// one worker process of 16 slots, next to River's own throughput for no-op
// jobs on the same database and client, measured in the same run.
func BenchmarkChatPipeline(b *testing.B) {
	const perIteration, perRequest = 2000, 100
	bundle := setup(b)
	token := bundle.issuer.token(b, "qa", "quality")
	ctx := context.Background()

	client := bundle.benchWorkers(b)
	wait := func(query string, n int) { bundle.waitCount(b, query, n) }

	var pipeline, noop time.Duration
	seq := 0
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		for sent := 0; sent < perIteration; sent += perRequest {
			var parts []part
			for range perRequest {
				seq++
				parts = append(parts, file(fmt.Sprintf("chat-%d.txt", seq), fmt.Appendf(nil, "%s\nCliente: pedido %d\n", goodChat, seq)))
			}
			bundle.benchUpload(b, token, parts)
		}
		wait(`SELECT count(*) FROM tasks WHERE status = 'audited'`, seq)
		pipeline += time.Since(start)

		start = time.Now()
		params := make([]river.InsertManyParams, perIteration)
		for i := range params {
			params[i] = river.InsertManyParams{Args: jobs.CanaryArgs{}}
		}
		_, err := client.InsertManyFast(ctx, params)
		require.NoError(b, err)
		wait(`SELECT count(*) FROM river_job WHERE kind = 'canary' AND state = 'completed'`, seq)
		noop += time.Since(start)
	}
	b.StopTimer()
	tasks := float64(perIteration*b.N) / pipeline.Seconds()
	jobsPerSecond := float64(perIteration*b.N) / noop.Seconds()
	b.ReportMetric(tasks, "tasks/s")
	b.ReportMetric(jobsPerSecond, "noop-jobs/s")
	b.ReportMetric(tasks/jobsPerSecond, "ratio")
}

// waitCount polls until query counts n (River's event channel drops events
// when its reader falls behind, so it cannot count thousands).
func (b *testBundle) waitCount(tb testing.TB, query string, n int) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		var got int
		require.NoError(tb, b.pool.QueryRow(context.Background(), query).Scan(&got))
		if got >= n {
			return
		}
		require.True(tb, time.Now().Before(deadline), "only %d of %d after 5 minutes: %s", got, n, query)
	}
}

// benchWorkers starts, until b ends, one worker process of 16 slots with
// the rules engine, and returns its client.
func (b *testBundle) benchWorkers(tb testing.TB) *river.Client[pgx.Tx] {
	tb.Helper()
	ctx := context.Background()
	ws := river.NewWorkers()
	workers.Register(ws, workers.Deps{Pool: b.pool, Store: b.store, Auditor: &auditor.Rules{}})
	client, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{
		Workers: ws, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 16}},
		FetchCooldown: 5 * time.Millisecond, FetchPollInterval: 20 * time.Millisecond,
	})
	require.NoError(tb, err)
	require.NoError(tb, client.Start(ctx))
	tb.Cleanup(func() { _ = client.Stop(ctx) })
	return client
}

// benchUpload uploads parts as token and requires a 202, without the
// helpers' logging.
func (b *testBundle) benchUpload(tb testing.TB, token string, parts []part) {
	tb.Helper()
	body, ct := multipartBody(tb, parts...)
	req, err := http.NewRequest(http.MethodPost, b.http.URL+"/tasks/upload", body)
	require.NoError(tb, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", ct)
	res, err := http.DefaultClient.Do(req)
	require.NoError(tb, err)
	res.Body.Close()
	require.Equal(tb, http.StatusAccepted, res.StatusCode)
}
