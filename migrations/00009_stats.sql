-- +goose Up
-- The criteria the current audit judged and those it found not met, kept on
-- the task so dashboard statistics read one table.
ALTER TABLE tasks
    ADD COLUMN judged_criteria text[],
    ADD COLUMN failed_criteria text[];

UPDATE tasks t SET
    judged_criteria = ARRAY(SELECT i->>'criterion_id' FROM jsonb_array_elements(r.result->'items') i),
    failed_criteria = ARRAY(SELECT i->>'criterion_id' FROM jsonb_array_elements(r.result->'items') i
                            WHERE NOT (i->>'complies')::boolean)
FROM audit_revisions r
WHERE r.task_uuid = t.uuid AND r.revision = t.audit_revision;

-- Dashboards read tasks by creation time: these indexes hold every column
-- they aggregate, so they are answered from the indexes alone (the
-- criteria, wide, in an index of their own).
CREATE INDEX tasks_stats_idx ON tasks (created_at) INCLUDE (status, kind, score, passed, operator_id, campaign_id,
    duration_seconds, audited_at);
CREATE INDEX tasks_stats_criteria_idx ON tasks (created_at) INCLUDE (operator_id, campaign_id, judged_criteria,
    failed_criteria) WHERE judged_criteria IS NOT NULL;

-- +goose Down
DROP INDEX tasks_stats_criteria_idx;
DROP INDEX tasks_stats_idx;
ALTER TABLE tasks DROP COLUMN judged_criteria, DROP COLUMN failed_criteria;
