// Package smtptest is a real SMTP server on loopback for tests (built on
// emersion/go-smtp): it records what it receives and can be told to refuse
// messages with a reply code, to hang, or to take a message and hold the
// reply (the window in which a client that dies never learns it was sent).
package smtptest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one accepted message.
type Message struct {
	From string
	// Rcpt are the envelope recipients (To and Bcc alike).
	Rcpt []string
	Data []byte
}

// Header parses the message's headers.
func (m Message) Header() mail.Header {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return mail.Header{}
	}
	return msg.Header
}

// Part is one leaf of a message's MIME tree.
type Part struct {
	// ContentType is the media type, without parameters.
	ContentType string
	// FileName is an attachment's name ("" for a body part).
	FileName string
	// Body is the content, transfer encoding undone.
	Body []byte
}

// Parts walks the message's MIME tree and returns its leaves in order.
func (m Message) Parts() ([]Part, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return nil, err
	}
	return leaves(textproto.MIMEHeader(msg.Header), msg.Body)
}

func leaves(h textproto.MIMEHeader, body io.Reader) ([]Part, error) {
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(mt, "multipart/") {
		var out []Part
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			sub, err := leaves(p.Header, p)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	switch strings.ToLower(h.Get("Content-Transfer-Encoding")) {
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	_, disposition, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	return []Part{{ContentType: mt, FileName: disposition["filename"], Body: raw}}, nil
}

// Server is a loopback SMTP server.
type Server struct {
	// Addr is host:port.
	Addr string
	// URL is an SMTP_URL for it (plain SMTP, no TLS).
	URL string

	mu       sync.Mutex
	msgs     []Message
	refusals []int         // reply codes for the next DATA commands
	hang     chan struct{} // non-nil: sessions block until it is closed
	hold     chan struct{} // non-nil: replies to DATA wait until it is closed
	received chan Message
	srv      *smtp.Server // nil while stopped
	ln       net.Listener
}

// New starts a server that accepts everything, stopped when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{received: make(chan Message, 1000)}
	s.listen(t, "127.0.0.1:0")
	s.URL = "smtp://" + s.Addr + "?tls=none"
	t.Cleanup(func() {
		s.Release()
		s.Stop()
	})
	return s
}

func (s *Server) listen(t testing.TB, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "smtptest.local"
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	go func() { _ = srv.Serve(ln) }()
	s.mu.Lock()
	s.Addr, s.srv, s.ln = ln.Addr().String(), srv, ln
	s.mu.Unlock()
}

// Stop takes the server down: connections are refused until Start. What
// it accepted is kept.
func (s *Server) Stop() {
	s.mu.Lock()
	srv, ln := s.srv, s.ln
	s.srv, s.ln = nil, nil
	s.mu.Unlock()
	if srv != nil {
		// The listener too: Serve may not have taken it over yet.
		_ = ln.Close()
		_ = srv.Close()
	}
}

// Start brings a stopped server back on the same address.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	s.listen(t, s.Addr)
}

// Refuse makes the next messages fail at DATA with these reply codes, one
// per message (e.g. 451 then 550).
func (s *Server) Refuse(codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusals = append(s.refusals, codes...)
}

// Hang makes sessions stop answering at MAIL FROM until Release.
func (s *Server) Hang() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hang == nil {
		s.hang = make(chan struct{})
	}
}

// HoldReplies makes sessions take the next messages (recorded, and
// delivered to Received) but hold the reply to DATA until Release: the
// server has the message, the client has not heard so.
func (s *Server) HoldReplies() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold == nil {
		s.hold = make(chan struct{})
	}
}

// Release ends a Hang and a HoldReplies.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hang != nil {
		close(s.hang)
		s.hang = nil
	}
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
}

// Messages returns every accepted message so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// MessageIDs returns the distinct Message-IDs of the accepted messages, in
// order of first arrival: what a receiver that drops duplicates keeps.
func (s *Server) MessageIDs() []string {
	var ids []string
	for _, m := range s.Messages() {
		if id := m.Header().Get("Message-Id"); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Received delivers each accepted message as it arrives.
func (s *Server) Received() <-chan Message { return s.received }

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *Server
	from string
	rcpt []string
}

func (ss *session) Reset()        { ss.from, ss.rcpt = "", nil }
func (ss *session) Logout() error { return nil }

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.s.mu.Lock()
	hang := ss.s.hang
	ss.s.mu.Unlock()
	if hang != nil {
		<-hang
	}
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.rcpt = append(ss.rcpt, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.s.mu.Lock()
	if len(ss.s.refusals) > 0 {
		code := ss.s.refusals[0]
		ss.s.refusals = ss.s.refusals[1:]
		ss.s.mu.Unlock()
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0},
			Message: "refused by smtptest"}
	}
	m := Message{From: ss.from, Rcpt: ss.rcpt, Data: data}
	ss.s.msgs = append(ss.s.msgs, m)
	hold := ss.s.hold
	ss.s.mu.Unlock()
	select {
	case ss.s.received <- m:
	default:
	}
	if hold != nil {
		<-hold
	}
	return nil
}
