//go:build faults

package faults

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/workers/mail/smtptest"
)

// The mail server down for a while: validations are recorded all the
// same (the answer says so, and that delivery will be retried), delivery
// is retried while it is down, and once it is back each e-mail goes out,
// once, and its validator hears so.
func TestMailServerDown(t *testing.T) {
	t.Parallel()
	mailServer := smtptest.New(t)
	mailServer.Stop()
	// The answers below are those of the first delivery attempt: the wait
	// for it is long enough for a worker busy with the other e-mails.
	s := newStack(t, dbtest.URL(t), time.Minute, "SMTP_URL="+mailServer.URL, "JOB_RETRY_MAX_DELAY=1s", "MAIL_TIMEOUT=5s",
		"JOB_WAIT_TIMEOUT=30s")
	s.start("serve")
	s.start("work")
	files := newContent(t)

	var uuids []string
	for n := range 4 {
		r, err := s.upload("chat.txt", files.chat(n))
		require.NoError(t, err)
		uuids = append(uuids, uploaded(t, r))
	}
	s.await(time.Minute, func() bool {
		return s.count(`SELECT count(*) FROM tasks WHERE status = 'audited'`) == len(uuids)
	}, "chats audited")
	for _, uuid := range uuids {
		r, err := s.validate(uuid, false)
		require.NoError(t, err)
		require.Equal(t, http.StatusBadGateway, r.Status, r.Body)
		require.Equal(t, "EMAIL_SEND_ERROR", r.code())
		details := r.Body["details"].(map[string]any)
		require.Equal(t, true, details["validation_recorded"], details)
		require.Equal(t, true, details["will_retry"], details)
		require.Contains(t, r.Body["message"], "will be retried automatically")
	}
	require.Equal(t, len(uuids), s.count(`SELECT count(*) FROM validations`))
	s.await(2*time.Minute, func() bool {
		return s.count(`SELECT count(*) FROM validations WHERE email_status = 'pending' AND email_attempts >= 3`) == len(uuids)
	}, "three delivery attempts each while the server is down")

	mailServer.Start(t)
	s.await(2*time.Minute, func() bool {
		return s.count(`SELECT count(*) FROM validations WHERE email_status = 'sent'`) == len(uuids)
	}, "every e-mail delivered once the server is back")
	require.Len(t, mailServer.Messages(), len(uuids), "each e-mail once")
	require.Len(t, mailServer.MessageIDs(), len(uuids))
	require.Equal(t, len(uuids), s.count(`SELECT count(*) FROM notifications
		WHERE user_id = 'qa-admin' AND variant = 'success' AND text LIKE '%was delivered after % attempts.'`))
	s.requireNoLoss(uuids, "validated")
	attempts := s.count(`SELECT sum(email_attempts) FROM validations`)
	t.Logf("REPORT mail server down: %d validations recorded, %d delivery attempts, %d e-mails delivered after it returned",
		len(uuids), attempts, len(mailServer.Messages()))
}
