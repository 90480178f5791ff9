package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/cmd/auditd/proctest"
	"github.com/auditd/auditd/db/dbtest"
)

// BenchmarkSSEFanout connects SSE_CLIENTS (default 10,000) idle clients to
// one `auditd serve` process, then publishes global notifications and
// reports the delivery latency over every client (p50, p99) and the
// server's resident memory per connection. The baseline, measured first on
// the same server, is the latency to a single client.
func BenchmarkSSEFanout(b *testing.B) {
	clients := 10000
	if v, err := strconv.Atoi(os.Getenv("SSE_CLIENTS")); err == nil && v > 0 {
		clients = v
	}
	var lim syscall.Rlimit
	require.NoError(b, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	lim.Cur = lim.Max
	require.NoError(b, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	if need := uint64(clients + 200); lim.Max < need {
		b.Logf("open files limit %d < %d: connecting %d clients", lim.Max, need, lim.Max-200)
		clients = int(lim.Max - 200)
	}

	// One user opens every stream: its reads limit must not refuse them.
	env := proctest.Env(b, "DATABASE_URL="+dbtest.URL(b), "AUTH_DEV=true", "RATE_LIMIT_READS=1000000", proctest.Listen)
	serve := proctest.Start(b, binary, env, "serve")
	addr := serve.Addr(b)
	env = append(env, "PUBLIC_URL=http://"+addr)
	admin := proctest.Token(b, binary, env, "root", "admin")
	viewer := proctest.Token(b, binary, env, "viewer", "operator")
	ready := func() bool {
		res, err := http.Get("http://" + addr + "/ready")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == http.StatusOK
	}
	require.Eventually(b, ready, 30*time.Second, 20*time.Millisecond)
	postGlobal(b, addr, admin) // the viewer's user row exists before the rush
	require.Equal(b, http.StatusOK, getStatus(b, addr, "/users/me", viewer))

	var published atomic.Int64 // UnixNano of the latest publish
	single := oneClientLatency(b, addr, admin, viewer, &published)

	before := rssKiB(b, serve.Cmd.Process.Pid)
	arrivals := make(chan time.Duration, clients)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 200) // stay under the listen backlog
	conns := make([]net.Conn, clients)
	for i := range clients {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			conns[i] = openIdleStream(b, addr, viewer, &published, arrivals)
		}()
	}
	wg.Wait()
	after := rssKiB(b, serve.Cmd.Process.Pid)
	b.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})

	var latencies []time.Duration
	b.ResetTimer()
	for range b.N {
		published.Store(time.Now().UnixNano())
		postGlobal(b, addr, admin)
		for range clients {
			select {
			case d := <-arrivals:
				latencies = append(latencies, d)
			case <-time.After(60 * time.Second):
				b.Fatalf("only %d of %d clients got the event", len(latencies)%clients, clients)
			}
		}
	}
	b.StopTimer()
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(clients), "clients")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(single, "1client-p50-ms")
	b.ReportMetric(pct(0.99)/single, "p99/1client")
	b.ReportMetric(float64(after-before)/float64(clients), "KiB/conn")
	serve.Stop(b)
}

// oneClientLatency is the baseline: the median delivery latency of ten
// global notifications to a single stream, in milliseconds, measured before
// the others connect. The stream is closed afterwards.
func oneClientLatency(b *testing.B, addr, admin, viewer string, published *atomic.Int64) float64 {
	const rounds = 10
	arrivals := make(chan time.Duration, rounds)
	conn := openIdleStream(b, addr, viewer, published, arrivals)
	require.NotNil(b, conn)
	defer conn.Close()
	var took []time.Duration
	for range rounds {
		published.Store(time.Now().UnixNano())
		postGlobal(b, addr, admin)
		select {
		case d := <-arrivals:
			took = append(took, d)
		case <-time.After(60 * time.Second):
			b.Fatal("the single client did not get the event")
		}
	}
	slices.Sort(took)
	return float64(took[rounds/2].Microseconds()) / 1000
}

// openIdleStream opens an event stream with a bare connection (little
// client-side memory) and reports, for every notification.created it
// reads, the time since the latest publish.
func openIdleStream(b *testing.B, addr, token string, published *atomic.Int64, arrivals chan<- time.Duration) net.Conn {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Error(err)
		return nil
	}
	fmt.Fprintf(conn, "GET /notifications/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n", addr, token)
	r := bufio.NewReaderSize(conn, 1024)
	for { // headers, then the retry: line that says the stream is subscribed
		line, err := r.ReadString('\n')
		if err != nil {
			b.Error(err)
			return conn
		}
		if strings.HasPrefix(line, "HTTP/1.1 ") && !strings.HasPrefix(line, "HTTP/1.1 200") {
			b.Errorf("stream refused: %s", line)
			return conn
		}
		if strings.Contains(line, "retry: ") {
			break
		}
	}
	go func() {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.Contains(line, "event: notification.created") {
				arrivals <- time.Duration(time.Now().UnixNano() - published.Load())
			}
		}
	}()
	return conn
}

func postGlobal(b *testing.B, addr, token string) {
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/notifications",
		strings.NewReader(`{"text":"fan-out","variant":"info","is_global":true}`))
	require.NoError(b, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	res.Body.Close()
	require.Equal(b, http.StatusCreated, res.StatusCode)
}

func getStatus(b *testing.B, addr, path, token string) int {
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	require.NoError(b, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	res.Body.Close()
	return res.StatusCode
}

// rssKiB reads a process's resident set size.
func rssKiB(b *testing.B, pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(b, err)
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			require.NoError(b, err)
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
