-- +goose Up
-- What each analysed call's channels tell, beside what a report selects
-- and cuts it by (GET /stats/trends, the dashboard's channels card): the
-- days a report's weeks or period cut (in a zone other than UTC, one day a
-- week) are read from here by a range of creation time, one index's rows
-- in order, instead of each of the days' tasks read and its call looked up
-- (at a million tasks, the 13 cut days of a 12 weeks' report in Madrid
-- hold 35,000 tasks and 17,000 analysed calls: 0.9 to 2 s of the report
-- on a busy machine, now 12 to 28 ms). call_channels_daily (migration
-- 00058) keeps the whole UTC days.
--
-- call_channels_calls: a row per analysed call, with its task's creation
-- time, campaign and agent ('' for none, as in call_channels_daily) and
-- the figures call_channels_daily_of gives for it; the index by creation
-- time holds every column a report reads, so that a cut day's calls are
-- read from it alone.
CREATE TABLE call_channels_calls (
    task_uuid             uuid NOT NULL,
    created_at            timestamptz NOT NULL,
    campaign_id           uuid NOT NULL,
    operator_id           text NOT NULL,
    calls                 int NOT NULL,
    stereo                int NOT NULL,
    talk_ratio_sum        double precision NOT NULL,
    talk_ratios           int NOT NULL,
    silence_share_sum     double precision NOT NULL,
    silence_shares        int NOT NULL,
    dead_air_calls        int NOT NULL,
    hold_calls            int NOT NULL,
    overtalk_sum          int NOT NULL,
    overtalks             int NOT NULL,
    overtalk_seconds_sum  double precision NOT NULL,
    overtalk_seconds_n    int NOT NULL,
    longest_silence       double precision
);

-- call_channels_calls_write writes the rows of the calls of tasks uuids
-- anew from the calls and their tasks, the tasks locked first (as
-- call_channels_daily_refresh locks its keys: 256 locks, taken in order),
-- so that what it reads, statements of their own, is what a concurrent
-- change of the same call or task committed.
-- +goose StatementBegin
CREATE FUNCTION call_channels_calls_write(uuids uuid[]) RETURNS void LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(hashtext('call_channels_calls'), k.lock)
    FROM (SELECT DISTINCT (hashtextextended(u::text, 0) & 255)::int AS lock FROM unnest(uuids) u ORDER BY 1) k;
    DELETE FROM call_channels_calls WHERE task_uuid = ANY (uuids);
    INSERT INTO call_channels_calls
    SELECT ch.task_uuid, t.created_at, t.campaign_id, COALESCE(t.operator_id, ''), d.*
    FROM call_channels ch JOIN tasks t ON t.uuid = ch.task_uuid, call_channels_daily_of(ch) d
    WHERE ch.task_uuid = ANY (uuids)
    ORDER BY t.created_at;
$$;
-- +goose StatementEnd

-- Kept in the transaction of every change, as call_channels_daily is: a
-- call analysed (again), or a task whose creation time, campaign or agent
-- changed, writes its call's row anew; a call deleted, or its task, takes
-- its row along (the foreign key).
-- +goose StatementBegin
CREATE FUNCTION call_channels_calls_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'call_channels' THEN
        PERFORM call_channels_calls_write(ARRAY(SELECT task_uuid FROM changed));
    ELSE
        PERFORM call_channels_calls_write(ARRAY[NEW.uuid]);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER call_channels_calls_insert AFTER INSERT ON call_channels
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION call_channels_calls_keep();
CREATE TRIGGER call_channels_calls_update AFTER UPDATE ON call_channels
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION call_channels_calls_keep();
CREATE TRIGGER tasks_channels_calls_move AFTER UPDATE OF created_at, campaign_id, operator_id ON tasks
    FOR EACH ROW WHEN ((OLD.created_at, OLD.campaign_id, OLD.operator_id) IS DISTINCT FROM
        (NEW.created_at, NEW.campaign_id, NEW.operator_id))
    EXECUTE FUNCTION call_channels_calls_keep();

-- Writers wait while it is filled in; its keys and index are made after
-- (a call's foreign key checked row by row would double the time).
LOCK TABLE tasks, call_channels IN SHARE ROW EXCLUSIVE MODE;
SELECT call_channels_calls_write(array_agg(task_uuid)) FROM call_channels;

ALTER TABLE call_channels_calls ADD PRIMARY KEY (task_uuid),
    ADD FOREIGN KEY (task_uuid) REFERENCES call_channels (task_uuid) ON DELETE CASCADE;
CREATE INDEX call_channels_calls_created_idx ON call_channels_calls (created_at) INCLUDE (campaign_id, operator_id,
    calls, stereo, talk_ratio_sum, talk_ratios, silence_share_sum, silence_shares, dead_air_calls, hold_calls,
    overtalk_sum, overtalks, overtalk_seconds_sum, overtalk_seconds_n, longest_silence);

-- +goose Down
DROP TRIGGER tasks_channels_calls_move ON tasks;
DROP TRIGGER call_channels_calls_update ON call_channels;
DROP TRIGGER call_channels_calls_insert ON call_channels;
DROP FUNCTION call_channels_calls_keep();
DROP FUNCTION call_channels_calls_write(uuid[]);
DROP TABLE call_channels_calls;
