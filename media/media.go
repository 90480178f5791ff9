// Package media inspects and reshapes recordings with ffmpeg and ffprobe:
// what a file holds, the 16 kHz mono WAV that speech engines take, one file
// per channel of a stereo call, and chunks of a long recording cut in its
// silences. Every call runs the tools bound to its context.
package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SampleRate is the sample rate of the WAV files this package writes, the
// rate speech recognisers are trained on.
const SampleRate = 16000

// BytesPerSecond is the data rate of the WAV files this package writes
// (16-bit mono at SampleRate): a minute takes 1.92 MB.
const BytesPerSecond = SampleRate * 2

// WAVHeaderSize is the size of the header of the WAV files this package writes.
const WAVHeaderSize = 44

// ErrNotAudio is returned (wrapped, with ffprobe's explanation) for a file
// that is not a recording: not a media file at all, or one with no audio
// stream.
var ErrNotAudio = errors.New("not an audio file")

// ErrNoAudioTrack is ErrNotAudio for a media file without an audio stream
// (a video without sound); errors.Is finds ErrNotAudio in it too.
var ErrNoAudioTrack = fmt.Errorf("%w: no audio track", ErrNotAudio)

// Info describes a recording's first audio stream.
type Info struct {
	// Duration is how long the audio lasts; zero when the container does not
	// say (an empty file, or a stream without an index).
	Duration time.Duration
	// Channels is the number of audio channels: 1 for mono, 2 for stereo.
	Channels int
	// SampleRate is in hertz.
	SampleRate int
	// Codec is ffmpeg's name for the audio codec, such as "pcm_s16le", "mp3", "opus".
	Codec string
	// Format is ffmpeg's name for the container, such as "wav" or "mov,mp4,m4a,3gp,3g2,mj2".
	Format string
}

// Probe reads what path holds with ffprobe. It returns an error wrapping
// ErrNotAudio when path is not a media file or has no audio stream, the
// os.Stat error when path cannot be read, and a *ToolError when ffprobe
// fails otherwise.
func Probe(ctx context.Context, path string) (Info, error) {
	if _, err := os.Stat(path); err != nil {
		return Info{}, err
	}
	return probe(ctx, path, nil, filepath.Base(path))
}

// ProbeReader is Probe on a stream read through a pipe: most containers
// describe themselves in their first bytes, so ffprobe stops early and r
// need not be seekable (the broken pipe that ends the copy is not an
// error). Duration may then be zero: some containers state it only at
// their end (MeasureReader measures it).
func ProbeReader(ctx context.Context, r io.Reader) (Info, error) {
	return probe(ctx, "pipe:0", r, "the file")
}

// MeasureReader measures how long the first audio stream that r holds
// lasts, reading it whole: for the containers that do not state their
// length where a pipe can read it (WAV, MP3 and Ogg state it at their end,
// or leave it to the file's size). The stream is copied to nowhere (ffmpeg
// -c copy -f null), not decoded: an hour of MP3 takes a fraction of a
// second. It returns an error wrapping ErrNotAudio when ffmpeg cannot read
// r, and zero when r holds no audio packet.
func MeasureReader(ctx context.Context, r io.Reader) (time.Duration, error) {
	out, _, err := run(ctx, r, "ffmpeg", "-v", "error", "-nostdin", "-nostats", "-i", "pipe:0",
		"-map", "0:a:0", "-c", "copy", "-f", "null", "-progress", "pipe:1", "-")
	if te, ok := errors.AsType[*ToolError](err); ok && te.exited() {
		return 0, fmt.Errorf("%w: %s", ErrNotAudio, firstLine(te.Stderr))
	}
	if err != nil {
		return 0, err
	}
	// -progress ends with the totals: the last out_time_us is the end of
	// the last packet copied.
	var d time.Duration
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "out_time_us="); ok {
			if us, err := strconv.ParseInt(v, 10, 64); err == nil && us > 0 {
				d = time.Duration(us) * time.Microsecond
			}
		}
	}
	return d, nil
}

func probe(ctx context.Context, input string, stdin io.Reader, name string) (Info, error) {
	out, _, err := run(ctx, stdin, "ffprobe", "-v", "error", "-print_format", "json",
		"-show_format", "-show_streams", "-select_streams", "a", "-i", input)
	if err != nil {
		if te, ok := errors.AsType[*ToolError](err); ok && te.exited() {
			// ffprobe ran: it could not read the input as media.
			return Info{}, fmt.Errorf("%w: %s", ErrNotAudio, firstLine(te.Stderr))
		}
		return Info{}, err
	}
	var probe struct {
		Streams []struct {
			CodecType  string `json:"codec_type"`
			CodecName  string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
			Duration   string `json:"duration"`
		} `json:"streams"`
		Format struct {
			FormatName string `json:"format_name"`
			Duration   string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &probe); err != nil {
		return Info{}, fmt.Errorf("ffprobe: reading its JSON: %w", err)
	}
	for _, s := range probe.Streams {
		if s.CodecType != "audio" {
			continue
		}
		rate, _ := strconv.Atoi(s.SampleRate)
		// Streams of some containers (WebM, Ogg) carry no duration of their own.
		d := seconds(s.Duration)
		if d == 0 {
			d = seconds(probe.Format.Duration)
		}
		return Info{Duration: d, Channels: s.Channels, SampleRate: rate, Codec: s.CodecName, Format: probe.Format.FormatName}, nil
	}
	return Info{}, fmt.Errorf("%w: %s (%s)", ErrNoAudioTrack, name, probe.Format.FormatName)
}

// firstLine keeps ffprobe's first complaint, which says what was wrong.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if s == "" {
		return "ffprobe could not read it"
	}
	return s
}

// seconds parses a decimal number of seconds as ffmpeg prints them; anything
// else (ffprobe prints "N/A" when it does not know) is zero.
func seconds(s string) time.Duration {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// wavOutput are the ffmpeg output options of every WAV this package writes:
// 16 kHz 16-bit PCM with a plain 44-byte header (no metadata chunk), which
// every recogniser reads.
var wavOutput = []string{"-ar", strconv.Itoa(SampleRate), "-c:a", "pcm_s16le",
	"-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", "-f", "wav"}

// ffmpeg runs ffmpeg quietly, overwriting outputs, never reading the terminal.
func ffmpeg(ctx context.Context, args ...string) error {
	_, _, err := Run(ctx, "ffmpeg", append([]string{"-nostdin", "-hide_banner", "-v", "error", "-y"}, args...)...)
	return err
}

// Normalise converts the first audio stream of in to a 16 kHz mono 16-bit
// WAV file created in outDir (under a name of its own, so in may be in
// outDir too) and returns its path. Several channels are mixed down. It
// returns a *ToolError quoting ffmpeg when the conversion fails.
func Normalise(ctx context.Context, in, outDir string) (string, error) {
	out, err := newWAV(outDir, "normalised")
	if err != nil {
		return "", err
	}
	args := append([]string{"-i", in, "-map", "0:a:0", "-ac", "1"}, wavOutput...)
	if err := ffmpeg(ctx, append(args, out)...); err != nil {
		_ = os.Remove(out)
		return "", err
	}
	return out, nil
}

// SplitChannels writes the first two channels of in as two 16 kHz mono
// 16-bit WAV files in outDir and returns their paths, left then right. It
// returns an error when in has fewer than two channels, Probe's errors, and
// a *ToolError quoting ffmpeg when the conversion fails.
func SplitChannels(ctx context.Context, in, outDir string) (left, right string, err error) {
	info, err := Probe(ctx, in)
	if err != nil {
		return "", "", err
	}
	if info.Channels < 2 {
		return "", "", fmt.Errorf("media: %s has %d channel, not two", filepath.Base(in), info.Channels)
	}
	if left, err = newWAV(outDir, "left"); err != nil {
		return "", "", err
	}
	if right, err = newWAV(outDir, "right"); err != nil {
		_ = os.Remove(left)
		return "", "", err
	}
	// pan picks channels by index, so it works whatever layout the file
	// declares (or none), where channelsplit needs a known layout.
	args := []string{"-i", in, "-filter_complex", "[0:a:0]asplit[a][b];[a]pan=mono|c0=c0[l];[b]pan=mono|c0=c1[r]",
		"-map", "[l]"}
	args = append(append(args, wavOutput...), left, "-map", "[r]")
	args = append(append(args, wavOutput...), right)
	if err := ffmpeg(ctx, args...); err != nil {
		_ = os.Remove(left)
		_ = os.Remove(right)
		return "", "", err
	}
	return left, right, nil
}

// newWAV reserves a new, empty .wav file in dir.
func newWAV(dir, prefix string) (string, error) {
	f, err := os.CreateTemp(dir, prefix+"-*.wav")
	if err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// Peak returns the level of the loudest sample of path in dBFS: 0 is full
// scale, digital silence is about -91 (the floor of 16-bit audio) or -Inf.
// It returns a *ToolError quoting ffmpeg when path cannot be decoded.
func Peak(ctx context.Context, path string) (float64, error) {
	return peak(ctx, path, "volumedetect")
}

// ChannelDifferencePeak returns the peak level in dBFS of the left channel
// minus the right one of a stereo file. Far below the channels' own peaks,
// it shows a "stereo" file that carries the same signal twice. It returns a
// *ToolError quoting ffmpeg when path cannot be decoded or has one channel.
func ChannelDifferencePeak(ctx context.Context, path string) (float64, error) {
	return peak(ctx, path, "pan=mono|c0=c0-c1,volumedetect")
}

func peak(ctx context.Context, path, filter string) (float64, error) {
	// volumedetect reports at the end of the run, on the log at level info.
	_, stderr, err := Run(ctx, "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-v", "info",
		"-i", path, "-map", "0:a:0", "-af", filter, "-f", "null", "-")
	if err != nil {
		return 0, err
	}
	const key = "max_volume:"
	for line := range strings.Lines(string(stderr)) {
		_, v, ok := strings.Cut(line, key)
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "dB"))
		db, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("ffmpeg volumedetect: reading %q: %w", line, err)
		}
		return db, nil
	}
	// volumedetect says nothing when no sample went through it.
	return math.Inf(-1), nil
}

// Decode writes the first audio stream of in to w as raw signed 16-bit
// little-endian samples at rate hertz: its first two channels interleaved
// (left, right) when channels is 2, its first channel when it is 1 (see
// Probe). The samples stream through w as ffmpeg decodes them: an hour of
// audio is never held whole. It returns a *ToolError quoting ffmpeg when
// in cannot be decoded, has fewer channels, or w refuses the samples.
func Decode(ctx context.Context, in string, rate, channels int, w io.Writer) error {
	// pan picks channels by index, whatever layout the file declares.
	layout := "pan=mono|c0=c0"
	if channels == 2 {
		layout = "pan=stereo|c0=c0|c1=c1"
	}
	_, err := stream(ctx, nil, w, "ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-i", in, "-map", "0:a:0",
		"-af", layout, "-ar", strconv.Itoa(rate), "-c:a", "pcm_s16le", "-f", "s16le", "-")
	return err
}
