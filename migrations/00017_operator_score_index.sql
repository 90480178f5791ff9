-- +goose Up
-- One agent's tasks sorted by score (GET /tasks?operator_id=…&sort=score),
-- read in order instead of fetching all of the agent's tasks to sort them.
CREATE INDEX tasks_operator_score_idx ON tasks (operator_id, (COALESCE(score, -1)), uuid) WHERE operator_id IS NOT NULL;

-- +goose Down
DROP INDEX tasks_operator_score_idx;
