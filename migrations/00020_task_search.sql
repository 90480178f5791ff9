-- +goose Up
-- GET /tasks?q=: full-text search over what was said (the transcript), what
-- the audit says of it (each verdict's explanation, the engine's or an
-- analyst's), the validation's notes and the file name, in the task's
-- language, ignoring accents. unaccent ships with Postgres and is a trusted
-- extension, like pg_trgm: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS unaccent;

-- One configuration per language the service audits, each its language's
-- stemmer and stop words after unaccent ("reembolsó" finds "reembolso"),
-- and one without stemming for any other language.
CREATE TEXT SEARCH CONFIGURATION auditd_es (COPY = pg_catalog.spanish);
ALTER TEXT SEARCH CONFIGURATION auditd_es
    ALTER MAPPING FOR hword, hword_part, word WITH unaccent, spanish_stem;
CREATE TEXT SEARCH CONFIGURATION auditd_en (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION auditd_en
    ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
CREATE TEXT SEARCH CONFIGURATION auditd_simple (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION auditd_simple
    ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple;

-- +goose StatementBegin
-- task_search_config is the configuration of a task's language ("es",
-- "es-MX", "en"…).
CREATE FUNCTION task_search_config(language text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN lower(language) LIKE 'es%' THEN 'auditd_es'::regconfig
        WHEN lower(language) LIKE 'en%' THEN 'auditd_en'::regconfig
        ELSE 'auditd_simple'::regconfig
    END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- task_search_plain is text with the punctuation that is not ASCII (¿ ¡ « »
-- “ ” — …) and currency signs made spaces: in a database whose LC_CTYPE is
-- C, the text search parser takes any character beyond ASCII for a letter,
-- and would read «¿Reembolso?» as the word "¿reembolso".
CREATE FUNCTION task_search_plain(text text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT translate(text, '¿¡«»“”„‘’‚‹›—–…·€£¢¥', '                    ')
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- task_search_text is what a task's search finds and quotes in its
-- snippets: the transcript, the current audit's explanations and the
-- validation's notes, one after the other.
CREATE FUNCTION task_search_text(task uuid) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT concat_ws(E'\n',
        (SELECT tr.text FROM transcripts tr WHERE tr.task_uuid = task),
        (SELECT string_agg(i.item->>'explanation', E'\n' ORDER BY i.n)
         FROM tasks t
         JOIN audit_revisions r ON r.task_uuid = t.uuid AND r.revision = t.audit_revision,
         jsonb_array_elements(CASE jsonb_typeof(r.result->'items') WHEN 'array' THEN r.result->'items' ELSE '[]' END)
             WITH ORDINALITY AS i (item, n)
         WHERE t.uuid = task),
        (SELECT v.notes FROM validations v WHERE v.task_uuid = task))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- task_search_document is a task's document: its file name's words (weight
-- A), then task_search_text, in the task's language.
CREATE FUNCTION task_search_document(task uuid) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector(c.config, task_search_plain(translate(t.file_name, '_.-', '   '))), 'A')
        || to_tsvector(c.config, task_search_plain(task_search_text(t.uuid)))
    FROM tasks t, task_search_config(t.language) AS c (config)
    WHERE t.uuid = task
$$;
-- +goose StatementEnd

-- The documents, kept beside the tasks rather than in them, so that a
-- task's many changes of status do not rewrite its document; each is
-- written again when what it is made of changes (db.TaskSearchRefresh).
CREATE TABLE task_search (
    task_uuid uuid PRIMARY KEY REFERENCES tasks (uuid) ON DELETE CASCADE,
    document  tsvector NOT NULL
);

INSERT INTO task_search (task_uuid, document) SELECT uuid, task_search_document(uuid) FROM tasks;

CREATE INDEX task_search_document_idx ON task_search USING gin (document);

-- +goose Down
DROP TABLE task_search;
DROP FUNCTION task_search_document(uuid);
DROP FUNCTION task_search_text(uuid);
DROP FUNCTION task_search_plain(text);
DROP FUNCTION task_search_config(text);
DROP TEXT SEARCH CONFIGURATION auditd_simple;
DROP TEXT SEARCH CONFIGURATION auditd_en;
DROP TEXT SEARCH CONFIGURATION auditd_es;
