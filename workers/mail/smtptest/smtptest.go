// Package smtptest is a real SMTP server on loopback for tests (built on
// emersion/go-smtp): it records what it receives and can be told to refuse
// messages with a reply code or to hang.
package smtptest

import (
	"bytes"
	"io"
	"net"
	"net/mail"
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
	received chan Message
}

// New starts a server that accepts everything, stopped when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), received: make(chan Message, 1000)}
	s.URL = "smtp://" + s.Addr + "?tls=none"
	srv := smtp.NewServer(backend{s})
	srv.Domain = "smtptest.local"
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		s.Release()
		srv.Close()
	})
	return s
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

// Release ends a Hang.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hang != nil {
		close(s.hang)
		s.hang = nil
	}
}

// Messages returns every accepted message so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
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
	defer ss.s.mu.Unlock()
	if len(ss.s.refusals) > 0 {
		code := ss.s.refusals[0]
		ss.s.refusals = ss.s.refusals[1:]
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0},
			Message: "refused by smtptest"}
	}
	m := Message{From: ss.from, Rcpt: ss.rcpt, Data: data}
	ss.s.msgs = append(ss.s.msgs, m)
	select {
	case ss.s.received <- m:
	default:
	}
	return nil
}
