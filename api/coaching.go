package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/coaching"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/validation"
)

// coachingResource is supervisors' coaching of agents: items, their
// acknowledgement and comments.
type coachingResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	now   func() time.Time
}

func (r *coachingResource) deps() db.Deps { return db.Deps{Pool: r.pool, River: r.river, Clock: r.now} }

func (r *coachingResource) register(api huma.API) {
	tag := []string{"coaching"}
	own := " Below supervisor, a user reads only the items that coach them: another's is 404, exactly like one that does not exist."
	draft := " `due_at` must be in the future and at most a year ahead; `criteria` are ids of the campaign's current " +
		"scorecard, each once; `links` are interactions (tasks) of the agent, each once, with the quote that shows the " +
		"point. 400 VALIDATION_ERROR locating every problem; nothing is written then."

	op := operation(http.MethodPost, "/coaching", "open-coaching", "Open a coaching item for an agent", role.Supervisor,
		http.StatusBadRequest)
	op.Description += " From a failed criterion, a dispute (`dispute_id`, one of the agent's) or a report: what the agent " +
		"should work on, the criteria coached, linked interactions with quotes and a due date. `agent_id` must be a known, " +
		"active user other than you; the campaign is the team the item is reported under." + draft +
		" The agent is notified in their language, and reminded a day before the due date."
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, r.open)

	op = operation(http.MethodGet, "/coaching", "list-coaching", "List coaching items", role.Operator, http.StatusBadRequest)
	op.Description += " Supervisors and admins list every item, by the filters; anyone else lists the items that coach " +
		"them (the agent filter is theirs, whatever is asked). Active items soonest due first, then done ones newest first."
	op.Tags = tag
	huma.Register(api, op, r.list)

	op = operation(http.MethodGet, "/coaching/{id}", "get-coaching", "Get a coaching item with its comments", role.Operator,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += own
	op.Tags = tag
	huma.Register(api, op, r.get)

	op = operation(http.MethodPut, "/coaching/{id}", "update-coaching", "Edit a coaching item", role.Supervisor,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Replaces its title, focus, criteria, due date and links (its agent and campaign stay)." + draft +
		" A done item is 409 CONFLICT. A new due date is told to the agent, who is reminded of it."
	op.Tags = tag
	huma.Register(api, op, r.update)

	op = operation(http.MethodPost, "/coaching/{id}/acknowledgement", "acknowledge-coaching", "Acknowledge your coaching item",
		role.Operator, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Only its agent may (anyone else gets 404), once, while it is open: an acknowledged or done item is " +
		"409 CONFLICT. The coach is notified."
	op.Tags = tag
	huma.Register(api, op, r.acknowledge)

	op = operation(http.MethodPost, "/coaching/{id}/comments", "comment-coaching", "Comment on a coaching item", role.Operator,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Its agent and supervisors comment while it is not done (409 CONFLICT once done); the other party " +
		"(the agent, or the coach when the agent writes) is notified." + own
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, r.comment)

	op = operation(http.MethodPost, "/coaching/{id}/closure", "close-coaching", "Close a coaching item as done", role.Supervisor,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Acknowledged or not; a done item is 409 CONFLICT. The agent is notified."
	op.Tags = tag
	huma.Register(api, op, r.close)
}

// coachingCaller is the coaching workflow's view of the request's
// principal.
func coachingCaller(ctx context.Context) coaching.Caller {
	p := principal(ctx)
	return coaching.Caller{User: p.User, Role: p.Role, Name: validation.ValidatorName(p.User)}
}

// CoachingLinkInput is an interaction a coaching item links.
type CoachingLinkInput struct {
	TaskUUID string `json:"task_uuid" format:"uuid" doc:"An interaction (task) of the agent"`
	Quote    string `json:"quote,omitempty" maxLength:"1000" doc:"What in it shows the point (a line of its transcript)" example:"Cliente: ¿me lo puede repetir?"`
}

// CoachingDraftInput is what a coach writes of an item.
type CoachingDraftInput struct {
	Title    string              `json:"title" minLength:"1" maxLength:"120" doc:"What the coaching is about" example:"Empathy with upset customers"`
	Focus    string              `json:"focus" minLength:"1" maxLength:"4000" doc:"What to work on, and how" example:"Acknowledge the problem before solving it."`
	Criteria []string            `json:"criteria,omitempty" maxItems:"20" doc:"Criteria coached: ids of the campaign's current scorecard" example:"[\"empathy\"]"`
	DueAt    time.Time           `json:"due_at" doc:"When it is due: in the future, at most a year ahead"`
	Links    []CoachingLinkInput `json:"links,omitempty" maxItems:"20" doc:"Interactions of the agent that show the point, each once"`
}

func (in CoachingDraftInput) draft() coaching.Draft {
	d := coaching.Draft{Title: cleanNotes(in.Title), Focus: cleanNotes(in.Focus), Criteria: in.Criteria, DueAt: in.DueAt}
	for _, l := range in.Links {
		d.Links = append(d.Links, coaching.Link{TaskUUID: l.TaskUUID, Quote: cleanNotes(l.Quote)})
	}
	return d
}

type openCoachingInput struct {
	Body struct {
		AgentID    string `json:"agent_id" minLength:"1" maxLength:"200" doc:"The agent coached: a user id or username"`
		CampaignID string `json:"campaign_id" format:"uuid" doc:"The campaign (team) it belongs to"`
		DisputeID  string `json:"dispute_id,omitempty" format:"uuid" doc:"The agent's dispute it is opened from"`
		CoachingDraftInput
	}
}

func (r *coachingResource) open(ctx context.Context, in *openCoachingInput) (*Output[Coaching], error) {
	d := in.Body.draft()
	d.AgentID, d.CampaignID, d.DisputeID = in.Body.AgentID, in.Body.CampaignID, in.Body.DisputeID
	c, err := coaching.Open(ctx, r.deps(), coachingCaller(ctx), d)
	if err != nil {
		return nil, err
	}
	return ok(coachingOf(c)), nil
}

type listCoachingInput struct {
	Status      string `query:"status" enum:"active,open,acknowledged,done,all" default:"active" doc:"active: open or acknowledged; all: every status"`
	AgentID     string `query:"agent_id" maxLength:"200" doc:"Only this agent's (supervisors)"`
	CoachID     string `query:"coach_id" maxLength:"200" doc:"Only those this user opened"`
	CampaignID  string `query:"campaign_id" format:"uuid" doc:"Only this campaign's (team's)"`
	CriterionID string `query:"criterion_id" maxLength:"64" doc:"Only those coaching this criterion"`
	Skip        int    `query:"skip" minimum:"0" default:"0" doc:"Pagination offset"`
	Limit       int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Pagination limit"`
}

// CoachingList is a page of coaching items.
type CoachingList struct {
	Items []Coaching `json:"items"`
	Total int        `json:"total" doc:"How many items the filters select, for the caller"`
	Skip  int        `json:"skip"`
	Limit int        `json:"limit"`
}

func (r *coachingResource) list(ctx context.Context, in *listCoachingInput) (*Output[CoachingList], error) {
	f := db.CoachingFilter{Status: in.Status, AgentID: in.AgentID, CoachID: in.CoachID, CampaignID: in.CampaignID,
		CriterionID: in.CriterionID, Skip: in.Skip, Limit: in.Limit}
	if f.Status == "all" {
		f.Status = ""
	}
	if c := coachingCaller(ctx); !c.Coach() {
		f.AgentID = c.User.ID
	}
	items, total, err := db.CoachingList(ctx, r.pool, f)
	if err != nil {
		return nil, err
	}
	return ok(CoachingList{Items: each(items, coachingOf), Total: total, Skip: in.Skip, Limit: in.Limit}), nil
}

type coachingIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The coaching item's id"`
}

// CoachingView is a coaching item with its thread and what the caller may
// do with it.
type CoachingView struct {
	Coaching
	Thread         []CoachingComment `json:"thread" doc:"Its comments, oldest first"`
	CanAcknowledge bool              `json:"can_acknowledge" doc:"Whether the caller, its agent, may acknowledge it now"`
	CanComment     bool              `json:"can_comment"`
	CanEdit        bool              `json:"can_edit" doc:"Whether the caller may edit or close it"`
}

func (r *coachingResource) get(ctx context.Context, in *coachingIDInput) (*Output[CoachingView], error) {
	who := coachingCaller(ctx)
	c, err := coaching.Get(ctx, r.pool, in.ID, who)
	if err != nil {
		return nil, err
	}
	thread, err := db.CoachingComments(ctx, r.pool, in.ID)
	if err != nil {
		return nil, err
	}
	active := c.Status != coaching.Done
	return ok(CoachingView{Coaching: coachingOf(c),
		Thread:         each(thread, func(t db.CoachingComment) CoachingComment { return CoachingComment(t) }),
		CanAcknowledge: c.Status == coaching.StatusOpen && c.AgentID == who.User.ID,
		CanComment:     active, CanEdit: active && who.Coach()}), nil
}

type updateCoachingInput struct {
	ID   string `path:"id" format:"uuid" doc:"The coaching item's id"`
	Body CoachingDraftInput
}

func (r *coachingResource) update(ctx context.Context, in *updateCoachingInput) (*Output[Coaching], error) {
	c, err := coaching.Update(ctx, r.deps(), in.ID, coachingCaller(ctx), in.Body.draft())
	if err != nil {
		return nil, err
	}
	return ok(coachingOf(c)), nil
}

func (r *coachingResource) acknowledge(ctx context.Context, in *coachingIDInput) (*Output[Coaching], error) {
	c, err := coaching.Acknowledge(ctx, r.deps(), in.ID, coachingCaller(ctx))
	if err != nil {
		return nil, err
	}
	return ok(coachingOf(c)), nil
}

type commentCoachingInput struct {
	ID   string `path:"id" format:"uuid" doc:"The coaching item's id"`
	Body struct {
		Body string `json:"body" minLength:"1" maxLength:"2000" doc:"The comment" example:"Lo practico esta semana."`
	}
}

func (r *coachingResource) comment(ctx context.Context, in *commentCoachingInput) (*Output[CoachingComment], error) {
	c, err := coaching.Comment(ctx, r.deps(), in.ID, coachingCaller(ctx), cleanNotes(in.Body.Body))
	if err != nil {
		return nil, err
	}
	return ok(CoachingComment(c)), nil
}

func (r *coachingResource) close(ctx context.Context, in *coachingIDInput) (*Output[Coaching], error) {
	c, err := coaching.Close(ctx, r.deps(), in.ID, coachingCaller(ctx))
	if err != nil {
		return nil, err
	}
	return ok(coachingOf(c)), nil
}

func (s *statsResource) coaching(ctx context.Context, in *ReportInput) (*Output[CoachingReport], error) {
	from, to, loc, err := in.period(s)
	if err != nil {
		return nil, err
	}
	v, err := viewerOf(ctx, s.pool)
	if err != nil {
		return nil, err
	}
	campaignID, _, err := s.scope(ctx, in.Campaign, "")
	if err != nil {
		return nil, err
	}
	r, err := coaching.Report(ctx, s.pool, v, from, to, campaignID, s.now())
	if err != nil {
		return nil, err
	}
	return ok(CoachingReport{StatsPeriod: StatsPeriod{From: from.In(loc), To: to.In(loc), TZ: loc.String()}, CoachingFigures: coachingFiguresOf(r)}), nil
}
