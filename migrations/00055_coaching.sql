-- +goose Up
-- Coaching: a supervisor turns what an agent's evaluations found (a failed
-- criterion, a dispute, a report's agent × criterion) into an item for the
-- agent: what to work on, the criteria coached, linked interactions with
-- quotes, a due date. The agent acknowledges it and both comment; the
-- supervisor closes it (done). A coaching item belongs to a campaign: the
-- campaign is the team it is reported under.
CREATE TABLE coaching_items (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    campaign_id      uuid NOT NULL REFERENCES campaigns (id),
    agent_id         text NOT NULL REFERENCES users (id),
    -- Who opened it: the coach, a supervisor or an admin.
    coach_id         text NOT NULL REFERENCES users (id),
    coach_name       text NOT NULL,
    title            text NOT NULL CHECK (title <> ''),
    focus            text NOT NULL CHECK (focus <> ''),
    -- [{criterion_id, category, question}]: the criteria coached, as the
    -- campaign's scorecard had them when the item was opened or edited.
    criteria         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(criteria) = 'array'),
    -- The dispute it was opened from, if any.
    dispute_id       uuid REFERENCES disputes (id) ON DELETE SET NULL,
    status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'acknowledged', 'done')),
    due_at           timestamptz NOT NULL,
    opened_at        timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    acknowledged_at  timestamptz,
    closed_at        timestamptz,
    closed_by        text REFERENCES users (id),
    -- The due date the agent was last reminded of (a reminder a due date).
    reminded_due_at  timestamptz,
    CHECK ((status = 'open') = (acknowledged_at IS NULL) OR status = 'done'),
    CHECK ((status = 'done') = (closed_at IS NOT NULL))
);

CREATE INDEX coaching_items_agent_idx ON coaching_items (agent_id, opened_at, id);
CREATE INDEX coaching_items_campaign_idx ON coaching_items (campaign_id, opened_at, id);
CREATE INDEX coaching_items_status_idx ON coaching_items (status, due_at, id);

-- The interactions an item links, each with the quote that shows the point.
CREATE TABLE coaching_links (
    coaching_id uuid NOT NULL REFERENCES coaching_items (id) ON DELETE CASCADE,
    position    integer NOT NULL,
    task_uuid   uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    quote       text NOT NULL DEFAULT '',
    PRIMARY KEY (coaching_id, position)
);

CREATE INDEX coaching_links_task_idx ON coaching_links (task_uuid);

-- The thread of an item: the agent's and the coaches' comments.
CREATE TABLE coaching_comments (
    id          bigserial PRIMARY KEY,
    coaching_id uuid NOT NULL REFERENCES coaching_items (id) ON DELETE CASCADE,
    author_id   text NOT NULL REFERENCES users (id),
    author_name text NOT NULL,
    body        text NOT NULL CHECK (body <> ''),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX coaching_comments_item_idx ON coaching_comments (coaching_id, id);

-- +goose Down
DROP TABLE coaching_comments;
DROP TABLE coaching_links;
DROP TABLE coaching_items;
