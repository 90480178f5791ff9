-- +goose Up
-- GET /tasks at any size. Its total with filters on status, kind, campaign,
-- period and result sums the tasks dimension of task_stats_daily, a few
-- rows a day, which this index reads without the day's other dimensions.
CREATE INDEX task_stats_daily_tasks_idx ON task_stats_daily (day) INCLUDE (campaign_id, key, n) WHERE dim = 'tasks';

-- q finds file names containing a text, ignoring case, from a trigram
-- index instead of reading every task. pg_trgm ships with Postgres and is a
-- trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX tasks_file_name_trgm_idx ON tasks USING gin (file_name gin_trgm_ops);

-- +goose Down
DROP INDEX tasks_file_name_trgm_idx;
DROP INDEX task_stats_daily_tasks_idx;
