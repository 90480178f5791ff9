package dispute_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/dispute"
)

func TestWhyNot(t *testing.T) {
	t.Parallel()
	validated := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	campaign := db.Campaign{Name: "sales", CampaignSettings: db.CampaignSettings{DisputeWindowDays: 7}}
	until, on := dispute.Window(campaign, validated)
	require.True(t, on)
	require.Equal(t, validated.AddDate(0, 0, 7), until)
	s := dispute.State{Campaign: campaign, Until: until}

	code := func(r *dispute.Reason) string {
		if r == nil {
			return ""
		}
		return r.Code
	}
	require.Empty(t, code(s.CanDispute(until.Add(-time.Second))))
	require.Equal(t, "window_closed", code(s.CanDispute(until)))
	require.Nil(t, s.CanAcknowledge(), "acknowledging has no window")

	open := s
	open.Disputes = []db.Dispute{{ID: "d1", Status: db.DisputeRejected}, {ID: "d2", Status: db.DisputeOpen}}
	require.Equal(t, "dispute_open", code(open.CanDispute(validated)))
	require.Equal(t, "dispute_open", code(open.CanAcknowledge()))

	applying := s
	applying.Disputes = []db.Dispute{{ID: "d1", Status: db.DisputeAccepted, EditStatus: db.EditPending,
		Items: []db.DisputeItem{{CriterionID: "empathy", Decision: db.DecisionAccept}}}}
	require.Equal(t, "applying", code(applying.CanDispute(validated)))
	require.Nil(t, applying.CanAcknowledge())
	require.Equal(t, map[string]bool{"empathy": true}, applying.Decided())

	acked := s
	acked.Acknowledgement = &db.Acknowledgement{AcknowledgedAt: validated}
	require.Equal(t, "acknowledged", code(acked.CanDispute(validated)))

	campaign.DisputeWindowDays = 0
	_, on = dispute.Window(campaign, validated)
	require.False(t, on)
	require.Equal(t, "no_disputes", code(dispute.State{Campaign: campaign}.CanDispute(validated)))
}
