package validation_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/validation"
)

// TestRecipients routes a validation's e-mail: the agent, the campaign's
// supervisors and the fixed recipients, each once whatever its case, the
// unparsable left out; else the validator; else nobody, a conflict.
func TestRecipients(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, campaign := dbtest.ForTasks(t)
	_, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "ana", Username: "ana", Email: "Ana@Example.com"}, time.Now())
	require.NoError(t, err)
	d := validation.Deps{Deps: db.Deps{Pool: pool}, Log: slog.New(slog.DiscardHandler),
		To: []string{"qa-lead@example.com", "ana@example.com"}, Bcc: []string{"Archive <archive@example.com>", "QA-LEAD@example.com"}}
	task := db.Task{NewTask: db.NewTask{UUID: "t1", CampaignID: campaign.ID, OperatorID: "ana"}}

	campaign.SupervisorEmails = []string{"jefa@example.com", "not an address"}
	_, err = db.CampaignUpdate(ctx, pool, campaign.ID, campaign.Name, campaign.CampaignSettings)
	require.NoError(t, err)
	a, err := validation.Recipients(ctx, d, task, "validator@example.com")
	require.NoError(t, err)
	require.Equal(t, validation.Addressees{To: []string{"Ana@Example.com", "jefa@example.com", "qa-lead@example.com"},
		Bcc: []string{"archive@example.com"}, ToAgent: true}, a, "a blind copy of a recipient is left out")

	// An agent without an address, or deactivated, is not told; the
	// others still are.
	for _, agent := range []db.UserProfile{{ID: "eva", Username: "eva"}, {ID: "luis", Username: "luis", Email: "luis@example.com"}} {
		_, err = db.UserSeen(ctx, pool, agent, time.Now())
		require.NoError(t, err)
	}
	_, err = db.UserDeactivate(ctx, pool, "luis", "admin", time.Now())
	require.NoError(t, err)
	for _, agent := range []string{"eva", "luis"} {
		task.OperatorID = agent
		a, err = validation.Recipients(ctx, d, task, "validator@example.com")
		require.NoError(t, err)
		require.False(t, a.ToAgent, agent)
		require.Equal(t, []string{"jefa@example.com", "qa-lead@example.com", "ana@example.com"}, a.To, agent)
	}
	task.OperatorID = "ana"

	// An agent without a known user, no supervisors, no fixed recipients:
	// the validator.
	campaign.SupervisorEmails = nil
	_, err = db.CampaignUpdate(ctx, pool, campaign.ID, campaign.Name, campaign.CampaignSettings)
	require.NoError(t, err)
	task.OperatorID = "unknown-agent"
	d.To, d.Bcc = nil, nil
	a, err = validation.Recipients(ctx, d, task, "validator@example.com")
	require.NoError(t, err)
	require.Equal(t, validation.Addressees{To: []string{"validator@example.com"}, Bcc: []string{}, ToValidator: true}, a)

	// Nobody at all: a conflict that says what to set.
	_, err = validation.Recipients(ctx, d, task, "")
	require.Equal(t, errcode.Conflict, errcode.Of(err))
	require.ErrorContains(t, err, "add the campaign's supervisor e-mails")
}
