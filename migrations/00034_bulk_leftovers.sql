-- +goose Up
-- unassign: a bulk action that clears tasks' assignee and due date.
ALTER TABLE bulk_actions DROP CONSTRAINT bulk_actions_action_check,
    ADD CONSTRAINT bulk_actions_action_check CHECK (action IN ('reaudit', 'retry', 'assign', 'unassign', 'validate'));

-- When the per-task results of the action were deleted (the
-- prune_bulk_results job, BULK_RESULTS_DAYS after it ended); NULL while
-- they are kept. The action and its counts stay.
ALTER TABLE bulk_actions ADD COLUMN results_deleted_at timestamptz;

-- GET /bulk-actions: newest first, everyone's or one requester's.
CREATE INDEX bulk_actions_created_idx ON bulk_actions (created_at, id);
DROP INDEX bulk_actions_requested_by_idx;
CREATE INDEX bulk_actions_requested_by_idx ON bulk_actions (requested_by, created_at, id);
-- prune_bulk_results: the ended actions whose results are still kept, by
-- when they ended.
CREATE INDEX bulk_actions_results_kept_idx ON bulk_actions (finished_at)
    WHERE finished_at IS NOT NULL AND results_deleted_at IS NULL;

-- What a result says, as a stable code and its parameters, written in the
-- reader's language when read (package bulk). message keeps the English
-- text: all that rows written before these columns have.
ALTER TABLE bulk_action_items ADD COLUMN code text, ADD COLUMN params jsonb;

-- +goose Down
ALTER TABLE bulk_action_items DROP COLUMN code, DROP COLUMN params;
DROP INDEX bulk_actions_results_kept_idx;
DROP INDEX bulk_actions_requested_by_idx;
CREATE INDEX bulk_actions_requested_by_idx ON bulk_actions (requested_by, created_at);
DROP INDEX bulk_actions_created_idx;
ALTER TABLE bulk_actions DROP COLUMN results_deleted_at;
DELETE FROM bulk_actions WHERE action = 'unassign';
ALTER TABLE bulk_actions DROP CONSTRAINT bulk_actions_action_check,
    ADD CONSTRAINT bulk_actions_action_check CHECK (action IN ('reaudit', 'retry', 'assign', 'validate'));
