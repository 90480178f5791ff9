-- +goose Up
-- An audit whose revisions retention or an erasure deleted keeps only its
-- score and result: its verdicts (the criteria it judged and found not
-- met) go too, from the export, the filters and the statistics
-- (db.TasksForget clears them from now on).
UPDATE tasks SET judged_criteria = NULL, failed_criteria = NULL
    WHERE audit_deleted_at IS NOT NULL AND (judged_criteria IS NOT NULL OR failed_criteria IS NOT NULL);

-- +goose Down
-- The verdicts are gone with their revisions: nothing to restore.
SELECT 1;
