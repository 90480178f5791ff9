-- +goose Up
-- A campaign's scorecard is versioned: publishing adds a version, old ones
-- stay, and every audit keeps the version it was scored with.
CREATE TABLE scorecards (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    version      integer NOT NULL CHECK (version > 0),
    criteria     jsonb NOT NULL,
    published_by text,
    published_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (campaign_id, version)
);

-- Every audit of a task is an append-only revision: 1 from the engine, then
-- one per analyst edit or recomputation. The task points at its current one.
CREATE TABLE audit_revisions (
    task_uuid         uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    revision          integer NOT NULL CHECK (revision > 0),
    scorecard_version integer NOT NULL,
    score             numeric(5,2) NOT NULL,
    passed            boolean NOT NULL,
    -- The scored audit: items with verdicts, the breakdown per category.
    result            jsonb NOT NULL,
    -- engine: the automatic audit; analyst: an edit; recompute: re-scored
    -- against a newer scorecard.
    source            text NOT NULL CHECK (source IN ('engine', 'analyst', 'recompute')),
    engine            text,
    -- Who: the token subject and the x-username header; NULL for the system.
    author_id         text,
    author_name       text,
    -- What changed from the previous revision.
    diff              jsonb,
    created_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_uuid, revision)
);

ALTER TABLE tasks
    ADD COLUMN audit_revision integer,
    ADD COLUMN score numeric(5,2),
    ADD COLUMN passed boolean,
    ADD COLUMN audited_at timestamptz;

-- The listing's keyset ordering by score (tasks not audited sort lowest).
CREATE INDEX tasks_score_idx ON tasks ((COALESCE(score, -1)), uuid);

-- +goose Down
DROP INDEX tasks_score_idx;
ALTER TABLE tasks DROP COLUMN audit_revision, DROP COLUMN score, DROP COLUMN passed, DROP COLUMN audited_at;
DROP TABLE audit_revisions;
DROP TABLE scorecards;
