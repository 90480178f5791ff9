package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/metrics"
)

type flakyArgs struct {
	Fail bool `json:"fail"`
}

func (flakyArgs) Kind() string { return "flaky" }

type flakyWorker struct {
	river.WorkerDefaults[flakyArgs]
}

func (flakyWorker) Work(_ context.Context, j *river.Job[flakyArgs]) error {
	if j.Args.Fail {
		return river.JobCancel(errors.New("no"))
	}
	return nil
}

func TestJobsCountedByKindAndOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	m := metrics.New()
	ws := river.NewWorkers()
	river.AddWorker(ws, flakyWorker{})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:     map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}},
		Workers:    ws,
		Middleware: []rivertype.Middleware{m.RiverMiddleware()},
	})
	require.NoError(t, err)
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled)
	defer cancel()
	require.NoError(t, client.Start(ctx))
	defer client.Stop(ctx) //nolint:errcheck

	_, err = client.Insert(ctx, flakyArgs{}, nil)
	require.NoError(t, err)
	_, err = client.Insert(ctx, flakyArgs{Fail: true}, nil)
	require.NoError(t, err)
	for range 2 {
		<-events
	}

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	require.Contains(t, string(body), `auditd_jobs_total{kind="flaky",outcome="completed"} 1`)
	require.Contains(t, string(body), `auditd_jobs_total{kind="flaky",outcome="cancelled"} 1`)
	require.Contains(t, string(body), `auditd_job_duration_seconds_count{kind="flaky"} 2`)
}
