-- +goose Up
CREATE TABLE notifications (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- NULL exactly when the notification is global (for everyone).
    user_id    text REFERENCES users (id) ON DELETE CASCADE,
    text       text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 2000),
    variant    text NOT NULL CHECK (variant IN ('success', 'info', 'warning', 'error')),
    link       text,
    task_uuid  uuid,
    created_by text,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC, id DESC);
CREATE INDEX notifications_global_idx ON notifications (created_at DESC, id DESC) WHERE user_id IS NULL;

-- Read state is per user, so a global notification is read or unread for
-- each user on its own.
CREATE TABLE notification_reads (
    notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    read_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, notification_id)
);

-- +goose Down
DROP TABLE notification_reads;
DROP TABLE notifications;
