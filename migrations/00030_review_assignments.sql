-- +goose Up
-- Review states, assignments and sampling (issue 22).
--
-- A task's review state is derived from its columns, never stored apart
-- (db.ReviewState): validated when its status is; reviewed when an analyst
-- reviewed its current audit (reviewed_at: an analyst's edit, or POST
-- /tasks/{uuid}/review); automatic while only the engine judged it; none
-- before any audit. A new engine revision (a re-audit) makes it automatic
-- again; a recomputation against a new scorecard keeps the analyst's review.
ALTER TABLE tasks
    ADD COLUMN reviewed_at timestamptz,
    ADD COLUMN reviewed_by text,
    -- When the task was assigned to assignee_id, and by when the analyst
    -- should review it (NULL: no due date).
    ADD COLUMN assigned_at timestamptz,
    ADD COLUMN assignment_due_at timestamptz;

-- Stored audits: reviewed by the first analyst edit after the last engine
-- revision.
UPDATE tasks t SET reviewed_at = r.created_at, reviewed_by = r.author_id
FROM (
    SELECT DISTINCT ON (a.task_uuid) a.task_uuid, a.created_at, a.author_id
    FROM audit_revisions a
    WHERE a.source = 'analyst' AND a.author_id IS NOT NULL
      AND a.revision > COALESCE((SELECT max(e.revision) FROM audit_revisions e
                                 WHERE e.task_uuid = a.task_uuid AND e.source = 'engine'), 0)
    ORDER BY a.task_uuid, a.revision
) r
WHERE r.task_uuid = t.uuid;

-- Tasks assigned before assignments had a time: their last change.
UPDATE tasks SET assigned_at = updated_at WHERE assignee_id IS NOT NULL;

-- An analyst's queue (open assignments by due date) and the load of each
-- analyst: assigned tasks still automatic.
CREATE INDEX tasks_open_assignment_idx ON tasks (assignee_id, assignment_due_at, uuid)
    WHERE assignee_id IS NOT NULL AND status <> 'validated' AND reviewed_at IS NULL;

-- What an agent (operator) sees of an automatic audit (not reviewed yet):
-- nothing of its result unless the campaign allows it. review_analysts is
-- the campaign's analyst pool for sampling ({}: every active user whose
-- highest role is quality).
ALTER TABLE campaigns
    ADD COLUMN operator_sees_automatic boolean NOT NULL DEFAULT false,
    ADD COLUMN review_analysts text[] NOT NULL DEFAULT '{}';

-- A sampling rule of a campaign: which newly audited tasks (audited, still
-- automatic, unassigned, since the start of the period the rule was created
-- in) are picked for an analyst's review, and how they are shared out.
--   per_agent:       up to per_agent tasks of each agent per period;
--   failed_critical: every task whose audit failed a critical criterion;
--   needs_review:    every task with verdicts that need review;
--   random_share:    share percent of the tasks, each decided once.
CREATE TABLE sampling_rules (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    campaign_id   uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    kind          text NOT NULL CHECK (kind IN ('per_agent', 'failed_critical', 'needs_review', 'random_share')),
    per_agent     integer CHECK (per_agent BETWEEN 1 AND 1000),
    share         numeric(5,2) CHECK (share > 0 AND share <= 100),
    CHECK ((kind = 'per_agent') = (per_agent IS NOT NULL)),
    CHECK ((kind = 'random_share') = (share IS NOT NULL)),
    period        text NOT NULL DEFAULT 'week' CHECK (period IN ('day', 'week', 'month')),
    -- Filters: only tasks in this language (es: every Spanish), of this kind.
    language      text,
    task_kind     text CHECK (task_kind IN ('call', 'chat')),
    strategy      text NOT NULL DEFAULT 'round_robin' CHECK (strategy IN ('round_robin', 'load')),
    due_days      integer NOT NULL DEFAULT 3 CHECK (due_days BETWEEN 1 AND 90),
    enabled       boolean NOT NULL DEFAULT true,
    -- Round robin goes on after this analyst.
    last_analyst  text,
    last_run_at   timestamptz,
    last_picked   integer NOT NULL DEFAULT 0,
    created_by    text NOT NULL REFERENCES users (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX sampling_rules_campaign_idx ON sampling_rules (campaign_id, created_at);

-- A rule's decision on a task, taken once: picked (and assigned to
-- assignee_id) or not (random_share, or per_agent beyond the period's
-- count). period_start is the start of the rule's period the task was
-- audited in (UTC).
CREATE TABLE sampling_picks (
    rule_id      uuid NOT NULL REFERENCES sampling_rules (id) ON DELETE CASCADE,
    task_uuid    uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    period_start date NOT NULL,
    operator_id  text,
    picked       boolean NOT NULL,
    assignee_id  text,
    at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (rule_id, task_uuid)
);

CREATE INDEX sampling_picks_period_idx ON sampling_picks (rule_id, period_start, operator_id) WHERE picked;

-- +goose Down
DROP TABLE sampling_picks;
DROP TABLE sampling_rules;
ALTER TABLE campaigns DROP COLUMN operator_sees_automatic, DROP COLUMN review_analysts;
DROP INDEX tasks_open_assignment_idx;
ALTER TABLE tasks DROP COLUMN reviewed_at, DROP COLUMN reviewed_by, DROP COLUMN assigned_at, DROP COLUMN assignment_due_at;
