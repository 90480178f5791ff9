package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/ingest"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/role"
)

// ingestResource is the admins' ingest sources: bucket prefixes and
// directories polled for recordings, and what became of each object.
type ingestResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
}

// maxAgents caps a source's agents mapping.
const maxAgents = 1000

func (h *ingestResource) register(api huma.API) {
	tag := []string{"ingest"}
	checked := " `kind` s3 takes `location` as s3://bucket/prefix with the parameters an S3-compatible server " +
		"needs (region, endpoint, use_path_style, disable_https, anonymous, profile, fips, dualstack), and " +
		"optional `access_key_id` and `secret_access_key` (both or neither; never shown again); `kind` directory " +
		"takes the absolute path of a directory the workers can read. `name` is trimmed, 1 to 80 characters, " +
		"unique ignoring case (409 CONFLICT otherwise); `campaign` names a campaign; `language` is BCP 47; " +
		"`agents` maps the platform's agent ids to users (ids or usernames), at most 1000; `poll_seconds` is 10 " +
		"to 86400; `sidecar_wait_seconds` 0 to 86400. Every problem is a `details` entry locating it (400); " +
		"nothing is stored then."

	op := operation(http.MethodGet, "/ingest-sources", "list-ingest-sources", "List ingest sources", role.Admin)
	op.Description += " Every source by name, with its last poll and how many objects were taken, skipped and failed; never its secret."
	op.Tags = tag
	huma.Register(api, op, h.list)

	op = operation(http.MethodPost, "/ingest-sources", "create-ingest-source", "Add an ingest source", role.Admin,
		http.StatusBadRequest, http.StatusConflict)
	op.Description += " A bucket prefix or a directory that the workers poll for recordings, each with an optional " +
		"sidecar JSON (see the documentation's Ingest)." + checked
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, h.create)

	op = operation(http.MethodGet, "/ingest-sources/{id}", "get-ingest-source", "Get an ingest source", role.Admin,
		http.StatusBadRequest, http.StatusNotFound)
	op.Tags = tag
	huma.Register(api, op, h.get)

	op = operation(http.MethodPatch, "/ingest-sources/{id}", "update-ingest-source", "Change an ingest source", role.Admin,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Send the fields to change; the others stay (empty credentials keep the stored ones; " +
		"`clear_credentials` forgets them). `campaign` \"\" takes the default campaign again. What was recorded " +
		"of its objects stays: an object taken is not taken again." + checked
	op.Tags = tag
	huma.Register(api, op, h.update)

	op = operation(http.MethodDelete, "/ingest-sources/{id}", "delete-ingest-source", "Delete an ingest source", role.Admin,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Deletes it and the record of its objects (their tasks stay), and answers it as it was."
	op.Tags = tag
	huma.Register(api, op, h.delete)

	op = operation(http.MethodGet, "/ingest-sources/{id}/objects", "list-ingest-objects",
		"List what became of a source's objects", role.Admin, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Newest first, a page at a time: each object taken (its task), skipped (why: a duplicate " +
		"of a task, a sidecar), failed (why, for a person), or waiting to be tried again."
	op.Tags = tag
	huma.Register(api, op, h.objects)

	op = operation(http.MethodPost, "/ingest-sources/{id}/poll", "poll-ingest-source", "Poll an ingest source now",
		role.Admin, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Queues a poll of the source, even a disabled one, without waiting for its interval (202); " +
		"a poll already queued or running is that one."
	op.DefaultStatus = http.StatusAccepted
	op.Tags = tag
	huma.Register(api, op, h.poll)
}

// IngestSource is a source of recordings.
type IngestSource struct {
	ID       string            `json:"id" format:"uuid"`
	Name     string            `json:"name"`
	Kind     string            `json:"kind" enum:"s3,directory"`
	Location string            `json:"location" doc:"s3://bucket/prefix?… or a directory's absolute path"`
	Campaign string            `json:"campaign,omitempty" doc:"The campaign its tasks go to unless a sidecar names one; absent: the default campaign"`
	Language string            `json:"language,omitempty" doc:"Its recordings' language unless a sidecar gives one; absent: the campaign's"`
	Agents   map[string]string `json:"agents" doc:"The platform's agent ids (a sidecar's agent) and the users they are"`
	Enabled  bool              `json:"enabled"`
	// Credentials says whether an access key is stored, never which.
	Credentials        bool       `json:"credentials" doc:"Whether an access key is stored (it is never shown)"`
	PollSeconds        int        `json:"poll_seconds"`
	SidecarWaitSeconds int        `json:"sidecar_wait_seconds" doc:"How long a recording without its sidecar waits for one"`
	PolledAt           *time.Time `json:"polled_at,omitempty" doc:"When it was last polled"`
	PollError          string     `json:"poll_error,omitempty" doc:"Why its last listing failed"`
	Taken              int        `json:"taken" doc:"Objects taken as tasks"`
	Skipped            int        `json:"skipped" doc:"Objects skipped: duplicates and sidecars"`
	Failed             int        `json:"failed" doc:"Objects refused"`
	CreatedBy          string     `json:"created_by" doc:"The admin who added it (user id); its tasks are uploaded in their name"`
	CreatedAt          time.Time  `json:"created_at"`
	UpdatedAt          time.Time  `json:"updated_at"`
}

func ingestSourceOf(s db.IngestSource) IngestSource {
	return IngestSource{ID: s.ID, Name: s.Name, Kind: s.Kind, Location: s.Location, Campaign: s.CampaignName,
		Language: s.Language, Agents: s.Agents, Enabled: s.Enabled, Credentials: s.AccessKeyID != "",
		PollSeconds: s.PollSeconds, SidecarWaitSeconds: s.SidecarWaitSeconds, PolledAt: s.PolledAt,
		PollError: s.PollError, Taken: s.Taken, Skipped: s.Skipped, Failed: s.Bad, CreatedBy: s.CreatedBy,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

// IngestSourceList is every source.
type IngestSourceList struct {
	Items []IngestSource `json:"items"`
}

func (h *ingestResource) list(ctx context.Context, _ *struct{}) (*Output[IngestSourceList], error) {
	srcs, err := db.IngestSourceList(ctx, h.pool)
	if err != nil {
		return nil, err
	}
	out := IngestSourceList{Items: make([]IngestSource, len(srcs))}
	for i, s := range srcs {
		out.Items[i] = ingestSourceOf(s)
	}
	return ok(out), nil
}

type createIngestSourceInput struct {
	Body struct {
		Name               string            `json:"name" minLength:"1" maxLength:"80" doc:"Trimmed, 1 to 80 characters; unique ignoring case" example:"Genesys exports"`
		Kind               string            `json:"kind" enum:"s3,directory"`
		Location           string            `json:"location" minLength:"1" maxLength:"2000" doc:"s3://bucket/prefix?region=…&endpoint=… or the absolute path of a directory" example:"s3://recordings/genesys/?region=eu-west-1"`
		AccessKeyID        string            `json:"access_key_id,omitempty" maxLength:"200" doc:"An S3 source's access key id; with secret_access_key. Absent: the workers' environment's credentials"`
		SecretAccessKey    string            `json:"secret_access_key,omitempty" maxLength:"200" doc:"Its secret; stored, never shown"`
		Campaign           string            `json:"campaign,omitempty" maxLength:"200" doc:"A campaign's name; absent or empty: the default campaign"`
		Language           string            `json:"language,omitempty" maxLength:"35" doc:"BCP 47, such as es or en-US; absent: the campaign's" example:"es"`
		Agents             map[string]string `json:"agents,omitempty" doc:"The platform's agent ids and the users (ids or usernames) they are, at most 1000" example:"{\"1001\":\"ana\"}"`
		Enabled            *bool             `json:"enabled,omitempty" doc:"Whether it is polled; true when absent"`
		PollSeconds        *int              `json:"poll_seconds,omitempty" minimum:"10" maximum:"86400" doc:"How often it is polled, in seconds; 60 when absent"`
		SidecarWaitSeconds *int              `json:"sidecar_wait_seconds,omitempty" minimum:"0" maximum:"86400" doc:"How long a recording without a sidecar waits for one, in seconds (by the object's time); 60 when absent, 0: not at all"`
	}
}

// checked checks n and the campaign named campaign ("" for the default),
// and returns n with its name trimmed, its location as stored and that
// campaign's id. Each problem is located at its field.
func (h *ingestResource) checked(ctx context.Context, n db.IngestSourceNew, campaign string) (db.IngestSourceNew, error) {
	name, err := checkName("ingest source", n.Name)
	if err != nil {
		return n, err
	}
	n.Name = name
	invalid := func(field, msg string, value any) error {
		return Errorf(CodeValidation, msg).WithDetail("body."+field, msg, value)
	}
	if n.Location, err = ingest.CheckLocation(n.Kind, n.Location); err != nil {
		if !errcode.Is(err, errcode.Invalid) {
			return n, err
		}
		return n, invalid("location", errcode.Message(err), n.Location)
	}
	if (n.AccessKeyID == "") != (n.SecretAccessKey == "") {
		return n, invalid("secret_access_key", "give access_key_id and secret_access_key together, or neither", nil)
	}
	if n.Kind == db.IngestDirectory && n.AccessKeyID != "" {
		return n, invalid("access_key_id", "a directory source takes no credentials", nil)
	}
	for _, v := range []struct{ field, value string }{{"access_key_id", n.AccessKeyID}, {"secret_access_key", n.SecretAccessKey}} {
		if badText(v.value) || strings.TrimSpace(v.value) != v.value {
			return n, invalid(v.field, "must be one line of text, without spaces around it", nil)
		}
	}
	if n.Language != "" && !languageTag.MatchString(n.Language) {
		return n, invalid("language", "must be a BCP 47 language tag such as es or en-US", n.Language)
	}
	if len(n.Agents) > maxAgents {
		return n, invalid("agents", fmt.Sprintf("maps %d agents; at most %d", len(n.Agents), maxAgents), nil)
	}
	for from, to := range n.Agents {
		if from == "" || to == "" || badText(from) || badText(to) || utf8.RuneCountInString(from) > 200 || utf8.RuneCountInString(to) > 200 {
			return n, invalid("agents."+from, "each agent id and the user it maps to must be one line of 1 to 200 characters", to)
		}
	}
	if campaign == "" {
		n.CampaignID = ""
		return n, nil
	}
	c, err := db.CampaignGetByName(ctx, h.pool, campaign)
	if errcode.Is(err, errcode.NotFound) {
		return n, invalid("campaign", "names no campaign: "+campaign+" does not exist", campaign)
	}
	n.CampaignID = c.ID
	return n, err
}

func (h *ingestResource) create(ctx context.Context, in *createIngestSourceInput) (*Output[IngestSource], error) {
	b := in.Body
	n, err := h.checked(ctx, db.IngestSourceNew{Name: b.Name, Kind: b.Kind, Location: b.Location,
		AccessKeyID: b.AccessKeyID, SecretAccessKey: b.SecretAccessKey, Language: b.Language, Agents: b.Agents,
		Enabled: deref(b.Enabled, true), PollSeconds: deref(b.PollSeconds, 60),
		SidecarWaitSeconds: deref(b.SidecarWaitSeconds, 60)}, b.Campaign)
	if err != nil {
		return nil, err
	}
	s, err := db.IngestSourceCreate(ctx, h.pool, n, principal(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	return ok(ingestSourceOf(s)), nil
}

type ingestSourceIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The source's id"`
}

func (h *ingestResource) get(ctx context.Context, in *ingestSourceIDInput) (*Output[IngestSource], error) {
	s, err := db.IngestSourceGet(ctx, h.pool, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(ingestSourceOf(s)), nil
}

type updateIngestSourceInput struct {
	ID   string `path:"id" format:"uuid" doc:"The source's id"`
	Body struct {
		Name               *string           `json:"name,omitempty" minLength:"1" maxLength:"80" doc:"A new name"`
		Kind               *string           `json:"kind,omitempty" enum:"s3,directory"`
		Location           *string           `json:"location,omitempty" minLength:"1" maxLength:"2000"`
		Campaign           *string           `json:"campaign,omitempty" maxLength:"200" doc:"A campaign's name; empty: the default campaign"`
		Language           *string           `json:"language,omitempty" maxLength:"35" doc:"BCP 47; empty: the campaign's"`
		ClearCredentials   bool              `json:"clear_credentials,omitempty" doc:"Forget the stored access key"`
		AccessKeyID        string            `json:"access_key_id,omitempty" maxLength:"200" doc:"A new access key id, with secret_access_key; absent: the stored one stays"`
		SecretAccessKey    string            `json:"secret_access_key,omitempty" maxLength:"200" doc:"Its secret"`
		Agents             map[string]string `json:"agents,omitempty" doc:"The whole mapping, replacing the stored one"`
		Enabled            *bool             `json:"enabled,omitempty"`
		PollSeconds        *int              `json:"poll_seconds,omitempty" minimum:"10" maximum:"86400"`
		SidecarWaitSeconds *int              `json:"sidecar_wait_seconds,omitempty" minimum:"0" maximum:"86400"`
	}
}

func (h *ingestResource) update(ctx context.Context, in *updateIngestSourceInput) (*Output[IngestSource], error) {
	s, err := db.IngestSourceGet(ctx, h.pool, in.ID)
	if err != nil {
		return nil, err
	}
	b := in.Body
	n := db.IngestSourceNew{Name: deref(b.Name, s.Name), Kind: deref(b.Kind, s.Kind), Location: deref(b.Location, s.Location),
		AccessKeyID: b.AccessKeyID, SecretAccessKey: b.SecretAccessKey, ClearCredentials: b.ClearCredentials,
		Language: deref(b.Language, s.Language), Agents: s.Agents, Enabled: deref(b.Enabled, s.Enabled),
		PollSeconds: deref(b.PollSeconds, s.PollSeconds), SidecarWaitSeconds: deref(b.SidecarWaitSeconds, s.SidecarWaitSeconds)}
	if b.Agents != nil {
		n.Agents = b.Agents
	}
	if n.Kind == db.IngestDirectory && s.Kind == db.IngestS3 {
		n.ClearCredentials = true
	}
	if n, err = h.checked(ctx, n, deref(b.Campaign, s.CampaignName)); err != nil {
		return nil, err
	}
	if s, err = db.IngestSourceUpdate(ctx, h.pool, in.ID, n); err != nil {
		return nil, err
	}
	return ok(ingestSourceOf(s)), nil
}

func (h *ingestResource) delete(ctx context.Context, in *ingestSourceIDInput) (*Output[IngestSource], error) {
	s, err := db.IngestSourceDelete(ctx, h.pool, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(ingestSourceOf(s)), nil
}

// IngestObject is what became of one object of a source.
type IngestObject struct {
	Key       string    `json:"key" doc:"The object's key (a path under the directory)"`
	Status    string    `json:"status" enum:"claimed,retry,taken,skipped,failed" doc:"claimed: being read; retry: a passing failure, tried again at the next poll; taken: its task; skipped and failed: see reason"`
	Attempts  int       `json:"attempts"`
	TaskUUID  string    `json:"task_uuid,omitempty" format:"uuid" doc:"The task it became, or the earlier task it duplicates"`
	SHA256    string    `json:"sha256,omitempty"`
	SizeBytes int64     `json:"size_bytes"`
	Sidecar   string    `json:"sidecar,omitempty" doc:"The sidecar read with it"`
	Reason    string    `json:"reason,omitempty" doc:"Why it was skipped or failed"`
	At        time.Time `json:"at" doc:"When this was recorded"`
}

// IngestObjectPage is a page of a source's objects.
type IngestObjectPage struct {
	Items []IngestObject `json:"items"`
	Total int            `json:"total" doc:"How many objects match, on every page"`
}

type ingestObjectsInput struct {
	ID     string `path:"id" format:"uuid" doc:"The source's id"`
	Status string `query:"status" enum:"claimed,retry,taken,skipped,failed" doc:"Only objects with this status"`
	Skip   int    `query:"skip" minimum:"0" maximum:"1000000" default:"0"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100"`
}

func (h *ingestResource) objects(ctx context.Context, in *ingestObjectsInput) (*Output[IngestObjectPage], error) {
	if _, err := db.IngestSourceGet(ctx, h.pool, in.ID); err != nil {
		return nil, err
	}
	items, total, err := db.IngestObjectList(ctx, h.pool, in.ID, in.Status, in.Skip, in.Limit)
	if err != nil {
		return nil, err
	}
	out := IngestObjectPage{Items: make([]IngestObject, len(items)), Total: total}
	for i, o := range items {
		out.Items[i] = IngestObject{Key: o.Key, Status: o.Status, Attempts: o.Attempts, TaskUUID: o.TaskUUID,
			SHA256: o.SHA256, SizeBytes: o.SizeBytes, Sidecar: o.Sidecar, Reason: o.Reason, At: o.UpdatedAt}
	}
	return ok(out), nil
}

// IngestPoll is a queued poll.
type IngestPoll struct {
	JobID int64 `json:"job_id" doc:"The poll's job (GET /admin/jobs/{id})"`
}

func (h *ingestResource) poll(ctx context.Context, in *ingestSourceIDInput) (*Output[IngestPoll], error) {
	if _, err := db.IngestSourceGet(ctx, h.pool, in.ID); err != nil {
		return nil, err
	}
	res, err := h.river.Insert(ctx, jobs.PollIngestSourceArgs{SourceID: in.ID}, nil)
	if err != nil {
		return nil, err
	}
	return accepted(IngestPoll{JobID: res.Job.ID}), nil
}
