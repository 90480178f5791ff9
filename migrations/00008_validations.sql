-- +goose Up
-- A task's validation: written once, in the transaction that makes the task
-- validated and inserts the send_validation_email job. The e-mail columns
-- follow that job's attempts.
CREATE TABLE validations (
    task_uuid        uuid PRIMARY KEY REFERENCES tasks (uuid) ON DELETE CASCADE,
    -- The audit revision validated: what the e-mail reports.
    audit_revision   integer NOT NULL,
    notes            text NOT NULL CHECK (notes <> ''),
    -- Who: the token subject and a display name (x-username, else the
    -- token's name or username).
    validator_id     text NOT NULL REFERENCES users (id),
    validator_name   text NOT NULL,
    validated_at     timestamptz NOT NULL DEFAULT now(),
    is_call          boolean NOT NULL,
    type             text NOT NULL CHECK (type = CASE WHEN is_call THEN 'llamada' ELSE 'chat' END),
    sent_to          text[] NOT NULL CHECK (cardinality(sent_to) > 0),
    bcc              text[] NOT NULL DEFAULT '{}',
    -- [{name, content_type, size, sha256, blob_key}], in request order. The
    -- blobs live in the blob store beside the uploads.
    attachments      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attachments) = 'array'),
    -- SHA-256 of the normalised request (task, notes, isCall, attachment
    -- hashes): the same request again is answered from this row.
    request_hash     text NOT NULL CHECK (request_hash ~ '^[0-9a-f]{64}$'),
    email_message_id text,
    email_status     text NOT NULL DEFAULT 'pending' CHECK (email_status IN ('pending', 'sent', 'failed')),
    email_attempts   integer NOT NULL DEFAULT 0 CHECK (email_attempts >= 0),
    email_error      text,
    email_sent_at    timestamptz
);

-- The blob sweeper asks which keys an attachment refers to (containment of
-- [{"blob_key": K}]).
CREATE INDEX validations_attachments_idx ON validations USING gin (attachments jsonb_path_ops);

-- Counting validations over a period (the dashboard).
CREATE INDEX validations_validated_at_idx ON validations (validated_at);

-- +goose Down
DROP TABLE validations;
