package mail_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"mime"
	"net"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers/mail"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

func attachment(name, ct string, data []byte) mail.Attachment {
	return mail.Attachment{Name: name, ContentType: ct, Open: func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

func TestSendOverSMTP(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	m, err := mail.New(mail.Config{URL: srv.URL, From: "auditd@example.test"})
	require.NoError(t, err)
	pdf := make([]byte, 300_000)
	_, _ = rand.Read(pdf)
	err = m.Send(context.Background(), mail.Message{
		ID: "validation-1@auditd", To: []string{"ana@example.test", "sup@example.test"}, Bcc: []string{"audit@example.test"},
		Subject: "Validación de auditoría: llamada ✓", Text: "Texto plano", HTML: "<p>HTML <b>rico</b></p>",
		Attachments: []mail.Attachment{attachment("../../informe.pdf", "application/pdf", pdf), attachment("notas.txt", "text/plain", []byte("hola\n"))},
	})
	require.NoError(t, err)
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	got := msgs[0]
	require.ElementsMatch(t, []string{"ana@example.test", "sup@example.test", "audit@example.test"}, got.Rcpt)

	parsed, err := netmail.ReadMessage(bytes.NewReader(got.Data))
	require.NoError(t, err)
	require.Empty(t, parsed.Header.Get("Bcc"), "bcc recipients are not in the headers")
	require.NotContains(t, string(got.Data), "audit@example.test")
	subject, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
	require.NoError(t, err)
	require.Equal(t, "Validación de auditoría: llamada ✓", subject)
	require.Equal(t, "<validation-1@auditd>", parsed.Header.Get("Message-Id"))

	parts, err := got.Parts()
	require.NoError(t, err)
	byType := map[string]smtptest.Part{}
	for _, p := range parts {
		key := p.ContentType
		if p.FileName != "" {
			key = p.FileName
		}
		byType[key] = p
	}
	require.Equal(t, "Texto plano", strings.TrimSpace(string(byType["text/plain"].Body)))
	require.Contains(t, string(byType["text/html"].Body), "<b>rico</b>")
	require.Equal(t, pdf, byType["informe.pdf"].Body, "attachments arrive byte-identical, path stripped")
	require.Equal(t, "hola\n", string(byType["notas.txt"].Body))
}

func TestRefusalsAreClassified(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	srv.Refuse(451, 550)
	m, err := mail.New(mail.Config{URL: srv.URL, From: "auditd@example.test"})
	require.NoError(t, err)
	msg := mail.Message{To: []string{"ana@example.test"}, Subject: "s", Text: "t"}

	var de *mail.DeliveryError
	err = m.Send(context.Background(), msg)
	require.ErrorAs(t, err, &de)
	require.True(t, de.Temporary)
	require.Equal(t, 451, de.Code)

	err = m.Send(context.Background(), msg)
	require.ErrorAs(t, err, &de)
	require.False(t, de.Temporary)
	require.Equal(t, 550, de.Code)

	require.NoError(t, m.Send(context.Background(), msg))
	require.Len(t, srv.Messages(), 1)
}

func TestUnreachableAndHangingServersAreTemporary(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	ln.Close()
	msg := mail.Message{To: []string{"ana@example.test"}, Subject: "s", Text: "t"}

	m, err := mail.New(mail.Config{URL: "smtp://" + closed + "?tls=none", From: "auditd@example.test", Timeout: 2 * time.Second})
	require.NoError(t, err)
	var de *mail.DeliveryError
	require.ErrorAs(t, m.Send(context.Background(), msg), &de)
	require.True(t, de.Temporary)

	srv := smtptest.New(t)
	srv.Hang()
	m, err = mail.New(mail.Config{URL: srv.URL, From: "auditd@example.test", Timeout: time.Second})
	require.NoError(t, err)
	require.ErrorAs(t, m.Send(context.Background(), msg), &de)
	require.True(t, de.Temporary)
	require.Empty(t, srv.Messages())
}

func TestHeaderInjectionRefused(t *testing.T) {
	t.Parallel()
	srv := smtptest.New(t)
	m, err := mail.New(mail.Config{URL: srv.URL, From: "auditd@example.test"})
	require.NoError(t, err)
	ctx := context.Background()
	require.Error(t, m.Send(ctx, mail.Message{To: []string{"ana@example.test"}, Subject: "hi\r\nBcc: evil@example.test", Text: "t"}))
	require.Error(t, m.Send(ctx, mail.Message{To: []string{"ana@example.test\r\nBcc: evil@example.test"}, Subject: "s", Text: "t"}))
	require.NoError(t, m.Send(ctx, mail.Message{To: []string{"ana@example.test"}, Subject: "s", Text: "t",
		Attachments: []mail.Attachment{attachment("a\r\nContent-Type: text/html\r\n\r\nx.txt", "text/plain", []byte("x"))}}))
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	require.NotContains(t, string(msgs[0].Data), "evil@")
	require.NotContains(t, string(msgs[0].Data), "\r\nContent-Type: text/html\r\n\r\nx.txt")
	require.Equal(t, "htmlx.txt", mail.SafeFileName("a\r\nContent-Type: text/html\r\nx.txt"))
	require.Equal(t, "passwd", mail.SafeFileName("../../etc/passwd"))
	require.Equal(t, "attachment", mail.SafeFileName("../"))
}

func TestOutboxWhenNoSMTP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, err := mail.New(mail.Config{From: "auditd@example.test", Dir: dir})
	require.NoError(t, err)
	require.Equal(t, "outbox "+dir, m.Describe())
	msg := mail.Message{ID: "v-42@auditd", To: []string{"ana@example.test"}, Subject: "s", Text: "hello"}
	require.NoError(t, m.Send(context.Background(), msg))
	require.NoError(t, m.Send(context.Background(), msg), "a retry overwrites")
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "v-42@auditd.eml")}, files)
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.Contains(t, string(raw), "hello")
}

func TestConfigErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg  mail.Config
		want string
	}{
		{mail.Config{From: "not an address", Dir: "x"}, "MAIL_FROM"},
		{mail.Config{From: "a@b.test"}, "MAIL_DIR"},
		{mail.Config{From: "a@b.test", URL: "http://mail.example"}, "SMTP_URL"},
		{mail.Config{From: "a@b.test", URL: "smtp://mail.example?tls=sometimes"}, "SMTP_URL"},
		{mail.Config{From: "a@b.test", URL: "smtp://mail.example:abc"}, "SMTP_URL"},
	}
	for _, tc := range cases {
		_, err := mail.New(tc.cfg)
		require.ErrorContains(t, err, tc.want)
	}
	m, err := mail.New(mail.Config{From: "a@b.test", URL: "smtps://user:hunter2@mail.example"})
	require.NoError(t, err)
	require.NotContains(t, m.Describe(), "hunter2")
}
