package auditd_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRunFromPrivateCheckout runs `make run`'s script as a new user would,
// from a checkout whose parent directory is private (mode 700, as root's
// home and any mktemp -d are): the service answers /health and the printed
// token reads /users/me. As root, the postgres user cannot reach that
// checkout, so the cluster lives under /var/lib/auditd, the script says so
// in one line, `make stop-db` stops it there, the next start reuses it, and
// the private directory keeps its mode.
func TestRunFromPrivateCheckout(t *testing.T) {
	t.Parallel()
	private := t.TempDir()
	require.NoError(t, os.Chmod(private, 0o700))
	checkout := copyCheckout(t, filepath.Join(private, "auditd"))
	pgPort, listen := freePort(t), fmt.Sprintf("127.0.0.1:%d", freePort(t))

	run := exec.Command("scripts/run.sh")
	run.Dir = checkout
	run.Env = append(environWithout("DATABASE_URL", "TEST_DATABASE_URL", "LISTEN_ADDR", "DEV_PG_PORT", "AUTH_DEV"),
		"LISTEN_ADDR="+listen, "DEV_PG_PORT="+strconv.Itoa(pgPort)) // the token names its issuer by this address
	run.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := run.StdoutPipe()
	require.NoError(t, err)
	stderr, err := run.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, run.Start())
	var readers sync.WaitGroup
	t.Cleanup(func() {
		_ = syscall.Kill(-run.Process.Pid, syscall.SIGKILL)
		stopDB(t, checkout)
		readers.Wait() // both pipes at their end: nothing logs after the test
		_ = run.Wait()
		if cluster := pgWhere(t, checkout); strings.HasPrefix(cluster, "/var/lib/auditd/") {
			_ = os.RemoveAll(filepath.Dir(cluster))
		}
	})
	token := make(chan string, 1)
	readers.Add(2)
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			t.Log("run.sh:", sc.Text())
			if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "export TOKEN="); ok {
				select {
				case token <- v:
				default:
				}
			}
		}
	}()
	lines := make(chan string, 1000)
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			t.Log("run.sh:", sc.Text())
			select { // past the wait below, lines are only logged
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
	}()

	var relocation, addr string
	timeout := time.After(8 * time.Minute)
	for addr == "" {
		select {
		case line, ok := <-lines:
			require.True(t, ok, "make run stopped before serving")
			if strings.Contains(line, "the cluster lives in") {
				relocation = line
			}
			var entry struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "listening" {
				addr = entry.Addr
			}
		case <-timeout:
			t.Fatal("make run did not serve within 8 minutes")
		}
	}
	res, err := http.Get("http://" + addr + "/health")
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode)
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/users/me", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+<-token)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode, string(body))

	info, err := os.Stat(private)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), info.Mode().Perm(), "the checkout's private parent keeps its mode")
	cluster := pgWhere(t, checkout)
	if os.Geteuid() != 0 {
		require.Equal(t, filepath.Join(checkout, "data", "pg"), cluster)
		return
	}
	require.True(t, strings.HasPrefix(cluster, "/var/lib/auditd/"), cluster)
	require.Contains(t, relocation, cluster, "make run says where the cluster lives")
	require.FileExists(t, filepath.Join(cluster, "postmaster.pid"))

	// make stop-db stops it where it lives; the next start reuses it, with
	// the database the first run made.
	require.NoError(t, syscall.Kill(-run.Process.Pid, syscall.SIGKILL))
	stopDB(t, checkout)
	require.NoFileExists(t, filepath.Join(cluster, "postmaster.pid"))
	start := exec.Command("scripts/pg.sh", "start", "data/pg", strconv.Itoa(pgPort))
	start.Dir = checkout
	url, err := start.Output()
	require.NoError(t, err)
	psql := exec.Command("psql", strings.TrimSpace(string(url)), "-tAc", "SELECT count(*) FROM pg_database WHERE datname = 'auditd'")
	out, err := psql.Output()
	require.NoError(t, err)
	require.Equal(t, "1", strings.TrimSpace(string(out)))
}

// copyCheckout copies the repository's tracked files into dir, and the
// dashboard's build (which make run keeps while its sources are unchanged),
// with its installed npm packages linked rather than installed again.
func copyCheckout(t *testing.T, dir string) string {
	t.Helper()
	files, err := exec.Command("git", "ls-files", "-z").Output()
	require.NoError(t, err)
	names := strings.Split(strings.TrimRight(string(files), "\x00"), "\x00")
	require.NoError(t, filepath.WalkDir("web/dist", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, name)
		}
		return err
	}))
	for _, name := range names {
		info, err := os.Lstat(name)
		if os.IsNotExist(err) { // deleted in the work tree, not yet committed
			continue
		}
		require.NoError(t, err)
		dst := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, data, info.Mode().Perm()))
	}
	if modules, err := filepath.Abs("web/node_modules"); err == nil {
		if _, err := os.Stat(modules); err == nil {
			require.NoError(t, os.Symlink(modules, filepath.Join(dir, "web", "node_modules")))
		}
	}
	return dir
}

// stopDB runs `make stop-db` in checkout.
func stopDB(t *testing.T, checkout string) {
	t.Helper()
	stop := exec.Command("make", "-s", "stop-db")
	stop.Dir = checkout
	out, err := stop.CombinedOutput()
	require.NoError(t, err, string(out))
}

// pgWhere is where the development cluster of checkout lives.
func pgWhere(t *testing.T, checkout string) string {
	t.Helper()
	where := exec.Command("scripts/pg.sh", "where", "data/pg")
	where.Dir = checkout
	out, err := where.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// freePort is a loopback TCP port free when asked.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

// environWithout is this process's environment less the variables named.
func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			env = append(env, kv)
		}
	}
	return env
}
