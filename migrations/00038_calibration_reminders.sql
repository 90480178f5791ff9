-- +goose Up
-- When each analyst of a calibration session was reminded that it falls
-- due with their answers still to send (the remind_calibrations job), so
-- that each is reminded once. The analysts of sessions past due already
-- count as reminded: a first run does not remind them all at once of
-- sessions long forgotten.
ALTER TABLE calibration_session_analysts ADD COLUMN reminded_at timestamptz;
UPDATE calibration_session_analysts a SET reminded_at = now()
FROM calibration_sessions s WHERE s.id = a.session_id AND s.due_at < now();

-- +goose Down
ALTER TABLE calibration_session_analysts DROP COLUMN reminded_at;
