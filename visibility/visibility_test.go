package visibility_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// TestGoAndSQLAgree runs each rule's Go predicate and its SQL fragment on
// the same rows (every combination of a task's facts, in a campaign that
// hides automatic audits and in one that does not, pending or not,
// calibrated blind or not) for viewers of each kind, and fails where they
// disagree.
func TestGoAndSQLAgree(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	const (
		hiding = "11111111-1111-4111-8111-111111111111"
		shows  = "22222222-2222-4222-8222-222222222222"
	)
	var rows []visibility.Row
	for i := range 128 {
		bit := func(n int) bool { return i&(1<<n) != 0 }
		campaign := shows
		if bit(4) {
			campaign = hiding
		}
		rows = append(rows, visibility.Row{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), CampaignID: campaign,
			Validated: bit(0), Current: bit(1) && !bit(3), Reviewed: bit(2), AuditDeleted: bit(3),
			Pending: bit(5) && bit(1) && !bit(3) && !bit(0)})
	}
	var blind []string
	for i, r := range rows {
		if i%3 == 0 {
			blind = append(blind, r.UUID)
		}
	}
	viewers := map[string]visibility.Viewer{
		"agent":            {User: "bob", Role: role.Operator, Hiding: []string{hiding}},
		"agent, none hide": {User: "bob", Role: role.Operator},
		"the task's agent": visibility.Agent("bob", hiding, true),
		"analyst":          {User: "maria", Role: role.Quality},
		"blind analyst":    {User: "maria", Role: role.Quality, Blind: blind},
		"blind supervisor, a hiding campaign read": {User: "sue", Role: role.Supervisor, Blind: blind[:2], Hiding: []string{hiding}},
		"nobody": {Role: role.None, Hiding: []string{hiding}, Blind: blind[1:]},
	}
	values := make([]string, len(rows))
	for i, r := range rows {
		status := "audited"
		if r.Validated {
			status = "validated"
		}
		pending := "'{}'::text[]"
		if i&(1<<5) != 0 && r.Current { // pending criteria stay on a validated task, which is no longer pending
			pending = "'{empathy}'::text[]"
		}
		values[i] = fmt.Sprintf("(%d, '%s'::uuid, '%s'::uuid, '%s', %s, %s, %s, %s)", i, r.UUID, r.CampaignID, status,
			sqlIf(r.Current, "1"), sqlIf(r.Reviewed, "now()"), sqlIf(r.AuditDeleted, "now()"), pending)
	}
	from := ` FROM (VALUES ` + strings.Join(values, ", ") +
		`) AS t (i, uuid, campaign_id, status, audit_revision, reviewed_at, audit_deleted_at, pending_criteria) ORDER BY i`
	for name, v := range viewers {
		rules := map[string]struct {
			goRule func(visibility.Row) bool
			sql    string
		}{
			"BlindTo":        {v.BlindTo, v.BlindSQL("t")},
			"AgentHidden":    {v.AgentHidden, v.AgentHiddenSQL("t")},
			"AuditHidden":    {v.AuditHidden, v.AuditHiddenSQL("t")},
			"VerdictsHidden": {v.VerdictsHidden, v.VerdictsHiddenSQL("t")},
		}
		for rule, r := range rules {
			res, err := pool.Query(context.Background(), `SELECT `+r.sql+from)
			require.NoError(t, err, "%s of %s: %s", rule, name, r.sql)
			got, err := pgx.CollectRows(res, pgx.RowTo[bool])
			require.NoError(t, err, "%s of %s: %s", rule, name, r.sql)
			require.Len(t, got, len(rows))
			some := false
			for i, row := range rows {
				require.Equal(t, r.goRule(row), got[i], "%s of %s on %+v: Go and SQL disagree", rule, name, row)
				some = some || got[i]
			}
			if rule == "VerdictsHidden" {
				require.True(t, some, "a deleted audit's verdicts are hidden from %s", name)
			}
		}
		// A viewer who hides nothing is shown every audit.
		if !v.HidesAny() {
			for _, row := range rows {
				require.False(t, v.AuditHidden(row), "%s hides nothing", name)
			}
		}
	}
}

// TestIDsOnlyReachSQLAsUUIDs: a viewer's sets are written in the SQL as
// text, so anything but a uuid as Postgres writes it is left out.
func TestIDsOnlyReachSQLAsUUIDs(t *testing.T) {
	t.Parallel()
	v := visibility.Viewer{Role: role.Quality, Blind: []string{"x'); DROP TABLE tasks; --", "0000000A-0000-4000-8000-000000000000"}}
	require.Equal(t, "false", v.BlindSQL("t"))
	v.Blind = append(v.Blind, "00000000-0000-4000-8000-000000000001")
	require.Equal(t, "t.uuid = ANY('{00000000-0000-4000-8000-000000000001}'::uuid[])", v.BlindSQL("t"))
}

func sqlIf(ok bool, v string) string {
	if ok {
		return v
	}
	return "NULL"
}
