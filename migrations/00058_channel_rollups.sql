-- +goose Up
-- What the calls' channels tell, per day (GET /stats/trends, the
-- dashboard's channels card): read from whole UTC days here, as the
-- agents' and criteria's figures are from task_stats_daily, instead of
-- every analysed call of the period.
--
-- call_channels_daily: by day of creation (UTC), campaign and agent ('' for
-- a call without one; operator_id is never ''), the sums and counts every
-- figure is derived from exactly (an average is its sum over its count,
-- which counts the calls having the figure), and the longest silence.
CREATE TABLE call_channels_daily (
    day                   date NOT NULL,
    campaign_id           uuid NOT NULL,
    operator_id           text NOT NULL,
    calls                 bigint NOT NULL,
    stereo                bigint NOT NULL,
    talk_ratio_sum        double precision NOT NULL,
    talk_ratios           bigint NOT NULL,
    silence_share_sum     double precision NOT NULL,
    silence_shares        bigint NOT NULL,
    dead_air_calls        bigint NOT NULL,
    hold_calls            bigint NOT NULL,
    overtalk_sum          bigint NOT NULL,
    overtalks             bigint NOT NULL,
    overtalk_seconds_sum  double precision NOT NULL,
    overtalk_seconds_n    bigint NOT NULL,
    longest_silence       double precision,
    PRIMARY KEY (day, campaign_id, operator_id)
);

-- What one analysed call adds to its day's row: the rows are summed from
-- it, and readers read the days a report cuts from it too.
-- +goose StatementBegin
CREATE FUNCTION call_channels_daily_of(ch call_channels)
RETURNS TABLE (calls int, stereo int, talk_ratio_sum double precision, talk_ratios int,
    silence_share_sum double precision, silence_shares int, dead_air_calls int, hold_calls int,
    overtalk_sum int, overtalks int, overtalk_seconds_sum double precision, overtalk_seconds_n int,
    longest_silence double precision)
LANGUAGE sql IMMUTABLE AS $$
    SELECT 1, COALESCE((ch.figures->>'stereo')::boolean, false)::int,
        COALESCE(ch.agent_talk_ratio, 0), (ch.agent_talk_ratio IS NOT NULL)::int,
        COALESCE(ch.silence_share, 0), (ch.silence_share IS NOT NULL)::int,
        (ch.dead_air_count > 0)::int, COALESCE(ch.hold_count > 0, false)::int,
        COALESCE(ch.overtalk_count, 0), (ch.overtalk_count IS NOT NULL)::int,
        COALESCE((ch.figures->>'overtalk_seconds')::float8, 0), ((ch.figures->>'overtalk_seconds') IS NOT NULL)::int,
        ch.longest_silence_seconds
$$;
-- +goose StatementEnd

-- call_channels_daily_refresh computes the rows of keys (day, campaign,
-- agent) again from the calls. A longest silence cannot be taken back when
-- a call goes, so no row is changed by a difference: each is summed again
-- from its day's calls, the keys locked first, so that the sum, a
-- statement of its own, sees what a concurrent change of the same row
-- committed. The keys share 256 locks, taken in order against deadlocks:
-- a change of many days (the migration, a bulk insert) takes no more.
-- +goose StatementBegin
CREATE FUNCTION call_channels_daily_refresh(days date[], campaigns uuid[], operators text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(days) = 0 THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('call_channels_daily'), k.lock)
    FROM (SELECT DISTINCT (hashtextextended(u.day || ' ' || u.campaign_id || ' ' || u.operator_id, 0) & 255)::int AS lock
        FROM unnest(days, campaigns, operators) u (day, campaign_id, operator_id) ORDER BY 1) k;
    DELETE FROM call_channels_daily c USING unnest(days, campaigns, operators) k (day, campaign_id, operator_id)
    WHERE (c.day, c.campaign_id, c.operator_id) = (k.day, k.campaign_id, k.operator_id);
    INSERT INTO call_channels_daily
    SELECT (t.created_at AT TIME ZONE 'UTC')::date, t.campaign_id, COALESCE(t.operator_id, ''), sum(d.calls),
        sum(d.stereo), sum(d.talk_ratio_sum), sum(d.talk_ratios), sum(d.silence_share_sum), sum(d.silence_shares),
        sum(d.dead_air_calls), sum(d.hold_calls), sum(d.overtalk_sum), sum(d.overtalks), sum(d.overtalk_seconds_sum),
        sum(d.overtalk_seconds_n), max(d.longest_silence)
    FROM tasks t JOIN call_channels ch ON ch.task_uuid = t.uuid, call_channels_daily_of(ch) d
    WHERE t.created_at >= (SELECT min(u) FROM unnest(days) u) AT TIME ZONE 'UTC'
        AND t.created_at < ((SELECT max(u) FROM unnest(days) u) + 1) AT TIME ZONE 'UTC'
        AND ((t.created_at AT TIME ZONE 'UTC')::date, t.campaign_id, COALESCE(t.operator_id, ''))
            IN (SELECT * FROM unnest(days, campaigns, operators))
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3;
END
$$;
-- +goose StatementEnd

-- Kept in the transaction of every change: an analysis saved, replaced or
-- deleted (the day of its task); a task deleted (retention, a task's
-- deletion: its call's row goes with it); a task's creation time, campaign
-- or agent changed.
-- +goose StatementBegin
CREATE FUNCTION call_channels_daily_keep() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    days date[];
    campaigns uuid[];
    operators text[];
BEGIN
    IF TG_TABLE_NAME = 'call_channels' THEN
        -- A call deleted with its task is the task's change (below).
        SELECT array_agg((t.created_at AT TIME ZONE 'UTC')::date), array_agg(t.campaign_id),
            array_agg(COALESCE(t.operator_id, ''))
        INTO days, campaigns, operators
        FROM tasks t WHERE t.uuid IN (SELECT task_uuid FROM changed);
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(k.day), array_agg(k.campaign_id), array_agg(k.operator_id)
        INTO days, campaigns, operators
        FROM (SELECT DISTINCT (o.created_at AT TIME ZONE 'UTC')::date AS day, o.campaign_id,
            COALESCE(o.operator_id, '') AS operator_id FROM changed o) k
        WHERE EXISTS (SELECT FROM call_channels_daily c
            WHERE (c.day, c.campaign_id, c.operator_id) = (k.day, k.campaign_id, k.operator_id));
    ELSIF EXISTS (SELECT FROM call_channels ch WHERE ch.task_uuid = NEW.uuid) THEN
        days := ARRAY[(OLD.created_at AT TIME ZONE 'UTC')::date, (NEW.created_at AT TIME ZONE 'UTC')::date];
        campaigns := ARRAY[OLD.campaign_id, NEW.campaign_id];
        operators := ARRAY[COALESCE(OLD.operator_id, ''), COALESCE(NEW.operator_id, '')];
    END IF;
    PERFORM call_channels_daily_refresh(COALESCE(days, '{}'), COALESCE(campaigns, '{}'), COALESCE(operators, '{}'));
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER call_channels_daily_insert AFTER INSERT ON call_channels
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION call_channels_daily_keep();
CREATE TRIGGER call_channels_daily_update AFTER UPDATE ON call_channels
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION call_channels_daily_keep();
CREATE TRIGGER call_channels_daily_delete AFTER DELETE ON call_channels
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION call_channels_daily_keep();
CREATE TRIGGER tasks_channels_daily_delete AFTER DELETE ON tasks
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION call_channels_daily_keep();
CREATE TRIGGER tasks_channels_daily_move AFTER UPDATE OF created_at, campaign_id, operator_id ON tasks
    FOR EACH ROW WHEN ((OLD.created_at, OLD.campaign_id, OLD.operator_id) IS DISTINCT FROM
        (NEW.created_at, NEW.campaign_id, NEW.operator_id))
    EXECUTE FUNCTION call_channels_daily_keep();

-- Writers wait while it is filled in.
LOCK TABLE tasks, call_channels IN SHARE ROW EXCLUSIVE MODE;
SELECT call_channels_daily_refresh(array_agg((t.created_at AT TIME ZONE 'UTC')::date), array_agg(t.campaign_id),
    array_agg(COALESCE(t.operator_id, '')))
FROM tasks t JOIN call_channels ch ON ch.task_uuid = t.uuid;

-- +goose Down
DROP TRIGGER tasks_channels_daily_move ON tasks;
DROP TRIGGER tasks_channels_daily_delete ON tasks;
DROP TRIGGER call_channels_daily_delete ON call_channels;
DROP TRIGGER call_channels_daily_update ON call_channels;
DROP TRIGGER call_channels_daily_insert ON call_channels;
DROP FUNCTION call_channels_daily_keep();
DROP FUNCTION call_channels_daily_refresh(date[], uuid[], text[]);
DROP FUNCTION call_channels_daily_of(call_channels);
DROP TABLE call_channels_daily;
