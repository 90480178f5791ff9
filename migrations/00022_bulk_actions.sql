-- +goose Up
-- The analyst a task is assigned to (POST /bulk-actions, action assign);
-- GET /tasks?assignee=… lists one analyst's tasks in the list's order.
ALTER TABLE tasks ADD COLUMN assignee_id text REFERENCES users (id);
CREATE INDEX tasks_assignee_idx ON tasks (assignee_id, created_at, uuid) WHERE assignee_id IS NOT NULL;

-- A bulk action: one action run on many tasks by a job (bulk_action),
-- which walks the selection in pages and records a result per task. The
-- selection is either explicit (task_uuids) or a filter of the task list,
-- stored resolved for the job (filter: db.TaskFilter as JSON) and as the
-- canonical query string it was given as (filter_query), for people.
CREATE TABLE bulk_actions (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    action        text NOT NULL CHECK (action IN ('reaudit', 'retry', 'assign', 'validate')),
    -- What the action takes besides the tasks: assign's assignee_id,
    -- validate's notes.
    parameters    jsonb NOT NULL DEFAULT '{}',
    task_uuids    uuid[],
    filter        jsonb,
    filter_query  text,
    CHECK ((task_uuids IS NULL) <> (filter IS NULL) AND (filter IS NULL) = (filter_query IS NULL)),
    requested_by  text NOT NULL REFERENCES users (id),
    status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    -- matched is the tasks selected: known at once for task_uuids, counted
    -- when the job starts for a filter, and the tasks walked at the end.
    matched       bigint CHECK (matched >= 0),
    done          bigint NOT NULL DEFAULT 0 CHECK (done >= 0),
    succeeded     bigint NOT NULL DEFAULT 0 CHECK (succeeded >= 0),
    skipped       bigint NOT NULL DEFAULT 0 CHECK (skipped >= 0),
    failed        bigint NOT NULL DEFAULT 0 CHECK (failed >= 0),
    CHECK (done = succeeded + skipped + failed),
    -- Why the action failed (status failed), for people.
    error         text,
    -- Where the job is in the selection: the sort value (created_at) and
    -- uuid of the last task of the last page committed.
    after_value   text,
    after_uuid    uuid,
    job_id        bigint,
    cancelled_by  text REFERENCES users (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    started_at    timestamptz,
    finished_at   timestamptz,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    -- When the last bulk_action.updated event was written: progress is
    -- published at most about once a second.
    published_at  timestamptz
);

CREATE INDEX bulk_actions_requested_by_idx ON bulk_actions (requested_by, created_at);

-- The result of a bulk action on one task; its key makes the action
-- idempotent: a task with a row here is not acted on again by a job run
-- that starts over.
CREATE TABLE bulk_action_items (
    bulk_id   uuid NOT NULL REFERENCES bulk_actions (id) ON DELETE CASCADE,
    task_uuid uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    outcome   text NOT NULL CHECK (outcome IN ('succeeded', 'skipped', 'failed')),
    message   text NOT NULL DEFAULT '',
    at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bulk_id, task_uuid)
);

-- GET /bulk-actions/{id}/items?outcome=…, in task order.
CREATE INDEX bulk_action_items_outcome_idx ON bulk_action_items (bulk_id, outcome, task_uuid);

-- +goose Down
DROP TABLE bulk_action_items;
DROP TABLE bulk_actions;
DROP INDEX tasks_assignee_idx;
ALTER TABLE tasks DROP COLUMN assignee_id;
