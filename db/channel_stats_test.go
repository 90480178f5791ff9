package db_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/transcript"
)

// TestStatsChannels holds the channel figures of a dashboard's calls: the
// period's ends, the campaign and the agent narrow them; a call without an
// agent counts in all but in no agent's.
func TestStatsChannels(t *testing.T) {
	t.Parallel()
	pool, campaign := dbtest.ForTasks(t)
	ctx := context.Background()
	var second string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO campaigns (name) VALUES ('second') RETURNING id`).Scan(&second))
	from := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	call := func(campaignID, operator string, created time.Time, silence float64, deadAir int) {
		n++
		var uuid string
		require.NoError(t, pool.QueryRow(ctx, `
			INSERT INTO tasks (uuid, kind, status, file_name, content_type, size_bytes, sha256, blob_key, campaign_id,
				operator_id, language, uploaded_by, created_at, updated_at)
			VALUES (gen_random_uuid(), 'call', 'transcribed', 'f', 'audio/wav', 1, encode(sha256($1::bytea), 'hex'), $1, $2,
				NULLIF($3, ''), 'es', 'qa', $4, $4) RETURNING uuid`,
			fmt.Sprintf("channels-%d", n), campaignID, operator, created).Scan(&uuid))
		dead := make([]transcript.Span, deadAir)
		require.NoError(t, db.ChannelsSave(ctx, pool, uuid, transcript.Channels{Stereo: true, DurationSeconds: 60,
			AgentTalkRatio: new(0.5), SilenceShare: silence, LongestSilenceSeconds: 10 * silence, DeadAir: dead}))
	}
	call(campaign.ID, "ana", from, 0.2, 1)                     // the first instant counts
	call(campaign.ID, "", from.Add(time.Hour), 0.4, 0)         // no agent
	call(second, "ana", from.Add(2*time.Hour), 0.6, 2)         // another campaign
	call(campaign.ID, "ana", from.Add(24*time.Hour), 0.9, 3)   // the end is excluded
	call(campaign.ID, "ana", from.Add(-time.Nanosecond), 1, 1) // before the start

	f := db.StatsFilter{From: from, To: from.Add(24 * time.Hour), TZ: "UTC"}
	s, err := db.StatsChannels(ctx, pool, f)
	require.NoError(t, err)
	require.Equal(t, int64(3), s.Calls)
	require.Equal(t, int64(2), s.DeadAirCalls)
	require.InDelta(t, 0.4, *s.SilenceShare, 1e-9)
	require.InDelta(t, 6.0, *s.LongestSilenceSeconds, 1e-9)
	require.Equal(t, []string{"ana"}, slices.Collect(maps.Keys(s.Agents)), "a call without an agent is no agent's")
	require.Equal(t, int64(2), s.Agents["ana"].Calls)
	require.InDelta(t, 0.4, *s.Agents["ana"].SilenceShare, 1e-9)

	f.CampaignID = campaign.ID
	s, err = db.StatsChannels(ctx, pool, f)
	require.NoError(t, err)
	require.Equal(t, int64(2), s.Calls)
	require.InDelta(t, 0.3, *s.SilenceShare, 1e-9)

	f.OperatorID = "ana"
	s, err = db.StatsChannels(ctx, pool, f)
	require.NoError(t, err)
	require.Equal(t, int64(1), s.Calls)
	require.Equal(t, int64(1), s.DeadAirCalls)
	require.InDelta(t, 0.2, *s.SilenceShare, 1e-9)
}
