-- +goose Up
-- synced_at is the last directory sync that listed the user; NULL means the
-- directory never did (a user created just in time by a sign-in). Only users
-- a sync has seen are deactivated when a later sync no longer lists them.
ALTER TABLE users ADD COLUMN synced_at timestamptz;

CREATE INDEX users_synced_active_idx ON users (synced_at) WHERE synced_at IS NOT NULL AND active;

-- The admins waiting for the outcome of a sync_users job: the one whose
-- request inserted it and any who asked again while it was queued or
-- running. started_at records that they were told it started, so retries and
-- snoozes do not tell them twice.
CREATE TABLE user_sync_requests (
    job_id       bigint NOT NULL,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    requested_at timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    PRIMARY KEY (job_id, user_id)
);

-- +goose Down
DROP TABLE user_sync_requests;
DROP INDEX users_synced_active_idx;
ALTER TABLE users DROP COLUMN synced_at;
