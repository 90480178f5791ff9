-- +goose Up
-- roles_at is when the roles a user has were stated: the issue time (iat)
-- of the token they came from, or the directory sync that listed them. A
-- token issued before it cannot bring older roles back (an admin token kept
-- after the role was removed).
ALTER TABLE users ADD COLUMN roles_at timestamptz;

-- +goose Down
ALTER TABLE users DROP COLUMN roles_at;
