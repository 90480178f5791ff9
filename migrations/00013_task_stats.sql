-- +goose Up
-- Dashboard figures kept as tasks change, so that a dashboard sums a few
-- thousand rows whatever the number of tasks. Triggers on tasks add each
-- task's contribution (and take back its previous one) in the statement
-- that changes it, so the figures are exact at every commit.
--
-- task_stats: by quarter hour of creation (UTC), campaign and status. Any
-- time zone's days start on a quarter hour, so tasks per day in any zone
-- come from it.
CREATE TABLE task_stats (
    slot             timestamptz NOT NULL,
    campaign_id      uuid NOT NULL,
    status           text NOT NULL,
    tasks            bigint NOT NULL,
    scored           bigint NOT NULL,
    passed           bigint NOT NULL,
    score_sum        numeric NOT NULL,
    audio_seconds    numeric NOT NULL,
    engine_verdicts  bigint NOT NULL,
    engine_confident bigint NOT NULL,
    PRIMARY KEY (slot, campaign_id, status)
);

-- task_stats_daily: by day of creation (UTC) and campaign, what the
-- dashboard shows for the whole period and what the task list's total
-- counts, one row per dimension and key:
--   tasks       key: "status kind passed" (passed: true, false or empty),
--               n: tasks
--   score       key: score range 0..9, n: audited tasks in it
--   operator    key: the agent's id, n: audited tasks, total: their scores
--   judged      key: criterion id, n: audits that judged it
--   failed      key: criterion id, n: audits that found it not met
--   processing  key: k, n: tasks audited between 2^(k/8) and 2^((k+1)/8)
--               seconds after their upload
CREATE TABLE task_stats_daily (
    day         date NOT NULL,
    campaign_id uuid NOT NULL,
    dim         text NOT NULL,
    key         text NOT NULL,
    n           bigint NOT NULL,
    total       numeric NOT NULL,
    PRIMARY KEY (day, campaign_id, dim, key)
);

-- What one task adds to each: the triggers and the dashboard's edges (the
-- parts of its period that do not cover whole quarter hours or days) read
-- tasks through the same functions.
-- +goose StatementBegin
CREATE FUNCTION task_stats_of(t tasks)
RETURNS TABLE (slot timestamptz, campaign_id uuid, status text, tasks bigint, scored bigint, passed bigint,
    score_sum numeric, audio_seconds numeric, engine_verdicts bigint, engine_confident bigint)
LANGUAGE sql IMMUTABLE AS $$
    SELECT date_bin('15 minutes', t.created_at, timestamptz '2000-01-01 00:00:00+00'), t.campaign_id, t.status,
        1, (t.score IS NOT NULL)::int, COALESCE(t.passed, false)::int, COALESCE(t.score, 0),
        CASE WHEN t.kind = 'call' THEN COALESCE(t.duration_seconds, 0)::numeric ELSE 0 END,
        t.engine_verdicts, t.engine_confident
    WHERE t.uuid IS NOT NULL
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION task_stats_daily_of(t tasks)
RETURNS TABLE (day date, campaign_id uuid, dim text, key text, n bigint, total numeric)
LANGUAGE sql IMMUTABLE AS $$
    SELECT (t.created_at AT TIME ZONE 'UTC')::date, t.campaign_id, d.dim, d.key, 1, d.total
    FROM (
        SELECT 'tasks', t.status || ' ' || t.kind || ' ' || COALESCE(t.passed::text, ''), 0::numeric
        UNION ALL
        SELECT 'score', least(floor(t.score / 10), 9)::int::text, 0 WHERE t.score IS NOT NULL
        UNION ALL
        SELECT 'operator', t.operator_id, t.score WHERE t.score IS NOT NULL AND t.operator_id IS NOT NULL
        UNION ALL
        SELECT 'judged', c, 0 FROM unnest(t.judged_criteria) c
        UNION ALL
        SELECT 'failed', c, 0 FROM unnest(t.failed_criteria) c
        UNION ALL
        SELECT 'processing',
            floor(8 * log(2, greatest(extract(epoch FROM t.audited_at - t.created_at), 0.001)))::int::text, 0
        WHERE t.audited_at IS NOT NULL
    ) d (dim, key, total)
    WHERE t.uuid IS NOT NULL
$$;
-- +goose StatementEnd

-- task_stats_change takes back the contributions of the rows before a
-- change and adds those after, netted and in key order (concurrent changes
-- lock the rows they share in one order), writing only the rows that
-- change.
-- +goose StatementBegin
CREATE FUNCTION task_stats_change(before tasks[], after tasks[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO task_stats AS s
    SELECT c.slot, c.campaign_id, c.status, sum(d.sign * c.tasks), sum(d.sign * c.scored), sum(d.sign * c.passed),
        sum(d.sign * c.score_sum), sum(d.sign * c.audio_seconds), sum(d.sign * c.engine_verdicts),
        sum(d.sign * c.engine_confident)
    FROM (SELECT -1, b FROM unnest(before) b UNION ALL SELECT 1, a FROM unnest(after) a) d (sign, t),
        task_stats_of(d.t) c
    GROUP BY 1, 2, 3
    HAVING sum(d.sign * c.tasks) <> 0 OR sum(d.sign * c.scored) <> 0 OR sum(d.sign * c.passed) <> 0
        OR sum(d.sign * c.score_sum) <> 0 OR sum(d.sign * c.audio_seconds) <> 0
        OR sum(d.sign * c.engine_verdicts) <> 0 OR sum(d.sign * c.engine_confident) <> 0
    ORDER BY 1, 2, 3
    ON CONFLICT (slot, campaign_id, status) DO UPDATE SET
        tasks = s.tasks + excluded.tasks, scored = s.scored + excluded.scored, passed = s.passed + excluded.passed,
        score_sum = s.score_sum + excluded.score_sum, audio_seconds = s.audio_seconds + excluded.audio_seconds,
        engine_verdicts = s.engine_verdicts + excluded.engine_verdicts,
        engine_confident = s.engine_confident + excluded.engine_confident;

    INSERT INTO task_stats_daily AS s
    SELECT c.day, c.campaign_id, c.dim, c.key, sum(d.sign * c.n), sum(d.sign * c.total)
    FROM (SELECT -1, b FROM unnest(before) b UNION ALL SELECT 1, a FROM unnest(after) a) d (sign, t),
        task_stats_daily_of(d.t) c
    GROUP BY 1, 2, 3, 4
    HAVING sum(d.sign * c.n) <> 0 OR sum(d.sign * c.total) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (day, campaign_id, dim, key) DO UPDATE SET n = s.n + excluded.n, total = s.total + excluded.total;
END
$$;
-- +goose StatementEnd

-- One trigger call per statement, with the statement's rows before and
-- after (a bulk import is one netted write per figure, not one per task).
-- +goose StatementBegin
CREATE FUNCTION tasks_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM task_stats_change('{}'::tasks[], ARRAY(SELECT a::tasks FROM after a));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM task_stats_change(ARRAY(SELECT b::tasks FROM before b), '{}'::tasks[]);
    ELSE
        PERFORM task_stats_change(ARRAY(SELECT b::tasks FROM before b), ARRAY(SELECT a::tasks FROM after a));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Writers wait while the figures are first computed from the tasks there are.
LOCK TABLE tasks IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER tasks_stats_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS after
    FOR EACH STATEMENT EXECUTE FUNCTION tasks_stats_apply();
CREATE TRIGGER tasks_stats_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS before NEW TABLE AS after
    FOR EACH STATEMENT EXECUTE FUNCTION tasks_stats_apply();
CREATE TRIGGER tasks_stats_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS before
    FOR EACH STATEMENT EXECUTE FUNCTION tasks_stats_apply();

INSERT INTO task_stats
SELECT c.slot, c.campaign_id, c.status, sum(c.tasks), sum(c.scored), sum(c.passed), sum(c.score_sum),
    sum(c.audio_seconds), sum(c.engine_verdicts), sum(c.engine_confident)
FROM tasks t, task_stats_of(t) c
GROUP BY 1, 2, 3;

INSERT INTO task_stats_daily
SELECT c.day, c.campaign_id, c.dim, c.key, sum(c.n), sum(c.total)
FROM tasks t, task_stats_daily_of(t) c
GROUP BY 1, 2, 3, 4;

-- The dashboard no longer scans tasks by creation time with these.
DROP INDEX tasks_stats_idx;
DROP INDEX tasks_stats_criteria_idx;

-- +goose Down
CREATE INDEX tasks_stats_idx ON tasks (created_at) INCLUDE (status, kind, score, passed, operator_id, campaign_id,
    duration_seconds, audited_at, engine_verdicts, engine_confident);
CREATE INDEX tasks_stats_criteria_idx ON tasks (created_at) INCLUDE (operator_id, campaign_id, judged_criteria,
    failed_criteria) WHERE judged_criteria IS NOT NULL;
DROP TRIGGER tasks_stats_delete ON tasks;
DROP TRIGGER tasks_stats_update ON tasks;
DROP TRIGGER tasks_stats_insert ON tasks;
DROP FUNCTION tasks_stats_apply();
DROP FUNCTION task_stats_change(tasks[], tasks[]);
DROP FUNCTION task_stats_daily_of(tasks);
DROP FUNCTION task_stats_of(tasks);
DROP TABLE task_stats_daily;
DROP TABLE task_stats;
