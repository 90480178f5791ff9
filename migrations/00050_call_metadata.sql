-- +goose Up
-- What the contact-centre platform says of a call or chat, beside the file.
--
-- external_id meant two things: "the interaction's id in another system" at
-- upload and "the customer reference" at erasure. It becomes customer_ref,
-- the customer reference an erasure finds tasks by, keeping every value, so
-- that an erasure by a reference given before still finds its tasks. A
-- value no other task of its campaign shares may have been the call's id,
-- as the upload's documentation said: it is also the task's call_id.
ALTER TABLE tasks RENAME COLUMN external_id TO customer_ref;
ALTER INDEX tasks_external_id_idx RENAME TO tasks_customer_ref_idx;
ALTER TABLE erasures RENAME COLUMN external_id TO customer_ref;

-- call_id is the platform's id of the call or chat, unique per campaign;
-- caller and called are phone numbers (personal data: deleted with the
-- transcript, by retention or an erasure; "[PHONE]" where the campaign
-- redacts phone numbers); metadata is a small object of scalars.
ALTER TABLE tasks ADD COLUMN call_id text CHECK (call_id <> ''),
    ADD COLUMN queue text CHECK (queue <> ''),
    ADD COLUMN caller text CHECK (caller <> ''),
    ADD COLUMN called text CHECK (called <> ''),
    ADD COLUMN metadata jsonb CHECK (jsonb_typeof(metadata) = 'object');

UPDATE tasks t SET call_id = t.customer_ref
WHERE t.customer_ref IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM tasks o WHERE o.campaign_id = t.campaign_id AND o.customer_ref = t.customer_ref AND o.uuid <> t.uuid);

CREATE UNIQUE INDEX tasks_call_id_idx ON tasks (campaign_id, call_id) WHERE call_id IS NOT NULL;
CREATE INDEX tasks_call_id_any_idx ON tasks (call_id) WHERE call_id IS NOT NULL;
CREATE INDEX tasks_queue_idx ON tasks (queue, created_at, uuid) WHERE queue IS NOT NULL;
CREATE INDEX tasks_caller_idx ON tasks (caller) WHERE caller IS NOT NULL;
CREATE INDEX tasks_called_idx ON tasks (called) WHERE called IS NOT NULL;
CREATE INDEX tasks_started_at_idx ON tasks (started_at) WHERE started_at IS NOT NULL;
CREATE INDEX tasks_metadata_idx ON tasks USING gin (metadata jsonb_path_ops) WHERE metadata IS NOT NULL;

-- The figures the task list filters on, as columns of their own (read from
-- figures, so they cannot disagree with it). The counts of overtalk and
-- holds are NULL on a mono call, which measures neither.
ALTER TABLE call_channels
    ADD COLUMN agent_talk_ratio double precision GENERATED ALWAYS AS ((figures->>'agent_talk_ratio')::double precision) STORED,
    ADD COLUMN silence_share double precision GENERATED ALWAYS AS ((figures->>'silence_share')::double precision) STORED,
    ADD COLUMN longest_silence_seconds double precision
        GENERATED ALWAYS AS ((figures->>'longest_silence_seconds')::double precision) STORED,
    ADD COLUMN dead_air_count integer GENERATED ALWAYS AS (COALESCE(jsonb_array_length(figures->'dead_air'), 0)) STORED,
    ADD COLUMN overtalk_count integer GENERATED ALWAYS AS (
        CASE WHEN (figures->>'stereo')::boolean THEN COALESCE(jsonb_array_length(figures->'overtalk'), 0) END) STORED,
    ADD COLUMN hold_count integer GENERATED ALWAYS AS (
        CASE WHEN (figures->>'stereo')::boolean THEN COALESCE(jsonb_array_length(figures->'holds'), 0) END) STORED;

-- +goose Down
ALTER TABLE call_channels DROP COLUMN hold_count, DROP COLUMN overtalk_count, DROP COLUMN dead_air_count,
    DROP COLUMN longest_silence_seconds, DROP COLUMN silence_share, DROP COLUMN agent_talk_ratio;
DROP INDEX tasks_metadata_idx;
DROP INDEX tasks_started_at_idx;
DROP INDEX tasks_called_idx;
DROP INDEX tasks_caller_idx;
DROP INDEX tasks_queue_idx;
DROP INDEX tasks_call_id_any_idx;
DROP INDEX tasks_call_id_idx;
ALTER TABLE tasks DROP COLUMN metadata, DROP COLUMN called, DROP COLUMN caller, DROP COLUMN queue, DROP COLUMN call_id;
ALTER TABLE erasures RENAME COLUMN customer_ref TO external_id;
ALTER INDEX tasks_customer_ref_idx RENAME TO tasks_external_id_idx;
ALTER TABLE tasks RENAME COLUMN customer_ref TO external_id;
