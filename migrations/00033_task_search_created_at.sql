-- +goose Up
-- GET /tasks?q=… in the list's order (newest or oldest first) reads the
-- tasks found among those created in a span of time near the page, not
-- every task found: each document carries its task's creation time, whose
-- index Postgres combines with the words' (a BitmapAnd of the two), so a
-- span costs what it finds. (One GIN index of both, with btree_gin, would
-- read every creation time before or after a bound: each side of a range
-- is a key of its own there.)
ALTER TABLE task_search ADD COLUMN created_at timestamptz;
UPDATE task_search s SET created_at = t.created_at FROM tasks t WHERE t.uuid = s.task_uuid;
ALTER TABLE task_search ALTER COLUMN created_at SET NOT NULL;
CREATE INDEX task_search_created_idx ON task_search (created_at);

-- +goose Down
ALTER TABLE task_search DROP COLUMN created_at;
