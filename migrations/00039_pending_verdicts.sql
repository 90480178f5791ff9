-- +goose Up
-- Pending verdicts (issue 38): a verdict routed to review decides nothing
-- until an analyst confirms or changes it. While any item of a task's
-- current audit is pending (review_items > 0, before validation) the task
-- has no score and no result (score, passed NULL), so that no figure reads
-- it as a 0, a fail or a pass; it keeps
--   score_min, score_max: the range its score can still take
--     (scoring.Result.ScoreMin/ScoreMax), shown as its provisional score;
--   pending_criteria: the criteria pending, counted neither as judged nor
--     as failed (failed_criteria leaves them out too).
-- db.AuditAppend keeps these with the score; the dashboard's daily rollup
-- counts such tasks in a dimension of their own, 'pending' (key: status).
--
-- Writers wait while it is filled in; what is pending is folded first with
-- the functions as they were, so that nothing pending is counted twice.
LOCK TABLE tasks IN SHARE ROW EXCLUSIVE MODE;
SELECT task_stats_fold();

ALTER TABLE tasks
    ADD COLUMN score_min numeric(5,2),
    ADD COLUMN score_max numeric(5,2),
    ADD COLUMN pending_criteria text[];

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_stats_daily_of(t tasks, sign int)
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
        WHERE NOT c = ANY (COALESCE(t.pending_criteria, '{}'))
        UNION ALL
        SELECT 'failed', c, 0, 0 FROM unnest(t.failed_criteria) c
        UNION ALL
        SELECT 'processing',
            floor(8 * ln(greatest(extract(epoch FROM t.audited_at - t.created_at)::float8, 0.001)) / ln(2::float8))::int::text, 0, 0
        WHERE t.audited_at IS NOT NULL
        UNION ALL
        SELECT 'pending', t.status, 0, 0 WHERE cardinality(t.pending_criteria) > 0
    ) d (dim, key, total, passed)
    WHERE t.uuid IS NOT NULL
$$;
-- +goose StatementEnd

-- The audits pending now: their current revision's items that need review,
-- on tasks not validated (a validated audit was decided by its validator).
-- The current revision's stored result gains what scoring.Score now says
-- of it (its provisional score, pending, score_min, score_max, passed,
-- failed_critical), as in Go: the provisional score from the items met,
-- the range from the weights of decided items met and of pending items,
-- 0 at the bottom with a pending critical item, 0 at both ends with a
-- decided critical item not met.
CREATE TEMPORARY TABLE pending_now ON COMMIT DROP AS
SELECT r.task_uuid, r.revision, p.pending, p.failed_critical, p.failed,
    CASE WHEN p.decided_failed OR p.open_critical THEN 0 ELSE round(p.decided * 100 / p.possible, 2) END AS lo,
    CASE WHEN p.decided_failed THEN 0 ELSE round((p.decided + p.open) * 100 / p.possible, 2) END AS hi,
    CASE WHEN p.decided_failed THEN 0 ELSE round(p.earned * 100 / p.possible, 2) END AS score
FROM tasks t
JOIN audit_revisions r ON r.task_uuid = t.uuid AND r.revision = t.audit_revision
CROSS JOIN LATERAL (
    SELECT
        array_agg(x.id ORDER BY x.n) FILTER (WHERE x.open) AS pending,
        COALESCE(array_agg(x.id ORDER BY x.n) FILTER (WHERE NOT x.open AND NOT x.met AND x.critical), '{}') AS failed_critical,
        COALESCE(array_agg(x.id ORDER BY x.n) FILTER (WHERE NOT x.open AND NOT x.met), '{}') AS failed,
        sum(x.weight) AS possible,
        COALESCE(sum(x.weight) FILTER (WHERE x.met), 0) AS earned,
        COALESCE(sum(x.weight) FILTER (WHERE x.met AND NOT x.open), 0) AS decided,
        COALESCE(sum(x.weight) FILTER (WHERE x.open), 0) AS open,
        bool_or(x.critical AND x.open) AS open_critical,
        bool_or(x.critical AND NOT x.met AND NOT x.open) AS decided_failed
    FROM jsonb_array_elements(r.result->'items') WITH ORDINALITY AS i (item, n),
        LATERAL (SELECT i.n, i.item->>'criterion_id', (i.item->>'weight')::numeric,
            COALESCE((i.item->>'complies')::boolean, false), COALESCE((i.item->>'critical')::boolean, false),
            COALESCE((i.item->>'needs_review')::boolean, false)) x (n, id, weight, met, critical, open)
) p
WHERE t.status <> 'validated' AND t.review_items > 0;

UPDATE audit_revisions r SET score = p.score, passed = false, result = r.result || jsonb_build_object(
    'score', p.score, 'passed', false,
    'pending', to_jsonb(p.pending), 'score_min', p.lo, 'score_max', p.hi, 'failed_critical', to_jsonb(p.failed_critical))
FROM pending_now p WHERE r.task_uuid = p.task_uuid AND r.revision = p.revision;

UPDATE tasks t SET score = NULL, passed = NULL, score_min = p.lo, score_max = p.hi,
    pending_criteria = p.pending, failed_criteria = p.failed
FROM pending_now p WHERE t.uuid = p.task_uuid;

UPDATE task_search s SET score = NULL FROM pending_now p WHERE s.task_uuid = p.task_uuid;

-- +goose Down
LOCK TABLE tasks IN SHARE ROW EXCLUSIVE MODE;
SELECT task_stats_fold();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_stats_daily_of(t tasks, sign int)
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
DELETE FROM task_stats_daily WHERE dim = 'pending';
ALTER TABLE tasks DROP COLUMN score_min, DROP COLUMN score_max, DROP COLUMN pending_criteria;
