-- +goose Up
-- Not applicable verdicts (issue 42): an audit item may be not applicable,
-- so the automatic verdict a calibration session compares answers with may
-- be too. automatic stays the verdict's complies (true for a criterion not
-- applicable, as the item has it); automatic_not_applicable says the
-- engine found the criterion not applicable, which an analyst's
-- not_applicable answer then agrees with.
ALTER TABLE calibration_items ADD COLUMN automatic_not_applicable boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE calibration_items DROP COLUMN automatic_not_applicable;
