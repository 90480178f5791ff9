// Package media recognises audio files by their content: magic bytes first,
// then ffprobe, which must find an audio stream.
package media

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// HeadSize is how many leading bytes Sniff needs to recognise a format.
const HeadSize = 64

// Format is a recognised audio container.
type Format struct {
	// Name is a short name: wav, mp3, ogg, flac, m4a, webm.
	Name string
	// ContentType is the media type the file is served with.
	ContentType string
}

// Sniff recognises an audio container by the magic bytes at the start of
// head (at least HeadSize bytes, or the whole file if shorter).
func Sniff(head []byte) (Format, bool) {
	switch {
	case len(head) >= 12 && (string(head[:4]) == "RIFF" || string(head[:4]) == "RF64") && string(head[8:12]) == "WAVE":
		return Format{"wav", "audio/wav"}, true
	case bytes.HasPrefix(head, []byte("ID3")) || isMPEGAudioFrame(head):
		return Format{"mp3", "audio/mpeg"}, true
	case bytes.HasPrefix(head, []byte("OggS")):
		return Format{"ogg", "audio/ogg"}, true
	case bytes.HasPrefix(head, []byte("fLaC")):
		return Format{"flac", "audio/flac"}, true
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		return Format{"m4a", "audio/mp4"}, true
	case bytes.HasPrefix(head, []byte{0x1a, 0x45, 0xdf, 0xa3}):
		return Format{"webm", "audio/webm"}, true
	}
	return Format{}, false
}

// isMPEGAudioFrame recognises an MPEG audio frame header: an 11-bit frame
// sync, a defined version and layer, and a bitrate and sample rate index
// that are not reserved. (AAC ADTS shares the sync but has layer 0.)
func isMPEGAudioFrame(b []byte) bool {
	if len(b) < 4 || b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return false
	}
	version, layer := (b[1]>>3)&3, (b[1]>>1)&3
	bitrate, rate := b[2]>>4, (b[2]>>2)&3
	return version != 1 && layer != 0 && bitrate != 15 && rate != 3
}

// Info is what ffprobe found in a file.
type Info struct {
	// Format is ffprobe's name of the container, such as "wav" or "mov,mp4,m4a,3gp,3g2,mj2".
	Format string
	// Codec is the first audio stream's codec.
	Codec      string
	Channels   int
	SampleRate int
	// Duration in seconds, when the container states it (nil otherwise:
	// some containers state it only at their end, which a pipe cannot reach).
	Duration *float64
}

// ErrNoAudio means ffprobe could not read the file as audio.
var ErrNoAudio = errors.New("not a readable audio file")

// Prober runs ffprobe.
type Prober struct {
	// Path is the ffprobe binary. Defaults to "ffprobe" on PATH.
	Path string
}

// Probe runs ffprobe on r, read through a pipe: most containers describe
// themselves in their first bytes, so ffprobe stops early and r need not be
// seekable. It returns ErrNoAudio (wrapped with ffprobe's complaint) when
// ffprobe finds no audio stream, and other errors when ffprobe cannot run.
func (p Prober) Probe(ctx context.Context, r io.Reader) (Info, error) {
	path := p.Path
	if path == "" {
		path = "ffprobe"
	}
	cmd := exec.CommandContext(ctx, path, "-v", "error", "-print_format", "json",
		"-show_format", "-show_streams", "-i", "pipe:0")
	// ffprobe exits once it knows enough; the rest of r is not needed, and
	// the broken pipe that ends the copy is not an error (os/exec ignores
	// EPIPE on stdin).
	cmd.Stdin = r
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return Info{}, fmt.Errorf("%w: %s", ErrNoAudio, firstLine(stderr.String()))
	}
	if err != nil {
		return Info{}, fmt.Errorf("ffprobe: %w", err)
	}
	var out struct {
		Format struct {
			FormatName string `json:"format_name"`
			Duration   string `json:"duration"`
		} `json:"format"`
		Streams []struct {
			CodecType  string `json:"codec_type"`
			CodecName  string `json:"codec_name"`
			Channels   int    `json:"channels"`
			SampleRate string `json:"sample_rate"`
			Duration   string `json:"duration"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return Info{}, fmt.Errorf("ffprobe output: %w", err)
	}
	for _, s := range out.Streams {
		if s.CodecType != "audio" {
			continue
		}
		info := Info{Format: out.Format.FormatName, Codec: s.CodecName, Channels: s.Channels}
		info.SampleRate, _ = strconv.Atoi(s.SampleRate)
		for _, d := range []string{out.Format.Duration, s.Duration} {
			if v, err := strconv.ParseFloat(d, 64); err == nil && v >= 0 {
				info.Duration = &v
				break
			}
		}
		return info, nil
	}
	return Info{}, fmt.Errorf("%w: no audio stream", ErrNoAudio)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if s == "" {
		return "ffprobe could not read it"
	}
	return s
}
