-- +goose Up
-- A search by words with the commonest other filters (an agent, a status, a
-- range of scores) or in score order is read from task_search alone: each
-- document carries its task's agent, status and score, so that the tasks
-- found are the tasks selected, and only a page of tasks is read (not every
-- task found). The words' index and the agent's are combined (a BitmapAnd);
-- the status and the score are read with the rows found. A trigger keeps
-- the copies equal to the task's on every change of a task, whatever makes
-- it; a document written afterwards copies them from the task.
ALTER TABLE task_search ADD COLUMN operator_id text, ADD COLUMN status text, ADD COLUMN score numeric(5,2);
UPDATE task_search s SET operator_id = t.operator_id, status = t.status, score = t.score
FROM tasks t WHERE t.uuid = s.task_uuid;
ALTER TABLE task_search ALTER COLUMN status SET NOT NULL;
CREATE INDEX task_search_operator_idx ON task_search (operator_id, created_at) WHERE operator_id IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION tasks_search_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE task_search SET operator_id = NEW.operator_id, status = NEW.status, score = NEW.score
    WHERE task_uuid = NEW.uuid;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER tasks_search_follow AFTER UPDATE OF operator_id, status, score ON tasks
FOR EACH ROW WHEN ((OLD.operator_id, OLD.status, OLD.score) IS DISTINCT FROM (NEW.operator_id, NEW.status, NEW.score))
EXECUTE FUNCTION tasks_search_follow();

-- +goose Down
DROP TRIGGER tasks_search_follow ON tasks;
DROP FUNCTION tasks_search_follow();
ALTER TABLE task_search DROP COLUMN operator_id, DROP COLUMN status, DROP COLUMN score;
