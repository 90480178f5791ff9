-- +goose Up
-- Rate limits shared by every API process: one bucket per user or client
-- address and kind of request, kept as the generic cell rate algorithm
-- keeps it, as the time at which the bucket would be full again (tat).
-- Unlogged: a crash empties the buckets, which only forgives a minute of
-- requests. A bucket whose tat has passed is as good as none, so the
-- periodic prune_rate_buckets job deletes them.
CREATE UNLOGGED TABLE rate_buckets (
    key  text NOT NULL,
    kind smallint NOT NULL,
    tat  timestamptz NOT NULL,
    -- what the last take granted (what rate_take returns)
    granted integer NOT NULL,
    PRIMARY KEY (key, kind)
) WITH (fillfactor = 50);

-- rate_room is how many requests a bucket whose tat is tat has room for at
-- time t, where a request adds step seconds and the bucket holds burst
-- (give or take a millisecond: tat is kept to the microsecond, so room for
-- a whole request must not be missed by a rounding).
CREATE FUNCTION rate_room(tat timestamptz, t timestamptz, step double precision, burst double precision)
RETURNS integer LANGUAGE sql IMMUTABLE
RETURN floor((burst + 0.001 - greatest(extract(epoch FROM tat - t), 0)) / step);

-- rate_take takes up to want requests from the bucket (k, kd) at time t: as
-- many as it has room for, returned as granted with wait 0; when it has no
-- room, granted is 0, wait the seconds until it would have, and nothing is
-- spent.
-- +goose StatementBegin
CREATE FUNCTION rate_take(k text, kd smallint, t timestamptz, step double precision,
                          burst double precision, want integer, OUT granted integer, OUT wait double precision)
LANGUAGE plpgsql AS $$
DECLARE
    full_at timestamptz;
BEGIN
    INSERT INTO rate_buckets AS b (key, kind, tat, granted)
    VALUES (k, kd, t + least(want, rate_room(t, t, step, burst)) * step * interval '1 second',
            least(want, rate_room(t, t, step, burst)))
    ON CONFLICT (key, kind) DO UPDATE SET
        granted = least(want, rate_room(b.tat, t, step, burst)),
        tat = greatest(b.tat, t) + least(want, rate_room(b.tat, t, step, burst)) * step * interval '1 second'
        WHERE rate_room(b.tat, t, step, burst) >= 1
    RETURNING b.granted INTO granted;
    IF FOUND THEN
        wait := 0;
        RETURN;
    END IF;
    SELECT b.tat INTO full_at FROM rate_buckets b WHERE b.key = k AND b.kind = kd;
    granted := 0;
    wait := extract(epoch FROM full_at - t) + step - burst;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION rate_take;
DROP FUNCTION rate_room;
DROP TABLE rate_buckets;
