-- +goose Up
-- An admin's deactivation of a user (POST /admin/users/{id}/deactivation):
-- when and by whom. It holds until an admin lifts it: a directory sync that
-- lists the user as enabled does not reactivate them.
ALTER TABLE users ADD COLUMN deactivated_at timestamptz,
    ADD COLUMN deactivated_by text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE users DROP COLUMN deactivated_by, DROP COLUMN deactivated_at;
