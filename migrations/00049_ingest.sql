-- +goose Up
-- Ingest sources: a bucket prefix (s3://) or a directory that a River
-- periodic job polls. Every object found is recorded once per source and
-- key in ingest_objects, claimed there before it is read, so that any
-- number of worker processes ingest it once. The access key is never
-- returned by the API.
CREATE TABLE ingest_sources (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name                 text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    kind                 text NOT NULL CHECK (kind IN ('s3', 'directory')),
    location             text NOT NULL CHECK (char_length(location) BETWEEN 1 AND 2000),
    access_key_id        text NOT NULL DEFAULT '',
    secret_access_key    text NOT NULL DEFAULT '',
    campaign_id          uuid REFERENCES campaigns (id) ON DELETE SET NULL,
    language             text NOT NULL DEFAULT '',
    agents               jsonb NOT NULL DEFAULT '{}',
    enabled              boolean NOT NULL DEFAULT true,
    poll_seconds         int NOT NULL CHECK (poll_seconds BETWEEN 10 AND 86400),
    sidecar_wait_seconds int NOT NULL CHECK (sidecar_wait_seconds BETWEEN 0 AND 86400),
    polled_at            timestamptz,
    poll_error           text NOT NULL DEFAULT '',
    created_by           text NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX ingest_sources_name_idx ON ingest_sources (lower(name));

-- What became of each object of a source: claimed (being read), retry (a
-- passing failure: the next poll tries again, a few times), taken (task),
-- skipped (reason: a duplicate, a sidecar) or failed (reason).
CREATE TABLE ingest_objects (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id   uuid NOT NULL REFERENCES ingest_sources (id) ON DELETE CASCADE,
    key         text NOT NULL,
    status      text NOT NULL CHECK (status IN ('claimed', 'retry', 'taken', 'skipped', 'failed')),
    attempts    int NOT NULL DEFAULT 1,
    task_uuid   uuid,
    sha256      text NOT NULL DEFAULT '',
    size_bytes  bigint NOT NULL DEFAULT 0,
    sidecar     text NOT NULL DEFAULT '',
    reason      text NOT NULL DEFAULT '',
    claimed_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source_id, key)
);

CREATE INDEX ingest_objects_source_idx ON ingest_objects (source_id, id DESC);
CREATE INDEX ingest_objects_status_idx ON ingest_objects (source_id, status, id DESC);

-- +goose Down
DROP TABLE ingest_objects;
DROP TABLE ingest_sources;
