package workers

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/workers/asr"
)

// A real stereo call, transcribed by PocketSphinx, whose campaign redacts
// the first word of every utterance (a pattern of its own: the LibriVox
// readers say no card numbers): the stored recording becomes a copy
// silent, on both channels, over every redacted span, and unchanged
// elsewhere; the original is deleted.
func TestRedactRecording(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTranscribe(t)
	recs := mediatest.LibriVox(t)
	dir := t.TempDir()
	original := filepath.Join(dir, "call.wav")
	gap := recs[1].Duration + 500*time.Millisecond
	mediatest.Mix(t, original, gap+recs[2].Duration+500*time.Millisecond,
		[]mediatest.Clip{{Path: recs[1].Path}}, []mediatest.Clip{{Path: recs[2].Path, At: gap}})

	camp := b.newCampaign(t, "first-words", "en", "left")
	camp.Redaction = &redact.RedactionSettings{Types: redact.Types, Patterns: []redact.RedactionPattern{{Name: "FIRST_WORD", Regexp: `^\S+`}}}
	_, err := db.CampaignUpdate(ctx, b.pool, camp.ID, camp.Name, camp.CampaignSettings)
	require.NoError(t, err)

	ws := river.NewWorkers()
	river.AddWorker(ws, &TranscribeWorker{pool: b.pool, store: b.store, cfg: TranscribeConfig{Engine: asr.PocketSphinx{}}})
	river.AddWorker(ws, &RedactRecordingWorker{pool: b.pool, store: b.store, log: slog.Default()})
	client, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{
		Workers: ws, Queues: map[string]river.QueueConfig{jobs.QueueMedia: {MaxWorkers: 1}},
		SkipUnknownJobCheck: true, TestOnly: true,
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	require.NoError(t, err)
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	require.NoError(t, client.Start(ctx))
	t.Cleanup(func() {
		cancel()
		require.NoError(t, client.Stop(context.Background()))
	})
	task := b.upload(t, client, call{path: original, campaign: camp})
	for _, kind := range []string{"transcribe", "redact_recording"} {
		select {
		case e := <-events:
			require.Equal(t, kind, e.Job.Kind)
			require.Equal(t, river.EventKindJobCompleted, e.Kind, "%s: %v", kind, e.Job.Errors)
		case <-time.After(3 * time.Minute):
			t.Fatalf("no %s job ended within 3 minutes", kind)
		}
	}

	tr, err := db.TranscriptGet(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	records, err := db.RedactionsList(ctx, b.pool, task.UUID)
	require.NoError(t, err)
	require.Len(t, records, len(tr.Segments), "one first word per utterance")
	for _, s := range tr.Segments {
		require.Regexp(t, `^\[FIRST_WORD\]`, s.Text)
	}

	redacted := b.task(t, task.UUID)
	require.NotEqual(t, task.BlobKey, redacted.BlobKey)
	require.Equal(t, media.MutedContentType, redacted.ContentType)
	exists, err := b.store.Exists(ctx, task.BlobKey)
	require.NoError(t, err)
	require.False(t, exists, "the original is deleted")
	stored := filepath.Join(dir, "stored.flac")
	copyBlob(t, b, redacted.BlobKey, stored)
	info, err := media.Probe(ctx, stored)
	require.NoError(t, err)
	require.Equal(t, 2, info.Channels)
	require.InDelta(t, (gap + recs[2].Duration + 500*time.Millisecond).Seconds(), info.Duration.Seconds(), 0.05)

	// Every redacted span is digital silence on both channels.
	var spans []media.Span
	spoken := 0
	for _, r := range records {
		require.NotNil(t, r.AudioStart)
		spans = append(spans, media.Span{Start: seconds(*r.AudioStart), End: seconds(*r.AudioEnd)})
		require.Less(t, peakBetween(t, stored, *r.AudioStart, *r.AudioEnd), -90.0, "%+v", r)
		if peakBetween(t, original, *r.AudioStart, *r.AudioEnd) > -40 {
			spoken++
		}
	}
	require.Equal(t, len(records), spoken, "each span held speech before")
	// What lies between them is as loud as it was: FLAC is lossless.
	slices.SortFunc(spans, func(a, b media.Span) int { return int(a.Start - b.Start) })
	loud := 0
	from := 0.0
	for _, s := range append(spans, media.Span{Start: info.Duration, End: info.Duration}) {
		to := s.Start.Seconds()
		if to-from >= 0.5 {
			before, after := peakBetween(t, original, from, to), peakBetween(t, stored, from, to)
			require.InDelta(t, before, after, 0.1, "%.2f-%.2f", from, to)
			if after > -40 {
				loud++
			}
		}
		from = max(from, s.End.Seconds())
	}
	require.Positive(t, loud, "speech remains outside the spans")

	// Idempotent: a second run finds the recording redacted already.
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	_, err = rivertest.NewWorker(t, riverpgxv5.New(b.pool), &river.Config{},
		&RedactRecordingWorker{pool: b.pool, store: b.store, log: slog.Default()}).
		Work(ctx, t, tx, jobs.RedactRecordingArgs{TaskUUID: task.UUID}, nil)
	require.NoError(t, err)
	require.Equal(t, redacted.BlobKey, b.task(t, task.UUID).BlobKey)
}

// copyBlob copies the blob key to path.
func copyBlob(t *testing.T, b *transcribeBundle, key, path string) {
	t.Helper()
	r, err := b.store.Open(context.Background(), key)
	require.NoError(t, err)
	defer r.Close()
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = io.Copy(f, r)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// peakBetween is the loudest sample of path from second from to second to
// (both channels), in dBFS, measured by ffmpeg's volumedetect.
func peakBetween(t *testing.T, path string, from, to float64) float64 {
	t.Helper()
	piece := filepath.Join(t.TempDir(), fmt.Sprintf("piece-%.3f-%.3f.wav", from, to))
	mediatest.FFmpeg(t, "-i", path, "-af", fmt.Sprintf("atrim=start=%.3f:end=%.3f", from, to), "-c:a", "pcm_s16le", piece)
	peak, err := media.Peak(context.Background(), piece)
	require.NoError(t, err)
	return peak
}
