package api

import (
	"context"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
)

type campaignsResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	// review is the confidence below which a preview's verdict needs review.
	review float64
}

// CampaignView is a campaign as the API shows it.
type CampaignView struct {
	ID               string   `json:"id" format:"uuid"`
	Name             string   `json:"name"`
	PassingScore     float64  `json:"passing_score" doc:"The score (0..100) an audit needs to pass"`
	SupervisorEmails []string `json:"supervisor_emails" doc:"Receive every validation of the campaign's audits"`
	Language         string   `json:"language" doc:"Default language of its interactions (BCP 47)"`
	AgentChannel     string   `json:"agent_channel" enum:"left,right" doc:"The channel of a stereo call recording that holds the agent"`
	DetectLanguage   bool     `json:"detect_language" doc:"A call uploaded without a language is sent to the speech server without one, which detects it (recorded as the task's language once transcribed), when the engine transcribes any language (ASR_ENGINE=openai, ASR_LANGUAGES unset); otherwise it takes language"`
	ScorecardVersion int      `json:"scorecard_version" doc:"The current version of its scorecard"`
	// OperatorSeesAutomatic and ReviewAnalysts are the QA workflow's
	// settings (README: QA workflow).
	OperatorSeesAutomatic bool                     `json:"operator_sees_automatic" doc:"Whether agents (operators) see their audits before an analyst reviewed them"`
	ReviewAnalysts        []string                 `json:"review_analysts" doc:"The user ids sampling assigns tasks to; empty: every active user whose highest role is quality"`
	DisputeWindowDays     int                      `json:"dispute_window_days" doc:"How many days after its validation an agent may dispute an audit; 0: no disputes"`
	Redaction             redact.RedactionSettings `json:"redaction" doc:"What is replaced by placeholders in its transcripts (and silenced in its recordings) before anything stores them"`
	RedactionDefault      bool                     `json:"redaction_default" doc:"True while redaction is the defaults of the campaign's language (Spanish: card, cvv, dni, iban, phone; English: card, cvv, phone, email; others: card, cvv), which follow its language; false once set"`
	CreatedAt             time.Time                `json:"created_at"`
	UpdatedAt             time.Time                `json:"updated_at"`
	// Retention and AgentsSeeAccess are the campaign's privacy settings.
	Retention       Retention `json:"retention" doc:"How long its tasks' recordings, transcripts and audits are kept"`
	AgentsSeeAccess bool      `json:"agents_see_access" doc:"Its agents (operators) may see who opened their own interactions"`
}

// Retention is how long a campaign keeps what its tasks hold (db.Retention).
type Retention struct {
	RecordingsDays  *int `json:"recordings_days" doc:"Days a task's uploaded file (a call's recording, a chat's file) is kept after upload; null: forever"`
	TranscriptsDays *int `json:"transcripts_days" doc:"Days a task's transcript is kept after upload (a chat's uploaded file goes with it); null: forever"`
	AuditsDays      *int `json:"audits_days" doc:"Days a task's audit revisions are kept after upload; null: forever"`
}

// ScorecardView is one version of a campaign's scorecard with its criteria.
type ScorecardView struct {
	CampaignID  string              `json:"campaign_id" format:"uuid"`
	Version     int                 `json:"version"`
	Criteria    []scoring.Criterion `json:"criteria"`
	PublishedBy string              `json:"published_by"`
	PublishedAt time.Time           `json:"published_at"`
	// RecomputeJobID is set on a publication: the recompute_audits job
	// that re-scores the campaign's audits against this version.
	RecomputeJobID int64 `json:"recompute_job_id,omitempty" doc:"On publication: the recompute_audits job re-scoring the campaign's audits against this version"`
}

func scorecardView(s db.Scorecard) ScorecardView {
	return ScorecardView{CampaignID: s.CampaignID, Version: s.Version, Criteria: s.Criteria,
		PublishedBy: s.PublishedBy, PublishedAt: s.PublishedAt}
}

func (c *campaignsResource) register(api huma.API) {
	tags := []string{"campaigns"}
	tagged := func(op huma.Operation) huma.Operation {
		op.Tags = tags
		return op
	}
	huma.Register(api, tagged(operation(http.MethodGet, "/campaigns", "list-campaigns", "List campaigns", role.Operator)), c.list)
	huma.Register(api, tagged(operation(http.MethodGet, "/campaigns/{id}", "get-campaign", "Get a campaign", role.Operator,
		http.StatusBadRequest, http.StatusNotFound)), c.get)
	op := operation(http.MethodPost, "/campaigns", "create-campaign", "Create a campaign", role.Supervisor,
		http.StatusBadRequest, http.StatusConflict)
	op.Description += " Version 1 of its scorecard is `criteria` when given (validated like a publication), else a copy of the default scorecard."
	op.DefaultStatus = http.StatusCreated
	huma.Register(api, tagged(op), c.create)
	op = operation(http.MethodPatch, "/campaigns/{id}", "update-campaign", "Update a campaign's settings", role.Supervisor,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Only the fields sent change; `retention`, when sent, is the whole retention policy (a kind absent " +
		"or null is kept forever)."
	huma.Register(api, tagged(op), c.update)
	huma.Register(api, tagged(operation(http.MethodGet, "/campaigns/{id}/scorecard", "get-scorecard", "Get a campaign's current scorecard",
		role.Operator, http.StatusBadRequest, http.StatusNotFound)), c.scorecard)
	huma.Register(api, tagged(operation(http.MethodGet, "/campaigns/{id}/scorecard/versions", "list-scorecard-versions",
		"List the versions of a campaign's scorecard", role.Operator, http.StatusBadRequest, http.StatusNotFound)), c.versions)
	huma.Register(api, tagged(operation(http.MethodGet, "/campaigns/{id}/scorecard/versions/{version}", "get-scorecard-version",
		"Get one version of a campaign's scorecard", role.Operator, http.StatusBadRequest, http.StatusNotFound)), c.version)
	op = operation(http.MethodPut, "/campaigns/{id}/scorecard", "publish-scorecard", "Publish a new scorecard version",
		role.Supervisor, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Validates the criteria (unique ids and questions, positive weights, applies_to, rule syntax) and " +
		"publishes them as the next version; earlier versions stay, and audits keep the version they were scored with. " +
		"Every problem is listed in `details`. The same transaction inserts a `recompute_audits` job that re-scores " +
		"every audited, not yet validated task of the campaign against the new version (each a new revision), " +
		"notifying the publisher of its progress."
	op.DefaultStatus = http.StatusCreated
	huma.Register(api, tagged(op), c.publish)
	c.registerPreview(api)
}

func (c *campaignsResource) view(ctx context.Context, camp db.Campaign) (CampaignView, error) {
	card, err := db.ScorecardCurrent(ctx, c.pool, camp.ID)
	if err != nil && !errcode.Is(err, errcode.NotFound) {
		return CampaignView{}, err
	}
	privacy, err := db.CampaignPrivacyGet(ctx, c.pool, camp.ID)
	if err != nil {
		return CampaignView{}, err
	}
	return CampaignView{ID: camp.ID, Name: camp.Name, PassingScore: camp.PassingScore,
		SupervisorEmails: nonNilStrings(camp.SupervisorEmails), Language: camp.Language, AgentChannel: camp.AgentChannel,
		DetectLanguage: camp.DetectLanguage, ScorecardVersion: card.Version, Redaction: camp.EffectiveRedaction(), RedactionDefault: camp.Redaction == nil, CreatedAt: camp.CreatedAt, UpdatedAt: camp.UpdatedAt,
		OperatorSeesAutomatic: camp.OperatorSeesAutomatic, ReviewAnalysts: nonNilStrings(camp.ReviewAnalysts),
		DisputeWindowDays: camp.DisputeWindowDays, Retention: Retention(privacy.Retention), AgentsSeeAccess: privacy.AgentsSeeAccess}, nil
}

// answer is the response showing camp.
func (c *campaignsResource) answer(ctx context.Context, camp db.Campaign) (*Output[CampaignView], error) {
	v, err := c.view(ctx, camp)
	if err != nil {
		return nil, err
	}
	return ok(v), nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (c *campaignsResource) list(ctx context.Context, _ *struct{}) (*Output[[]CampaignView], error) {
	camps, err := db.CampaignList(ctx, c.pool)
	if err != nil {
		return nil, err
	}
	out := make([]CampaignView, len(camps))
	for i, camp := range camps {
		if out[i], err = c.view(ctx, camp); err != nil {
			return nil, err
		}
	}
	return ok(out), nil
}

type campaignInput struct {
	ID string `path:"id" format:"uuid" doc:"The campaign's id"`
}

func (c *campaignsResource) campaign(ctx context.Context, id string) (db.Campaign, error) {
	return db.CampaignGet(ctx, c.pool, id)
}

func (c *campaignsResource) get(ctx context.Context, in *campaignInput) (*Output[CampaignView], error) {
	camp, err := c.campaign(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return c.answer(ctx, camp)
}

// CampaignFields are a campaign's editable settings.
type CampaignFields struct {
	Name             string                    `json:"name" minLength:"1" maxLength:"100"`
	PassingScore     *float64                  `json:"passing_score,omitempty" minimum:"0" maximum:"100" doc:"Defaults to 85"`
	SupervisorEmails []string                  `json:"supervisor_emails,omitempty" maxItems:"50" doc:"E-mail addresses" format:"email"`
	Language         string                    `json:"language,omitempty" pattern:"^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$" doc:"BCP 47; defaults to es"`
	AgentChannel     string                    `json:"agent_channel,omitempty" enum:"left,right" doc:"Defaults to left"`
	DetectLanguage   *bool                     `json:"detect_language,omitempty" doc:"Let the speech server detect the language of a call uploaded without one (when it transcribes any language); defaults to false: such a call takes language"`
	Redaction        *redact.RedactionSettings `json:"redaction,omitempty" doc:"What its transcripts and recordings lose before anything stores them; defaults to its language's defaults (see redaction_default). Applies to interactions uploaded from then on."`
	// The QA workflow's settings.
	OperatorSeesAutomatic *bool    `json:"operator_sees_automatic,omitempty" doc:"Show agents (operators) their audits before an analyst reviewed them; defaults to false: until then an agent's task shows no score, result or verdicts"`
	ReviewAnalysts        []string `json:"review_analysts,omitempty" maxItems:"200" doc:"The analysts (user ids or usernames, each of the quality role or above) sampling assigns tasks to; [] for every active user whose highest role is quality (the default)"`
	DisputeWindowDays     *int     `json:"dispute_window_days,omitempty" minimum:"0" maximum:"90" doc:"How many days after its validation an agent may dispute an audit, 0 to 90; 0 takes no disputes. Defaults to 7"`
	// Retention, when sent, replaces the whole retention policy.
	Retention       *RetentionFields `json:"retention,omitempty" doc:"How long its tasks' content is kept; when sent, replaces the whole policy (a kind absent or null is kept forever). Defaults to forever"`
	AgentsSeeAccess *bool            `json:"agents_see_access,omitempty" doc:"Let its agents (operators) see who opened their own interactions. Defaults to false"`
}

// RetentionFields are a campaign's retention as a request sets it.
type RetentionFields struct {
	RecordingsDays  *int `json:"recordings_days,omitempty" nullable:"true" minimum:"1" maximum:"36500" doc:"Days a task's uploaded file (a call's recording, a chat's file) is kept after upload; null or absent: forever"`
	TranscriptsDays *int `json:"transcripts_days,omitempty" nullable:"true" minimum:"1" maximum:"36500" doc:"Days a task's transcript is kept after upload; null or absent: forever"`
	AuditsDays      *int `json:"audits_days,omitempty" nullable:"true" minimum:"1" maximum:"36500" doc:"Days a task's audit revisions are kept after upload; null or absent: forever"`
}

// applyPrivacy sets what f says of the privacy settings on p.
func applyPrivacy(p *db.CampaignPrivacy, f CampaignFields) {
	if f.Retention != nil {
		p.Retention = db.Retention(*f.Retention)
	}
	if f.AgentsSeeAccess != nil {
		p.AgentsSeeAccess = *f.AgentsSeeAccess
	}
}

type createCampaignInput struct {
	Body struct {
		CampaignFields
		Criteria []scoring.Criterion `json:"criteria,omitempty" doc:"Version 1 of the scorecard; the default scorecard when absent"`
	}
}

func (c *campaignsResource) create(ctx context.Context, in *createCampaignInput) (*Output[CampaignView], error) {
	b := in.Body
	s := db.CampaignSettings{PassingScore: 85, SupervisorEmails: b.SupervisorEmails, Language: "es", AgentChannel: "left",
		DisputeWindowDays: 7}
	if err := applyFields(&s, b.CampaignFields); err != nil {
		return nil, err
	}
	analysts, err := c.reviewAnalysts(ctx, b.CampaignFields)
	if err != nil {
		return nil, err
	}
	s.ReviewAnalysts = analysts
	if len(b.Criteria) > 0 {
		if err := validateCriteria(b.Criteria); err != nil {
			return nil, err
		}
	}
	var camp db.Campaign
	err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) (err error) {
		camp, err = db.CampaignCreate(ctx, tx, b.Name, s, b.Criteria, principal(ctx).User.ID)
		if err != nil || (b.Retention == nil && b.AgentsSeeAccess == nil) {
			return err
		}
		var privacy db.CampaignPrivacy
		applyPrivacy(&privacy, b.CampaignFields)
		return db.CampaignPrivacySet(ctx, tx, camp.ID, privacy)
	})
	if err != nil {
		return nil, err
	}
	return c.answer(ctx, camp)
}

// applyFields sets what f sends on s; it returns a validation error naming
// each problem of the redaction settings, changing nothing then.
func applyFields(s *db.CampaignSettings, f CampaignFields) error {
	if f.Redaction != nil {
		if problems := f.Redaction.Validate(); len(problems) > 0 {
			details := make([]*huma.ErrorDetail, len(problems))
			for i, p := range problems {
				details[i] = &huma.ErrorDetail{Location: "body.redaction." + p.Field, Message: p.Message}
			}
			return Errorf(CodeValidation, fmt.Sprintf("the redaction settings have %d problem(s); nothing was changed", len(problems))).
				WithDetails(details)
		}
		s.Redaction = f.Redaction
	}
	if f.PassingScore != nil {
		if err := hundredths("passing_score", *f.PassingScore); err != nil {
			return err
		}
		s.PassingScore = *f.PassingScore
	}
	for i, e := range f.SupervisorEmails {
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e || !plainText(e) {
			return invalidBody(fmt.Sprintf("supervisor_emails[%d]", i),
				"must be one bare e-mail address such as name@example.com: no display name, line break or hidden character", e)
		}
	}
	if f.SupervisorEmails != nil {
		s.SupervisorEmails = f.SupervisorEmails
	}
	if f.Language != "" {
		s.Language = f.Language
	}
	if f.AgentChannel != "" {
		s.AgentChannel = f.AgentChannel
	}
	if f.DetectLanguage != nil {
		s.DetectLanguage = *f.DetectLanguage
	}
	if f.OperatorSeesAutomatic != nil {
		s.OperatorSeesAutomatic = *f.OperatorSeesAutomatic
	}
	if f.DisputeWindowDays != nil {
		s.DisputeWindowDays = *f.DisputeWindowDays
	}
	return nil
}

// reviewAnalysts resolves f's analysts (nil when not sent) to user ids,
// each an analyst (analyst), without repeats.
func (c *campaignsResource) reviewAnalysts(ctx context.Context, f CampaignFields) ([]string, error) {
	if f.ReviewAnalysts == nil {
		return nil, nil
	}
	ids := []string{}
	for i, ref := range f.ReviewAnalysts {
		id, err := analyst(ctx, c.pool, ref, fmt.Sprintf("review_analysts[%d]", i))
		if err != nil {
			return nil, err
		}
		if slices.Contains(ids, id) {
			return nil, invalidBody(fmt.Sprintf("review_analysts[%d]", i), fmt.Sprintf("names %s again; list each analyst once", id), ref)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

type updateCampaignInput struct {
	ID   string `path:"id" format:"uuid"`
	Body struct {
		CampaignFields
		Name string `json:"name,omitempty" minLength:"1" maxLength:"100"`
	}
}

func (c *campaignsResource) update(ctx context.Context, in *updateCampaignInput) (*Output[CampaignView], error) {
	camp, err := c.campaign(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	s := camp.CampaignSettings
	if err := applyFields(&s, in.Body.CampaignFields); err != nil {
		return nil, err
	}
	analysts, err := c.reviewAnalysts(ctx, in.Body.CampaignFields)
	if err != nil {
		return nil, err
	}
	if analysts != nil {
		s.ReviewAnalysts = analysts
	}
	name := camp.Name
	if in.Body.Name != "" {
		name = in.Body.Name
	}
	if camp.Name == db.DefaultCampaign && name != db.DefaultCampaign {
		// Uploads without a campaign go to it by this name.
		return nil, Errorf(CodeConflict, "the default campaign keeps its name: uploads without a campaign go to it")
	}
	privacy, err := db.CampaignPrivacyGet(ctx, c.pool, camp.ID)
	if err != nil {
		return nil, err
	}
	applyPrivacy(&privacy, in.Body.CampaignFields)
	err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) (err error) {
		if camp, err = db.CampaignUpdate(ctx, tx, camp.ID, name, s); err != nil {
			return err
		}
		return db.CampaignPrivacySet(ctx, tx, camp.ID, privacy)
	})
	if err != nil {
		return nil, err
	}
	return c.answer(ctx, camp)
}

func (c *campaignsResource) scorecard(ctx context.Context, in *campaignInput) (*Output[ScorecardView], error) {
	if _, err := c.campaign(ctx, in.ID); err != nil {
		return nil, err
	}
	card, err := db.ScorecardCurrent(ctx, c.pool, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(scorecardView(card)), nil
}

// ScorecardInfo describes a version of a scorecard without its criteria
// (db.ScorecardInfo).
type ScorecardInfo struct {
	CampaignID  string    `json:"campaign_id" format:"uuid"`
	Version     int       `json:"version"`
	Criteria    int       `json:"criteria" doc:"How many criteria it has"`
	PublishedBy string    `json:"published_by"`
	PublishedAt time.Time `json:"published_at"`
}

func (c *campaignsResource) versions(ctx context.Context, in *campaignInput) (*Output[[]ScorecardInfo], error) {
	if _, err := c.campaign(ctx, in.ID); err != nil {
		return nil, err
	}
	v, err := db.ScorecardVersions(ctx, c.pool, in.ID)
	if err != nil {
		return nil, err
	}
	out := make([]ScorecardInfo, len(v))
	for i, s := range v {
		out[i] = ScorecardInfo(s)
	}
	return ok(out), nil
}

type scorecardVersionInput struct {
	ID      string `path:"id" format:"uuid"`
	Version int    `path:"version" minimum:"1" maximum:"2147483647"`
}

func (c *campaignsResource) version(ctx context.Context, in *scorecardVersionInput) (*Output[ScorecardView], error) {
	card, err := db.ScorecardGet(ctx, c.pool, in.ID, in.Version)
	if err != nil {
		return nil, err
	}
	return ok(scorecardView(card)), nil
}

type publishInput struct {
	ID   string `path:"id" format:"uuid"`
	Body struct {
		Criteria []scoring.Criterion `json:"criteria" minItems:"1" maxItems:"200"`
	}
}

// validateCriteria is the publication check (scoring.Validate, its
// problems located in the body's criteria).
func validateCriteria(criteria []scoring.Criterion) error {
	return scoring.Validate(scoring.Scorecard{Criteria: criteria}, rules.CheckRule)
}

func (c *campaignsResource) publish(ctx context.Context, in *publishInput) (*Output[ScorecardView], error) {
	if _, err := c.campaign(ctx, in.ID); err != nil {
		return nil, err
	}
	if err := validateCriteria(in.Body.Criteria); err != nil {
		return nil, err
	}
	var view ScorecardView
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		by := principal(ctx).User.ID
		card, err := db.ScorecardPublish(ctx, tx, in.ID, in.Body.Criteria, by)
		if err != nil {
			return err
		}
		res, err := c.river.InsertTx(ctx, tx, jobs.RecomputeAuditsArgs{CampaignID: card.CampaignID,
			ScorecardVersion: card.Version, RequestedBy: by}, nil)
		if err != nil {
			return err
		}
		view = scorecardView(card)
		view.RecomputeJobID = res.Job.ID
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ok(view), nil
}
