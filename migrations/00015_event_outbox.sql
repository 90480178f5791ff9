-- +goose Up
-- Events are taken ids at commit instead of when they are written: a
-- transaction writes its events to event_outbox, and at its commit a
-- deferred trigger takes the lock that orders event writers and moves them
-- into events. Ids still commit in increasing order (a reader resuming
-- after id N never skips a row that commits later with a smaller id), but
-- the lock is held for the commit alone, not from a transaction's first
-- event to its end, so writers of events no longer wait on each other's
-- round trips. Rows never outlive their transaction, so the table is
-- unlogged.
CREATE UNLOGGED TABLE event_outbox (
    seq        bigint GENERATED ALWAYS AS IDENTITY,
    type       text NOT NULL,
    user_id    text,
    min_rank   smallint,
    data       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (user_id IS NOT NULL OR min_rank IS NOT NULL)
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

-- events_publish moves the transaction's events into events, in the order
-- they were written, and notifies listeners of the last id. The first row's
-- trigger at commit moves them all; the setting it leaves (transaction id:
-- last row moved) lets the others return at once.
-- +goose StatementBegin
CREATE FUNCTION events_publish() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    done text := current_setting('auditd.events_published', true);
    last bigint;
    upto bigint;
BEGIN
    IF split_part(done, ':', 1) = pg_current_xact_id()::text AND NEW.seq <= split_part(done, ':', 2)::bigint THEN
        RETURN NULL;
    END IF;
    PERFORM pg_advisory_xact_lock(1702260340); -- 0x65766e74, "evnt"
    WITH moved AS (
        DELETE FROM event_outbox RETURNING *
    ), ins AS (
        INSERT INTO events (type, user_id, min_rank, data, created_at)
        SELECT type, user_id, min_rank, data, created_at FROM moved ORDER BY seq
        RETURNING id
    )
    SELECT (SELECT max(id) FROM ins), (SELECT max(seq) FROM moved) INTO last, upto;
    PERFORM set_config('auditd.events_published', pg_current_xact_id()::text || ':' || upto, true);
    PERFORM pg_notify('auditd_events', last::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER event_outbox_publish AFTER INSERT ON event_outbox
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION events_publish();

-- +goose Down
DROP TABLE event_outbox;
DROP FUNCTION events_publish;
