-- +goose Up
-- Calibration sessions: a supervisor picks audited interactions and
-- analysts; each analyst answers every criterion of every interaction
-- blind; once all have submitted (or the supervisor closes it) the session
-- shows their agreement, and the supervisor records a calibrated answer
-- per criterion that can be applied to the task as a new audit revision.
CREATE TABLE calibration_sessions (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    created_by  text NOT NULL REFERENCES users (id),
    due_at      timestamptz,
    status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    closed_at   timestamptz,
    -- Who closed it; NULL when the last analyst's submission did.
    closed_by   text REFERENCES users (id),
    -- The session's overall figures, kept when it closes (its answers no
    -- longer change), for the history of sessions.
    alpha             double precision,
    percent_agreement double precision,
    CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);

CREATE INDEX calibration_sessions_created_idx ON calibration_sessions (created_at DESC, id);

-- The interactions of a session, in the order given, each with the audit
-- revision it was taken from (and that revision's scorecard version).
CREATE TABLE calibration_session_tasks (
    session_id        uuid NOT NULL REFERENCES calibration_sessions (id) ON DELETE CASCADE,
    task_uuid         uuid NOT NULL REFERENCES tasks (uuid) ON DELETE CASCADE,
    position          integer NOT NULL,
    audit_revision    integer NOT NULL,
    scorecard_version integer NOT NULL,
    -- The analyst's edit the calibrated answers became (audit_edits), once applied.
    applied_edit_id   bigint REFERENCES audit_edits (id) ON DELETE SET NULL,
    applied_at        timestamptz,
    PRIMARY KEY (session_id, task_uuid)
);

CREATE INDEX calibration_session_tasks_task_idx ON calibration_session_tasks (task_uuid);

-- Each criterion of each interaction, as that scorecard version has it,
-- with the automatic verdict and, once decided, the calibrated answer.
CREATE TABLE calibration_items (
    session_id         uuid NOT NULL,
    task_uuid          uuid NOT NULL,
    criterion_id       text NOT NULL,
    position           integer NOT NULL,
    category           text NOT NULL,
    question           text NOT NULL,
    critical           boolean NOT NULL,
    -- The automatic audit's verdict; NULL when none of the revisions up to
    -- the session's was the engine's for this criterion.
    automatic          boolean,
    calibrated         text CHECK (calibrated IN ('complies', 'does_not_comply', 'not_applicable')),
    calibrated_comment text NOT NULL DEFAULT '' CHECK (char_length(calibrated_comment) <= 2000),
    calibrated_by      text REFERENCES users (id),
    calibrated_at      timestamptz,
    PRIMARY KEY (session_id, task_uuid, criterion_id),
    FOREIGN KEY (session_id, task_uuid) REFERENCES calibration_session_tasks (session_id, task_uuid) ON DELETE CASCADE
);

-- The analysts of a session; submitted_at once they submitted their answers.
CREATE TABLE calibration_session_analysts (
    session_id   uuid NOT NULL REFERENCES calibration_sessions (id) ON DELETE CASCADE,
    user_id      text NOT NULL REFERENCES users (id),
    submitted_at timestamptz,
    PRIMARY KEY (session_id, user_id)
);

CREATE INDEX calibration_session_analysts_user_idx ON calibration_session_analysts (user_id, session_id);

-- An analyst's answers, all written at once when they submit.
CREATE TABLE calibration_answers (
    session_id   uuid NOT NULL,
    task_uuid    uuid NOT NULL,
    criterion_id text NOT NULL,
    analyst_id   text NOT NULL,
    answer       text NOT NULL CHECK (answer IN ('complies', 'does_not_comply', 'not_applicable')),
    comment      text NOT NULL DEFAULT '' CHECK (char_length(comment) <= 2000),
    PRIMARY KEY (session_id, task_uuid, criterion_id, analyst_id),
    FOREIGN KEY (session_id, task_uuid, criterion_id) REFERENCES calibration_items (session_id, task_uuid, criterion_id) ON DELETE CASCADE,
    FOREIGN KEY (session_id, analyst_id) REFERENCES calibration_session_analysts (session_id, user_id) ON DELETE CASCADE
);

-- The session whose calibrated answers an edit applies, and the revision
-- it became: the reason of that revision.
ALTER TABLE audit_edits ADD COLUMN calibration_session_id uuid REFERENCES calibration_sessions (id) ON DELETE SET NULL;
ALTER TABLE audit_revisions ADD COLUMN calibration_session_id uuid REFERENCES calibration_sessions (id) ON DELETE SET NULL;

-- +goose Down
ALTER TABLE audit_revisions DROP COLUMN calibration_session_id;
ALTER TABLE audit_edits DROP COLUMN calibration_session_id;
DROP TABLE calibration_answers;
DROP TABLE calibration_session_analysts;
DROP TABLE calibration_items;
DROP TABLE calibration_session_tasks;
DROP TABLE calibration_sessions;
