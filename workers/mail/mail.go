// Package mail sends the service's e-mails: over SMTP (SMTP_URL, through
// go-mail) or, without an SMTP server configured, as .eml files written to
// a directory (MAIL_DIR), so development installs work offline.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	netmail "net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Config configures a Mailer.
type Config struct {
	// URL is smtp://user:pass@host:port (STARTTLS; ?tls=opportunistic or
	// ?tls=none to relax it) or smtps://user:pass@host:port (implicit
	// TLS). Empty writes .eml files to Dir instead.
	URL string
	// From is the sender address (MAIL_FROM). Required.
	From string
	// Dir is the outbox for .eml files when URL is empty (MAIL_DIR).
	Dir string
	// Timeout bounds one delivery attempt. Defaults to 30s.
	Timeout time.Duration
}

// Attachment is a file sent with a message; Open is called once per attempt.
type Attachment struct {
	Name        string
	ContentType string
	Open        func(ctx context.Context) (io.ReadCloser, error)
}

// Message is one e-mail.
type Message struct {
	// ID is the Message-ID without angle brackets. A retry sends the same
	// id, so receivers that deduplicate by Message-ID see one message.
	ID          string
	To, Bcc     []string
	Subject     string
	Text, HTML  string
	Attachments []Attachment
}

// DeliveryError is a failed delivery. Temporary ones (4xx replies, network
// failures, timeouts) are worth retrying; permanent ones (5xx) are not.
type DeliveryError struct {
	Temporary bool
	// Code is the SMTP reply code, when the server gave one.
	Code int
	Err  error
}

func (e *DeliveryError) Error() string {
	kind := "permanent"
	if e.Temporary {
		kind = "temporary"
	}
	if e.Code != 0 {
		return fmt.Sprintf("%s delivery failure (SMTP %d): %v", kind, e.Code, e.Err)
	}
	return fmt.Sprintf("%s delivery failure: %v", kind, e.Err)
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// Mailer sends messages.
type Mailer struct {
	cfg  Config
	from *netmail.Address
	opts []gomail.Option
	host string
}

// New validates cfg and returns a Mailer. Errors name the variable.
func New(cfg Config) (*Mailer, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	from, err := netmail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("MAIL_FROM: %q is not an e-mail address", cfg.From)
	}
	m := &Mailer{cfg: cfg, from: from}
	if cfg.URL == "" {
		if cfg.Dir == "" {
			return nil, errors.New("MAIL_DIR: set it (or SMTP_URL) so e-mails have somewhere to go")
		}
		return m, nil
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("SMTP_URL: %q is not smtp://user:pass@host:port or smtps://…", redact(cfg.URL))
	}
	m.host = u.Hostname()
	m.opts = []gomail.Option{gomail.WithTimeout(cfg.Timeout), gomail.WithTLSConfig(&tls.Config{ServerName: m.host, MinVersion: tls.VersionTLS12})}
	port := 0
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("SMTP_URL: port %q is not a number", p)
		}
	}
	switch u.Scheme {
	case "smtps":
		m.opts = append(m.opts, gomail.WithSSL())
		if port == 0 {
			port = 465
		}
	case "smtp":
		policy := gomail.TLSMandatory
		switch u.Query().Get("tls") {
		case "", "mandatory":
		case "opportunistic":
			policy = gomail.TLSOpportunistic
		case "none":
			policy = gomail.NoTLS
		default:
			return nil, fmt.Errorf("SMTP_URL: tls=%q is not mandatory, opportunistic or none", u.Query().Get("tls"))
		}
		m.opts = append(m.opts, gomail.WithTLSPolicy(policy))
		if port == 0 {
			port = 587
		}
	default:
		return nil, fmt.Errorf("SMTP_URL: scheme %q is not smtp or smtps", u.Scheme)
	}
	m.opts = append(m.opts, gomail.WithPort(port))
	if u.User != nil {
		pass, _ := u.User.Password()
		m.opts = append(m.opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return m, nil
}

// Timeout is the bound of one delivery attempt (Config.Timeout).
func (m *Mailer) Timeout() time.Duration { return m.cfg.Timeout }

// Describe says where messages go, without credentials.
func (m *Mailer) Describe() string {
	if m.cfg.URL == "" {
		return "outbox " + m.cfg.Dir
	}
	return redact(m.cfg.URL)
}

// Send delivers msg. A failed SMTP delivery is a *DeliveryError.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	built, closeAll, err := m.build(ctx, msg)
	defer closeAll()
	if err != nil {
		return err
	}
	if m.cfg.URL == "" {
		return m.writeOutbox(msg.ID, built)
	}
	client, err := gomail.NewClient(m.host, m.opts...)
	if err != nil {
		return fmt.Errorf("SMTP_URL: %w", err)
	}
	sctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	if err := client.DialAndSendWithContext(sctx, built); err != nil {
		return classify(err)
	}
	return nil
}

func classify(err error) error {
	var se *gomail.SendError
	if errors.As(err, &se) {
		code := se.ErrorCode()
		// go-mail reports connection-level failures without a reply code;
		// those are as temporary as a 4xx.
		return &DeliveryError{Temporary: se.IsTemp() || code == 0 || (code >= 400 && code < 500), Code: code, Err: err}
	}
	return &DeliveryError{Temporary: true, Err: err}
}

// build turns msg into a go-mail message, refusing header injection.
func (m *Mailer) build(ctx context.Context, msg Message) (*gomail.Msg, func(), error) {
	var closers []io.Closer
	closeAll := func() {
		for _, c := range closers {
			c.Close()
		}
	}
	if strings.ContainsAny(msg.Subject, "\r\n") {
		return nil, closeAll, errors.New("the subject contains a line break")
	}
	if len(msg.To) == 0 {
		return nil, closeAll, errors.New("a message needs at least one recipient")
	}
	gm := gomail.NewMsg()
	gm.FromMailAddress(m.from)
	to, err := parseAddresses(msg.To)
	if err != nil {
		return nil, closeAll, err
	}
	gm.ToMailAddress(to...)
	if len(msg.Bcc) > 0 {
		bcc, err := parseAddresses(msg.Bcc)
		if err != nil {
			return nil, closeAll, err
		}
		gm.BccMailAddress(bcc...)
	}
	gm.Subject(msg.Subject)
	if msg.ID != "" {
		gm.SetMessageIDWithValue(msg.ID)
	} else {
		gm.SetMessageID()
	}
	gm.SetDate()
	gm.SetBodyString(gomail.TypeTextPlain, msg.Text)
	if msg.HTML != "" {
		gm.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	}
	for _, a := range msg.Attachments {
		rc, err := a.Open(ctx)
		if err != nil {
			return nil, closeAll, fmt.Errorf("attachment %q: %w", a.Name, err)
		}
		closers = append(closers, rc)
		ct := a.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		if err := gm.AttachReader(SafeFileName(a.Name), rc, gomail.WithFileContentType(gomail.ContentType(ct))); err != nil {
			return nil, closeAll, fmt.Errorf("attachment %q: %w", a.Name, err)
		}
	}
	return gm, closeAll, nil
}

// parseAddresses accepts plain addresses only: anything net/mail cannot
// parse (including CR/LF) is refused, which keeps headers clean.
func parseAddresses(list []string) ([]*netmail.Address, error) {
	out := make([]*netmail.Address, 0, len(list))
	for _, a := range list {
		addr, err := netmail.ParseAddress(a)
		if err != nil {
			return nil, fmt.Errorf("%q is not an e-mail address", a)
		}
		out = append(out, addr)
	}
	return out, nil
}

// SafeFileName keeps a file name's last path element and drops control
// characters, so it cannot break a MIME header.
func SafeFileName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "" || name == "." || name == ".." || name == "/" {
		return "attachment"
	}
	return name
}

// writeOutbox writes the message as DIR/<id>.eml, atomically; the same id
// overwrites, so a retried job leaves one file.
func (m *Mailer) writeOutbox(id string, msg *gomail.Msg) error {
	if err := os.MkdirAll(m.cfg.Dir, 0o750); err != nil {
		return fmt.Errorf("MAIL_DIR: %w", err)
	}
	if id == "" {
		id = strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 {
			return '_'
		}
		return r
	}, id)
	tmp, err := os.CreateTemp(m.cfg.Dir, ".tmp-*.eml")
	if err != nil {
		return fmt.Errorf("MAIL_DIR: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := msg.WriteTo(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(m.cfg.Dir, name+".eml"))
}

// redact hides a URL's password.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
