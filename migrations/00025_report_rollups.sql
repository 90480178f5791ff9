-- +goose Up
-- Reports (GET /stats/trends, GET /stats/analysts).
--
-- Trends: an agent's weekly approval rate needs how many of their audits passed,
-- beside the count and the scores the operator dimension of
-- task_stats_daily keeps: a column of its own (0 in every other
-- dimension), so that the dashboard reads no more rows than before.
--
-- Writers wait while it is filled in; what is pending is folded first with
-- the functions as they were, so that nothing pending is counted twice.
LOCK TABLE tasks IN SHARE ROW EXCLUSIVE MODE;
SELECT task_stats_fold();

ALTER TABLE task_stats_daily ADD COLUMN passed bigint NOT NULL DEFAULT 0;

-- Its return type changes: dropped and created again (task_stats_fold, a
-- SQL function, names it only in its body).
DROP FUNCTION task_stats_daily_of(tasks, int);

-- +goose StatementBegin
CREATE FUNCTION task_stats_daily_of(t tasks, sign int)
RETURNS TABLE (day date, campaign_id uuid, dim text, key text, n bigint, total numeric, passed bigint)
LANGUAGE sql IMMUTABLE AS $$
    SELECT (t.created_at AT TIME ZONE 'UTC')::date, t.campaign_id, d.dim, d.key, sign, sign * d.total, sign * d.passed
    FROM (
        SELECT 'tasks', t.status || ' ' || t.kind || ' ' || COALESCE(t.passed::text, ''), 0::numeric, 0
        UNION ALL
        SELECT 'score', least(floor(t.score / 10), 9)::int::text, 0, 0 WHERE t.score IS NOT NULL
        UNION ALL
        SELECT 'operator', t.operator_id, t.score, COALESCE(t.passed, false)::int
        WHERE t.score IS NOT NULL AND t.operator_id IS NOT NULL
        UNION ALL
        SELECT 'judged', c, 0, 0 FROM unnest(t.judged_criteria) c
        UNION ALL
        SELECT 'failed', c, 0, 0 FROM unnest(t.failed_criteria) c
        UNION ALL
        SELECT 'processing',
            floor(8 * ln(greatest(extract(epoch FROM t.audited_at - t.created_at)::float8, 0.001)) / ln(2::float8))::int::text, 0, 0
        WHERE t.audited_at IS NOT NULL
    ) d (dim, key, total, passed)
    WHERE t.uuid IS NOT NULL
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_stats_fold() RETURNS bigint LANGUAGE sql AS $$
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
        INSERT INTO task_stats_daily AS s (day, campaign_id, dim, key, n, total, passed)
        SELECT c.day, c.campaign_id, c.dim, c.key, sum(c.n), sum(c.total), sum(c.passed)
        FROM moved m, task_stats_daily_of(m.t, m.sign) c
        GROUP BY 1, 2, 3, 4
        HAVING (sum(c.n), sum(c.total), sum(c.passed)) <> (0, 0, 0)
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (day, campaign_id, dim, key) DO UPDATE SET
            n = s.n + excluded.n, total = s.total + excluded.total, passed = s.passed + excluded.passed
    )
    SELECT count(*) FROM moved
$$;
-- +goose StatementEnd

UPDATE task_stats_daily s SET passed = p.passed
FROM (
    SELECT c.day, c.campaign_id, c.key, sum(c.passed) AS passed
    FROM tasks t, task_stats_daily_of(t, 1) c
    WHERE t.passed AND c.dim = 'operator'
    GROUP BY 1, 2, 3
) p
WHERE s.dim = 'operator' AND (s.day, s.campaign_id, s.key) = (p.day, p.campaign_id, p.key);

-- Analysts' productivity (GET /stats/analysts): every analyst revision and
-- validation, logged with what the report needs of its task, so that a
-- period's are read from one index instead of looking up each task. A
-- task's actions are written with the task locked (edits and validations
-- lock it first), one after another.
--   at              when: the revision's created_at, the validation's
--                   validated_at
--   edit            true for an analyst revision, false for a validation
--   review_seconds  for the analyst's first action on the task (by at),
--                   the time from the task's first audit (audited_at) to
--                   it; NULL for their later ones
CREATE TABLE analyst_actions (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at             timestamptz NOT NULL,
    analyst_id     text NOT NULL,
    task_uuid      uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    campaign_id    uuid NOT NULL,
    edit           boolean NOT NULL,
    review_seconds double precision
);
CREATE INDEX analyst_actions_at_idx ON analyst_actions (at) INCLUDE (analyst_id, task_uuid, campaign_id, edit,
    review_seconds);
CREATE INDEX analyst_actions_task_idx ON analyst_actions (task_uuid, analyst_id, at);

-- +goose StatementBegin
CREATE FUNCTION analyst_actions_log() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    who text;
    happened timestamptz;
    first boolean;
BEGIN
    IF TG_TABLE_NAME = 'audit_revisions' THEN
        who := NEW.author_id;
        happened := NEW.created_at;
    ELSE
        who := NEW.validator_id;
        happened := NEW.validated_at;
    END IF;
    first := NOT EXISTS (SELECT FROM analyst_actions a
        WHERE a.task_uuid = NEW.task_uuid AND a.analyst_id = who AND a.at <= happened);
    IF first THEN
        -- One logged later that happened after this one is first no more.
        UPDATE analyst_actions a SET review_seconds = NULL
        WHERE a.task_uuid = NEW.task_uuid AND a.analyst_id = who AND a.review_seconds IS NOT NULL;
    END IF;
    INSERT INTO analyst_actions (at, analyst_id, task_uuid, campaign_id, edit, review_seconds)
    SELECT happened, who, t.uuid, t.campaign_id, TG_TABLE_NAME = 'audit_revisions',
        CASE WHEN first THEN extract(epoch FROM happened - t.audited_at)::float8 END
    FROM tasks t WHERE t.uuid = NEW.task_uuid;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_revisions_analyst_log AFTER INSERT ON audit_revisions
    FOR EACH ROW WHEN (NEW.source = 'analyst' AND NEW.author_id IS NOT NULL) EXECUTE FUNCTION analyst_actions_log();
CREATE TRIGGER validations_analyst_log AFTER INSERT ON validations
    FOR EACH ROW EXECUTE FUNCTION analyst_actions_log();

INSERT INTO analyst_actions (at, analyst_id, task_uuid, campaign_id, edit, review_seconds)
SELECT a.at, a.analyst_id, a.task_uuid, t.campaign_id, a.edit,
    CASE WHEN row_number() OVER (PARTITION BY a.analyst_id, a.task_uuid ORDER BY a.at) = 1
        THEN extract(epoch FROM a.at - t.audited_at)::float8 END
FROM (
    SELECT author_id, task_uuid, created_at, true FROM audit_revisions WHERE source = 'analyst' AND author_id IS NOT NULL
    UNION ALL
    SELECT validator_id, task_uuid, validated_at, false FROM validations
) a (analyst_id, task_uuid, at, edit)
JOIN tasks t ON t.uuid = a.task_uuid
ORDER BY a.at;

-- +goose Down
DROP TRIGGER validations_analyst_log ON validations;
DROP TRIGGER audit_revisions_analyst_log ON audit_revisions;
DROP FUNCTION analyst_actions_log();
DROP TABLE analyst_actions;

LOCK TABLE tasks IN SHARE ROW EXCLUSIVE MODE;
SELECT task_stats_fold();

DROP FUNCTION task_stats_daily_of(tasks, int);

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
            floor(8 * ln(greatest(extract(epoch FROM t.audited_at - t.created_at)::float8, 0.001)) / ln(2::float8))::int::text, 0
        WHERE t.audited_at IS NOT NULL
    ) d (dim, key, total)
    WHERE t.uuid IS NOT NULL
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_stats_fold() RETURNS bigint LANGUAGE sql AS $$
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

ALTER TABLE task_stats_daily DROP COLUMN passed;
