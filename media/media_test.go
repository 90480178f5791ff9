package media_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/media/mediatest"
)

type testBundle struct {
	ctx context.Context
	dir string
}

func setup(t *testing.T) testBundle {
	t.Helper()
	return testBundle{ctx: t.Context(), dir: t.TempDir()}
}

// listen reads a WAV file and returns the tones in it.
func listen(t *testing.T, path string) []mediatest.Heard {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	heard, err := mediatest.Listen(b)
	require.NoError(t, err)
	return heard
}

// requireHeard checks tones heard against those expected, to 30 ms.
func requireHeard(t *testing.T, want []mediatest.Tone, heard []mediatest.Heard) {
	t.Helper()
	require.Len(t, heard, len(want), "heard %+v", heard)
	for i, w := range want {
		require.Equal(t, w.Hz, heard[i].Hz, "tone %d", i)
		require.InDelta(t, w.Start.Seconds(), heard[i].Start, 0.03, "tone %d start", i)
		require.InDelta(t, (w.Start + w.Length).Seconds(), heard[i].End, 0.03, "tone %d end", i)
	}
}

func TestProbe(t *testing.T) {
	t.Parallel()

	t.Run("LibriVoxWAV", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		info, err := media.Probe(b.ctx, filepath.Join(mediatest.LibriVoxDir, "sense_and_sensibility_01_austen_64kb-0880.wav"))
		require.NoError(t, err)
		require.Equal(t, media.Info{Duration: 2990 * time.Millisecond, Channels: 1, SampleRate: 16000, Codec: "pcm_s16le", Format: "wav"}, info)
	})

	t.Run("StereoOpus", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		path := filepath.Join(b.dir, "call.opus")
		mediatest.Tones(t, path, 4*time.Second, mediatest.Tone{Start: time.Second, Length: time.Second, Hz: 400, Channel: 1})
		info, err := media.Probe(b.ctx, path)
		require.NoError(t, err)
		require.Equal(t, 2, info.Channels)
		require.Equal(t, "opus", info.Codec)
		require.Equal(t, "ogg", info.Format)
		require.Equal(t, 48000, info.SampleRate, "Opus always decodes at 48 kHz")
		require.InDelta(t, 4, info.Duration.Seconds(), 0.05)
	})

	t.Run("EmptyWAV", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		path := filepath.Join(b.dir, "empty.wav")
		mediatest.FFmpeg(t, "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "0", path)
		info, err := media.Probe(b.ctx, path)
		require.NoError(t, err)
		require.Zero(t, info.Duration)
		require.Equal(t, 1, info.Channels)
	})

	t.Run("TextIsNotAudio", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		path := filepath.Join(b.dir, "notes.wav")
		require.NoError(t, os.WriteFile(path, []byte("Agent: hello\nCustomer: hi\n"), 0o600))
		_, err := media.Probe(b.ctx, path)
		require.ErrorIs(t, err, media.ErrNotAudio)
		require.ErrorContains(t, err, "Invalid data found when processing input")
	})

	t.Run("ImageHasNoAudio", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		path := filepath.Join(b.dir, "photo.png")
		mediatest.FFmpeg(t, "-f", "lavfi", "-i", "color=c=red:s=16x16:d=1", "-frames:v", "1", path)
		_, err := media.Probe(b.ctx, path)
		require.ErrorIs(t, err, media.ErrNotAudio)
		require.ErrorIs(t, err, media.ErrNoAudioTrack)
		require.ErrorContains(t, err, "no audio track: photo.png")
	})

	t.Run("Missing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, err := media.Probe(b.ctx, filepath.Join(b.dir, "gone.wav"))
		require.ErrorIs(t, err, os.ErrNotExist)
		require.NotErrorIs(t, err, media.ErrNotAudio)
	})
}

func TestNormalise(t *testing.T) {
	t.Parallel()

	t.Run("StereoMP3", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		in := filepath.Join(b.dir, "call.mp3")
		tones := []mediatest.Tone{
			{Start: 500 * time.Millisecond, Length: time.Second, Hz: 300},
			{Start: 2 * time.Second, Length: time.Second, Hz: 800, Channel: 1},
		}
		mediatest.Tones(t, in, 4*time.Second, tones...)

		out, err := media.Normalise(b.ctx, in, b.dir)
		require.NoError(t, err)
		require.Equal(t, b.dir, filepath.Dir(out))
		info, err := media.Probe(b.ctx, out)
		require.NoError(t, err)
		require.Equal(t, 1, info.Channels)
		require.Equal(t, 16000, info.SampleRate)
		require.Equal(t, "pcm_s16le", info.Codec)
		require.InDelta(t, 4, info.Duration.Seconds(), 0.06)

		raw, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, "data", string(raw[36:40]), "a plain 44-byte header, no metadata chunk")
		// Both channels survive the mix down, each at half its level.
		heard, err := mediatest.Listen(raw)
		require.NoError(t, err)
		require.Len(t, heard, 2)
		require.Equal(t, []int{300, 800}, []int{heard[0].Hz, heard[1].Hz})
	})

	t.Run("InsideOutDir", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		in := filepath.Join(b.dir, "normalised.wav")
		mediatest.Tones(t, in, time.Second, mediatest.Tone{Length: time.Second, Hz: 500})
		out, err := media.Normalise(b.ctx, in, b.dir)
		require.NoError(t, err)
		require.NotEqual(t, in, out)
		_, err = media.Probe(b.ctx, in)
		require.NoError(t, err, "the input is left alone")
	})

	t.Run("GarbageQuotesFFmpeg", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		in := filepath.Join(b.dir, "x.wav")
		require.NoError(t, os.WriteFile(in, []byte("this is not sound"), 0o600))
		_, err := media.Normalise(b.ctx, in, b.dir)
		te, ok := errors.AsType[*media.ToolError](err)
		require.True(t, ok, "%v", err)
		require.Equal(t, "ffmpeg", te.Tool)
		require.Contains(t, te.Stderr, "Invalid data found when processing input")
		left, err := filepath.Glob(filepath.Join(b.dir, "normalised-*"))
		require.NoError(t, err)
		require.Empty(t, left, "no half-written output stays behind")
	})

	t.Run("Cancelled", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ctx, cancel := context.WithCancel(b.ctx)
		cancel()
		_, err := media.Normalise(ctx, filepath.Join(mediatest.LibriVoxDir, "sense_and_sensibility_01_austen_64kb-0880.wav"), b.dir)
		require.ErrorIs(t, err, context.Canceled)
	})
}

func TestSplitChannels(t *testing.T) {
	t.Parallel()

	t.Run("Stereo", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		in := filepath.Join(b.dir, "call.m4a")
		leftTones := []mediatest.Tone{{Start: 200 * time.Millisecond, Length: time.Second, Hz: 300}}
		rightTones := []mediatest.Tone{{Start: 1500 * time.Millisecond, Length: time.Second, Hz: 700, Channel: 1}}
		mediatest.Tones(t, in, 3*time.Second, append(leftTones, rightTones...)...)

		left, right, err := media.SplitChannels(b.ctx, in, b.dir)
		require.NoError(t, err)
		for _, p := range []string{left, right} {
			info, err := media.Probe(b.ctx, p)
			require.NoError(t, err)
			require.Equal(t, 1, info.Channels)
			require.Equal(t, 16000, info.SampleRate)
		}
		requireHeard(t, leftTones, listen(t, left))
		rightTones[0].Channel = 0
		requireHeard(t, rightTones, listen(t, right))
	})

	t.Run("MonoFails", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, _, err := media.SplitChannels(b.ctx, filepath.Join(mediatest.LibriVoxDir, "sense_and_sensibility_01_austen_64kb-0880.wav"), b.dir)
		require.EqualError(t, err, "media: sense_and_sensibility_01_austen_64kb-0880.wav has 1 channel, not two")
	})
}

func TestPeak(t *testing.T) {
	t.Parallel()
	b := setup(t)

	silent := filepath.Join(b.dir, "silent.wav")
	mediatest.FFmpeg(t, "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "2", silent)
	db, err := media.Peak(b.ctx, silent)
	require.NoError(t, err)
	require.Less(t, db, -90.0)

	tone := filepath.Join(b.dir, "tone.wav")
	mediatest.Tones(t, tone, time.Second, mediatest.Tone{Length: time.Second, Hz: 400})
	db, err = media.Peak(b.ctx, tone)
	require.NoError(t, err)
	require.InDelta(t, 20*math.Log10(0.5), db, 0.2, "the tone's amplitude is half of full scale")

	same := filepath.Join(b.dir, "same.wav")
	mediatest.FFmpeg(t, "-i", tone, "-ac", "2", same)
	db, err = media.ChannelDifferencePeak(b.ctx, same)
	require.NoError(t, err)
	require.Less(t, db, -90.0, "identical channels cancel out")

	different := filepath.Join(b.dir, "different.wav")
	mediatest.Tones(t, different, time.Second, mediatest.Tone{Length: time.Second, Hz: 400, Channel: 1})
	db, err = media.ChannelDifferencePeak(b.ctx, different)
	require.NoError(t, err)
	require.Greater(t, db, -7.0)
}

func TestChunks(t *testing.T) {
	t.Parallel()

	t.Run("CutInSilences", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// Six 3 s "utterances", 1.5 s apart.
		var tones []mediatest.Tone
		for i := range 6 {
			tones = append(tones, mediatest.Tone{Start: time.Duration(500+4500*i) * time.Millisecond, Length: 3 * time.Second, Hz: 300 + 100*i})
		}
		wav := filepath.Join(b.dir, "long.wav")
		total := 27500 * time.Millisecond
		mediatest.Tones(t, wav, total, tones...)

		silences, err := media.Silences(b.ctx, wav)
		require.NoError(t, err)
		require.Len(t, silences, 7, "%+v", silences)
		require.Equal(t, total, silences[6].End, "the trailing silence ends with the recording")

		chunks, err := media.Chunks(b.ctx, wav, b.dir, 10*time.Second)
		require.NoError(t, err)
		require.Len(t, chunks, 3)
		var heard []mediatest.Heard
		next := time.Duration(0)
		for _, c := range chunks {
			require.Equal(t, next, c.Offset, "chunks follow each other")
			require.LessOrEqual(t, c.Duration, 10*time.Second)
			info, err := media.Probe(b.ctx, c.Path)
			require.NoError(t, err)
			require.InDelta(t, c.Duration.Seconds(), info.Duration.Seconds(), 0.001, "the file lasts what the chunk says")
			for _, h := range listen(t, c.Path) {
				h.Start += c.Offset.Seconds()
				h.End += c.Offset.Seconds()
				heard = append(heard, h)
			}
			next = c.Offset + c.Duration
		}
		require.Equal(t, total, next)
		// Every utterance whole, once, at its own time: no cut fell inside one.
		requireHeard(t, tones, heard)
	})

	t.Run("HardCutWithoutPauses", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		wav := filepath.Join(b.dir, "monologue.wav")
		mediatest.Tones(t, wav, 20500*time.Millisecond, mediatest.Tone{Length: 21 * time.Second, Hz: 600})
		chunks, err := media.Chunks(b.ctx, wav, b.dir, 10*time.Second)
		require.NoError(t, err)
		// 10 s, then 10 s would leave a 0.5 s sliver: the last cut moves back.
		want := []time.Duration{0, 10 * time.Second, 19500 * time.Millisecond}
		require.Len(t, chunks, len(want))
		for i, c := range chunks {
			require.Equal(t, want[i], c.Offset)
			info, err := media.Probe(b.ctx, c.Path)
			require.NoError(t, err)
			require.InDelta(t, c.Duration.Seconds(), info.Duration.Seconds(), 0.001)
		}
		require.Equal(t, time.Second, chunks[2].Duration)
	})

	t.Run("ShortIsWhole", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		wav := filepath.Join(mediatest.LibriVoxDir, "sense_and_sensibility_01_austen_64kb-0870.wav")
		chunks, err := media.Chunks(b.ctx, wav, b.dir, 10*time.Second)
		require.NoError(t, err)
		require.Equal(t, []media.Chunk{{Path: wav, Duration: 7100 * time.Millisecond}}, chunks)
	})

	t.Run("TooShortALimit", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, err := media.Chunks(b.ctx, filepath.Join(mediatest.LibriVoxDir, "sense_and_sensibility_01_austen_64kb-0870.wav"), b.dir, time.Second)
		require.ErrorContains(t, err, "chunk length 1s is under 2s")
	})
}

// TestMeasureReader: every format an upload takes is measured through a
// pipe, although a pipe's probe cannot tell the length of WAV, MP3 and Ogg;
// what is not audio is ErrNotAudio.
func TestMeasureReader(t *testing.T) {
	t.Parallel()
	formats := map[string][]string{"wav": nil, "mp3": {"-c:a", "libmp3lame"}, "ogg": {"-c:a", "libopus"}, "flac": nil,
		"m4a": {"-c:a", "aac"}, "webm": {"-c:a", "libopus"}}
	for ext, args := range formats {
		t.Run(ext, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			path := filepath.Join(b.dir, "call."+ext)
			mediatest.FFmpeg(t, append([]string{"-f", "lavfi", "-i", "sine=frequency=440:duration=3.5"}, append(args, path)...)...)
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			d, err := media.MeasureReader(b.ctx, f)
			require.NoError(t, err)
			require.InDelta(t, 3.5, d.Seconds(), 0.08)
		})
	}
	t.Run("not audio", func(t *testing.T) {
		t.Parallel()
		_, err := media.MeasureReader(setup(t).ctx, strings.NewReader("Agent: hello\nCustomer: hi\n"))
		require.ErrorIs(t, err, media.ErrNotAudio)
	})
}
