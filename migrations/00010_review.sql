-- +goose Up
-- Review routing, kept on the task beside its score:
-- review_items: how many items of the current audit revision need an
--   analyst's review (NULL before any audit);
-- engine_verdicts, engine_confident: the verdicts the engine made for the
--   task's audit (revision 1's, and those it added when a recomputation or
--   an edit met criteria the previous revision lacked), and how many of
--   them were confident (not marked for review). An analyst's later change
--   does not undo them: they say how the engine did.
ALTER TABLE tasks
    ADD COLUMN review_items integer,
    ADD COLUMN engine_verdicts integer NOT NULL DEFAULT 0,
    ADD COLUMN engine_confident integer NOT NULL DEFAULT 0;

-- The same from the stored audits. Items stored before verdicts carried an
-- assessment have no basis and no needs_review: they need no review, and
-- are not counted as the engine's (nothing says how sure it was).
UPDATE tasks t SET review_items = (
    SELECT count(*) FROM jsonb_array_elements(r.result->'items') i WHERE (i->>'needs_review')::boolean)
FROM audit_revisions r
WHERE r.task_uuid = t.uuid AND r.revision = t.audit_revision;

UPDATE tasks t SET engine_verdicts = e.verdicts, engine_confident = e.confident
FROM (
    SELECT r.task_uuid, count(*) AS verdicts,
        count(*) FILTER (WHERE NOT COALESCE((i->>'needs_review')::boolean, false)) AS confident
    FROM audit_revisions r
    CROSS JOIN LATERAL jsonb_array_elements(r.result->'items') i
    LEFT JOIN audit_revisions p ON p.task_uuid = r.task_uuid AND p.revision = r.revision - 1
    WHERE COALESCE(i->>'basis', '') <> ''
        AND NOT COALESCE(p.result->'items' @> jsonb_build_array(jsonb_build_object('criterion_id', i->'criterion_id')), false)
    GROUP BY r.task_uuid
) e
WHERE e.task_uuid = t.uuid;

-- The listing's needs_review=true: its default ordering, and its total from
-- the index alone (the count joins the campaign, for its name).
CREATE INDEX tasks_review_idx ON tasks (created_at, uuid) INCLUDE (campaign_id) WHERE review_items > 0;

-- The dashboard's covering index gains the engine's counts.
DROP INDEX tasks_stats_idx;
CREATE INDEX tasks_stats_idx ON tasks (created_at) INCLUDE (status, kind, score, passed, operator_id, campaign_id,
    duration_seconds, audited_at, engine_verdicts, engine_confident);

-- +goose Down
DROP INDEX tasks_stats_idx;
CREATE INDEX tasks_stats_idx ON tasks (created_at) INCLUDE (status, kind, score, passed, operator_id, campaign_id,
    duration_seconds, audited_at);
DROP INDEX tasks_review_idx;
ALTER TABLE tasks DROP COLUMN review_items, DROP COLUMN engine_verdicts, DROP COLUMN engine_confident;
