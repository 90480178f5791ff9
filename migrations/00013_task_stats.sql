-- +goose Up
-- Dashboard figures kept as tasks change, so that a dashboard sums a few
-- thousand rows whatever the number of tasks. Triggers on tasks record
-- each change (task_stats_pending, below), which is folded into the figures
-- every few seconds; readers add what is not folded yet, so what they read
-- is exact at every commit.
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

-- What one task adds to each (sign 1), or takes back (sign -1): folding the
-- pending changes and reading the dashboard's edges (the parts of its
-- period that do not cover whole quarter hours or days) go through the same
-- functions.
-- +goose StatementBegin
CREATE FUNCTION task_stats_of(t tasks, sign int)
RETURNS TABLE (slot timestamptz, campaign_id uuid, status text, tasks bigint, scored bigint, passed bigint,
    score_sum numeric, audio_seconds numeric, engine_verdicts bigint, engine_confident bigint)
LANGUAGE sql IMMUTABLE AS $$
    SELECT date_bin('15 minutes', t.created_at, timestamptz '2000-01-01 00:00:00+00'), t.campaign_id, t.status,
        sign, sign * (t.score IS NOT NULL)::int, sign * COALESCE(t.passed, false)::int, sign * COALESCE(t.score, 0),
        sign * CASE WHEN t.kind = 'call' THEN COALESCE(t.duration_seconds, 0)::numeric ELSE 0 END,
        sign * t.engine_verdicts, sign * t.engine_confident
    WHERE t.uuid IS NOT NULL
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION task_stats_daily_of(t tasks, sign int)
RETURNS TABLE (day date, campaign_id uuid, dim text, key text, n bigint, total numeric)
LANGUAGE sql IMMUTABLE AS $$
    SELECT (t.created_at AT TIME ZONE 'UTC')::date, t.campaign_id, d.dim, d.key, sign, sign * d.total
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

-- task_stats_pending: the tasks' rows before (sign -1) and after (sign 1)
-- each change not folded into the figures yet. Writing them is all a change
-- of a task costs its transaction: no row of the figures is locked there,
-- so concurrent changes do not wait for each other. Readers add what is
-- pending to the figures; task_stats_fold, run every few seconds by the
-- fold_task_stats job, moves it into them. (Changing the type of a column
-- of tasks needs this table empty: fold first.)
-- Readers scan it whole, so autovacuum clears what folds delete after every
-- 10,000 rows rather than a share of the table.
CREATE TABLE task_stats_pending (
    id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sign smallint NOT NULL,
    t    tasks NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

-- +goose StatementBegin
CREATE FUNCTION tasks_stats_pend() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'ROW' THEN
        INSERT INTO task_stats_pending (sign, t) VALUES (-1, OLD), (1, NEW);
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO task_stats_pending (sign, t) SELECT 1, a::tasks FROM after a;
    ELSE
        INSERT INTO task_stats_pending (sign, t) SELECT -1, b::tasks FROM before b;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- task_stats_fold moves the pending changes into the figures, netted and in
-- key order (concurrent folds lock the rows they share in one order, and a
-- change is folded once: the second fold finds it deleted), writing only
-- the rows that change. It returns how many it folded.
-- +goose StatementBegin
CREATE FUNCTION task_stats_fold() RETURNS bigint LANGUAGE sql AS $$
    WITH moved AS (
        DELETE FROM task_stats_pending RETURNING sign, t
    ), slots AS (
        INSERT INTO task_stats AS s
        SELECT c.slot, c.campaign_id, c.status, sum(c.tasks), sum(c.scored), sum(c.passed), sum(c.score_sum),
            sum(c.audio_seconds), sum(c.engine_verdicts), sum(c.engine_confident)
        FROM moved m, task_stats_of(m.t, m.sign) c
        GROUP BY 1, 2, 3
        HAVING (sum(c.tasks), sum(c.scored), sum(c.passed), sum(c.score_sum), sum(c.audio_seconds),
            sum(c.engine_verdicts), sum(c.engine_confident)) <> (0, 0, 0, 0, 0, 0, 0)
        ORDER BY 1, 2, 3
        ON CONFLICT (slot, campaign_id, status) DO UPDATE SET
            tasks = s.tasks + excluded.tasks, scored = s.scored + excluded.scored, passed = s.passed + excluded.passed,
            score_sum = s.score_sum + excluded.score_sum, audio_seconds = s.audio_seconds + excluded.audio_seconds,
            engine_verdicts = s.engine_verdicts + excluded.engine_verdicts,
            engine_confident = s.engine_confident + excluded.engine_confident
    ), days AS (
        INSERT INTO task_stats_daily AS s
        SELECT c.day, c.campaign_id, c.dim, c.key, sum(c.n), sum(c.total)
        FROM moved m, task_stats_daily_of(m.t, m.sign) c
        GROUP BY 1, 2, 3, 4
        HAVING (sum(c.n), sum(c.total)) <> (0, 0)
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (day, campaign_id, dim, key) DO UPDATE SET n = s.n + excluded.n, total = s.total + excluded.total
    )
    SELECT count(*) FROM moved
$$;
-- +goose StatementEnd

-- Writers wait while the figures are first computed from the tasks there are.
LOCK TABLE tasks IN SHARE ROW EXCLUSIVE MODE;

-- An insert or delete is pended once per statement (a bulk import is one
-- write); an update per row, and only when it changes a figure.
CREATE TRIGGER tasks_stats_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS after
    FOR EACH STATEMENT EXECUTE FUNCTION tasks_stats_pend();
CREATE TRIGGER tasks_stats_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS before
    FOR EACH STATEMENT EXECUTE FUNCTION tasks_stats_pend();
CREATE TRIGGER tasks_stats_update AFTER UPDATE ON tasks
    FOR EACH ROW
    WHEN ((OLD.created_at, OLD.campaign_id, OLD.status, OLD.kind, OLD.score, OLD.passed, OLD.duration_seconds,
           OLD.engine_verdicts, OLD.engine_confident, OLD.operator_id, OLD.judged_criteria, OLD.failed_criteria,
           OLD.audited_at)
          IS DISTINCT FROM
          (NEW.created_at, NEW.campaign_id, NEW.status, NEW.kind, NEW.score, NEW.passed, NEW.duration_seconds,
           NEW.engine_verdicts, NEW.engine_confident, NEW.operator_id, NEW.judged_criteria, NEW.failed_criteria,
           NEW.audited_at))
    EXECUTE FUNCTION tasks_stats_pend();

INSERT INTO task_stats
SELECT c.slot, c.campaign_id, c.status, sum(c.tasks), sum(c.scored), sum(c.passed), sum(c.score_sum),
    sum(c.audio_seconds), sum(c.engine_verdicts), sum(c.engine_confident)
FROM tasks t, task_stats_of(t, 1) c
GROUP BY 1, 2, 3;

INSERT INTO task_stats_daily
SELECT c.day, c.campaign_id, c.dim, c.key, sum(c.n), sum(c.total)
FROM tasks t, task_stats_daily_of(t, 1) c
GROUP BY 1, 2, 3, 4;

-- The dashboard no longer scans tasks by creation time with these.
DROP INDEX tasks_stats_idx;
DROP INDEX tasks_stats_criteria_idx;

-- +goose Down
CREATE INDEX tasks_stats_idx ON tasks (created_at) INCLUDE (status, kind, score, passed, operator_id, campaign_id,
    duration_seconds, audited_at, engine_verdicts, engine_confident);
CREATE INDEX tasks_stats_criteria_idx ON tasks (created_at) INCLUDE (operator_id, campaign_id, judged_criteria,
    failed_criteria) WHERE judged_criteria IS NOT NULL;
DROP TRIGGER tasks_stats_update ON tasks;
DROP TRIGGER tasks_stats_delete ON tasks;
DROP TRIGGER tasks_stats_insert ON tasks;
DROP FUNCTION task_stats_fold();
DROP FUNCTION tasks_stats_pend();
DROP TABLE task_stats_pending;
DROP FUNCTION task_stats_daily_of(tasks, int);
DROP FUNCTION task_stats_of(tasks, int);
DROP TABLE task_stats_daily;
DROP TABLE task_stats;
