-- +goose Up
-- A webhook subscription's signing secret can be rotated: the new one is
-- shown once, and for a day (webhook.SecretOverlap) deliveries are signed
-- with the previous one too, so that a receiver can change its secret
-- without refusing a delivery; after previous_secret_until, only the new.
ALTER TABLE webhook_subscriptions
    ADD COLUMN previous_secret text,
    ADD COLUMN previous_secret_until timestamptz,
    ADD COLUMN secret_rotated_at timestamptz,
    ADD CONSTRAINT webhook_subscriptions_previous_secret_check
        CHECK ((previous_secret IS NULL) = (previous_secret_until IS NULL));

-- +goose Down
ALTER TABLE webhook_subscriptions
    DROP COLUMN previous_secret,
    DROP COLUMN previous_secret_until,
    DROP COLUMN secret_rotated_at;
