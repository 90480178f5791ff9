-- +goose Up
-- GET /tasks?q=…&sort=score reads the tasks found among those whose score
-- is in a span next to the page, not every task found: the index of the
-- documents' scores (tasks not audited yet at -1, as the list sorts them)
-- is combined with the words' (a BitmapAnd of the two), as the creation
-- times' index is for the list's default order (00033).
CREATE INDEX task_search_score_idx ON task_search ((COALESCE(score, -1)));
-- The tasks not audited yet all sort at -1, so no span of scores can
-- narrow them: their documents have an index of the words of their own,
-- read for that point of the order (score IS NULL).
CREATE INDEX task_search_unscored_idx ON task_search USING gin (document) WHERE score IS NULL;

-- +goose Down
DROP INDEX task_search_unscored_idx;
DROP INDEX task_search_score_idx;
