-- +goose Up
-- A user's saved views of the task list: its filters and sort under a name,
-- theirs alone. query is the list's query string in canonical form (the
-- parameters in the list's own order, defaults and the page left out), as
-- the API checked it: what the dashboard puts after /app/tasks? and GET
-- /tasks takes. A name is unique per user ignoring case.
CREATE TABLE saved_views (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    query      text NOT NULL CHECK (char_length(query) <= 10000),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX saved_views_user_name_idx ON saved_views (user_id, lower(name));

-- +goose Down
DROP TABLE saved_views;
