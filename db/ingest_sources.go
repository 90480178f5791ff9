package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Kinds of ingest source.
const (
	IngestS3        = "s3"
	IngestDirectory = "directory"
)

// IngestSource is a bucket prefix or a directory that is polled for
// recordings, as stored.
type IngestSource struct {
	ID   string
	Name string
	// Kind is IngestS3 or IngestDirectory.
	Kind string
	// Location is the s3:// URL (bucket, prefix and endpoint parameters)
	// or the directory's absolute path.
	Location string
	// AccessKeyID and SecretAccessKey are an S3 source's credentials; ""
	// for the environment's. Never shown.
	AccessKeyID, SecretAccessKey string
	// CampaignID and CampaignName receive its tasks ("" for the default
	// campaign).
	CampaignID, CampaignName string
	// Language is its recordings' language when a sidecar gives none (""
	// for the campaign's).
	Language string
	// Agents maps the agent ids the platform writes in sidecars to our
	// users (ids or usernames).
	Agents              map[string]string
	Enabled             bool
	PollSeconds         int
	SidecarWaitSeconds  int
	PolledAt            *time.Time
	PollError           string
	CreatedBy           string
	CreatedAt           time.Time
	UpdatedAt           time.Time
	Taken, Skipped, Bad int
}

// IngestSourceNew is a source to create, or the whole of one to replace.
// Empty credentials on a replacement keep the stored ones unless
// ClearCredentials.
type IngestSourceNew struct {
	Name, Kind, Location         string
	AccessKeyID, SecretAccessKey string
	ClearCredentials             bool
	CampaignID, Language         string
	Agents                       map[string]string
	Enabled                      bool
	PollSeconds                  int
	SidecarWaitSeconds           int
}

const ingestColumns = `s.id, s.name, s.kind, s.location, s.access_key_id, s.secret_access_key,
	COALESCE(s.campaign_id::text, ''), COALESCE(c.name, ''), s.language, s.agents, s.enabled, s.poll_seconds,
	s.sidecar_wait_seconds, s.polled_at, s.poll_error, s.created_by, s.created_at, s.updated_at,
	(SELECT count(*) FILTER (WHERE o.status = 'taken') FROM ingest_objects o WHERE o.source_id = s.id),
	(SELECT count(*) FILTER (WHERE o.status = 'skipped') FROM ingest_objects o WHERE o.source_id = s.id),
	(SELECT count(*) FILTER (WHERE o.status = 'failed') FROM ingest_objects o WHERE o.source_id = s.id)`

func scanIngestSource(row pgx.Row) (IngestSource, error) {
	var s IngestSource
	err := row.Scan(&s.ID, &s.Name, &s.Kind, &s.Location, &s.AccessKeyID, &s.SecretAccessKey, &s.CampaignID,
		&s.CampaignName, &s.Language, &s.Agents, &s.Enabled, &s.PollSeconds, &s.SidecarWaitSeconds, &s.PolledAt,
		&s.PollError, &s.CreatedBy, &s.CreatedAt, &s.UpdatedAt, &s.Taken, &s.Skipped, &s.Bad)
	return s, err
}

func ingestSourceMissing(err error, id string) error { return one(err, "no ingest source %s", id) }

func ingestSourceNameTaken(err error, name string) error {
	return unique(err, fmt.Sprintf("an ingest source called %q exists already; choose another name", name))
}

// ingestSelect selects the sources of CTE s with their campaigns' names.
const ingestSelect = `SELECT ` + ingestColumns + ` FROM s LEFT JOIN campaigns c ON c.id = s.campaign_id`

// IngestSourceCreate stores n, created by user by. It returns a Conflict
// error when another source has its name (ignoring case).
func IngestSourceCreate(ctx context.Context, q DBTX, n IngestSourceNew, by string) (IngestSource, error) {
	s, err := scanIngestSource(q.QueryRow(ctx, `
		WITH s AS (
			INSERT INTO ingest_sources (name, kind, location, access_key_id, secret_access_key, campaign_id, language,
				agents, enabled, poll_seconds, sidecar_wait_seconds, created_by)
			VALUES ($1, $2, $3, $4, $5, NULLIF($6, '')::uuid, $7, $8, $9, $10, $11, $12) RETURNING *
		) `+ingestSelect,
		n.Name, n.Kind, n.Location, n.AccessKeyID, n.SecretAccessKey, n.CampaignID, n.Language, agentsOrEmpty(n.Agents),
		n.Enabled, n.PollSeconds, n.SidecarWaitSeconds, by))
	return s, ingestSourceNameTaken(err, n.Name)
}

func agentsOrEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// IngestSourceUpdate replaces source id's settings with n. A change of
// location forgets its last poll's error. It returns a NotFound error when
// there is no such source and a Conflict error when another has n's name.
func IngestSourceUpdate(ctx context.Context, q DBTX, id string, n IngestSourceNew) (IngestSource, error) {
	s, err := scanIngestSource(q.QueryRow(ctx, `
		WITH s AS (
			UPDATE ingest_sources SET name = $2, kind = $3, location = $4,
				access_key_id = CASE WHEN $12 THEN '' WHEN $5 <> '' THEN $5 ELSE access_key_id END,
				secret_access_key = CASE WHEN $12 THEN '' WHEN $6 <> '' THEN $6 ELSE secret_access_key END,
				campaign_id = NULLIF($7, '')::uuid, language = $8, agents = $9, enabled = $10, poll_seconds = $11,
				sidecar_wait_seconds = $13, updated_at = now(),
				poll_error = CASE WHEN location = $4 THEN poll_error ELSE '' END
			WHERE id = $1 RETURNING *
		) `+ingestSelect,
		id, n.Name, n.Kind, n.Location, n.AccessKeyID, n.SecretAccessKey, n.CampaignID, n.Language,
		agentsOrEmpty(n.Agents), n.Enabled, n.PollSeconds, n.ClearCredentials, n.SidecarWaitSeconds))
	return s, ingestSourceMissing(ingestSourceNameTaken(err, n.Name), id)
}

// IngestSourceGet returns source id, or a NotFound error.
func IngestSourceGet(ctx context.Context, q DBTX, id string) (IngestSource, error) {
	s, err := scanIngestSource(q.QueryRow(ctx, `WITH s AS (SELECT * FROM ingest_sources WHERE id = $1) `+ingestSelect, id))
	return s, ingestSourceMissing(err, id)
}

// IngestSourceList returns every source by name.
func IngestSourceList(ctx context.Context, q DBTX) ([]IngestSource, error) {
	rows, err := q.Query(ctx, `WITH s AS (SELECT * FROM ingest_sources) `+ingestSelect+` ORDER BY lower(s.name), s.id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (IngestSource, error) { return scanIngestSource(row) })
}

// IngestSourceDelete deletes source id and the record of its objects (the
// tasks stay), and returns it as it was, or a NotFound error.
func IngestSourceDelete(ctx context.Context, q DBTX, id string) (IngestSource, error) {
	s, err := scanIngestSource(q.QueryRow(ctx, `
		WITH s AS (DELETE FROM ingest_sources WHERE id = $1 RETURNING *) `+ingestSelect, id))
	return s, ingestSourceMissing(err, id)
}

// IngestSourcesDue returns the ids of the enabled sources whose poll is
// due at now: never polled, or polled at least their interval ago.
func IngestSourcesDue(ctx context.Context, q DBTX, now time.Time) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT id::text FROM ingest_sources
		WHERE enabled AND (polled_at IS NULL OR polled_at + make_interval(secs => poll_seconds) <= $1)
		ORDER BY polled_at NULLS FIRST, id`, now)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// IngestSourcePolled records that source id was polled at, with the error
// that ended its listing ("" for none).
func IngestSourcePolled(ctx context.Context, q DBTX, id string, at time.Time, pollError string) error {
	_, err := q.Exec(ctx, `UPDATE ingest_sources SET polled_at = $2, poll_error = $3 WHERE id = $1`, id, at, pollError)
	return err
}
