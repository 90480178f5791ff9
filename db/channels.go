package db

import (
	"context"
	"encoding/json"

	"github.com/auditd/auditd/transcript"
)

// ChannelsSave stores c as what the channels of call uuid tell, replacing
// any earlier analysis (a transcription that runs again analyses again).
func ChannelsSave(ctx context.Context, q DBTX, uuid string, c transcript.Channels) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO call_channels (task_uuid, figures) VALUES ($1, $2)
		ON CONFLICT (task_uuid) DO UPDATE SET figures = excluded.figures, analysed_at = now()`, uuid, b)
	return err
}

// ChannelsGet returns what the channels of call uuid tell, or a NotFound
// error when they were not analysed (a chat, a call not transcribed yet).
func ChannelsGet(ctx context.Context, q DBTX, uuid string) (transcript.Channels, error) {
	var b []byte
	if err := q.QueryRow(ctx, `SELECT figures FROM call_channels WHERE task_uuid = $1`, uuid).Scan(&b); err != nil {
		return transcript.Channels{}, one(err, "task %s has no channel figures", uuid)
	}
	var c transcript.Channels
	return c, json.Unmarshal(b, &c)
}
