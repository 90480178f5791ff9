-- +goose Up
-- Users are keyed by the identity provider's subject, so other systems can
-- address a user before that user ever signs in (directory sync creates them).
CREATE TABLE users (
    id           text PRIMARY KEY CHECK (id <> ''),
    username     text NOT NULL DEFAULT '',
    email        text NOT NULL DEFAULT '',
    name         text NOT NULL DEFAULT '',
    roles        text[] NOT NULL DEFAULT '{}',
    active       boolean NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz
);

CREATE INDEX users_username_idx ON users (lower(username));
CREATE INDEX users_email_idx ON users (lower(email)) WHERE email <> '';

-- The development issuer (AUTH_DEV=true) keeps its signing key here so that
-- every API process and `auditd token` share it.
CREATE TABLE dev_signing_keys (
    id              text PRIMARY KEY,
    private_key_pem text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE dev_signing_keys;
DROP TABLE users;
