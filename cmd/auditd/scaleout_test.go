package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/cmd/auditd/proctest"
	"github.com/auditd/auditd/db/dbtest"
)

// TestProcessesActAsOne runs three API and two worker processes on one
// database, as the service scales out, and checks that they behave as one:
// a user's rate limit holds across the API processes, an event reaches the
// streams open on every one of them, and uploads through any of them are
// each audited once by whichever worker takes them.
func TestProcessesActAsOne(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	env := proctest.Env(t, "DATABASE_URL="+url, "AUTH_DEV=true", "BLOB_URL=file://"+t.TempDir(),
		"RATE_LIMIT_WRITES=3", "SHUTDOWN_TIMEOUT=10s")
	first := proctest.Start(t, binary, append(env[:len(env):len(env)], proctest.Listen), "serve")
	addrs := []string{first.Addr(t)}
	env = append(env, "PUBLIC_URL=http://"+addrs[0])
	for range 2 {
		addrs = append(addrs, proctest.Start(t, binary, append(env[:len(env):len(env)], proctest.Listen), "serve").Addr(t))
	}
	for range 2 {
		proctest.Start(t, binary, env, "work").WaitLog(t, `"msg":"workers started"`)
	}
	root := proctest.Token(t, binary, env, "root", "admin")
	alice := proctest.Token(t, binary, env, "alice", "quality")
	carol := proctest.Token(t, binary, env, "carol", "quality")

	send := func(addr, token, method, path string, body any) *http.Response {
		t.Helper()
		b, err := json.Marshal(body)
		require.NoError(t, err)
		req, err := http.NewRequest(method, "http://"+addr+path, bytes.NewReader(b))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { res.Body.Close() })
		return res
	}

	// Carol's three writes a minute are three whichever process takes
	// them, not three each.
	statuses := map[int]int{}
	for i := range 6 {
		res := send(addrs[i%3], carol, http.MethodPost, "/notifications",
			map[string]any{"text": fmt.Sprint("note ", i), "variant": "info", "user_id": "carol"})
		statuses[res.StatusCode]++
	}
	require.Equal(t, map[int]int{http.StatusCreated: 3, http.StatusTooManyRequests: 3}, statuses)

	// A notification created through one process reaches alice's streams
	// on all three.
	lines := make([]*bufio.Scanner, len(addrs))
	for i, addr := range addrs {
		res := send(addr, alice, http.MethodGet, "/notifications/events", nil)
		require.Equal(t, http.StatusOK, res.StatusCode)
		lines[i] = bufio.NewScanner(res.Body)
	}
	res := send(addrs[1], root, http.MethodPost, "/notifications",
		map[string]any{"text": "shared by every process", "variant": "info", "user_id": "alice"})
	require.Equal(t, http.StatusCreated, res.StatusCode)
	for i, sc := range lines {
		got := make(chan bool, 1)
		go func() {
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), "shared by every process") {
					got <- true
					return
				}
			}
			got <- false
		}()
		select {
		case ok := <-got:
			require.True(t, ok, "stream on %s ended before the notification", addrs[i])
		case <-time.After(time.Minute):
			t.Fatalf("the stream on %s got no notification in a minute", addrs[i])
		}
	}

	// Chats uploaded through every process are audited, each once.
	const perProcess = 10
	for i, addr := range addrs {
		dir := t.TempDir()
		for j := range perProcess {
			chat := fmt.Sprintf("Agent: Good morning, this is Ana, chat %d-%d.\nCustomer: Hi, my order has not arrived.\nAgent: I have resent it; anything else?\nCustomer: No, thanks.\nAgent: Goodbye!\n", i, j)
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("chat-%d.txt", j)), []byte(chat), 0o600))
		}
		_, stderr, err := proctest.Run(t, binary, env, "upload", "--server", "http://"+addr, "--token", alice, "--progress", "never", dir)
		require.NoError(t, err, stderr)
	}
	pool := dbtest.PoolFor(t, url)
	waitCount(t, pool, `SELECT count(*) FROM tasks WHERE status = 'audited'`, 3*perProcess)
	// River records a job's completion after the work's own commit.
	waitCount(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'audit' AND state = 'completed'`, 3*perProcess)
	var audits, retried int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM audit_revisions WHERE source = 'engine'),
		(SELECT count(*) FROM river_job WHERE kind = 'audit' AND attempt > 1)`).Scan(&audits, &retried))
	require.Equal(t, []int{3 * perProcess, 0}, []int{audits, retried}, "one audit and one attempt a task")
}

// waitCount waits up to two minutes for query to count n.
func waitCount(t *testing.T, pool *pgxpool.Pool, query string, n int) {
	t.Helper()
	var got int
	require.Eventually(t, func() bool {
		return assert.NoError(t, pool.QueryRow(context.Background(), query).Scan(&got)) && got == n
	}, 2*time.Minute, 100*time.Millisecond, "%s: not %d", query, n)
}
