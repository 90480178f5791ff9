-- +goose Up
-- What a call's channels tell (package talk): measured from the audio when
-- the call is transcribed, one row per call, replaced when it runs again.
-- figures is a transcript.Channels; the export reads its figures, the
-- task page its stretches.
CREATE TABLE call_channels (
    task_uuid   uuid PRIMARY KEY REFERENCES tasks (uuid) ON DELETE CASCADE,
    figures     jsonb NOT NULL,
    analysed_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE call_channels;
