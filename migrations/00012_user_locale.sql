-- +goose Up
-- The language the server writes a user's notifications in (BCP 47): the
-- token's locale claim, unless the user chose one in the dashboard
-- (locale_chosen), which then stays. Empty: English.
ALTER TABLE users
    ADD COLUMN locale text NOT NULL DEFAULT '',
    ADD COLUMN locale_chosen boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE users DROP COLUMN locale, DROP COLUMN locale_chosen;
