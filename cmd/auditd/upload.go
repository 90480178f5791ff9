package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/auditd/auditd/intake"
)

// uploadedTask is one entry of an upload's response.
type uploadedTask struct {
	UUID      string `json:"uuid"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	Duplicate bool   `json:"duplicate"`
}

// uploadFile sends one file as its own upload request, streaming it from
// disk (with a known length, so the server can refuse an oversized file at
// once) through progress. A request sent again (after a 429 or a server
// error) reads the file anew; progress counts each byte once.
func (c *apiClient) uploadFile(ctx context.Context, path string, size int64, fields map[string]string, progress io.Writer) (uploadedTask, error) {
	f, err := os.Open(path)
	if err != nil {
		return uploadedTask{}, err
	}
	defer f.Close()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if fields[k] != "" {
			if err := mw.WriteField(k, fields[k]); err != nil {
				return uploadedTask{}, err
			}
		}
	}
	if _, err := mw.CreateFormFile("files", filepath.Base(path)); err != nil {
		return uploadedTask{}, err
	}
	head := bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := mw.Close(); err != nil {
		return uploadedTask{}, err
	}
	tail := buf.Bytes()

	once := &onceWriter{w: progress}
	req, err := c.request(ctx, http.MethodPost, "/tasks/upload", func() (io.Reader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		once.sent = 0
		return io.MultiReader(bytes.NewReader(head), io.TeeReader(io.LimitReader(f, size), once), bytes.NewReader(tail)), nil
	})
	if err != nil {
		return uploadedTask{}, err
	}
	req.ContentLength = int64(len(head)) + size + int64(len(tail))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var res struct {
		Tasks []uploadedTask `json:"tasks"`
	}
	if err := c.do(req, &res); err != nil {
		return uploadedTask{}, err
	}
	if len(res.Tasks) != 1 {
		return uploadedTask{}, fmt.Errorf("expected one task in the response, got %d", len(res.Tasks))
	}
	return res.Tasks[0], nil
}

// existing returns the task the server has of the file at path, by its
// content's SHA-256 (GET /files/{sha256}), and whether it has
// one: an upload run again sends nothing twice.
func (c *apiClient) existing(ctx context.Context, path string) (uploadedTask, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return uploadedTask{}, false, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return uploadedTask{}, false, err
	}
	var task uploadedTask
	err = c.call(ctx, http.MethodGet, "/files/"+hex.EncodeToString(h.Sum(nil)), &task)
	if e, ok := errors.AsType[*answerError](err); ok && e.status == http.StatusNotFound {
		return uploadedTask{}, false, nil
	}
	task.Duplicate = true
	return task, err == nil, err
}

// onceWriter passes on to w only the bytes past the most an attempt has
// sent so far: an attempt that starts again from the file's beginning
// (sent set back to 0) moves no bar until it passes the last one's end.
type onceWriter struct {
	w          io.Writer
	sent, most int64
}

func (o *onceWriter) Write(p []byte) (int, error) {
	o.sent += int64(len(p))
	if o.sent > o.most {
		n := min(o.sent-o.most, int64(len(p)))
		o.most = o.sent
		if _, err := o.w.Write(p[int64(len(p))-n:]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// localFile is a file to upload.
type localFile struct {
	path string
	size int64
}

// collectFiles expands directories (recursively, skipping hidden entries)
// into the regular files they hold.
func collectFiles(args []string) ([]localFile, error) {
	var files []localFile
	for _, arg := range args {
		err := filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if path != arg && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, localFile{path: path, size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// metadataFlag gathers --meta key=value entries.
type metadataFlag map[string]string

func (m metadataFlag) String() string { return "" }

func (m *metadataFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("%q is not key=value", v)
	}
	if *m == nil {
		*m = metadataFlag{}
	}
	if _, seen := (*m)[k]; seen {
		return fmt.Errorf("the key %q is given twice", k)
	}
	(*m)[k] = val
	return nil
}

// uploadCommand uploads files, a few at a time, with progress bars.
func uploadCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("upload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: auditd upload [flags] FILE|DIR...\n\nUploads recordings and chat transcripts, one request per file, a few at a time.\n\nflags:")
		fs.PrintDefaults()
	}
	server, token := clientFlags(fs, getenv)
	fields := map[string]*string{
		"campaign":     fs.String("campaign", "", "campaign name (default: the server's default campaign)"),
		"operator":     fs.String("operator", "", "the audited agent's user id or username"),
		"language":     fs.String("language", "", "language of the interactions, such as es (default: the campaign's; a call in a language the speech\nengine does not transcribe is refused, the command prints which it transcribes)"),
		"direction":    fs.String("direction", "", "inbound or outbound"),
		"started_at":   fs.String("started-at", "", "when the interactions started (RFC 3339)"),
		"call_id":      fs.String("call-id", "", "the platform's id of the call or chat, unique in its campaign (one file only)"),
		"queue":        fs.String("queue", "", "the platform's queue or skill"),
		"caller":       fs.String("caller", "", "the calling phone number"),
		"called":       fs.String("called", "", "the called phone number"),
		"customer_ref": fs.String("customer-ref", "", "the customer's reference in another system (erasures find tasks by it)"),
	}
	externalID := fs.String("external-id", "", "former name of --customer-ref")
	var meta metadataFlag
	fs.Var(&meta, "meta", "a metadata entry key=value (repeat for more; values are text)")
	parallel := fs.Int("parallel", 3, "files uploaded at once")
	progress := fs.String("progress", "auto", "progress bars: auto (when stderr is a terminal), always, never")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("name the files or directories to upload")
	}
	if *parallel < 1 || *parallel > 32 {
		return fmt.Errorf("--parallel: %d is outside 1..32", *parallel)
	}
	c, err := newAPIClient(*server, *token)
	if err != nil {
		return err
	}
	files, err := collectFiles(fs.Args())
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("no files to upload")
	}
	var settings struct {
		Speech intake.Speech `json:"speech"`
	}
	if err := c.call(ctx, http.MethodGet, "/client-config", &settings); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: %s\n", c.server, settings.Speech)
	values := map[string]string{}
	for k, v := range fields {
		values[k] = strings.TrimSpace(*v)
	}
	if old := strings.TrimSpace(*externalID); old != "" {
		if values["customer_ref"] != "" && values["customer_ref"] != old {
			return errors.New("--external-id is the former name of --customer-ref: give one of them")
		}
		values["customer_ref"] = old
	}
	if values["call_id"] != "" && len(files) > 1 {
		return fmt.Errorf("--call-id names one call or chat, and there are %d files: upload each with its own", len(files))
	}
	if len(meta) > 0 {
		b, err := json.Marshal(map[string]string(meta))
		if err != nil {
			return err
		}
		values["metadata"] = string(b)
	}

	var show bool
	switch *progress {
	case "always":
		show = true
	case "never":
	case "auto":
		f, ok := stderr.(*os.File)
		show = ok && term.IsTerminal(int(f.Fd()))
	default:
		return fmt.Errorf("--progress: %q is not auto, always or never", *progress)
	}
	d := &display{out: stderr, enabled: show}
	c.retrying = func(line string) { d.println(stderr, line) }
	var total int64
	for _, f := range files {
		total += f.size
	}
	overall := d.bar(total, fmt.Sprintf("%d files", len(files)))

	type outcome struct {
		file localFile
		task uploadedTask
		err  error
		// skipped: the server had it already, nothing was sent.
		skipped bool
	}
	work := make(chan localFile)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for range min(*parallel, len(files)) {
		wg.Go(func() {
			for f := range work {
				task, found, err := c.existing(ctx, f.path)
				if found || err != nil {
					_ = overall.Add64(f.size)
					results <- outcome{f, task, err, found}
					continue
				}
				bar := d.bar(f.size, filepath.Base(f.path))
				task, err = c.uploadFile(ctx, f.path, f.size, values, io.MultiWriter(bar, overall))
				d.remove(bar)
				results <- outcome{f, task, err, false}
			}
		})
	}
	go func() {
		defer close(work)
		for _, f := range files {
			select {
			case work <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	var created, duplicates, skipped, failed int
	for r := range results {
		var line string
		switch {
		case r.err != nil:
			failed++
			line = fmt.Sprintf("failed     %s: %v", r.file.path, r.err)
		case r.skipped:
			skipped++
			line = fmt.Sprintf("skipped    %s  %s  (the server has it: %s, %s)", r.task.UUID, r.file.path, r.task.Kind, r.task.Status)
		case r.task.Duplicate:
			duplicates++
			line = fmt.Sprintf("duplicate  %s  %s  (already uploaded: %s, %s)", r.task.UUID, r.file.path, r.task.Kind, r.task.Status)
		default:
			created++
			line = fmt.Sprintf("ok         %s  %s  (%s, %s)", r.task.UUID, r.file.path, r.task.Kind, r.task.Status)
		}
		d.println(stdout, line)
	}
	d.remove(overall)
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d files: %d new, %d duplicates, %d failed, %d skipped (the server had them)\n",
		len(files), created, duplicates, failed, skipped)
	if failed > 0 {
		return fmt.Errorf("%d of %d files failed", failed, len(files))
	}
	return nil
}

// display draws several progress bars on a terminal at once: each bar
// renders into its own line, and the block of lines is redrawn below the
// results printed so far. Disabled, it draws nothing.
type display struct {
	out     io.Writer
	enabled bool

	mu    sync.Mutex
	lines []*barLine
	drawn int
}

// barLine is a bar's latest rendering.
type barLine struct {
	d    *display
	text string
}

// Write takes a rendering of the bar: the text after its last carriage
// return (the library redraws a line by returning to its start).
func (l *barLine) Write(p []byte) (int, error) {
	segments := strings.Split(strings.ReplaceAll(string(p), "\n", "\r"), "\r")
	text := ""
	for _, s := range slices.Backward(segments) {
		if s = strings.TrimRight(s, " "); s != "" {
			text = s
			break
		}
	}
	if text != "" {
		l.d.mu.Lock()
		l.text = text
		l.d.redrawLocked(nil, "")
		l.d.mu.Unlock()
	}
	return len(p), nil
}

// bar is a progress bar counting the bytes written to it.
type bar struct {
	*progressbar.ProgressBar
	line *barLine
}

// bar adds a bar of size bytes.
func (d *display) bar(size int64, description string) *bar {
	if !d.enabled {
		return &bar{ProgressBar: progressbar.NewOptions64(size, progressbar.OptionSetVisibility(false))}
	}
	if r := []rune(description); len(r) > 28 {
		description = string(r[:27]) + "…"
	}
	l := &barLine{d: d}
	d.mu.Lock()
	// The overall bar, added first, stays last.
	d.lines = slices.Insert(d.lines, max(len(d.lines)-1, 0), l)
	d.mu.Unlock()
	return &bar{line: l, ProgressBar: progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(l),
		progressbar.OptionSetDescription(fmt.Sprintf("%-28s", description)),
		progressbar.OptionShowBytes(true),
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionSetWidth(25),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
	)}
}

// remove takes a bar's line away once it is done.
func (d *display) remove(b *bar) {
	if !d.enabled {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lines = slices.DeleteFunc(d.lines, func(l *barLine) bool { return l == b.line })
	d.redrawLocked(nil, "")
}

// println prints a result line to w above the bars.
func (d *display) println(w io.Writer, line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.enabled {
		fmt.Fprintln(w, line)
		return
	}
	d.redrawLocked(w, line)
}

// redrawLocked erases the bars, prints line to w if given, and draws the
// bars again.
func (d *display) redrawLocked(w io.Writer, line string) {
	var b strings.Builder
	if d.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", d.drawn)
	}
	b.WriteString("\r\x1b[J")
	io.WriteString(d.out, b.String()) //nolint:errcheck // a terminal
	if w != nil {
		fmt.Fprintln(w, line)
	}
	b.Reset()
	for _, l := range d.lines {
		b.WriteString(l.text)
		b.WriteString("\n")
	}
	io.WriteString(d.out, b.String()) //nolint:errcheck // a terminal
	d.drawn = len(d.lines)
}
