// Package coaching turns what an agent's evaluations found (a failed
// criterion, a dispute, a report's agent × criterion) into a coaching item:
// what to work on, the criteria coached, linked interactions with quotes
// and a due date. A coach (a supervisor or an admin) opens, edits and
// closes it; the agent acknowledges it; both comment. Each step is one
// transaction holding its record, its event and the notification to the
// other party; opening an item, or moving its due date, queues in the same
// transaction the job that reminds the agent before it falls due.
//
// The steps an item's status allows are one table (next): open →
// acknowledged (the agent) → done (a coach); a coach may close an item the
// agent has not acknowledged. A done item takes no edit, comment or
// acknowledgement.
//
// Teams: the service has no teams; a coaching item belongs to a campaign
// (a line of business, worked by one team), and reports count items per
// campaign.
package coaching

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// Statuses of a coaching item.
const (
	StatusOpen   = "open"
	Acknowledged = "acknowledged"
	Done         = "done"
	// Active selects items not done (a list filter).
	Active = "active"
)

// next is which status may follow which.
var next = map[string][]string{
	StatusOpen:   {Acknowledged, Done},
	Acknowledged: {Done},
	Done:         nil,
}

// MaxAhead is how far ahead a due date may be.
const MaxAhead = 365 * 24 * time.Hour

// ReportWindowDays is how many days before and after an item's opening its
// agent's validated audits are read for its criteria's scores.
const ReportWindowDays = 30

// Link is an interaction a draft links, with its quote.
type Link struct {
	TaskUUID string
	Quote    string
}

// Draft is what a coach writes: for a new item, its agent and campaign
// too (an edit keeps those).
type Draft struct {
	AgentID    string
	CampaignID string
	// DisputeID is the dispute the item is opened from, if any.
	DisputeID string
	Title     string
	Focus     string
	// Criteria are ids of the campaign's current scorecard.
	Criteria []string
	DueAt    time.Time
	Links    []Link
}

// Caller is who takes a step: the user, their role, and the name
// comments and records give them.
type Caller struct {
	User db.User
	Role role.Role
	Name string
}

// Coach reports whether c coaches: a supervisor or above.
func (c Caller) Coach() bool { return c.Role >= role.Supervisor }

// name is how notifications name user u.
func name(u db.User) string { return cmp.Or(u.Name, u.Username, u.ID) }

// Get returns item id as caller may read it: a coach reads every item, an
// agent their own; anyone else's is the same NotFound error as none.
func Get(ctx context.Context, q db.DBTX, id string, caller Caller) (db.Coaching, error) {
	c, err := db.CoachingGet(ctx, q, id)
	if err == nil && !caller.Coach() && c.AgentID != caller.User.ID {
		return db.Coaching{}, errcode.New(errcode.NotFound, "no coaching item %s", id)
	}
	return c, err
}

// lock locks item id in tx if caller may read it (as Get).
func lock(ctx context.Context, tx pgx.Tx, id string, caller Caller) (db.Coaching, error) {
	c, err := db.CoachingLock(ctx, tx, id)
	if err == nil && !caller.Coach() && c.AgentID != caller.User.ID {
		return db.Coaching{}, errcode.New(errcode.NotFound, "no coaching item %s", id)
	}
	return c, err
}

// move checks that item c may go to status to; a Conflict error says why
// not.
func move(c db.Coaching, to string) error {
	if slices.Contains(next[c.Status], to) {
		return nil
	}
	if c.Status == Done {
		return errcode.New(errcode.Conflict, "coaching item %s was closed at %s", c.ID, c.ClosedAt.UTC().Format(time.RFC3339)).
			With(map[string]any{"status": c.Status})
	}
	return errcode.New(errcode.Conflict, "coaching item %s is %s already", c.ID, c.Status).With(map[string]any{"status": c.Status})
}

// Open opens the item draft describes for its agent, with its event, the
// agent's notification and the reminder job. It is an Invalid error
// listing the problems of draft (check).
func Open(ctx context.Context, d db.Deps, coach Caller, draft Draft) (db.Coaching, error) {
	var out db.Coaching
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		n, err := check(ctx, tx, d.Now(), draft, coach.User.ID)
		if err != nil {
			return err
		}
		n.CoachID, n.CoachName = coach.User.ID, coach.Name
		if out, err = db.CoachingInsert(ctx, tx, n); err != nil {
			return err
		}
		if err := db.CoachingEventInsert(ctx, tx, db.EventCoachingOpened, out); err != nil {
			return err
		}
		if err := remindLater(ctx, tx, d.River, out); err != nil {
			return err
		}
		return notify(ctx, tx, out, "info", l10n.T("%s opened coaching for you: “%s”, due on %s (UTC).", coach.Name, out.Title,
			day(out.DueAt)), out.AgentID)
	})
	return out, err
}

// Update replaces the content of item id (title, focus, criteria, due
// date, links) with draft's. It is a NotFound error for an unknown item, a
// Conflict error for a done one, and an Invalid error as Open's.
func Update(ctx context.Context, d db.Deps, id string, coach Caller, draft Draft) (db.Coaching, error) {
	var out db.Coaching
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		c, err := lock(ctx, tx, id, coach)
		if err != nil {
			return err
		}
		if c.Status == Done {
			return move(c, Done)
		}
		draft.AgentID, draft.CampaignID = c.AgentID, c.CampaignID
		n, err := check(ctx, tx, d.Now(), draft, "")
		if err != nil {
			return err
		}
		if out, err = db.CoachingUpdate(ctx, tx, id, n); err != nil {
			return err
		}
		if err := db.CoachingEventInsert(ctx, tx, db.EventCoachingUpdated, out); err != nil {
			return err
		}
		if out.DueAt.Equal(c.DueAt) {
			return nil
		}
		if err := remindLater(ctx, tx, d.River, out); err != nil {
			return err
		}
		return notify(ctx, tx, out, "info", l10n.T("%s moved the due date of your coaching “%s” to %s (UTC).", coach.Name, out.Title,
			day(out.DueAt)), out.AgentID)
	})
	return out, err
}

// Acknowledge records that agent acknowledges their item id, with its
// event and the coach's notification. It is a NotFound error unless agent
// is the item's agent, and a Conflict error unless the item is open.
func Acknowledge(ctx context.Context, d db.Deps, id string, agent Caller) (db.Coaching, error) {
	var out db.Coaching
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		c, err := lock(ctx, tx, id, Caller{User: agent.User, Role: role.Operator})
		if err != nil {
			return err
		}
		if err := move(c, Acknowledged); err != nil {
			return err
		}
		if out, err = db.CoachingSetStatus(ctx, tx, id, Acknowledged, ""); err != nil {
			return err
		}
		if err := db.CoachingEventInsert(ctx, tx, db.EventCoachingAcknowledged, out); err != nil {
			return err
		}
		return notify(ctx, tx, out, "info", l10n.T("%s acknowledged the coaching “%s”.", name(agent.User), out.Title), out.CoachID)
	})
	return out, err
}

// Close marks item id done, with its event and the agent's notification.
// It is a NotFound error for an unknown item and a Conflict error for a
// done one.
func Close(ctx context.Context, d db.Deps, id string, coach Caller) (db.Coaching, error) {
	var out db.Coaching
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		c, err := lock(ctx, tx, id, coach)
		if err != nil {
			return err
		}
		if err := move(c, Done); err != nil {
			return err
		}
		if out, err = db.CoachingSetStatus(ctx, tx, id, Done, coach.User.ID); err != nil {
			return err
		}
		if err := db.CoachingEventInsert(ctx, tx, db.EventCoachingClosed, out); err != nil {
			return err
		}
		return notify(ctx, tx, out, "success", l10n.T("%s closed your coaching “%s” as done.", coach.Name, out.Title), out.AgentID)
	})
	return out, err
}

// Comment adds author's comment body to the thread of item id, with its
// event and a notification to the other party (the agent, or the coach
// when the agent writes). It is a NotFound error unless author coaches or
// is the item's agent, a Conflict error for a done item, and an Invalid
// error for a blank body.
func Comment(ctx context.Context, d db.Deps, id string, author Caller, body string) (db.CoachingComment, error) {
	var out db.CoachingComment
	err := pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		c, err := lock(ctx, tx, id, author)
		if err != nil {
			return err
		}
		if c.Status == Done {
			return move(c, Done)
		}
		body = strings.TrimSpace(body)
		if body == "" {
			var p errcode.Problems
			p.Add("body.body", "is blank: write the comment", nil)
			return p.Err("the comment")
		}
		if out, err = db.CoachingCommentInsert(ctx, tx, id, author.User.ID, author.Name, body); err != nil {
			return err
		}
		c.Comments++
		if err := db.CoachingEventInsert(ctx, tx, db.EventCoachingCommented, c); err != nil {
			return err
		}
		to := c.AgentID
		if author.User.ID == c.AgentID {
			to = c.CoachID
		}
		return notify(ctx, tx, c, "info", l10n.T("%s commented on the coaching “%s”.", author.Name, c.Title), to)
	})
	return out, err
}

// Remind tells the agent of item id, once, that it falls due at due,
// unless it is done or its due date is no longer due (it was moved: the
// job of the new date reminds). It is a NotFound error for an unknown
// item.
func Remind(ctx context.Context, pool *pgxpool.Pool, id string, due time.Time) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		c, err := db.CoachingLock(ctx, tx, id)
		if err != nil {
			return err
		}
		if c.Status == Done || !c.DueAt.Equal(due) || c.RemindedDueAt != nil && c.RemindedDueAt.Equal(due) {
			return nil
		}
		if err := db.CoachingReminded(ctx, tx, id, due); err != nil {
			return err
		}
		return notify(ctx, tx, c, "warning", l10n.T("Your coaching “%s” is due on %s (UTC).", c.Title, day(c.DueAt)), c.AgentID)
	})
}

// remindLater queues the job reminding c's agent of its due date,
// jobs.CoachingReminderLead before it (now when that is past).
func remindLater(ctx context.Context, tx pgx.Tx, client *river.Client[pgx.Tx], c db.Coaching) error {
	_, err := client.InsertTx(ctx, tx, jobs.RemindCoachingArgs{CoachingID: c.ID, DueAt: c.DueAt},
		&river.InsertOpts{ScheduledAt: c.DueAt.Add(-jobs.CoachingReminderLead)})
	return err
}

// day writes t as notifications give a due date.
func day(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// link is where a notification about item id leads.
func link(id string) string { return "/coaching/" + id }

// notify tells users (but not "") text about item c.
func notify(ctx context.Context, tx pgx.Tx, c db.Coaching, variant string, text l10n.Text, users ...string) error {
	for _, u := range users {
		if u == "" {
			continue
		}
		if _, err := db.NotificationCreate(ctx, tx, db.NotificationNew{UserID: u, Text: text, Variant: variant, Link: link(c.ID)}); err != nil {
			return err
		}
	}
	return nil
}

// Report counts the items opened in [from, to) of campaign ("" for
// any) per campaign, and each coached criterion's compliance in its
// agents' validated audits ReportWindowDays before and after each item
// was opened, as v sees them.
func Report(ctx context.Context, q db.DBTX, v visibility.Viewer, from, to time.Time, campaignID string, now time.Time) (db.CoachingReport, error) {
	return db.CoachingReportOf(ctx, q, v, db.CoachingReportFilter{From: from, To: to, CampaignID: campaignID,
		WindowDays: ReportWindowDays, Now: now})
}

// at locates field of a draft's i-th list element.
func at(list string, i int, field string) string {
	return fmt.Sprintf("body.%s[%d]%s", list, i, field)
}
