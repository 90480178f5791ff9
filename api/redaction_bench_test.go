package api

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/redact"
)

// BenchmarkRedactionPipeline measures what redaction adds to the chat
// pipeline: chats uploaded through the API until audited, into a campaign
// that redacts nothing (the baseline) and into one that redacts every type
// (the cost measured), in rounds of the same run, each pair in alternating
// order. Two kinds of chat: ordinary ones, with nothing to redact, where
// redaction costs its search (overhead-%, goal under 5); and chats that
// each hold a card number and a DNI, where the redacted ones also store
// their records and a copy of their file written from the redacted
// transcript in place of the upload (findings-overhead-%). Both compare
// the CPU time of this process (the API and the workers, not Postgres),
// which the machine's other work barely changes; the wall-clock ratios
// (wall-…) are printed too, and on a shared machine swing by ±20 %.
func BenchmarkRedactionPipeline(b *testing.B) {
	const perRound, perRequest = 200, 100
	bundle := setup(b)
	token := bundle.issuer.token(b, "qa", "quality")
	ctx := context.Background()
	for name, types := range map[string][]string{"plain": {}, "redacted": redact.Types} {
		require.NoError(b, pgx.BeginFunc(ctx, bundle.pool, func(tx pgx.Tx) error {
			_, err := db.CampaignCreate(ctx, tx, name, db.CampaignSettings{PassingScore: 85, Language: "es", AgentChannel: "left",
				Redaction: &redact.RedactionSettings{Types: types}}, nil, "")
			return err
		}))
	}

	bundle.benchWorkers(b)
	wait := func(query string, n int) { bundle.waitCount(b, query, n) }
	seq := 0
	done := map[string]int{}
	// cpu is the CPU time this process (the API and the workers) has used:
	// what other work on the machine barely changes, unlike the wall clock.
	cpu := func() time.Duration {
		var u syscall.Rusage
		require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &u))
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	type cost struct{ wall, cpu time.Duration }
	round := func(campaign string, findings bool) cost {
		start, startCPU := time.Now(), cpu()
		for sent := 0; sent < perRound; sent += perRequest {
			var parts []part
			for range perRequest {
				seq++
				last := fmt.Sprintf("Cliente: gracias, pedido %d\n", seq)
				if findings {
					last = fmt.Sprintf("Cliente: mi DNI es 12345678Z y la tarjeta 4500 1234 5678 9012, pedido %d\n", seq)
				}
				parts = append(parts, file(fmt.Sprintf("chat-%d.txt", seq), []byte(goodChat+last)))
			}
			bundle.benchUpload(b, token, append(parts, field("campaign", campaign)))
		}
		done[campaign] += perRound
		wait(`SELECT count(*) FROM tasks t JOIN campaigns c ON c.id = t.campaign_id
			WHERE t.status = 'audited' AND c.name = '`+campaign+`'`, done[campaign])
		return cost{time.Since(start), cpu() - startCPU}
	}

	// took[findings][redacted] adds up the rounds' costs.
	var took [2][2]cost
	b.ResetTimer()
	for i := range b.N {
		for f, findings := range []bool{false, true} {
			// Alternating which goes first, so that neither always meets a
			// warmer cache or the other's leftovers.
			for k := range 2 {
				r := (i + k) % 2
				campaign := "plain"
				if r == 1 {
					campaign = "redacted"
				}
				c := round(campaign, findings)
				took[f][r].wall += c.wall
				took[f][r].cpu += c.cpu
			}
		}
	}
	b.StopTimer()
	n := float64(perRound * b.N)
	over := func(f int, d func(cost) time.Duration) float64 {
		return (d(took[f][1]).Seconds()/d(took[f][0]).Seconds() - 1) * 100
	}
	wall := func(c cost) time.Duration { return c.wall }
	cpuOf := func(c cost) time.Duration { return c.cpu }
	b.ReportMetric(n/took[0][0].wall.Seconds(), "plain-tasks/s")
	b.ReportMetric(n/took[0][1].wall.Seconds(), "redacted-tasks/s")
	b.ReportMetric(float64(took[0][0].cpu.Microseconds())/n, "plain-cpu-us/task")
	b.ReportMetric(over(0, cpuOf), "overhead-%")
	b.ReportMetric(over(0, wall), "wall-overhead-%")
	b.ReportMetric(over(1, cpuOf), "findings-overhead-%")
	b.ReportMetric(over(1, wall), "findings-wall-overhead-%")
}
