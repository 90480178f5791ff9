package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// stderrKeep bounds how much of a tool's standard error is kept: enough for
// ffmpeg's end-of-run reports and the lines that explain a failure, without
// growing with the length of the recording.
const stderrKeep = 64 << 10

// Run runs the command-line tool name with args, bound to ctx: when ctx ends
// the process is killed and the error wraps ctx.Err(). It returns the tool's
// standard output and the tail of its standard error. When the tool cannot
// start or exits non-zero, the error names it and quotes the last lines of
// its standard error, which is where ffmpeg and PocketSphinx explain
// themselves.
func Run(ctx context.Context, name string, args ...string) (stdout, stderr []byte, err error) {
	return run(ctx, nil, name, args...)
}

// run is Run with stdin (nil for none).
func run(ctx context.Context, stdin io.Reader, name string, args ...string) (stdout, stderr []byte, err error) {
	var out bytes.Buffer
	stderr, err = stream(ctx, stdin, &out, name, args...)
	if err != nil && ctx.Err() != nil {
		return nil, nil, err
	}
	return out.Bytes(), stderr, err
}

// stream is run writing the tool's standard output to stdout as it comes,
// so that a long recording's samples are never held whole.
func stream(ctx context.Context, stdin io.Reader, stdout io.Writer, name string, args ...string) (stderr []byte, err error) {
	errTail := tailWriter{max: stderrKeep}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = stdin
	cmd.Stdout = stdout
	cmd.Stderr = &errTail
	// A killed tool's children could hold the pipes open; do not wait on them forever.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	case err != nil:
		return errTail.buf, &ToolError{Tool: name, Err: err, Stderr: lastLines(errTail.buf, 5)}
	}
	return errTail.buf, nil
}

// ToolError is a command-line tool that failed to start or exited non-zero.
type ToolError struct {
	// Tool is the program's name, such as "ffmpeg".
	Tool string
	// Err is what os/exec reported (for example "exit status 1").
	Err error
	// Stderr is the last lines the tool wrote to its standard error.
	Stderr string
}

// Error implements error.
func (e *ToolError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%s: %v", e.Tool, e.Err)
	}
	return fmt.Sprintf("%s: %v: %s", e.Tool, e.Err, e.Stderr)
}

// Unwrap returns the os/exec error.
func (e *ToolError) Unwrap() error { return e.Err }

// exited reports whether the tool ran and exited with a failure status, as
// opposed to not starting at all.
func (e *ToolError) exited() bool {
	var exit *exec.ExitError
	return errors.As(e.Err, &exit)
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

// lastLines returns the last n non-blank lines of b, joined by " | ".
func lastLines(b []byte, n int) string {
	var lines []string
	for line := range strings.Lines(string(b)) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
