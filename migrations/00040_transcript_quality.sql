-- +goose Up
-- How far a call's transcript can be trusted, from its speech engine's own
-- signals (transcript.Quality: the overall score, words per second, the
-- floor it was judged against, why it is unreliable, how many segments are
-- under the floor); NULL for chats and transcripts stored before.
ALTER TABLE transcripts ADD COLUMN quality jsonb;
-- Why the task's transcript is unreliable (low_quality, too_fast), copied
-- from its quality when it is stored, for the list's filter
-- (transcript_unreliable=true|false); NULL when it is not, or was never
-- measured. Few tasks have one: a partial index serves "true".
ALTER TABLE tasks ADD COLUMN transcript_unreliable text;
CREATE INDEX tasks_transcript_unreliable_idx ON tasks (created_at) WHERE transcript_unreliable IS NOT NULL;

-- +goose Down
DROP INDEX tasks_transcript_unreliable_idx;
ALTER TABLE tasks DROP COLUMN transcript_unreliable;
ALTER TABLE transcripts DROP COLUMN quality;
