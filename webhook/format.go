package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The formats of a subscription's body.
const (
	// FormatJSON is the Payload itself.
	FormatJSON = "json"
	// FormatSlack is a Slack incoming webhook's message: text and blocks.
	FormatSlack = "slack"
	// FormatTeams is a Microsoft Teams incoming webhook's MessageCard
	// (also what Power Automate's Teams webhooks take).
	FormatTeams = "teams"
)

// Formats returns the formats a subscription may choose.
func Formats() []string { return []string{FormatJSON, FormatSlack, FormatTeams} }

func jsonBody(p Payload) ([]byte, error) { return json.Marshal(p) }

// Body returns the body of payload (a Payload in the json format) in
// format, with links to the dashboard at dashboardURL ("" for none).
func Body(format string, payload []byte, dashboardURL string) ([]byte, error) {
	if format == FormatJSON {
		return payload, nil
	}
	var p Payload
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, fmt.Errorf("webhook payload: %w", err)
	}
	m := message(p, dashboardURL)
	switch format {
	case FormatSlack:
		return json.Marshal(slack(m))
	case FormatTeams:
		return json.Marshal(teams(m))
	}
	return nil, fmt.Errorf("webhook: unknown format %q", format)
}

// summary is an event said for people: a title, facts, and a link.
type summary struct {
	Title string
	Facts [][2]string
	Link  string
}

var titles = map[string]string{
	TaskAudited:       "Task audited",
	CriticalFailure:   "Critical criterion failed",
	NeedsReview:       "Audit needs review",
	Validated:         "Audit validated",
	DisputeOpened:     "Dispute opened",
	DisputeResolved:   "Dispute resolved",
	CalibrationClosed: "Calibration session closed",
	Test:              "Test delivery",
}

// message says p for people, in English: a system's channel is read by a
// team, and the json format is the one for programs.
func message(p Payload, dashboardURL string) summary {
	m := summary{Title: titles[p.Type]}
	link := func(path string) {
		if dashboardURL != "" {
			m.Link = strings.TrimRight(dashboardURL, "/") + path
		}
	}
	add := func(name, value string) {
		if value != "" {
			m.Facts = append(m.Facts, [2]string{name, value})
		}
	}
	switch d := p.Data; {
	case d.Task != nil:
		t := d.Task
		add("Task", t.UUID)
		add("Campaign", t.Campaign)
		add("Agent", t.OperatorID)
		add("Result", result(t))
		add("Failed criteria", questions(t.FailedCriteria))
		add("Pending review", questions(t.PendingCriteria))
		add("Not applicable", questions(t.NotApplicableCriteria))
		add("Validated by", t.ValidatedBy)
		link("/tasks/" + t.UUID)
	case d.Dispute != nil:
		add("Task", d.Dispute.TaskUUID)
		add("Campaign", d.Dispute.Campaign)
		add("Agent", d.Dispute.AgentID)
		add("Status", d.Dispute.Status)
		var qs []string
		for _, c := range d.Dispute.Criteria {
			qs = append(qs, disputed(c))
		}
		add("Criteria", strings.Join(qs, "\n"))
		link("/tasks/" + d.Dispute.TaskUUID)
	case d.Calibration != nil:
		c := d.Calibration
		add("Session", c.Name)
		add("Submitted", fmt.Sprintf("%d of %d analysts", c.Submitted, c.Analysts))
		add("Agreement", percent(c.PercentAgreement))
		if c.Alpha != nil {
			add("Krippendorff's alpha", fmt.Sprintf("%.2f", *c.Alpha))
		}
		link("/calibration/" + c.ID)
	default:
		add("Message", d.Message)
	}
	return m
}

func result(t *Task) string {
	switch {
	case t.Score == nil:
		return "pending review"
	case t.Passed != nil && *t.Passed:
		return fmt.Sprintf("passed, %.2f", *t.Score)
	}
	return fmt.Sprintf("failed, %.2f", *t.Score)
}

func questions(cs []Criterion) string {
	qs := make([]string, len(cs))
	for i, c := range cs {
		qs[i] = c.Question
		if c.Critical {
			qs[i] += " (critical)"
		}
	}
	return strings.Join(qs, "\n")
}

// disputed says criterion c of a dispute: its question, whether its
// verdict or the agent's claim is that it does not apply, and the decision.
func disputed(c DisputedCriterion) string {
	var notes []string
	switch {
	case c.NotApplicable:
		notes = append(notes, "judged not applicable")
	case c.ClaimsNotApplicable && !c.AcceptedNotApplicable:
		notes = append(notes, "claimed not applicable")
	}
	switch {
	case c.AcceptedNotApplicable:
		notes = append(notes, "accepted as not applicable")
	case c.Decision != "":
		notes = append(notes, c.Decision+"ed")
	}
	if len(notes) == 0 {
		return c.Question
	}
	return c.Question + " (" + strings.Join(notes, ", ") + ")"
}

func percent(p *float64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%.1f %%", 100**p)
}

// text is m in one plain text, for notifications and clients without blocks.
func (m summary) text() string {
	var b strings.Builder
	b.WriteString(m.Title)
	for _, f := range m.Facts {
		fmt.Fprintf(&b, "\n%s: %s", f[0], f[1])
	}
	if m.Link != "" {
		b.WriteString("\n" + m.Link)
	}
	return b.String()
}

// slack is m as a Slack message: text (the notification's), a header block
// and a section of fields.
func slack(m summary) map[string]any {
	blocks := []map[string]any{{"type": "header", "text": map[string]any{"type": "plain_text", "text": m.Title}}}
	if len(m.Facts) > 0 {
		fields := make([]map[string]any, 0, len(m.Facts))
		for _, f := range m.Facts[:min(len(m.Facts), 10)] { // Slack takes at most 10 fields
			fields = append(fields, map[string]any{"type": "mrkdwn", "text": "*" + f[0] + "*\n" + slackEscape(f[1])})
		}
		blocks = append(blocks, map[string]any{"type": "section", "fields": fields})
	}
	if m.Link != "" {
		blocks = append(blocks, map[string]any{"type": "actions", "elements": []map[string]any{{
			"type": "button", "text": map[string]any{"type": "plain_text", "text": "Open in auditd"}, "url": m.Link}}})
	}
	return map[string]any{"text": m.text(), "blocks": blocks}
}

// slackEscape escapes what Slack's mrkdwn reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// teams is m as an Office 365 connector MessageCard.
func teams(m summary) map[string]any {
	facts := make([]map[string]string, len(m.Facts))
	for i, f := range m.Facts {
		facts[i] = map[string]string{"name": f[0], "value": f[1]}
	}
	card := map[string]any{
		"@type": "MessageCard", "@context": "https://schema.org/extensions",
		"summary": m.Title, "title": m.Title, "themeColor": "0B6E99",
		"sections": []map[string]any{{"facts": facts}},
	}
	if m.Link != "" {
		card["potentialAction"] = []map[string]any{{"@type": "OpenUri", "name": "Open in auditd",
			"targets": []map[string]string{{"os": "default", "uri": m.Link}}}}
	}
	return card
}
