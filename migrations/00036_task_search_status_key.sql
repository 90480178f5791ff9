-- +goose Up
-- A search by words with a status (the validated tasks that say
-- «reembolso») is read from the words' index alone: the status is a key of
-- that index too (btree_gin, a trusted extension that ships with Postgres,
-- like unaccent), so the index intersects the status's tasks with the
-- words' before any document is read. (The creation time stays in its own
-- btree index: as a GIN key each side of a range would be a key of its
-- own; a status is one key.)
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX task_search_document_idx;
CREATE INDEX task_search_document_idx ON task_search USING gin (status, document);

-- +goose Down
DROP INDEX task_search_document_idx;
CREATE INDEX task_search_document_idx ON task_search USING gin (document);
