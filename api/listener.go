package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
)

// Listener wraps l so that the few answers net/http writes by itself,
// before any handler runs, are in the error model like every other:
// a malformed request line, header or Host (400), headers over the limit
// (431), an unknown transfer coding (501) or HTTP version (505) become
// JSON errors with a code from the table, a request id and a message of
// ours; the last two, being the client's fault, become 400. Serve the API
// on it (with http.Server.Serve).
func Listener(l net.Listener) net.Listener { return errorListener{l} }

type errorListener struct{ net.Listener }

func (l errorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return errorConn{c}, nil
}

// errorConn rewrites net/http's own error answers. net/http writes each in
// one Write, straight to the connection, with exactly these headers; a
// handler's answer never has them (its headers are sorted and Connection
// comes before Content-Type).
type errorConn struct{ net.Conn }

const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c errorConn) Write(p []byte) (int, error) {
	status, ok := netHTTPError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	code, msg := CodeValidation, "the request is not valid HTTP/1.1: its request line, a header or its Host is malformed"
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		code, msg = CodeHeadersTooLarge, "the request's headers are larger than the limit of 1 MiB"
	case http.StatusNotImplemented:
		msg = "the request's Transfer-Encoding is not supported: send the body with Content-Length or chunked"
	case http.StatusHTTPVersionNotSupported:
		msg = "the request's HTTP version is not supported: use HTTP/1.1 or HTTP/2"
	}
	e := Errorf(code, msg)
	e.RequestID = newRequestID()
	body, err := json.Marshal(e)
	if err != nil {
		return 0, err
	}
	if _, err := fmt.Fprintf(c.Conn, "HTTP/1.1 %d %s\r\nCache-Control: no-store\r\nConnection: close\r\n"+
		"Content-Length: %d\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: %s\r\n\r\n%s",
		e.status, http.StatusText(e.status), len(body), e.RequestID, body); err != nil {
		return 0, err
	}
	return len(p), nil
}

// netHTTPError reports whether p is one of net/http's own error answers,
// and its status.
func netHTTPError(p []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 3 {
		return 0, false
	}
	line, _, ok := bytes.Cut(rest, []byte(netHTTPErrorHeaders))
	if !ok || bytes.Contains(line, []byte("\r\n")) {
		return 0, false
	}
	status, err := strconv.Atoi(string(rest[:3]))
	return status, err == nil && status >= 400
}
