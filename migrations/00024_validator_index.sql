-- +goose Up
-- GET /tasks?validated_by=…: the tasks a user validated, found from their
-- validations rather than by walking the list.
CREATE INDEX validations_validator_idx ON validations (validator_id, task_uuid);

-- +goose Down
DROP INDEX validations_validator_idx;
