package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Bounds of a preview's body: a draft as large as a publication's, and a
// chat's text long enough for any real interaction.
const (
	maxPreviewTextChars = 100_000
	maxPreviewBodyBytes = 2 << 20
)

type previewInput struct {
	ID   string `path:"id" format:"uuid" doc:"The campaign's id"`
	Body struct {
		Criteria []scoring.Criterion `json:"criteria" minItems:"1" maxItems:"200" doc:"The draft scorecard's criteria, checked as a publication checks them"`
		Text     string              `json:"text,omitempty" maxLength:"100000" doc:"A chat transcript to try the draft on, as an upload takes one: lines \"Speaker: text\" or a JSON list of turns; it is not stored. Give text or task_uuid, not both"`
		TaskUUID string              `json:"task_uuid,omitempty" format:"uuid" doc:"A task you may see whose transcript to try the draft on. Give text or task_uuid, not both"`
		Language string              `json:"language,omitempty" pattern:"^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$" doc:"The interaction's language (BCP 47), which the verdicts are explained and the questions read in; defaults to the task's (its transcript's, else its own), else the campaign's"`
	}
}

// ScorecardPreview is what a draft scorecard makes of one interaction.
type ScorecardPreview struct {
	Kind     string `json:"kind" enum:"call,chat" doc:"The interaction's kind: chat for text, the task's otherwise; criteria that do not apply to it have no item"`
	Language string `json:"language" doc:"The language the verdicts are explained and the questions read in"`
	// Result is scored against the campaign's passing score; its
	// scorecard_version is 0: a draft has none.
	Result scoring.Result `json:"result" doc:"The verdicts (items, in the draft's order, each with its evidence's turns) and the score, against the campaign's passing score; scorecard_version is 0: a draft has none"`
}

func (c *campaignsResource) registerPreview(api huma.API) {
	op := operation(http.MethodPost, "/campaigns/{id}/scorecard/preview", "preview-scorecard",
		"Try a draft scorecard on a transcript", role.Quality, http.StatusBadRequest, http.StatusNotFound,
		http.StatusConflict, http.StatusRequestEntityTooLarge)
	op.Tags = []string{"campaigns"}
	op.Description += " Audits a chat's text, or the transcript of a task you may see, with the draft's rules (the rules " +
		"engine, whatever AUDITOR_ENGINE is) and answers the verdicts and the score; nothing is stored. The draft is " +
		"checked as a publication checks it, every problem located (`body.criteria[i].rule.any[2]`, with `at`, the " +
		"character of a phrase at fault). A task you calibrate blind is CONFLICT, and so is one without a transcript. " +
		"The body is at most 2 MiB, the text 100,000 characters; each preview counts against the uploads rate limit " +
		"(RATE_LIMIT_UPLOADS)."
	op.MaxBodyBytes = maxPreviewBodyBytes
	op.Metadata[metaUpload] = true
	huma.Register(api, op, c.preview)
}

func (c *campaignsResource) preview(ctx context.Context, in *previewInput) (*Output[ScorecardPreview], error) {
	b := in.Body
	camp, err := c.campaign(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if err := validateCriteria(b.Criteria); err != nil {
		return nil, err
	}
	kind, tr, lang, err := c.previewTranscript(ctx, in)
	if err != nil {
		return nil, err
	}
	lang = cmp.Or(b.Language, lang, camp.Language)
	card := scoring.Scorecard{Criteria: b.Criteria}
	res, err := auditor.Judge(ctx, &auditor.Rules{}, card, kind, tr, lang, camp.PassingScore, c.review)
	if errors.Is(err, scoring.ErrNoApplicableCriteria) {
		return nil, Errorf(CodeValidation, fmt.Sprintf("no criterion of the draft applies to a %s: nothing to try", kind)).
			WithDetail("body.criteria", "has no criterion whose applies_to is "+kind+" or both", nil)
	}
	if err != nil {
		return nil, err
	}
	quotes := transcript.NewQuotes(tr)
	for i, it := range res.Items {
		res.Items[i].EvidenceTurns = quotes.Turns(it.Evidence)
	}
	return ok(ScorecardPreview{Kind: kind, Language: lang, Result: res}), nil
}

// previewTranscript is the interaction a preview tries the draft on: the
// body's text (a chat) or its task's transcript, with its kind and its
// language when known.
func (c *campaignsResource) previewTranscript(ctx context.Context, in *previewInput) (kind string, tr transcript.Transcript,
	lang string, err error) {
	switch b := in.Body; {
	case (b.Text == "") == (b.TaskUUID == ""):
		return "", tr, "", Errorf(CodeValidation, "give the text of a chat or the task_uuid of a task to try the draft on, not both").
			WithDetail("body.text", "give text or task_uuid, not both", nil)
	case b.Text != "":
		tr, _, err = transcript.ParseChat([]byte(b.Text))
		if err != nil {
			return "", tr, "", invalidBody("text", fmt.Sprintf("cannot be read as a chat (%v): write one turn a line, "+
				"\"Agent: Good morning\", or a JSON list of turns", err), nil)
		}
		return scoring.Chat, tr, "", nil
	}
	task, err := visibleTask(ctx, c.pool, in.Body.TaskUUID)
	if err != nil {
		return "", tr, "", err
	}
	if err := notBlind(ctx, c.pool, task.UUID); err != nil {
		return "", tr, "", err
	}
	tr, err = db.TranscriptGet(ctx, c.pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return "", tr, "", Errorf(CodeConflict, fmt.Sprintf("task %s has no transcript to try the draft on (it is %s)",
			task.UUID, task.Status))
	}
	return task.Kind, tr, cmp.Or(tr.Language, task.Language), err
}
