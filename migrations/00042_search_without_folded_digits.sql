-- +goose Up
-- The search index reads numbers only as the redactor read them. unaccent,
-- which the text search configurations apply to every word (00020), also
-- turns some characters into ASCII digits (full-width "４", "⑴", "〇",
-- "¼"…): a card number written so, and not seen as one, became a number a
-- search found and a snippet quoted. Transcripts are stored as the
-- redactor reads them (package redact: NFKC, every script's digits as
-- ASCII); task_search_plain now also makes a space of every character that
-- unaccent would make a digit, so no other text (file names, notes)
-- becomes one either. The characters are read from unaccent itself.
-- +goose StatementBegin
DO $do$
DECLARE
    folded text;
BEGIN
    SELECT string_agg(chr(c), '' ORDER BY c) INTO folded
    FROM generate_series(128, 131071) AS c
    WHERE c NOT BETWEEN 55296 AND 57343 AND unaccent(chr(c)) ~ '[0-9]';
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION task_search_plain(text text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $body$
            SELECT translate(text, %L, %L)
        $body$$f$, '¿¡«»“”„‘’‚‹›—–…·€£¢¥' || folded, repeat(' ', 20 + length(folded)));
    UPDATE task_search SET document = task_search_document(task_uuid)
    WHERE task_search_text(task_uuid) ~ ('[' || folded || ']')
        OR (SELECT file_name FROM tasks WHERE uuid = task_uuid) ~ ('[' || folded || ']');
END
$do$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION task_search_plain(text text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT translate(text, '¿¡«»“”„‘’‚‹›—–…·€£¢¥', '                    ')
$$;
-- +goose StatementEnd
