// Package mediatest builds recordings for tests with ffmpeg, reads the
// LibriVox recordings of Debian's pocketsphinx-testdata, and listens to
// tone recordings the way a recogniser would, so tests of speech handling
// can check times without a speech model.
package mediatest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/media"
)

// LibriVoxDir holds the LibriVox recordings (16 kHz mono WAV) and their
// reference transcription, from Debian's pocketsphinx-testdata.
const LibriVoxDir = "/usr/share/pocketsphinx/test/data/librivox"

// Recording is a LibriVox recording with what its reader says.
type Recording struct {
	// Name is the file's name without extension.
	Name string
	// Path is the WAV file.
	Path string
	// Reference is the words spoken, lower case.
	Reference string
	// Duration is how long the recording lasts.
	Duration time.Duration
}

// LibriVox returns the LibriVox recordings in the order of their fileids
// file; the test fails when they are not installed.
func LibriVox(tb testing.TB) []Recording {
	tb.Helper()
	f, err := os.Open(filepath.Join(LibriVoxDir, "transcription"))
	require.NoError(tb, err, "apt-get install pocketsphinx-testdata")
	defer f.Close()
	var recs []Recording
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// <s> words </s> (name)
		line := strings.TrimSpace(sc.Text())
		open := strings.LastIndex(line, "(")
		require.Positive(tb, open, "transcription line %q", line)
		name := strings.TrimSuffix(line[open+1:], ")")
		words := strings.Fields(line[:open])
		var ref []string
		for _, w := range words {
			if w != "<s>" && w != "</s>" {
				ref = append(ref, w)
			}
		}
		path := filepath.Join(LibriVoxDir, name+".wav")
		info, err := media.Probe(tb.Context(), path)
		require.NoError(tb, err)
		recs = append(recs, Recording{Name: name, Path: path, Reference: strings.Join(ref, " "), Duration: info.Duration})
	}
	require.NoError(tb, sc.Err())
	require.Len(tb, recs, 5)
	return recs
}

// FFmpeg runs ffmpeg with args (after quiet, overwriting defaults) and fails
// the test when it fails.
func FFmpeg(tb testing.TB, args ...string) {
	tb.Helper()
	_, _, err := media.Run(tb.Context(), "ffmpeg", append([]string{"-nostdin", "-hide_banner", "-v", "error", "-y"}, args...)...)
	require.NoError(tb, err)
}

// Clip places a recording at a time of a channel.
type Clip struct {
	Path string
	At   time.Duration
}

// Mix writes to out a recording of length total with one channel per
// element of channels (silence where no clip plays), in the format out's
// extension names, at 16 kHz.
func Mix(tb testing.TB, out string, total time.Duration, channels ...[]Clip) {
	tb.Helper()
	// amerge joins channels of one sample format only.
	const sameFormat = "aformat=sample_fmts=s16:sample_rates=16000:channel_layouts=mono"
	var args []string
	var graph []string
	var chans []string
	n := 0
	for c, clips := range channels {
		var labels []string
		for _, clip := range clips {
			args = append(args, "-i", clip.Path)
			label := fmt.Sprintf("c%d_%d", c, n)
			graph = append(graph, fmt.Sprintf("[%d:a:0]aformat=sample_rates=16000:channel_layouts=mono,adelay=delays=%d:all=1,apad=whole_dur=%g[%s]",
				n, clip.At.Milliseconds(), total.Seconds(), label))
			labels = append(labels, "["+label+"]")
			n++
		}
		ch := fmt.Sprintf("ch%d", c)
		switch len(labels) {
		case 0:
			graph = append(graph, fmt.Sprintf("anullsrc=r=16000:cl=mono:d=%g,%s[%s]", total.Seconds(), sameFormat, ch))
		default:
			graph = append(graph, fmt.Sprintf("%samix=inputs=%d:normalize=0:duration=longest,atrim=end=%g,%s[%s]",
				strings.Join(labels, ""), len(labels), total.Seconds(), sameFormat, ch))
		}
		chans = append(chans, "["+ch+"]")
	}
	if len(chans) == 1 {
		graph = append(graph, chans[0]+"anull[out]")
	} else {
		graph = append(graph, fmt.Sprintf("%samerge=inputs=%d[out]", strings.Join(chans, ""), len(chans)))
	}
	args = append(args, "-filter_complex", strings.Join(graph, ";"), "-map", "[out]", "-ar", "16000", out)
	FFmpeg(tb, args...)
}

// Tone is a sine tone of one channel.
type Tone struct {
	Start, Length time.Duration
	// Hz is the tone's frequency; keep it between 200 and 2000 and a
	// multiple of 100, which is what Listen reports.
	Hz int
	// Channel is 0 for the left (or only) channel, 1 for the right.
	Channel int
}

// Tones writes to out a recording of length total holding tones (silence
// elsewhere) in as many channels as the tones use, in the format out's
// extension names, at 16 kHz.
func Tones(tb testing.TB, out string, total time.Duration, tones ...Tone) {
	tb.Helper()
	channels := 1
	for _, t := range tones {
		channels = max(channels, t.Channel+1)
	}
	exprs := make([]string, channels)
	for c := range exprs {
		terms := []string{"0"}
		for _, t := range tones {
			if t.Channel == c {
				terms = append(terms, fmt.Sprintf("between(t,%g,%g)*0.5*sin(2*PI*%d*t)",
					t.Start.Seconds(), (t.Start+t.Length).Seconds(), t.Hz))
			}
		}
		exprs[c] = strings.Join(terms, "+")
	}
	src := fmt.Sprintf("aevalsrc=exprs='%s':s=16000:d=%g", strings.Join(exprs, "|"), total.Seconds())
	FFmpeg(tb, "-f", "lavfi", "-i", src, out)
}

// Heard is a tone Listen found.
type Heard struct {
	// Start and End are seconds from the start of the recording.
	Start, End float64
	// Hz is the tone's frequency, to the nearest 100.
	Hz int
}

// Listen finds the tones in wav, a 16-bit mono PCM WAV file's bytes: each
// stretch louder than -20 dBFS, with its frequency. It is the "recogniser"
// of fake speech servers in tests.
func Listen(wav []byte) ([]Heard, error) {
	samples, rate, err := pcm(wav)
	if err != nil {
		return nil, err
	}
	const frame = 10 * time.Millisecond
	n := int(float64(rate) * frame.Seconds())
	var heard []Heard
	var cur *Heard
	crossings := 0
	for i := 0; i+n <= len(samples); i += n {
		var sum float64
		for _, s := range samples[i : i+n] {
			sum += float64(s) * float64(s)
		}
		loud := math.Sqrt(sum/float64(n))/32768 > 0.1 // -20 dBFS
		t := float64(i) / float64(rate)
		switch {
		case loud && cur == nil:
			cur = &Heard{Start: t}
			crossings = 0
		case !loud && cur != nil:
			cur.End = t
			heard = append(heard, finish(*cur, crossings))
			cur = nil
		}
		if loud {
			for j := i + 1; j < i+n; j++ {
				if (samples[j-1] < 0) != (samples[j] < 0) {
					crossings++
				}
			}
		}
	}
	if cur != nil {
		cur.End = float64(len(samples)) / float64(rate)
		heard = append(heard, finish(*cur, crossings))
	}
	return heard, nil
}

func finish(h Heard, crossings int) Heard {
	hz := float64(crossings) / 2 / (h.End - h.Start)
	h.Hz = int(math.Round(hz/100) * 100)
	return h
}

// pcm decodes a 16-bit mono PCM WAV file.
func pcm(wav []byte) ([]int16, int, error) {
	if len(wav) < 12 || string(wav[:4]) != "RIFF" || string(wav[8:12]) != "WAVE" {
		return nil, 0, errors.New("not a WAV file")
	}
	rate := 0
	for p := 12; p+8 <= len(wav); {
		id, size := string(wav[p:p+4]), int(binary.LittleEndian.Uint32(wav[p+4:p+8]))
		body := wav[p+8 : min(len(wav), p+8+size)]
		switch id {
		case "fmt ":
			if len(body) < 16 || binary.LittleEndian.Uint16(body[0:2]) != 1 ||
				binary.LittleEndian.Uint16(body[2:4]) != 1 || binary.LittleEndian.Uint16(body[14:16]) != 16 {
				return nil, 0, errors.New("not 16-bit mono PCM")
			}
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
		case "data":
			if rate == 0 {
				return nil, 0, errors.New("data before fmt")
			}
			samples := make([]int16, len(body)/2)
			if err := binary.Read(bytes.NewReader(body[:2*len(samples)]), binary.LittleEndian, samples); err != nil {
				return nil, 0, err
			}
			return samples, rate, nil
		}
		p += 8 + size + size%2
	}
	return nil, 0, errors.New("no data chunk")
}

// NarrowBand writes to out (a WAV file) the recording at in as a telephone
// line carries it: 300 to 3400 Hz, 8 kHz, μ-law, as contact centres
// record calls.
func NarrowBand(tb testing.TB, in, out string) {
	tb.Helper()
	FFmpeg(tb, "-i", in, "-af", "highpass=f=300,lowpass=f=3400", "-ar", "8000", "-ac", "1", "-c:a", "pcm_mulaw", out)
}

// Speak writes to out (a WAV file) text said by espeak-ng's voice ("es",
// "en-us"): real audio of a language, which speech engines recognise
// poorly, so tests should assert no words on it.
func Speak(tb testing.TB, voice, text, out string) {
	tb.Helper()
	_, _, err := media.Run(tb.Context(), "espeak-ng", "-v", voice, "-w", out, text)
	require.NoError(tb, err, "apt-get install espeak-ng")
}
