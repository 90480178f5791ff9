package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditd/auditd/auditor"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/webhook"
	"github.com/auditd/auditd/workers"
)

// BenchmarkWebhookDelivery delivers events to a receiver on loopback
// through the real path (deliveries/s): deliver_webhook jobs inserted in
// one transaction, worked by one worker process of 16 slots, each loading
// its subscription, formatting and signing the body, POSTing it and
// recording the attempt in the delivery log. The baseline is the same
// number of signed POSTs sent straight by webhook.Send, 16 at a time, with
// the same client, in the same run (direct-sends/s). Goal: ≥ 50
// deliveries/s, five times the events of a 1,000-agent centre at its peak
// (a call audited every 0.3 s, three events each), whatever the machine's
// load.
func BenchmarkWebhookDelivery(b *testing.B) {
	const perIteration, slots = 500, 16
	ctx := context.Background()
	bundle := setup(b)
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(srv.Close)
	sub, err := db.WebhookSubscriptionCreate(ctx, bundle.pool, db.WebhookSubscriptionNew{Name: "bench", URL: srv.URL + "/hook",
		Events: []string{webhook.TaskAudited}, Format: "json", Enabled: true}, webhook.NewSecret(), "root")
	require.NoError(b, err)

	ws := river.NewWorkers()
	workers.Register(ws, workers.Deps{Pool: bundle.pool, Store: bundle.store, Auditor: &auditor.Rules{}, WebhookAllowPrivate: true})
	client, err := river.NewClient(riverpgxv5.New(bundle.pool), &river.Config{
		Workers: ws, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: slots}},
		FetchCooldown: 5 * time.Millisecond, FetchPollInterval: 20 * time.Millisecond,
	})
	require.NoError(b, err)
	require.NoError(b, client.Start(ctx))
	b.Cleanup(func() { _ = client.Stop(ctx) })
	httpClient := webhook.NewClient(true)

	var queued, direct time.Duration
	b.ResetTimer()
	for i := range b.N {
		params := make([]river.InsertManyParams, perIteration)
		for n := range params {
			args, err := webhook.TestDelivery(sub.ID)
			require.NoError(b, err)
			params[n] = river.InsertManyParams{Args: args}
		}
		start := time.Now()
		tx, err := bundle.pool.Begin(ctx)
		require.NoError(b, err)
		_, err = client.InsertManyFastTx(ctx, tx, params)
		require.NoError(b, err)
		require.NoError(b, tx.Commit(ctx))
		bundle.waitCount(b, `SELECT count(*) FROM river_job WHERE kind = 'deliver_webhook' AND state = 'completed'`, (i+1)*perIteration)
		queued += time.Since(start)

		body := []byte(`{"type":"webhook.test"}`)
		before := got.Load()
		start = time.Now()
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(slots)
		for range perIteration {
			g.Go(func() error {
				res := webhook.Send(gctx, httpClient, webhook.Request{URL: sub.URL, Secrets: []string{sub.Secret},
					Event: webhook.Test, DeliveryID: "d", Body: body}, time.Now())
				if !res.OK() {
					return errors.New(res.Error)
				}
				return nil
			})
		}
		require.NoError(b, g.Wait())
		direct += time.Since(start)
		require.EqualValues(b, perIteration, got.Load()-before)
	}
	b.StopTimer()
	require.EqualValues(b, 2*perIteration*b.N, got.Load()) // each delivery once
	deliveries := float64(perIteration*b.N) / queued.Seconds()
	sends := float64(perIteration*b.N) / direct.Seconds()
	b.ReportMetric(deliveries, "deliveries/s")
	b.ReportMetric(sends, "direct-sends/s")
	b.ReportMetric(deliveries/sends, "ratio")
}
