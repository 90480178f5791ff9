-- +goose Up
-- A campaign's redaction may be NULL: the defaults of its language
-- (redact.DefaultSettings: Spanish adds DNI/NIE, IBANs and phones to cards
-- and security codes, English phones and e-mail addresses), which follow
-- the language when it changes. A setting stored stays what it is, except
-- the old default (cards and security codes) of a campaign that has no
-- interaction yet: nothing depends on it, and a new installation's default
-- campaign then redacts a Spanish chat's DNI with no setting changed.
ALTER TABLE campaigns ALTER COLUMN redaction DROP NOT NULL, ALTER COLUMN redaction DROP DEFAULT;
UPDATE campaigns SET redaction = NULL
WHERE redaction = '{"types": ["card", "cvv"], "patterns": []}'
    AND NOT EXISTS (SELECT 1 FROM tasks WHERE tasks.campaign_id = campaigns.id);

-- +goose Down
UPDATE campaigns SET redaction = '{"types": ["card", "cvv"], "patterns": []}' WHERE redaction IS NULL;
ALTER TABLE campaigns ALTER COLUMN redaction SET DEFAULT '{"types": ["card", "cvv"], "patterns": []}',
    ALTER COLUMN redaction SET NOT NULL;
