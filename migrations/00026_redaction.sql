-- +goose Up
-- Redaction of personal and payment data (package redact).
--
-- What a campaign redacts: the built-in types and its own named patterns.
-- Card numbers and security codes by default (PCI DSS forbids keeping
-- them), for the campaigns that exist too.
ALTER TABLE campaigns ADD COLUMN redaction jsonb NOT NULL
    DEFAULT '{"types": ["card", "cvv"], "patterns": []}';

-- One row per placeholder put in a task's transcript, written with the
-- transcript: where it is and what found it, never the value it replaced.
CREATE TABLE redactions (
    task_uuid   uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    -- The segment (a chat's turn) and the placeholder's characters in its
    -- redacted text, end excluded.
    segment     integer NOT NULL CHECK (segment >= 0),
    start_char  integer NOT NULL CHECK (start_char >= 0),
    end_char    integer NOT NULL CHECK (end_char > start_char),
    type        text NOT NULL,
    detector    text NOT NULL,
    -- For a call: the seconds of the recording silenced for it.
    audio_start double precision,
    audio_end   double precision,
    PRIMARY KEY (task_uuid, segment, start_char)
);

-- When a call's stored recording became its redacted copy (the redacted
-- spans silenced, job redact_recording); NULL while it is the recording as
-- uploaded. A chat's redacted copy is stored at upload instead.
ALTER TABLE tasks ADD COLUMN blob_redacted_at timestamptz;

-- +goose Down
ALTER TABLE tasks DROP COLUMN blob_redacted_at;
DROP TABLE redactions;
ALTER TABLE campaigns DROP COLUMN redaction;
