package media

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// encode makes a tone of seconds in the given container with ffmpeg.
func encode(t *testing.T, name string, seconds int, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	tone := fmt.Sprintf("sine=frequency=440:duration=%d", seconds)
	cmd := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-f", "lavfi", "-i", tone}, args...), out)...)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return data
}

func TestSniffAndProbeEveryFormat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file   string
		args   []string
		format string
		codec  string
	}{
		{"a.wav", nil, "wav", "pcm_s16le"},
		{"a.mp3", []string{"-c:a", "libmp3lame"}, "mp3", "mp3"},
		{"a.ogg", []string{"-c:a", "libopus"}, "ogg", "opus"},
		{"a.flac", nil, "flac", "flac"},
		{"a.m4a", []string{"-c:a", "aac"}, "m4a", "aac"},
		{"a.webm", []string{"-c:a", "libopus"}, "webm", "opus"},
		// An MP3 without an ID3 tag starts with a frame header.
		{"raw.mp3", []string{"-c:a", "libmp3lame", "-id3v2_version", "0", "-write_xing", "0"}, "mp3", "mp3"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data := encode(t, tc.file, 1, tc.args...)
			f, ok := Sniff(data[:min(len(data), HeadSize)])
			require.True(t, ok, "% x", data[:16])
			require.Equal(t, tc.format, f.Name)
			info, err := ProbeReader(context.Background(), bytes.NewReader(data))
			require.NoError(t, err)
			require.Equal(t, tc.codec, info.Codec)
			require.Equal(t, 1, info.Channels)
			if info.Duration > 0 {
				require.InDelta(t, 1.0, info.Duration.Seconds(), 0.1)
			}
		})
	}
}

func TestSniffRejects(t *testing.T) {
	t.Parallel()
	for name, head := range map[string][]byte{
		"text":       []byte("Agent: hello there, how are you?"),
		"png":        {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0},
		"riff avi":   []byte("RIFF\x00\x00\x00\x00AVI LIST"),
		"aac adts":   {0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0},
		"empty":      {},
		"short riff": []byte("RIFF"),
	} {
		_, ok := Sniff(head)
		require.False(t, ok, name)
	}
}

func TestProbeRejectsWhatOnlyLooksLikeAudio(t *testing.T) {
	t.Parallel()
	// A WAV header over garbage: the magic bytes match, ffprobe does not agree.
	fake := append([]byte("RIFF\x24\x00\x00\x00WAVEjunk"), bytes.Repeat([]byte{0x42}, 4096)...)
	_, ok := Sniff(fake)
	require.True(t, ok)
	_, err := ProbeReader(context.Background(), bytes.NewReader(fake))
	require.ErrorIs(t, err, ErrNotAudio)

	// A large stream is not read to its end: ffprobe stops after the head
	// (its analysis needs a few seconds of audio).
	wav := encode(t, "a.wav", 30)
	r := &countingReader{r: io.MultiReader(bytes.NewReader(wav), zeros{})}
	_, err = ProbeReader(context.Background(), io.LimitReader(r, 1<<30))
	require.NoError(t, err)
	require.Less(t, r.n, int64(64<<20))
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
