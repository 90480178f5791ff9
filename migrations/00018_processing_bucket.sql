-- +goose Up
-- The processing-time bucket of a task, floor(8 log2 seconds), in
-- float8 rather than numeric arithmetic: the same buckets (numeric and
-- float8 agree on every duration to the microsecond: the bucket bounds
-- 2^(k/8) are whole numbers or irrational), at a fraction of the cost, for
-- every change folded and every task at the edges of a dashboard's period.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_stats_daily_of(t tasks, sign int)
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

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_stats_daily_of(t tasks, sign int)
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

