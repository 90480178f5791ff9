-- +goose Up
-- GET /tasks?failed_criterion=…: the tasks whose current audit found a
-- criterion not met. A criterion failed often is found walking the list in
-- order; one failed rarely is found through this index (the planner knows
-- which from the array's statistics).
CREATE INDEX tasks_failed_criteria_idx ON tasks USING gin (failed_criteria);

-- +goose Down
DROP INDEX tasks_failed_criteria_idx;
