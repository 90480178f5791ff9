-- +goose Up
-- The IANA time zone the server writes a user's times in (e-mails): the
-- token's zoneinfo claim, unless the user chose one in the dashboard
-- (time_zone_chosen), which then stays. Empty: the configured default
-- (DEFAULT_TIME_ZONE).
ALTER TABLE users
    ADD COLUMN time_zone text NOT NULL DEFAULT '' CHECK (char_length(time_zone) <= 64),
    ADD COLUMN time_zone_chosen boolean NOT NULL DEFAULT false;

-- What a notification is about, for the clients that offer its actions:
-- 'evaluation' tells an agent their task's evaluation was validated (they
-- may acknowledge or dispute it). NULL for any other notification.
ALTER TABLE notifications ADD COLUMN kind text CHECK (kind IN ('evaluation'));

-- +goose Down
ALTER TABLE notifications DROP COLUMN kind;
ALTER TABLE users DROP COLUMN time_zone, DROP COLUMN time_zone_chosen;
