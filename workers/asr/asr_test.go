package asr_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/workers/asr"
	"github.com/auditd/auditd/workers/asr/asrtest"
)

// maxWER is the word error rate PocketSphinx may reach on the LibriVox
// recordings, over all of them. Measured on this machine: 26 errors in 71
// reference words, 0.366 (Debian's 0.8+5prealpha en-us model; "mr" for
// "mister" counts as an error). The margin allows five more errors, for
// another build of the recogniser; a broken pipeline (wrong sample rate,
// lost channel, cut audio, misparsed output) lands far above it.
const maxWER = 0.44

type testBundle struct {
	ctx context.Context
	dir string
}

func setup(t *testing.T) testBundle {
	t.Helper()
	return testBundle{ctx: t.Context(), dir: t.TempDir()}
}

// openai returns an engine talking to the fake server.
func (f fakeServer) engine(t *testing.T) *asr.OpenAI {
	t.Helper()
	e, err := asr.NewOpenAI(asr.OpenAIConfig{BaseURL: f.URL, APIKey: "sk-test", Model: "whisper-1"})
	require.NoError(t, err)
	return e
}

// span is a segment's speaker, times and text, for comparisons.
type span struct {
	Speaker    string
	Start, End float64
	Text       string
}

func spans(segments []transcript.Segment) []span {
	out := make([]span, len(segments))
	for i, s := range segments {
		out[i] = span{Speaker: s.Speaker, Start: *s.Start, End: *s.End, Text: s.Text}
	}
	return out
}

// requireSpans compares segments with those expected, times to 30 ms.
func requireSpans(t *testing.T, want []span, got []transcript.Segment) {
	t.Helper()
	require.Len(t, got, len(want), "%+v", spans(got))
	for i, g := range spans(got) {
		require.Equal(t, want[i].Speaker, g.Speaker, "segment %d: %+v", i, g)
		require.Equal(t, want[i].Text, g.Text, "segment %d: %+v", i, g)
		require.InDelta(t, want[i].Start, g.Start, 0.03, "segment %d: %+v", i, g)
		require.InDelta(t, want[i].End, g.End, 0.03, "segment %d: %+v", i, g)
	}
}

func TestPocketSphinxLibriVox(t *testing.T) {
	t.Parallel()
	b := setup(t)
	recs := mediatest.LibriVox(t)

	results := make([]transcript.Transcript, len(recs))
	g, ctx := errgroup.WithContext(b.ctx)
	g.SetLimit(2) // the recogniser takes a core
	for i, r := range recs {
		g.Go(func() error {
			tr, err := asr.Transcribe(ctx, asr.PocketSphinx{}, r.Path, asr.Options{Language: "en-US", WorkDir: b.dir})
			results[i] = tr
			return err
		})
	}
	require.NoError(t, g.Wait())

	edits, words := 0, 0
	for i, r := range recs {
		tr := results[i]
		require.Equal(t, "pocketsphinx", tr.Engine)
		require.Equal(t, "en", tr.Language)
		require.NotEmpty(t, tr.Segments)
		prev := 0.0
		for _, s := range tr.Segments {
			require.Equal(t, transcript.Unknown, s.Speaker)
			require.GreaterOrEqual(t, *s.Start, prev)
			require.GreaterOrEqual(t, *s.End, *s.Start)
			require.LessOrEqual(t, *s.End, r.Duration.Seconds())
			prev = *s.End
		}
		e, n := wer(r.Reference, tr.Text)
		t.Logf("%s: WER %d/%d\n  reference:  %s\n  hypothesis: %s", r.Name, e, n, r.Reference, tr.Text)
		edits += e
		words += n
	}
	rate := float64(edits) / float64(words)
	t.Logf("LibriVox WER %d/%d = %.3f (threshold %.2f)", edits, words, rate, maxWER)
	require.LessOrEqual(t, rate, maxWER)

	entries, err := os.ReadDir(b.dir)
	require.NoError(t, err)
	require.Empty(t, entries, "Transcribe cleans up after itself")
}

func TestWER(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ref, hyp     string
		edits, words int
	}{
		{"he was not an ill disposed young man", "He was not an ill-disposed young man.", 0, 8},
		{"he was not an ill disposed young man", "he was not an illness those young man", 2, 8},
		{"a b c", "", 3, 3},
		{"a b c", "x a b c", 1, 3},
		{"don't stop", "dont stop", 1, 2},
		{"kitten sitting", "sitting kitten", 2, 2},
	} {
		edits, words := wer(tc.ref, tc.hyp)
		require.Equal(t, [2]int{tc.edits, tc.words}, [2]int{edits, words}, "%q vs %q", tc.ref, tc.hyp)
	}
}

func TestPocketSphinxStereo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	recs := mediatest.LibriVox(t)
	// One reader per channel, taking turns: 0880 (3.0 s) on the left at 0,
	// 0890 (5.3 s) on the right at 3.5, 0930 (3.3 s) on the left at 9.5.
	call := filepath.Join(b.dir, "call.flac")
	mediatest.Mix(t, call, 13500*time.Millisecond,
		[]mediatest.Clip{{Path: recs[1].Path}, {Path: recs[4].Path, At: 9500 * time.Millisecond}},
		[]mediatest.Clip{{Path: recs[2].Path, At: 3500 * time.Millisecond}})

	for _, tc := range []struct {
		agent       asr.Channel
		left, right string
	}{
		{asr.Left, transcript.Agent, transcript.Customer},
		{asr.Right, transcript.Customer, transcript.Agent},
	} {
		t.Run(string(tc.agent), func(t *testing.T) {
			t.Parallel()
			tr, err := asr.Transcribe(b.ctx, asr.PocketSphinx{}, call, asr.Options{SplitStereo: true, AgentChannel: tc.agent})
			require.NoError(t, err)
			for _, s := range spans(tr.Segments) {
				t.Logf("%+v", s)
			}
			// The turns in time order, each from its side, near where it was placed.
			var turns []span
			for _, s := range spans(tr.Segments) {
				if n := len(turns); n > 0 && turns[n-1].Speaker == s.Speaker {
					turns[n-1].End, turns[n-1].Text = s.End, turns[n-1].Text+" "+s.Text
					continue
				}
				turns = append(turns, s)
			}
			require.Len(t, turns, 3, "%+v", turns)
			want := []struct {
				speaker    string
				start, end float64
				words      string
			}{
				{tc.left, 0, 3.0, "young man"},
				{tc.right, 3.5, 8.8, "rather selfish"},
				{tc.left, 9.5, 12.8, "might even have been made"},
			}
			for i, w := range want {
				require.Equal(t, w.speaker, turns[i].Speaker, "turn %d", i)
				require.InDelta(t, w.start, turns[i].Start, 0.5, "turn %d", i)
				require.InDelta(t, w.end, turns[i].End, 0.5, "turn %d", i)
				require.Contains(t, turns[i].Text, w.words, "turn %d", i)
			}
			require.Equal(t, "pocketsphinx", tr.Engine)
		})
	}
}

func TestPocketSphinxRefuses(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wav := mediatest.LibriVox(t)[1].Path

	t.Run("OtherLanguage", func(t *testing.T) {
		t.Parallel()
		_, err := asr.PocketSphinx{}.Transcribe(b.ctx, asr.Input{Path: wav, Language: "es-MX"})
		require.ErrorIs(t, err, asr.ErrUnsupportedLanguage)
		require.ErrorContains(t, err, `pocketsphinx transcribes "en", the recording is "es-MX"`)
		require.True(t, asr.Permanent(err))
	})

	t.Run("BrokenModelQuotesRecogniser", func(t *testing.T) {
		t.Parallel()
		_, err := asr.PocketSphinx{Args: []string{"-hmm", filepath.Join(b.dir, "missing-model")}}.Transcribe(b.ctx, asr.Input{Path: wav})
		te, ok := errors.AsType[*media.ToolError](err)
		require.True(t, ok, "%v", err)
		require.Equal(t, "pocketsphinx_continuous", te.Tool)
		require.Contains(t, te.Stderr, "missing-model")
		require.False(t, asr.Permanent(err))
	})

	t.Run("NotInstalled", func(t *testing.T) {
		t.Parallel()
		_, err := asr.PocketSphinx{Command: "pocketsphinx-not-installed"}.Transcribe(b.ctx, asr.Input{Path: wav})
		require.ErrorContains(t, err, `pocketsphinx-not-installed: exec: "pocketsphinx-not-installed": executable file not found`)
	})
}

func TestNoSpeech(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name   string
		source string // an ffmpeg lavfi source
	}{
		{"DigitalSilence", "anullsrc=r=16000:cl=mono:d=5"},
		{"LineHiss", "anoisesrc=r=16000:a=0.001:d=5"}, // -60 dBFS
		{"Empty", "anullsrc=r=16000:cl=mono:d=0"},
		{"SilentStereo", "anullsrc=r=16000:cl=stereo:d=5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			server := newFakeServer(t)
			path := filepath.Join(b.dir, "call.wav")
			mediatest.FFmpeg(t, "-f", "lavfi", "-i", tc.source, path)
			for _, engine := range []asr.Engine{server.engine(t), asr.PocketSphinx{}} {
				tr, err := asr.Transcribe(b.ctx, engine, path, asr.Options{SplitStereo: true, MaxChunk: 10 * time.Second})
				require.ErrorIs(t, err, asr.ErrNoSpeech)
				require.EqualError(t, err, "no speech found")
				require.True(t, asr.Permanent(err))
				require.Zero(t, tr)
			}
			require.Empty(t, server.Uploads(), "silence is never sent to a server, whose model would make words up")
		})
	}

	t.Run("EngineHearsNothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		server := newFakeServer(t, asrtest.Answer{Status: 200, Body: `{"text":"","segments":[{"start":0,"end":1,"text":"  "}]}`})
		_, err := asr.Transcribe(b.ctx, server.engine(t), mediatest.LibriVox(t)[1].Path, asr.Options{})
		require.ErrorIs(t, err, asr.ErrNoSpeech)
		require.Len(t, server.Uploads(), 1)
	})
}

func TestNotAudio(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := filepath.Join(b.dir, "chat.mp3")
	require.NoError(t, os.WriteFile(path, []byte("Agent: good morning\nCustomer: hello\n"), 0o600))
	server := newFakeServer(t)
	_, err := asr.Transcribe(b.ctx, server.engine(t), path, asr.Options{})
	require.ErrorIs(t, err, media.ErrNotAudio)
	require.ErrorContains(t, err, "not an audio file: ")
	require.ErrorContains(t, err, "chat.mp3")
	require.True(t, asr.Permanent(err))
	require.Empty(t, server.Uploads())

	_, err = asr.Transcribe(b.ctx, server.engine(t), filepath.Join(b.dir, "gone.wav"), asr.Options{})
	require.ErrorIs(t, err, os.ErrNotExist)
	require.False(t, asr.Permanent(err))
}

func TestOptions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wav := mediatest.LibriVox(t)[1].Path
	server := newFakeServer(t)
	for _, tc := range []struct {
		opts asr.Options
		err  string
	}{
		{asr.Options{AgentChannel: "middle"}, `asr: agent channel "middle" is neither left nor right`},
		{asr.Options{MaxChunk: time.Second}, "asr: chunk limit 1s is under 2s"},
		{asr.Options{MaxChunkBytes: 32044}, "asr: chunk limit 1s is under 2s"},
		{asr.Options{MaxChunk: -time.Second}, "asr: chunk limits cannot be negative"},
	} {
		_, err := asr.Transcribe(b.ctx, server.engine(t), wav, tc.opts)
		require.EqualError(t, err, tc.err)
	}
	require.Empty(t, server.Uploads())
}

// tones is a recording of six 3-second "utterances", 1.5 s apart, each at
// its own pitch, and what the fake server hears in it.
func tones(t *testing.T, dir string, channel int) (string, []span) {
	t.Helper()
	var ts []mediatest.Tone
	var want []span
	for i := range 6 {
		start := time.Duration(500+4500*i) * time.Millisecond
		ts = append(ts, mediatest.Tone{Start: start, Length: 3 * time.Second, Hz: 300 + 100*i, Channel: channel})
		want = append(want, span{Speaker: transcript.Unknown, Start: start.Seconds(), End: start.Seconds() + 3, Text: fmt.Sprintf("tone %d", 300+100*i)})
	}
	path := filepath.Join(dir, "long.ogg")
	mediatest.Tones(t, path, 27500*time.Millisecond, ts...)
	return path, want
}

func TestStereoTones(t *testing.T) {
	t.Parallel()

	t.Run("SameSignalTwiceIsMono", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		server := newFakeServer(t)
		mono, want := tones(t, b.dir, 0)
		stereo := filepath.Join(b.dir, "stereo.mp3")
		mediatest.FFmpeg(t, "-i", mono, "-ac", "2", stereo)
		tr, err := asr.Transcribe(b.ctx, server.engine(t), stereo, asr.Options{SplitStereo: true})
		require.NoError(t, err)
		requireSpans(t, want, tr.Segments)
		require.Len(t, server.Uploads(), 1, "transcribed once, not once per channel")
	})

	t.Run("OneSideSilent", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		server := newFakeServer(t)
		path, want := tones(t, b.dir, 1)
		tr, err := asr.Transcribe(b.ctx, server.engine(t), path, asr.Options{SplitStereo: true, AgentChannel: asr.Right})
		require.NoError(t, err)
		for i := range want {
			want[i].Speaker = transcript.Agent
		}
		requireSpans(t, want, tr.Segments)
		require.Len(t, server.Uploads(), 1, "the silent side is not sent")
	})

	t.Run("NotSplit", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		server := newFakeServer(t)
		path, want := tones(t, b.dir, 1)
		tr, err := asr.Transcribe(b.ctx, server.engine(t), path, asr.Options{})
		require.NoError(t, err)
		// Mixed down, the tones lose half their level but are all there.
		requireSpans(t, want, tr.Segments)
	})
}

// PocketSphinx's word posteriors tell its clean transcripts from nonsense:
// a LibriVox reading is reliable at 16 kHz and unreliable once narrowed
// to a telephone line's band, and Spanish heard by the English model is
// unreliable (figures in docs/engines.md).
func TestPocketSphinxQuality(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var reading mediatest.Recording
	for _, r := range mediatest.LibriVox(t) {
		if strings.HasSuffix(r.Name, "-0930") { // "he might even have been made amiable himself", 3 s
			reading = r
		}
	}
	narrow := filepath.Join(b.dir, "narrow.wav")
	mediatest.NarrowBand(t, reading.Path, narrow)
	spanish := filepath.Join(b.dir, "spanish.wav")
	mediatest.Speak(t, "es", "Buenos días, le atiende Marta, ¿en qué puedo ayudarle? "+
		"Quería saber por qué me han cobrado dos veces la factura de este mes.", spanish)

	cases := []struct {
		name, path string
		unreliable string
	}{
		{"clean 16 kHz reading", reading.Path, ""},
		{"the same reading at 8 kHz", narrow, transcript.LowQuality},
		{"Spanish through the English model", spanish, transcript.LowQuality},
	}
	results := make([]transcript.Transcript, len(cases))
	g, ctx := errgroup.WithContext(b.ctx)
	g.SetLimit(2) // the recogniser takes a core
	for i, c := range cases {
		g.Go(func() (err error) {
			results[i], err = asr.Transcribe(ctx, asr.PocketSphinx{}, c.path, asr.Options{WorkDir: t.TempDir(),
				QualityFloor: transcript.DefaultQualityFloor})
			return err
		})
	}
	require.NoError(t, g.Wait())
	for i, c := range cases {
		q := results[i].Quality
		require.NotNil(t, q, c.name)
		require.NotNil(t, q.Score, c.name)
		t.Logf("%s: quality %.3f, %.2f words/s, %d of %d segments under the floor: %q", c.name, *q.Score, *q.WordsPerSecond,
			q.DoubtfulSegments, len(results[i].Segments), results[i].Text)
		require.Equal(t, c.unreliable, q.Unreliable, c.name)
		for _, s := range results[i].Segments {
			require.NotNil(t, s.Quality)
			require.True(t, *s.Quality >= 0 && *s.Quality <= 1, *s.Quality)
		}
	}
}
