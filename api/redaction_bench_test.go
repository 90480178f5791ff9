package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/workers"
)

// BenchmarkRedactionPipeline measures what redaction adds to the chat
// pipeline: chats uploaded through the API until audited, into a campaign
// that redacts nothing (the baseline) and into one that redacts every type
// (the cost measured), in alternating rounds of the same run. Every chat
// holds a card number and a DNI, so the redacted ones also store their
// records and a copy of their file written from the redacted transcript in
// place of the upload. overhead-% is the redacted rounds' time over the
// baseline's, minus one; goal under 5.
func BenchmarkRedactionPipeline(b *testing.B) {
	const perRound, perRequest = 500, 100
	bundle := setup(b)
	token := bundle.issuer.token(b, "qa", "quality")
	ctx := context.Background()
	for name, types := range map[string][]string{"plain": {}, "redacted": redact.Types} {
		require.NoError(b, pgx.BeginFunc(ctx, bundle.pool, func(tx pgx.Tx) error {
			_, err := db.CampaignCreate(ctx, tx, name, db.CampaignSettings{PassingScore: 85, Language: "es", AgentChannel: "left",
				Redaction: redact.RedactionSettings{Types: types}}, nil, "")
			return err
		}))
	}

	ws := river.NewWorkers()
	workers.Register(ws, workers.Deps{Pool: bundle.pool, Store: bundle.store, Auditor: &auditor.Rules{}})
	client, err := river.NewClient(riverpgxv5.New(bundle.pool), &river.Config{
		Workers: ws, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 16}},
		FetchCooldown: 5 * time.Millisecond, FetchPollInterval: 20 * time.Millisecond,
	})
	require.NoError(b, err)
	require.NoError(b, client.Start(ctx))
	defer client.Stop(ctx) //nolint:errcheck
	wait := func(query string, n int) { bundle.waitCount(b, query, n) }
	seq := 0
	done := map[string]int{}
	round := func(campaign string) time.Duration {
		start := time.Now()
		for sent := 0; sent < perRound; sent += perRequest {
			var parts []part
			for range perRequest {
				seq++
				parts = append(parts, file(fmt.Sprintf("chat-%d.txt", seq), fmt.Appendf(nil,
					"%s\nCliente: mi DNI es 12345678Z y la tarjeta 4500 1234 5678 9012, pedido %d\n", goodChat, seq)))
			}
			parts = append(parts, field("campaign", campaign))
			body, ct := multipartBody(b, parts...)
			req, err := http.NewRequest(http.MethodPost, bundle.http.URL+"/tasks/upload", body)
			require.NoError(b, err)
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", ct)
			res, err := http.DefaultClient.Do(req)
			require.NoError(b, err)
			res.Body.Close()
			require.Equal(b, http.StatusAccepted, res.StatusCode)
		}
		done[campaign] += perRound
		wait(`SELECT count(*) FROM tasks t JOIN campaigns c ON c.id = t.campaign_id
			WHERE t.status = 'audited' AND c.name = '`+campaign+`'`, done[campaign])
		return time.Since(start)
	}

	var plain, redacted time.Duration
	b.ResetTimer()
	for i := range b.N {
		// Alternating which goes first, so that neither always meets a
		// warmer cache or the other's leftovers.
		if i%2 == 0 {
			plain += round("plain")
			redacted += round("redacted")
		} else {
			redacted += round("redacted")
			plain += round("plain")
		}
	}
	b.StopTimer()
	n := float64(perRound * b.N)
	b.ReportMetric(n/plain.Seconds(), "plain-tasks/s")
	b.ReportMetric(n/redacted.Seconds(), "redacted-tasks/s")
	b.ReportMetric((redacted.Seconds()/plain.Seconds()-1)*100, "overhead-%")
}
