//go:build scratch

package db_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
)

func TestScratchSeed(t *testing.T) {
	pool := dbtest.PoolFor(t, os.Getenv("SCRATCH_URL"))
	dbtest.SeedTasks(t, pool, 1_000_000)
	dbtest.SeedSearch(t, pool)
}

func TestScratchSearch(t *testing.T) {
	pool := dbtest.PoolFor(t, os.Getenv("SCRATCH_URL"))
	ctx := context.Background()
	newest := db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 101}
	month := time.Now().AddDate(0, -1, 0)
	for _, tc := range []struct {
		name, q string
		f       db.TaskFilter
		page    db.TaskPage
	}{
		{"common_word", "cliente", db.TaskFilter{}, newest},
		{"word_in_1_percent", "reembolso", db.TaskFilter{}, newest},
		{"phrase_in_100", `"tarjeta bloqueada"`, db.TaskFilter{}, newest},
		{"prefix", "reembols*", db.TaskFilter{}, newest},
		{"two_words", "reembolso tarjeta", db.TaskFilter{}, newest},
		{"or", "reembolso OR bloqueada", db.TaskFilter{}, newest},
		{"not_found", "hipoteca", db.TaskFilter{}, newest},
		{"word_and_operator", "reembolso", db.TaskFilter{OperatorID: "agent-7"}, newest},
		{"word_and_status", "reembolso", db.TaskFilter{Status: db.TaskValidated}, newest},
		{"word_last_month", "reembolso", db.TaskFilter{From: month}, newest},
		{"word_by_score", "reembolso", db.TaskFilter{}, db.TaskPage{Sort: db.TaskSortScore, Desc: true, Limit: 101}},
	} {
		var took []time.Duration
		var total int64
		var est bool
		for range 20 {
			start := time.Now()
			f := tc.f
			var err error
			f.Text, err = db.SearchQuery(ctx, pool, tc.q)
			require.NoError(t, err)
			tasks, tot, e, err := db.TaskListTotal(ctx, pool, f, tc.page)
			require.NoError(t, err)
			total, est = tot, e
			uuids := make([]string, len(tasks))
			for i, t := range tasks {
				uuids[i] = t.UUID
			}
			_, err = db.TaskSnippets(ctx, pool, f.Text, uuids)
			require.NoError(t, err)
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		t.Logf("%-20s total %7d est %-5v p50 %6.1f p95 %6.1f", tc.name, total, est, float64(took[10].Microseconds())/1000, float64(took[18].Microseconds())/1000)
	}
}
