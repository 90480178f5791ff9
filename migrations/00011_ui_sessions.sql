-- +goose Up
-- Browser sessions of River UI (/riverui/): its pages cannot send a bearer
-- token, so an admin's token is exchanged for a cookie whose SHA-256 is
-- kept here, shared by every API process. A session ends at its token's
-- expiry, on sign-out, or when its user is deactivated or loses the role.
CREATE TABLE ui_sessions (
    token_sha256 bytea PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX ui_sessions_user ON ui_sessions (user_id);
CREATE INDEX ui_sessions_expires ON ui_sessions (expires_at);

-- +goose Down
DROP TABLE ui_sessions;
