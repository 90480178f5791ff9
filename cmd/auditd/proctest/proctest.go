// Package proctest runs auditd as separate processes for the tests that
// need real ones: several API and worker processes on one database, killed
// with SIGKILL or stopped with SIGTERM.
package proctest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Main is a TestMain: it builds auditd once into a temporary directory,
// sets *bin to the binary, runs the tests and exits with their code.
func Main(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "auditd-bin")
	if err != nil {
		panic(err)
	}
	*bin = filepath.Join(dir, "auditd")
	out, err := exec.Command("go", "build", "-o", *bin, "github.com/auditd/auditd/cmd/auditd").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build auditd: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Proc is a running auditd process whose log lines a test can wait for.
type Proc struct {
	Cmd   *exec.Cmd
	lines chan string
	// Done receives the process's exit once.
	Done chan error
}

// Start runs bin with args and env in a fresh working directory (relative
// defaults such as BLOB_URL land there); the process is killed when tb ends.
func Start(tb testing.TB, bin string, env []string, args ...string) *Proc {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = tb.TempDir()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &Proc{Cmd: cmd, lines: make(chan string, 1000), Done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			tb.Log(args[0], cmd.Process.Pid, sc.Text())
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.Done <- cmd.Wait()
	}()
	tb.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

// WaitLog waits up to a minute for a log line containing s and returns it.
func (p *Proc) WaitLog(tb testing.TB, s string) string {
	tb.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line := <-p.lines:
			if strings.Contains(line, s) {
				return line
			}
		case err := <-p.Done:
			tb.Fatalf("process exited before logging %q: %v", s, err)
		case <-timeout:
			tb.Fatalf("no log line %q", s)
		}
	}
}

// Stop sends SIGTERM and requires a clean exit within a minute.
func (p *Proc) Stop(tb testing.TB) {
	tb.Helper()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	select {
	case err := <-p.Done:
		if err != nil {
			tb.Fatalf("process exited with %v after SIGTERM", err)
		}
	case <-time.After(time.Minute):
		tb.Fatal("process did not stop on SIGTERM")
	}
}

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Proc) Kill(tb testing.TB) {
	tb.Helper()
	if err := p.Cmd.Process.Kill(); err != nil {
		tb.Fatal(err)
	}
	<-p.Done
}

// Listen is the LISTEN_ADDR of a process whose address a test reads back
// with Addr: any free loopback port, taken by the process itself, so no
// other process can take it between a check and the bind.
const Listen = "LISTEN_ADDR=127.0.0.1:0"

// Addr waits for a serving process's "listening" log line (LOG_LEVEL info
// or lower) and returns the address it names.
func (p *Proc) Addr(tb testing.TB) string {
	tb.Helper()
	var line struct{ Addr string }
	if err := json.Unmarshal([]byte(p.WaitLog(tb, `"msg":"listening"`)), &line); err != nil || line.Addr == "" {
		tb.Fatalf("no address in the listening line: %v", err)
	}
	return line.Addr
}

// Run runs bin with args to its end and returns its stdout and stderr.
func Run(tb testing.TB, bin string, env []string, args ...string) (string, string, error) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = tb.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// Token returns a development access token (AUTH_DEV) for user with roles.
func Token(tb testing.TB, bin string, env []string, user, roles string) string {
	tb.Helper()
	out, stderr, err := Run(tb, bin, env, "token", "--user", user, "--roles", roles)
	if err != nil {
		tb.Fatalf("auditd token: %v\n%s", err, stderr)
	}
	return strings.TrimSpace(out)
}

// Env is the environment every auditd process of a test needs beside its
// own settings: PATH (ffmpeg, ffprobe) and a private HOME.
func Env(tb testing.TB, settings ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + tb.TempDir()}, settings...)
}
