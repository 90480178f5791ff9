-- +goose Up
-- A quoted phrase is that phrase. Read in a language's configuration, whose
-- stemmer and stop words serve a search by words, «"no es mi problema"»
-- became the single word 'problem' and found "No problem at all" and «si
-- hay algún problema». A task's document now also holds its words as
-- written (auditd_simple: lower case, accents ignored, no stemming, no stop
-- words), after the words its language reads; a quoted phrase is read in
-- auditd_simple alone (db.SearchQuery). The two parts do not run into each
-- other: || shifts the second part's positions past the first's.
-- +goose StatementBegin
-- task_search_vector is the document of a file name and a text in a
-- configuration: the file name's words (weight A) and the text, read in
-- config, then both as written.
CREATE FUNCTION task_search_vector(config regconfig, file_name text, body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector(config, task_search_plain(translate(file_name, '_.-', '   '))), 'A')
        || to_tsvector(config, task_search_plain(body))
        || setweight(to_tsvector('auditd_simple', task_search_plain(translate(file_name, '_.-', '   '))), 'A')
        || to_tsvector('auditd_simple', task_search_plain(body))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_search_document(task uuid) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT task_search_vector(task_search_config(t.language), t.file_name, task_search_text(t.uuid))
    FROM tasks t
    WHERE t.uuid = task
$$;
-- +goose StatementEnd

UPDATE task_search SET document = task_search_document(task_uuid);

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_search_document(task uuid) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector(c.config, task_search_plain(translate(t.file_name, '_.-', '   '))), 'A')
        || to_tsvector(c.config, task_search_plain(task_search_text(t.uuid)))
    FROM tasks t, task_search_config(t.language) AS c (config)
    WHERE t.uuid = task
$$;
-- +goose StatementEnd

UPDATE task_search SET document = task_search_document(task_uuid);

DROP FUNCTION task_search_vector(regconfig, text, text);
