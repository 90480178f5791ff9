package db

import (
	"context"
	"encoding/json"

	"github.com/auditd/auditd/transcript"
)

// TranscriptSave stores tr as the transcript of task uuid, replacing any
// earlier one (a transcription that runs again overwrites its result),
// copies why it is unreliable (tr.Quality) to the task, and makes the
// task's words searchable.
func TranscriptSave(ctx context.Context, q DBTX, uuid string, tr transcript.Transcript) error {
	b, err := json.Marshal(nonNil(tr.Segments))
	if err != nil {
		return err
	}
	var quality []byte // NULL when tr has none
	unreliable := ""
	if tr.Quality != nil {
		if quality, err = json.Marshal(tr.Quality); err != nil {
			return err
		}
		unreliable = tr.Quality.Unreliable
	}
	_, err = q.Exec(ctx, `
		WITH t AS (UPDATE tasks SET transcript_unreliable = NULLIF($7, '') WHERE uuid = $1
			AND transcript_unreliable IS DISTINCT FROM NULLIF($7, ''))
		INSERT INTO transcripts (task_uuid, text, segments, engine, language, quality) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (task_uuid) DO UPDATE SET text = excluded.text, segments = excluded.segments,
			engine = excluded.engine, language = excluded.language, quality = excluded.quality, created_at = now()`,
		uuid, tr.Text, b, tr.Engine, tr.Language, quality, unreliable)
	if err != nil {
		return err
	}
	return TaskSearchRefresh(ctx, q, uuid)
}

// TranscriptGet returns the transcript of task uuid, with what its
// channels tell when they were analysed (ChannelsSave), or a NotFound
// error when it has none yet.
func TranscriptGet(ctx context.Context, q DBTX, uuid string) (transcript.Transcript, error) {
	var tr transcript.Transcript
	var segments, quality, channels []byte
	err := q.QueryRow(ctx, `SELECT t.text, t.segments, t.engine, t.language, t.quality, c.figures FROM transcripts t
		LEFT JOIN call_channels c ON c.task_uuid = t.task_uuid WHERE t.task_uuid = $1`, uuid).
		Scan(&tr.Text, &segments, &tr.Engine, &tr.Language, &quality, &channels)
	if err != nil {
		return tr, one(err, "task %s has no transcript yet", uuid)
	}
	if quality != nil {
		if err := json.Unmarshal(quality, &tr.Quality); err != nil {
			return tr, err
		}
	}
	if channels != nil {
		if err := json.Unmarshal(channels, &tr.Channels); err != nil {
			return tr, err
		}
	}
	return tr, json.Unmarshal(segments, &tr.Segments)
}
