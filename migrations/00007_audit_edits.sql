-- +goose Up
-- An analyst's edit of an audit, recorded by POST /compute-audit-results in
-- the transaction that inserts its recompute_audit job. The job applies
-- pending edits of a task in id order, each becoming one revision, and
-- records the outcome here, so an edit is applied once however often its
-- job runs.
CREATE TABLE audit_edits (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_uuid   uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    -- The revision the analyst edited (If-Match); NULL: whatever is current
    -- when the edit is applied.
    based_on    integer CHECK (based_on > 0),
    -- The analyst's verdicts: [{criterion_id, complies, explanation}].
    verdicts    jsonb NOT NULL,
    -- Who: the token subject and the x-username header.
    author_id   text NOT NULL,
    author_name text,
    -- pending until the job applies it (applied, with the revision it
    -- became), refuses it (rejected: the audit changed meanwhile) or gives
    -- up (failed: the error).
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'rejected', 'failed')),
    revision    integer,
    error       text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    CHECK ((status = 'applied') = (revision IS NOT NULL))
);

CREATE INDEX audit_edits_pending_idx ON audit_edits (task_uuid, id) WHERE status = 'pending';

-- recompute_audits walks a campaign's audited tasks by uuid.
CREATE INDEX tasks_campaign_audited_idx ON tasks (campaign_id, uuid) WHERE status = 'audited';

-- +goose Down
DROP INDEX tasks_campaign_audited_idx;
DROP TABLE audit_edits;
