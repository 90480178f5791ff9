package api

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// BodyTimeouts bound the time a streamed request body (an upload, a
// validation) takes to arrive; Huma's BodyReadTimeout covers only the
// bodies it reads itself. Zero fields take their defaults.
type BodyTimeouts struct {
	// Idle is how long a body may send nothing (UPLOAD_IDLE_TIMEOUT).
	// Defaults to 30s.
	Idle time.Duration
	// Total bounds a whole body, however steadily it arrives
	// (UPLOAD_TIMEOUT). Defaults to 1h.
	Total time.Duration
}

func (t BodyTimeouts) withDefaults() BodyTimeouts {
	if t.Idle == 0 {
		t.Idle = 30 * time.Second
	}
	if t.Total == 0 {
		t.Total = time.Hour
	}
	return t
}

// body returns the request's body, limited to limit bytes and read within
// t: a client that stalls or trickles fails the read with a
// *bodyTimeoutError instead of holding the request, its goroutine and its
// blob writes for ever.
func (in *streamedInput) body(limit int64, t BodyTimeouts) io.Reader {
	return &deadlineReader{r: http.MaxBytesReader(in.w, in.req.Body, limit), w: in.w, t: t}
}

// form returns the request's multipart body (with boundary) as body
// returns it, limit bytes per what the limit is per ("upload request").
func (in *streamedInput) form(boundary string, limit int64, per string, t BodyTimeouts) *formReader {
	// The multipart reader reads 4 KiB at a time: a large buffer beneath it
	// saves a system call per 4 KiB.
	body := bufio.NewReaderSize(in.body(limit, t), 1<<20)
	return &formReader{mr: multipart.NewReader(body, boundary), limit: limit, per: per}
}

// formReader reads a streamed multipart body part by part, so that a bad
// part ends the request before the rest is sent.
type formReader struct {
	mr    *multipart.Reader
	limit int64
	// per names what the limit is per, as messages say it.
	per string
	// parts counts the parts read so far, to say which one is malformed.
	parts int
}

// each hands every part to handle in order, closing it after, until the
// body ends or an error.
func (f *formReader) each(handle func(*multipart.Part) error) error {
	for {
		part, err := f.mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return f.error(err, "")
		}
		f.parts++
		err = handle(part)
		part.Close()
		if err != nil {
			return err
		}
	}
}

// error explains why the body could not be read while reading file (""
// between files): PAYLOAD_TOO_LARGE beyond the limit, REQUEST_TIMEOUT when
// it did not arrive in time, else VALIDATION_ERROR. An *Error passes
// through.
func (f *formReader) error(err error, file string) error {
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return Errorf(CodePayloadTooLarge, fmt.Sprintf("the request is larger than the limit of %s per %s%s",
			size(f.limit), f.per, whileReading(file))).
			WithDetails(map[string]any{"file": file, "limit_bytes": f.limit})
	}
	if e, ok := timedOut(err, file); ok {
		return e
	}
	// The reader's own text quotes the request back: it is never sent.
	part := f.parts + 1
	msg := fmt.Sprintf("part %d of the multipart body is malformed or the body ended early: each part needs "+
		"\"Name: value\" header lines, a blank line, its content, then the boundary", part)
	if file != "" {
		part = f.parts
		msg = fmt.Sprintf("the multipart body ended early or is malformed while reading file %q (part %d): "+
			"send the file again, whole, followed by the closing boundary", file, part)
	}
	return Errorf(CodeValidation, msg).WithDetail("body", fmt.Sprintf("part %d is malformed or incomplete", part), nil)
}

func whileReading(file string) string {
	if file == "" {
		return ""
	}
	return fmt.Sprintf(" while reading file %q", file)
}

// deadlineReader moves the connection's read deadline (the mechanism of
// Huma's BodyReadTimeout) before each read: t.Idle from now, never past
// t.Total from the first read. Where the connection has no deadline (a
// ResponseWriter that is not a server's), the body is unbounded in time,
// as with Huma.
type deadlineReader struct {
	r   io.Reader
	w   http.ResponseWriter
	t   BodyTimeouts
	end time.Time
	// err ends the reading: once the body has ended, the server reads the
	// connection in the background without a deadline, and a deadline set
	// again would cancel the request when it passed.
	err error
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	now := time.Now()
	if d.end.IsZero() {
		d.end = now.Add(d.t.Total)
	}
	deadline, total := now.Add(d.t.Idle), false
	if !deadline.Before(d.end) {
		deadline, total = d.end, true
	}
	_ = huma.SetReadDeadline(d.w, deadline)
	n, err := d.r.Read(p)
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		limit := d.t.Idle
		if total {
			limit = d.t.Total
		}
		err = &bodyTimeoutError{total: total, limit: limit, err: err}
	}
	d.err = err
	return n, err
}

// bodyTimeoutError is a body that did not arrive in time.
type bodyTimeoutError struct {
	// total is set when the whole-body bound ran out, not the idle one.
	total bool
	limit time.Duration
	err   error
}

func (e *bodyTimeoutError) Error() string { return "request body timeout: " + e.err.Error() }

func (e *bodyTimeoutError) Unwrap() error { return e.err }

// timedOut returns the REQUEST_TIMEOUT answer when err is a body that did
// not arrive in time, while reading file ("" between files).
func timedOut(err error, file string) (*Error, bool) {
	t, ok := errors.AsType[*bodyTimeoutError](err)
	if !ok {
		return nil, false
	}
	msg := fmt.Sprintf("the request stalled: nothing arrived for %s%s; check the connection and send the request again",
		span(t.limit), whileReading(file))
	if t.total {
		msg = fmt.Sprintf("the request did not arrive within %s, the time allowed for one request%s; send it again over a faster connection, or split a large upload into several requests",
			span(t.limit), whileReading(file))
	}
	return Errorf(CodeRequestTimeout, msg).WithDetails(map[string]any{"file": file, "limit_seconds": t.limit.Seconds()}), true
}

// span writes d as a person would: 1h rather than 1h0m0s.
func span(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
