-- +goose Up
-- Every change a client may show is an event, written in the same
-- transaction as the change. Writers take one advisory lock before taking an
-- id (db.EventInsert), so ids commit in order and a reader resuming after id
-- N never skips a row that commits later with a smaller id.
CREATE TABLE events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type       text NOT NULL,
    -- Who may see it: user_id (the owner), and everyone whose role rank is at
    -- least min_rank. A global event has min_rank 0 (everyone); a private
    -- one has min_rank NULL.
    user_id    text,
    min_rank   smallint,
    data       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (user_id IS NOT NULL OR min_rank IS NOT NULL)
);

CREATE INDEX events_user_idx ON events (user_id, id) WHERE user_id IS NOT NULL;
CREATE INDEX events_created_at_idx ON events (created_at);

-- +goose Down
DROP TABLE events;
