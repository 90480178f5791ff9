package db

import (
	"context"
	"encoding/json"

	"github.com/auditd/auditd/transcript"
)

// TranscriptSave stores tr as the transcript of task uuid, replacing any
// earlier one (a transcription that runs again overwrites its result), and
// makes the task's words searchable.
func TranscriptSave(ctx context.Context, q DBTX, uuid string, tr transcript.Transcript) error {
	b, err := json.Marshal(nonNil(tr.Segments))
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `
		INSERT INTO transcripts (task_uuid, text, segments, engine, language) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (task_uuid) DO UPDATE SET text = excluded.text, segments = excluded.segments,
			engine = excluded.engine, language = excluded.language, created_at = now()`,
		uuid, tr.Text, b, tr.Engine, tr.Language)
	if err != nil {
		return err
	}
	return TaskSearchRefresh(ctx, q, uuid)
}

// TranscriptGet returns the transcript of task uuid, or a NotFound error
// when it has none yet.
func TranscriptGet(ctx context.Context, q DBTX, uuid string) (transcript.Transcript, error) {
	var tr transcript.Transcript
	var segments []byte
	err := q.QueryRow(ctx, `SELECT text, segments, engine, language FROM transcripts WHERE task_uuid = $1`, uuid).
		Scan(&tr.Text, &segments, &tr.Engine, &tr.Language)
	if err != nil {
		return tr, one(err, "task %s has no transcript yet", uuid)
	}
	return tr, json.Unmarshal(segments, &tr.Segments)
}
