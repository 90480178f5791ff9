package api

import (
	"time"

	"github.com/auditd/auditd/db"
)

// The coaching items' and report's wire types, as the API shows db's.

// Coaching is a coaching item with its campaign's and agent's names; its
// events carry the same (db.Coaching).
type Coaching struct {
	ID             string              `json:"id" format:"uuid"`
	CampaignID     string              `json:"campaign_id" format:"uuid"`
	Campaign       string              `json:"campaign" doc:"The campaign's name: the team it is reported under"`
	AgentID        string              `json:"agent_id" doc:"The agent coached"`
	AgentName      string              `json:"agent_name"`
	CoachID        string              `json:"coach_id" doc:"Who opened it"`
	CoachName      string              `json:"coach_name"`
	Title          string              `json:"title"`
	Focus          string              `json:"focus" doc:"What to work on"`
	Criteria       []CoachingCriterion `json:"criteria" doc:"The criteria coached"`
	DisputeID      string              `json:"dispute_id,omitempty" format:"uuid" doc:"The dispute it was opened from"`
	Status         string              `json:"status" enum:"open,acknowledged,done"`
	DueAt          time.Time           `json:"due_at"`
	OpenedAt       time.Time           `json:"opened_at"`
	UpdatedAt      time.Time           `json:"updated_at"`
	AcknowledgedAt *time.Time          `json:"acknowledged_at,omitempty"`
	ClosedAt       *time.Time          `json:"closed_at,omitempty"`
	ClosedBy       string              `json:"closed_by,omitempty"`
	Links          []CoachingLink      `json:"links" doc:"The interactions it links, in order"`
	Comments       int                 `json:"comments" doc:"How many comments its thread has"`
}

// coachingOf is c as the API shows it.
func coachingOf(c db.Coaching) Coaching {
	return Coaching{ID: c.ID, CampaignID: c.CampaignID, Campaign: c.Campaign, AgentID: c.AgentID, AgentName: c.AgentName,
		CoachID: c.CoachID, CoachName: c.CoachName, Title: c.Title, Focus: c.Focus,
		Criteria:  each(c.Criteria, func(k db.CoachingCriterion) CoachingCriterion { return CoachingCriterion(k) }),
		DisputeID: c.DisputeID, Status: c.Status, DueAt: c.DueAt, OpenedAt: c.OpenedAt, UpdatedAt: c.UpdatedAt,
		AcknowledgedAt: c.AcknowledgedAt, ClosedAt: c.ClosedAt, ClosedBy: c.ClosedBy,
		Links:    each(c.Links, func(l db.CoachingLink) CoachingLink { return CoachingLink(l) }),
		Comments: c.Comments}
}

// CoachingCriterion is a criterion an item coaches, as the campaign's
// scorecard had it when the item named it (db.CoachingCriterion).
type CoachingCriterion struct {
	CriterionID string `json:"criterion_id"`
	Category    string `json:"category"`
	Question    string `json:"question"`
}

// CoachingLink is an interaction an item links, with the quote that shows
// the point (db.CoachingLink).
type CoachingLink struct {
	TaskUUID string `json:"task_uuid" format:"uuid"`
	FileName string `json:"file_name"`
	Quote    string `json:"quote"`
}

// CoachingComment is one comment of an item's thread (db.CoachingComment).
type CoachingComment struct {
	ID         int64     `json:"id"`
	AuthorID   string    `json:"author_id"`
	AuthorName string    `json:"author_name"`
	Body       string    `json:"body"`
	CreatedAt  time.Time `json:"created_at"`
}

// CoachingReport is the coaching report with the period it covers.
type CoachingReport struct {
	StatsPeriod
	CoachingFigures
}

// CoachingFigures is coaching per team and per coached criterion
// (db.CoachingReport).
type CoachingFigures struct {
	WindowDays int                      `json:"window_days" doc:"The length of the windows before and after an item's opening that its criteria's scores are measured over"`
	Teams      []CoachingTeam           `json:"teams"`
	Criteria   []CoachingCriterionScore `json:"criteria"`
}

// coachingFiguresOf is r as the API shows it.
func coachingFiguresOf(r db.CoachingReport) CoachingFigures {
	return CoachingFigures{WindowDays: r.WindowDays,
		Teams:    each(r.Teams, func(t db.CoachingTeam) CoachingTeam { return CoachingTeam(t) }),
		Criteria: each(r.Criteria, func(c db.CoachingCriterionScore) CoachingCriterionScore { return CoachingCriterionScore(c) })}
}

// CoachingTeam is one team's coaching in a report: a campaign's items
// (db.CoachingTeam).
type CoachingTeam struct {
	CampaignID string `json:"campaign_id" format:"uuid"`
	Campaign   string `json:"campaign"`
	Open       int    `json:"open" doc:"Items not done yet (open or acknowledged)"`
	Overdue    int    `json:"overdue" doc:"Of those, how many are past their due date"`
	Done       int    `json:"done"`
}

// CoachingCriterionScore is a coached criterion's compliance rate before
// and after its items were opened (db.CoachingCriterionScore).
type CoachingCriterionScore struct {
	CampaignID   string   `json:"campaign_id" format:"uuid"`
	Campaign     string   `json:"campaign"`
	CriterionID  string   `json:"criterion_id"`
	Question     string   `json:"question"`
	Items        int      `json:"items" doc:"How many coaching items coach it"`
	Before       *float64 `json:"before" doc:"Percentage of the coached agents' validated audits that met it in the window before each item was opened; null with none"`
	AuditsBefore int      `json:"audits_before" doc:"How many validated audits judged it in those windows"`
	After        *float64 `json:"after" doc:"The same in the window after each item was opened (so far); null with none"`
	AuditsAfter  int      `json:"audits_after"`
}
