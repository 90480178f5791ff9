package api

import (
	"time"

	"github.com/auditd/auditd/db"
)

// The disputes' wire types, as the API shows db's.

// DisputeItem is one disputed criterion: the verdict as the disputed
// revision has it, the agent's comment and, once resolved, the decision
// (db.DisputeItem).
type DisputeItem struct {
	CriterionID string `json:"criterion_id" doc:"The criterion's id in the disputed revision"`
	Category    string `json:"category"`
	Question    string `json:"question"`
	Complies    bool   `json:"complies" doc:"The verdict disputed, as the disputed revision has it"`
	// NotApplicable: the verdict disputed is not applicable.
	NotApplicable bool `json:"not_applicable,omitempty" doc:"true when the verdict disputed is that the criterion does not apply"`
	// ClaimsNotApplicable: the agent claims the criterion does not apply.
	ClaimsNotApplicable bool   `json:"claims_not_applicable,omitempty" doc:"true when the agent claims that the criterion does not apply, rather than that the verdict is reversed"`
	Comment             string `json:"comment" doc:"The agent's comment"`
	Decision            string `json:"decision,omitempty" enum:"accept,reject" doc:"The resolver's decision, once resolved: accept gives the claim (the verdict reversed, or not applicable)"`
	// AcceptedNotApplicable: accepted as not applicable.
	AcceptedNotApplicable bool   `json:"accepted_not_applicable,omitempty" doc:"true when accepted as not applicable (claimed so, or decided so by the resolver)"`
	Reason                string `json:"reason,omitempty" doc:"The resolver's reason (the new verdict's explanation when accepted) or reply (when rejected)"`
}

// Dispute is an agent's dispute of criteria of a validated audit, with
// its task's name and the outcome of its accepted criteria; its events
// carry the same (db.Dispute).
type Dispute struct {
	ID            string        `json:"id" format:"uuid"`
	TaskUUID      string        `json:"task_uuid" format:"uuid"`
	FileName      string        `json:"file_name"`
	Campaign      string        `json:"campaign" doc:"The campaign's name"`
	AgentID       string        `json:"agent_id" doc:"The agent who opened it: the task's operator"`
	ValidatorID   string        `json:"validator_id" doc:"Who validated the disputed audit"`
	AuditRevision int           `json:"audit_revision" doc:"The revision disputed"`
	ScoreBefore   float64       `json:"score_before" doc:"The disputed revision's score"`
	Status        string        `json:"status" enum:"open,accepted,rejected"`
	Items         []DisputeItem `json:"items"`
	OpenedAt      time.Time     `json:"opened_at"`
	ResolvedBy    string        `json:"resolved_by,omitempty" doc:"The supervisor who resolved it"`
	ResolverName  string        `json:"resolver_name,omitempty"`
	ResolvedAt    *time.Time    `json:"resolved_at,omitempty"`
	EditStatus    string        `json:"edit_status,omitempty" enum:"pending,applied,rejected,failed" doc:"Accepted: whether the new revision is made (applied) or still being recomputed (pending)"`
	Revision      *int          `json:"revision,omitempty" doc:"Accepted: the revision the accepted criteria became, once applied"`
	ScoreAfter    *float64      `json:"score_after,omitempty" doc:"Accepted: that revision's score"`
}

// disputeOf is d as the API shows it.
func disputeOf(d db.Dispute) Dispute {
	return Dispute{ID: d.ID, TaskUUID: d.TaskUUID, FileName: d.FileName, Campaign: d.Campaign, AgentID: d.AgentID,
		ValidatorID: d.ValidatorID, AuditRevision: d.AuditRevision, ScoreBefore: d.ScoreBefore, Status: d.Status,
		Items: each(d.Items, func(it db.DisputeItem) DisputeItem { return DisputeItem(it) }), OpenedAt: d.OpenedAt,
		ResolvedBy: d.ResolvedBy, ResolverName: d.ResolverName, ResolvedAt: d.ResolvedAt, EditStatus: d.EditStatus,
		Revision: d.Revision, ScoreAfter: d.ScoreAfter}
}

// disputesOf is list as the API shows it: empty, not null, for none.
func disputesOf(list []db.Dispute) []Dispute {
	out := make([]Dispute, len(list))
	for i, d := range list {
		out[i] = disputeOf(d)
	}
	return out
}
