-- +goose Up
-- Retention, legal holds, the access record and erasure (issue 23).

-- How long each campaign keeps what its tasks hold, in days from a task's
-- upload; NULL keeps it forever (the default: a campaign without a row
-- keeps everything). agents_see_access lets the audited agents (operators)
-- read who opened their own interactions.
CREATE TABLE campaign_privacy (
    campaign_id       uuid PRIMARY KEY REFERENCES campaigns (id) ON DELETE CASCADE,
    recordings_days   integer CHECK (recordings_days BETWEEN 1 AND 36500),
    transcripts_days  integer CHECK (transcripts_days BETWEEN 1 AND 36500),
    audits_days       integer CHECK (audits_days BETWEEN 1 AND 36500),
    agents_see_access boolean NOT NULL DEFAULT false,
    updated_at        timestamptz NOT NULL DEFAULT now()
);

-- A task outlives what retention or erasure deletes of it: the uploaded
-- file (blob_key becomes NULL once the reference is gone; the blob is
-- deleted after that commits), the transcript and the audit's revisions,
-- each with when it went.
ALTER TABLE tasks
    ALTER COLUMN blob_key DROP NOT NULL,
    ADD COLUMN recording_deleted_at timestamptz,
    ADD COLUMN transcript_deleted_at timestamptz,
    ADD COLUMN audit_deleted_at timestamptz;

-- A task on legal hold is never deleted, by retention or by erasure, until
-- an admin lifts the hold (which deletes the row).
CREATE TABLE legal_holds (
    task_uuid uuid PRIMARY KEY REFERENCES tasks (uuid) ON DELETE CASCADE,
    reason    text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
    placed_by text NOT NULL REFERENCES users (id),
    placed_at timestamptz NOT NULL DEFAULT now()
);

-- An erasure of a person's data: every task where operator_id is the
-- agent or external_id the customer reference (either or both), its
-- recording, transcript and audit deleted by an erase_person job; tasks on
-- legal hold are counted, not touched.
CREATE TABLE erasures (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    requested_by text NOT NULL REFERENCES users (id),
    operator_id  text CHECK (operator_id <> ''),
    external_id  text CHECK (external_id <> ''),
    CHECK (operator_id IS NOT NULL OR external_id IS NOT NULL),
    status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'done')),
    tasks        bigint NOT NULL DEFAULT 0 CHECK (tasks >= 0),
    held         bigint NOT NULL DEFAULT 0 CHECK (held >= 0),
    recordings   bigint NOT NULL DEFAULT 0 CHECK (recordings >= 0),
    transcripts  bigint NOT NULL DEFAULT 0 CHECK (transcripts >= 0),
    audits       bigint NOT NULL DEFAULT 0 CHECK (audits >= 0),
    job_id       bigint,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);

-- What retention and erasure deleted: counts per kind and campaign, never
-- contents. One row per batch committed.
CREATE TABLE privacy_deletions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    cause       text NOT NULL CHECK (cause IN ('retention', 'erasure')),
    erasure_id  uuid REFERENCES erasures (id),
    CHECK ((cause = 'erasure') = (erasure_id IS NOT NULL)),
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('recording', 'transcript', 'audit')),
    count       integer NOT NULL CHECK (count > 0)
);

-- Retention walks a campaign's tasks by upload time (tasks_campaign_idx);
-- these keep its walk to what is still there.
CREATE INDEX tasks_recording_kept_idx ON tasks (campaign_id, created_at) WHERE blob_key IS NOT NULL;
CREATE INDEX tasks_transcript_kept_idx ON tasks (campaign_id, created_at) WHERE transcript_deleted_at IS NULL;
CREATE INDEX tasks_audit_kept_idx ON tasks (campaign_id, created_at) WHERE audit_deleted_at IS NULL;
-- Erasure finds a customer's tasks by their reference.
CREATE INDEX tasks_external_id_idx ON tasks (external_id) WHERE external_id IS NOT NULL;

-- Every read of personal content by a user: a recording, a transcript (a
-- task, an audit revision), an export (its filter and row count), a
-- validation's e-mail content, a person's data export. Written before the
-- content is served; the task may be gone later, the record stays.
CREATE TABLE access_records (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    user_id    text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('recording', 'transcript', 'revision', 'validation', 'export', 'subject_export')),
    task_uuid  uuid,
    -- The export's filter and rows; the subject of a data export.
    detail     jsonb NOT NULL DEFAULT '{}',
    client_ip  text NOT NULL,
    user_agent text NOT NULL DEFAULT ''
);

CREATE INDEX access_records_user_idx ON access_records (user_id, id);
CREATE INDEX access_records_task_idx ON access_records (task_uuid, id) WHERE task_uuid IS NOT NULL;
CREATE INDEX access_records_at_idx ON access_records (at);

-- +goose Down
DROP TABLE access_records;
DROP INDEX tasks_external_id_idx;
DROP INDEX tasks_audit_kept_idx;
DROP INDEX tasks_transcript_kept_idx;
DROP INDEX tasks_recording_kept_idx;
DROP TABLE privacy_deletions;
DROP TABLE erasures;
DROP TABLE legal_holds;
ALTER TABLE tasks
    DROP COLUMN audit_deleted_at,
    DROP COLUMN transcript_deleted_at,
    DROP COLUMN recording_deleted_at;
-- Tasks whose recording was deleted cannot go back: this fails then.
ALTER TABLE tasks ALTER COLUMN blob_key SET NOT NULL;
DROP TABLE campaign_privacy;
