-- +goose Up
-- An agent's answer to a validated audit: an acknowledgement, or a dispute
-- of chosen criteria that a supervisor accepts or rejects criterion by
-- criterion. Both are append-only records of their steps: an
-- acknowledgement is written once; a dispute is opened, then resolved once.

-- How many days after its validation an audit of the campaign may be
-- disputed; 0 turns disputes off.
ALTER TABLE campaigns ADD COLUMN dispute_window_days integer NOT NULL DEFAULT 7
    CHECK (dispute_window_days BETWEEN 0 AND 90);

-- The agent acknowledged the task's evaluation (once; it ends disputes).
CREATE TABLE acknowledgements (
    task_uuid       uuid PRIMARY KEY REFERENCES tasks (uuid) ON DELETE CASCADE,
    agent_id        text NOT NULL REFERENCES users (id),
    -- The audit revision the agent saw.
    audit_revision  integer NOT NULL,
    acknowledged_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE disputes (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    task_uuid      uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    agent_id       text NOT NULL REFERENCES users (id),
    -- Who validated the audit: the dispute is for their attention too.
    validator_id   text NOT NULL REFERENCES users (id),
    -- The revision disputed.
    audit_revision integer NOT NULL,
    status         text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'rejected')),
    -- [{criterion_id, category, question, complies, comment, decision, reason}]:
    -- the agent's claims, with the resolver's decision and reason once resolved.
    items          jsonb NOT NULL CHECK (jsonb_typeof(items) = 'array' AND jsonb_array_length(items) > 0),
    opened_at      timestamptz NOT NULL DEFAULT now(),
    resolved_by    text REFERENCES users (id),
    resolver_name  text,
    resolved_at    timestamptz,
    -- The audit edit of the accepted criteria (its revision, once applied).
    edit_id        bigint REFERENCES audit_edits (id),
    CHECK ((status = 'open') = (resolved_at IS NULL)),
    CHECK (status <> 'accepted' OR edit_id IS NOT NULL)
);

-- One open dispute per task.
CREATE UNIQUE INDEX disputes_open_task_idx ON disputes (task_uuid) WHERE status = 'open';
CREATE INDEX disputes_task_idx ON disputes (task_uuid, opened_at);
CREATE INDEX disputes_status_idx ON disputes (status, opened_at, id);
CREATE INDEX disputes_agent_idx ON disputes (agent_id, opened_at, id);
CREATE INDEX disputes_validator_idx ON disputes (validator_id, opened_at, id);

-- The edit that resolves a dispute: it may change a validated audit, and
-- is scored against the scorecard of the revision it changes.
ALTER TABLE audit_edits ADD COLUMN dispute_id uuid REFERENCES disputes (id);

-- +goose Down
ALTER TABLE audit_edits DROP COLUMN dispute_id;
DROP TABLE disputes;
DROP TABLE acknowledgements;
ALTER TABLE campaigns DROP COLUMN dispute_window_days;
