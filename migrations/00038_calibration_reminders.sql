-- +goose Up
-- When each analyst of a calibration session was reminded that it falls
-- due with their answers still to send (the remind_calibrations job), so
-- that each is reminded once.
ALTER TABLE calibration_session_analysts ADD COLUMN reminded_at timestamptz;

-- +goose Down
ALTER TABLE calibration_session_analysts DROP COLUMN reminded_at;
