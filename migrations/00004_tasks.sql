-- +goose Up
-- A campaign groups the interactions of one line of business. This is the
-- part intake needs; scorecards and the campaigns API come with their issue.
CREATE TABLE campaigns (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name              text NOT NULL UNIQUE CHECK (name <> ''),
    passing_score     numeric(5,2) NOT NULL DEFAULT 85 CHECK (passing_score BETWEEN 0 AND 100),
    supervisor_emails text[] NOT NULL DEFAULT '{}',
    language          text NOT NULL DEFAULT 'es',
    -- Which channel of a stereo call recording is the agent.
    agent_channel     text NOT NULL DEFAULT 'left' CHECK (agent_channel IN ('left', 'right')),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);

INSERT INTO campaigns (name) VALUES ('default');

-- A task is one uploaded call or chat on its way through the pipeline.
CREATE TABLE tasks (
    uuid             uuid PRIMARY KEY,
    kind             text NOT NULL CHECK (kind IN ('call', 'chat')),
    status           text NOT NULL CHECK (status IN
                         ('queued', 'transcribing', 'transcribed', 'auditing', 'audited', 'validated', 'failed')),
    -- For display only: path parts are stripped at intake.
    file_name        text NOT NULL,
    content_type     text NOT NULL,
    size_bytes       bigint NOT NULL CHECK (size_bytes >= 0),
    -- Hex SHA-256 of the content: one task per distinct file.
    sha256           text NOT NULL UNIQUE CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    -- Generated, never derived from the file name. Unique also lets the blob
    -- sweeper ask which keys are referenced.
    blob_key         text NOT NULL UNIQUE,
    campaign_id      uuid NOT NULL REFERENCES campaigns (id),
    -- The audited agent: a user id (the identity provider's subject) when
    -- the uploader's value matched a user, else that value as given.
    operator_id      text CHECK (operator_id <> ''),
    language         text NOT NULL,
    direction        text CHECK (direction IN ('inbound', 'outbound')),
    started_at       timestamptz,
    external_id      text,
    uploaded_by      text NOT NULL REFERENCES users (id),
    duration_seconds double precision CHECK (duration_seconds >= 0),
    error            text,
    attempts         integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

-- Listing: keyset orderings (each ends with uuid to be total), and the
-- filters combined with the default ordering.
CREATE INDEX tasks_created_at_idx ON tasks (created_at, uuid);
CREATE INDEX tasks_file_name_idx ON tasks (lower(file_name), uuid);
CREATE INDEX tasks_status_idx ON tasks (status, created_at, uuid);
CREATE INDEX tasks_campaign_idx ON tasks (campaign_id, created_at, uuid);
CREATE INDEX tasks_operator_idx ON tasks (operator_id, created_at, uuid) WHERE operator_id IS NOT NULL;

-- The words of a task: a call's once transcribed, a chat's from intake.
CREATE TABLE transcripts (
    task_uuid  uuid PRIMARY KEY REFERENCES tasks (uuid) ON DELETE CASCADE,
    text       text NOT NULL,
    segments   jsonb NOT NULL,
    engine     text NOT NULL,
    language   text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);

-- The history of a task: every change of status, append-only.
CREATE TABLE task_transitions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_uuid   uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    -- NULL for the task's creation.
    from_status text,
    to_status   text NOT NULL,
    error       text,
    attempt     integer NOT NULL DEFAULT 0,
    at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX task_transitions_task_idx ON task_transitions (task_uuid, id);

-- +goose Down
DROP TABLE task_transitions;
DROP TABLE transcripts;
DROP TABLE tasks;
DROP TABLE campaigns;
