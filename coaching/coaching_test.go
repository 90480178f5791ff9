package coaching_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/coaching"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/role"
)

type testBundle struct {
	pool         *pgxpool.Pool
	deps         db.Deps
	now          time.Time
	coach, agent coaching.Caller
	campaign     string
}

// setup opens nothing yet: a coach (sue) and an agent (ana, who reads
// Spanish) of the default campaign, and a clock.
func setup(t *testing.T) *testBundle {
	t.Helper()
	ctx := context.Background()
	pool, campaign := dbtest.ForTasks(t)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	b := &testBundle{pool: pool, now: time.Now().Truncate(time.Second), campaign: campaign.ID}
	b.deps = db.Deps{Pool: pool, River: client, Clock: func() time.Time { return b.now }}
	sue, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "sue", Username: "sue", Name: "Sue", Roles: []string{"supervisor"}}, b.now)
	require.NoError(t, err)
	ana, err := db.UserSeen(ctx, pool, db.UserProfile{ID: "ana", Username: "ana", Roles: []string{"operator"}, Locale: "es"}, b.now)
	require.NoError(t, err)
	b.coach = coaching.Caller{User: sue, Role: role.Supervisor, Name: "Sue"}
	b.agent = coaching.Caller{User: ana, Role: role.Operator, Name: "ana"}
	return b
}

func (b *testBundle) open(t *testing.T, due time.Time) db.Coaching {
	t.Helper()
	c, err := coaching.Open(context.Background(), b.deps, b.coach, coaching.Draft{AgentID: "ana", CampaignID: b.campaign,
		Title: "Escucha", Focus: "Deja hablar al cliente.", DueAt: due})
	require.NoError(t, err)
	return c
}

// notices returns the texts of ana's notifications, oldest first.
func (b *testBundle) notices(t *testing.T) []string {
	t.Helper()
	return dbtest.Strings(t, b.pool, `SELECT text FROM notifications WHERE user_id = 'ana' ORDER BY created_at, id`)
}

func TestReminderOnceADueDate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	due := b.now.Add(72 * time.Hour)
	c := b.open(t, due)
	require.Equal(t, []string{"Sue te ha abierto un coaching: «Escucha», con fecha límite " + due.UTC().Format("2006-01-02 15:04") + " (UTC)."},
		b.notices(t))

	// The reminder was queued with the item, a day before it is due.
	var scheduled time.Time
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT scheduled_at FROM river_job WHERE kind = 'remind_coaching' AND args->>'coaching_id' = $1`,
		c.ID).Scan(&scheduled))
	require.WithinDuration(t, due.Add(-24*time.Hour), scheduled, time.Second)

	// Moved: the old date's job reminds of nothing, the new one's once.
	later := due.Add(48 * time.Hour)
	_, err := coaching.Update(ctx, b.deps, c.ID, b.coach, coaching.Draft{Title: c.Title, Focus: c.Focus, DueAt: later})
	require.NoError(t, err)
	var jobs int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'remind_coaching'`).Scan(&jobs))
	require.Equal(t, 2, jobs)
	require.NoError(t, coaching.Remind(ctx, b.pool, c.ID, due))
	require.Len(t, b.notices(t), 2, "the open and the move")
	require.NoError(t, coaching.Remind(ctx, b.pool, c.ID, later))
	require.NoError(t, coaching.Remind(ctx, b.pool, c.ID, later))
	got := b.notices(t)
	require.Len(t, got, 3)
	require.Equal(t, "Tu coaching «Escucha» vence el "+later.UTC().Format("2006-01-02 15:04")+" (UTC).", got[2])

	// Done: no reminder.
	d := b.open(t, due)
	_, err = coaching.Close(ctx, b.deps, d.ID, b.coach)
	require.NoError(t, err)
	require.NoError(t, coaching.Remind(ctx, b.pool, d.ID, due))
	require.Len(t, b.notices(t), 5, "two opens, a move, a reminder, a closure")
	require.True(t, errcode.Is(coaching.Remind(ctx, b.pool, "00000000-0000-4000-8000-000000000000", due), errcode.NotFound))
}

func TestTransitions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	conflict := func(err error) { t.Helper(); require.True(t, errcode.Is(err, errcode.Conflict), "%v", err) }

	c := b.open(t, b.now.Add(time.Hour))
	// The coach does not acknowledge for the agent: the item is not theirs.
	_, err := coaching.Acknowledge(ctx, b.deps, c.ID, b.coach)
	require.True(t, errcode.Is(err, errcode.NotFound), "%v", err)
	c, err = coaching.Acknowledge(ctx, b.deps, c.ID, b.agent)
	require.NoError(t, err)
	require.Equal(t, coaching.Acknowledged, c.Status)
	require.NotNil(t, c.AcknowledgedAt)
	_, err = coaching.Acknowledge(ctx, b.deps, c.ID, b.agent)
	conflict(err)
	c, err = coaching.Close(ctx, b.deps, c.ID, b.coach)
	require.NoError(t, err)
	require.Equal(t, coaching.Done, c.Status)
	require.Equal(t, "sue", c.ClosedBy)
	_, err = coaching.Close(ctx, b.deps, c.ID, b.coach)
	conflict(err)
	_, err = coaching.Acknowledge(ctx, b.deps, c.ID, b.agent)
	conflict(err)
	_, err = coaching.Comment(ctx, b.deps, c.ID, b.agent, "tarde")
	conflict(err)
	_, err = coaching.Update(ctx, b.deps, c.ID, b.coach, coaching.Draft{Title: "x", Focus: "y", DueAt: b.now.Add(time.Hour)})
	conflict(err)

	// Closed before the agent acknowledged: allowed.
	open := b.open(t, b.now.Add(time.Hour))
	open, err = coaching.Close(ctx, b.deps, open.ID, b.coach)
	require.NoError(t, err)
	require.Nil(t, open.AcknowledgedAt)

	// Time passes: a due date is checked against the clock.
	b.now = b.now.Add(2 * time.Hour)
	_, err = coaching.Open(ctx, b.deps, b.coach, coaching.Draft{AgentID: "ana", CampaignID: b.campaign, Title: "t", Focus: "f",
		DueAt: b.now.Add(-time.Minute)})
	require.True(t, errcode.Is(err, errcode.Invalid), "%v", err)
}
