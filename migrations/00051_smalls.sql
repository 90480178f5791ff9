-- +goose Up
-- retry is a call's transcription between its attempts (db.TaskRetry): the
-- attempt that failed, why, for a person, and when the next one is due.
-- Written by the transcribe job when an attempt fails and is to be tried
-- again; every change of status clears it.
ALTER TABLE tasks ADD COLUMN retry jsonb;

-- A campaign may let the speech server detect the language of a call
-- uploaded without one (intake.Speech.callLanguage); such a call's
-- language is '' until the server says.
ALTER TABLE campaigns ADD COLUMN detect_language boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE campaigns DROP COLUMN detect_language;
ALTER TABLE tasks DROP COLUMN retry;
