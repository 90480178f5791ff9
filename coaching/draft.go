package coaching

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
)

// check checks draft at now and returns the item it makes. coachID is who
// opens it; "" for an edit, which keeps its agent and campaign (checked
// when it was opened). It is an Invalid error listing every problem: a
// blank title or focus; a due date not ahead of now or more than MaxAhead
// ahead; an agent (a user id or username) who is no known active user,
// or the coach; an unknown
// campaign; a dispute that is not the agent's; a criterion the campaign's
// current scorecard lacks, or named twice; a linked interaction that is
// not the agent's, or linked twice.
func check(ctx context.Context, tx pgx.Tx, now time.Time, draft Draft, coachID string) (db.CoachingNew, error) {
	var p errcode.Problems
	n := db.CoachingNew{AgentID: draft.AgentID, CampaignID: draft.CampaignID, DisputeID: draft.DisputeID,
		Title: strings.TrimSpace(draft.Title), Focus: strings.TrimSpace(draft.Focus), DueAt: draft.DueAt}
	if n.Title == "" {
		p.Add("body.title", "is blank: name what the coaching is about", nil)
	}
	if n.Focus == "" {
		p.Add("body.focus", "is blank: say what the agent should work on", nil)
	}
	switch {
	case !draft.DueAt.After(now):
		p.Add("body.due_at", fmt.Sprintf("is not in the future (it is %s UTC now): give the agent time", now.UTC().Format("2006-01-02 15:04")),
			draft.DueAt)
	case draft.DueAt.After(now.Add(MaxAhead)):
		p.Add("body.due_at", "is more than a year ahead", draft.DueAt)
	}
	if coachID != "" {
		var err error
		if n.AgentID, err = checkParties(ctx, tx, draft, coachID, &p); err != nil {
			return db.CoachingNew{}, err
		}
		draft.AgentID = n.AgentID
	}
	var err error
	if n.Criteria, err = criteria(ctx, tx, draft, &p); err != nil {
		return db.CoachingNew{}, err
	}
	if n.Links, err = links(ctx, tx, draft, &p); err != nil {
		return db.CoachingNew{}, err
	}
	return n, p.Err("the coaching item")
}

// checkParties checks a new item's agent (a user id or username), campaign
// and dispute, and returns the agent's user id.
func checkParties(ctx context.Context, tx pgx.Tx, draft Draft, coachID string, p *errcode.Problems) (string, error) {
	id, err := db.UserResolve(ctx, tx, draft.AgentID)
	if errcode.Is(err, errcode.Invalid) {
		p.Add("body.agent_id", err.(*errcode.Error).Message, draft.AgentID)
		return draft.AgentID, nil
	}
	if err != nil {
		return "", err
	}
	switch agent, err := db.UserGet(ctx, tx, id); {
	case errcode.Is(err, errcode.NotFound):
		p.Add("body.agent_id", "is no user known to the service: an agent is coached once they have signed in or been synced from the directory",
			draft.AgentID)
	case err != nil:
		return "", err
	case !agent.Active:
		p.Add("body.agent_id", "is a deactivated user", draft.AgentID)
	case agent.ID == coachID:
		p.Add("body.agent_id", "is you: another supervisor coaches you", draft.AgentID)
	}
	if _, err := db.CampaignGet(ctx, tx, draft.CampaignID); errcode.Is(err, errcode.NotFound) {
		p.Add("body.campaign_id", "is no campaign", draft.CampaignID)
	} else if err != nil {
		return "", err
	}
	if draft.DisputeID == "" {
		return id, nil
	}
	switch d, err := db.DisputeGet(ctx, tx, draft.DisputeID); {
	case errcode.Is(err, errcode.NotFound) || err == nil && d.AgentID != id:
		p.Add("body.dispute_id", "is no dispute of the agent's", draft.DisputeID)
	case err != nil:
		return "", err
	}
	return id, nil
}

// criteria checks the draft's criteria against its campaign's current
// scorecard and returns them as it has them.
func criteria(ctx context.Context, tx pgx.Tx, draft Draft, p *errcode.Problems) ([]db.CoachingCriterion, error) {
	out := []db.CoachingCriterion{}
	if len(draft.Criteria) == 0 {
		return out, nil
	}
	card, err := db.ScorecardCurrent(ctx, tx, draft.CampaignID)
	if errcode.Is(err, errcode.NotFound) {
		// An unknown campaign, said once (checkParties).
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for i, id := range draft.Criteria {
		j, dup := seen[id]
		k := -1
		for n, c := range card.Criteria {
			if c.ID == id {
				k = n
			}
		}
		switch {
		case dup:
			p.Add(at("criteria", i, ""), fmt.Sprintf("repeats criteria[%d]", j), id)
		case k < 0:
			p.Add(at("criteria", i, ""), fmt.Sprintf("is not a criterion of the campaign's scorecard (version %d)", card.Version), id)
		default:
			c := card.Criteria[k]
			out = append(out, db.CoachingCriterion{CriterionID: c.ID, Category: c.Category, Question: c.Question})
		}
		seen[id] = i
	}
	return out, nil
}

// links checks that the draft's interactions are its agent's, each once.
func links(ctx context.Context, tx pgx.Tx, draft Draft, p *errcode.Problems) ([]db.CoachingLink, error) {
	out := make([]db.CoachingLink, 0, len(draft.Links))
	seen := map[string]int{}
	for i, l := range draft.Links {
		j, dup := seen[l.TaskUUID]
		seen[l.TaskUUID] = i
		if dup {
			p.Add(at("links", i, ".task_uuid"), fmt.Sprintf("repeats links[%d]", j), l.TaskUUID)
			continue
		}
		task, err := db.TaskGetByUUID(ctx, tx, l.TaskUUID)
		switch {
		case errcode.Is(err, errcode.NotFound) || err == nil && task.OperatorID != draft.AgentID:
			// The same answer whether it exists or not.
			p.Add(at("links", i, ".task_uuid"), "is no interaction of the agent's", l.TaskUUID)
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, db.CoachingLink{TaskUUID: task.UUID, FileName: task.FileName, Quote: strings.TrimSpace(l.Quote)})
	}
	return out, nil
}
