// Package asr turns call recordings into timed, speaker-labelled
// transcripts. Transcribe prepares a recording with package media (probe,
// normalise, split a stereo call by channel, cut a long one into chunks) and
// hands each piece to an Engine: PocketSphinx offline, or any server that
// speaks OpenAI's /v1/audio/transcriptions.
package asr

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/transcript"
)

// ErrNoSpeech is returned by Transcribe for a recording that is empty,
// silent, or in which the engine recognised no word. It is never retried:
// the same audio gives the same answer.
var ErrNoSpeech = errors.New("no speech found")

// ErrUnsupportedLanguage is returned (wrapped, naming both languages) by an
// engine asked for a language it cannot transcribe.
var ErrUnsupportedLanguage = errors.New("language not supported by the speech engine")

// Levels, in dBFS, that decide what counts as speech. A piece of audio
// whose loudest sample stays under silentPeak holds no speech (digital
// silence is -91; line hiss sits around -60; speech peaks above -30), and is
// not sent to an engine at all: Whisper-like models invent words ("Thank
// you.") on silence. Two channels whose difference stays sameChannels below
// the louder one carry the same signal: a mono call stored as stereo.
const (
	silentPeak   = -50.0
	sameChannels = 30.0
)

// Engine turns speech into words. Implementations are safe for concurrent use.
type Engine interface {
	// Name identifies the engine and its model in transcripts, such as
	// "pocketsphinx" or "openai:whisper-1".
	Name() string
	// Transcribe returns the words spoken in in.Path, in segments timed from
	// the start of that file; a transcript without segments when it heard
	// nothing. Segments without times are taken to span the whole input.
	Transcribe(ctx context.Context, in Input) (transcript.Transcript, error)
}

// Input is one piece of audio for an Engine.
type Input struct {
	// Path is a 16 kHz mono 16-bit WAV file, as package media writes them.
	Path string
	// Language is a BCP 47 tag such as "en" or "es-MX"; empty when unknown.
	Language string
	// Duration is how long the audio lasts.
	Duration time.Duration
}

// Channel names a side of a stereo recording.
type Channel string

// The channels of a stereo recording.
const (
	Left  Channel = "left"
	Right Channel = "right"
)

// Options shape one transcription.
type Options struct {
	// Language is the recording's BCP 47 language tag, passed to the engine;
	// empty when unknown.
	Language string
	// SplitStereo transcribes each channel of a two-channel recording on its
	// own and labels its segments agent or customer, as call recorders store
	// the two sides of a call. A "stereo" file whose channels carry the same
	// signal is transcribed once, as mono. Without it, the channels are
	// mixed down and the speakers stay unknown.
	SplitStereo bool
	// AgentChannel is the channel that carries the agent when SplitStereo
	// applies; the other carries the customer. Defaults to Left.
	AgentChannel Channel
	// MaxChunk bounds how much audio one engine call gets: longer audio is
	// cut into chunks, in its silences where it can (see media.Chunks), and
	// the segments put back at their times. Zero means no limit; otherwise
	// at least 2 s.
	MaxChunk time.Duration
	// MaxChunkBytes bounds the size of the WAV file one engine call gets
	// (OpenAI accepts 25 MB), at media.BytesPerSecond; it combines with
	// MaxChunk, the stricter winning. Zero means no limit.
	MaxChunkBytes int64
	// WorkDir is where the intermediate files go, in a directory of their
	// own that is removed on return. Defaults to os.TempDir().
	WorkDir string
	// QualityFloor is the quality under which the transcript, or a
	// segment, is not to be trusted (transcript.Assess;
	// TRANSCRIPT_QUALITY_FLOOR). Zero trusts any quality.
	QualityFloor float64
}

// Transcribe transcribes the recording at path with engine: it normalises
// the audio (or splits a stereo call by channel), cuts it into chunks as
// opts asks, skips the silent ones, transcribes the rest and merges their
// segments in time order with times from the start of the recording.
// Speakers are agent and customer for a split stereo call, and otherwise
// what the engine says (unknown for the engines of this package). The
// transcript's Text is the segments' texts, one per line; its Quality is
// the segments' (the engine's) assessed against opts.QualityFloor.
//
// It returns ErrNoSpeech when no word came out; an error wrapping
// media.ErrNotAudio when path is not a recording; the engine's errors as
// they are (see RetryableError and RejectedError); and ctx's error when it
// ends. Permanent tells which of them a retry cannot cure.
func Transcribe(ctx context.Context, engine Engine, path string, opts Options) (transcript.Transcript, error) {
	chunkLimit, err := opts.chunkLimit()
	if err != nil {
		return transcript.Transcript{}, err
	}
	info, err := media.Probe(ctx, path)
	if err != nil {
		return transcript.Transcript{}, err
	}
	dir, err := os.MkdirTemp(opts.WorkDir, "asr-")
	if err != nil {
		return transcript.Transcript{}, err
	}
	defer os.RemoveAll(dir)

	tracks, err := opts.tracks(ctx, path, info, dir)
	if err != nil {
		return transcript.Transcript{}, err
	}
	var segments []transcript.Segment
	language := ""
	for _, tr := range tracks {
		chunks, err := chunk(ctx, tr.path, dir, chunkLimit)
		if err != nil {
			return transcript.Transcript{}, err
		}
		for _, c := range chunks {
			if c.Duration == 0 {
				continue
			}
			peak, err := media.Peak(ctx, c.Path)
			if err != nil {
				return transcript.Transcript{}, err
			}
			if peak < silentPeak {
				continue
			}
			t, err := engine.Transcribe(ctx, Input{Path: c.Path, Language: opts.Language, Duration: c.Duration})
			if err != nil {
				return transcript.Transcript{}, err
			}
			segments = append(segments, place(t.Segments, c, tr.speaker)...)
			if language == "" {
				language = t.Language
			}
		}
	}
	if len(segments) == 0 {
		return transcript.Transcript{}, ErrNoSpeech
	}
	// place gave every segment its times.
	slices.SortStableFunc(segments, func(a, b transcript.Segment) int {
		return cmp.Or(cmp.Compare(*a.Start, *b.Start), cmp.Compare(*a.End, *b.End))
	})
	lines := make([]string, len(segments))
	for i, s := range segments {
		lines[i] = s.Text
	}
	if language == "" {
		language = opts.Language
	}
	return transcript.Transcript{
		Text:     strings.Join(lines, "\n"),
		Segments: segments,
		Engine:   engine.Name(),
		Language: language,
		Quality:  transcript.Assess(segments, opts.QualityFloor),
	}, nil
}

// Permanent reports whether err, from Transcribe or an Engine, will come
// back however often the work is retried: no speech, not a recording, a
// language the engine lacks, a request the server rejected. Anything else
// (a server that is down or busy, a tool that crashed, a cancelled context)
// may pass on a later attempt.
func Permanent(err error) bool {
	_, rejected := errors.AsType[*RejectedError](err)
	return rejected || errors.Is(err, ErrNoSpeech) || errors.Is(err, media.ErrNotAudio) ||
		errors.Is(err, ErrUnsupportedLanguage)
}

// chunkLimit validates opts and returns the longest audio one engine call
// may get, zero for no limit.
func (o Options) chunkLimit() (time.Duration, error) {
	switch o.AgentChannel {
	case "", Left, Right:
	default:
		return 0, fmt.Errorf("asr: agent channel %q is neither left nor right", o.AgentChannel)
	}
	if o.MaxChunk < 0 || o.MaxChunkBytes < 0 {
		return 0, errors.New("asr: chunk limits cannot be negative")
	}
	limit := o.MaxChunk
	if o.MaxChunkBytes > 0 {
		bySize := time.Duration(o.MaxChunkBytes-media.WAVHeaderSize) * time.Second / media.BytesPerSecond
		if limit == 0 || bySize < limit {
			limit = bySize
		}
	}
	if limit != 0 && limit < 2*time.Second {
		return 0, fmt.Errorf("asr: chunk limit %v is under 2s", limit)
	}
	return limit, nil
}

// track is one mono WAV file to transcribe, with the speaker it carries.
type track struct {
	path    string
	speaker string
}

// tracks prepares the recording at path: one track per side of a stereo
// call when opts ask for it, else the recording mixed down to mono.
func (o Options) tracks(ctx context.Context, path string, info media.Info, dir string) ([]track, error) {
	if !o.SplitStereo || info.Channels != 2 {
		wav, err := media.Normalise(ctx, path, dir)
		if err != nil {
			return nil, err
		}
		return []track{{path: wav, speaker: transcript.Unknown}}, nil
	}
	left, right, err := media.SplitChannels(ctx, path, dir)
	if err != nil {
		return nil, err
	}
	same, err := sameSignal(ctx, path, left, right)
	if err != nil {
		return nil, err
	}
	if same {
		return []track{{path: left, speaker: transcript.Unknown}}, nil
	}
	if o.AgentChannel == Right {
		return []track{{path: left, speaker: transcript.Customer}, {path: right, speaker: transcript.Agent}}, nil
	}
	return []track{{path: left, speaker: transcript.Agent}, {path: right, speaker: transcript.Customer}}, nil
}

// sameSignal reports whether the stereo recording at path, split into left
// and right, carries the same signal on both channels.
func sameSignal(ctx context.Context, path, left, right string) (bool, error) {
	diff, err := media.ChannelDifferencePeak(ctx, path)
	if err != nil {
		return false, err
	}
	l, err := media.Peak(ctx, left)
	if err != nil {
		return false, err
	}
	r, err := media.Peak(ctx, right)
	if err != nil {
		return false, err
	}
	return diff < max(l, r)-sameChannels, nil
}

// chunk cuts the track at path into pieces of at most limit (zero: none).
func chunk(ctx context.Context, path, dir string, limit time.Duration) ([]media.Chunk, error) {
	if limit > 0 {
		return media.Chunks(ctx, path, dir, limit)
	}
	info, err := media.Probe(ctx, path)
	if err != nil {
		return nil, err
	}
	return []media.Chunk{{Path: path, Duration: info.Duration}}, nil
}

// place moves an engine's segments from chunk c to the whole recording:
// times shifted by the chunk's offset (a segment without times spans the
// chunk), the track's speaker where it has one, blank segments dropped.
func place(segments []transcript.Segment, c media.Chunk, speaker string) []transcript.Segment {
	var out []transcript.Segment
	offset := c.Offset.Seconds()
	for _, s := range segments {
		s.Text = strings.TrimSpace(s.Text)
		if s.Text == "" {
			continue
		}
		start, end := 0.0, c.Duration.Seconds()
		if s.Start != nil {
			start = *s.Start
		}
		if s.End != nil {
			end = max(*s.End, start)
		}
		start, end = start+offset, end+offset
		s.Start, s.End = &start, &end
		switch {
		case speaker != transcript.Unknown:
			s.Speaker = speaker
		case s.Speaker != transcript.Agent && s.Speaker != transcript.Customer:
			s.Speaker = transcript.Unknown
		}
		out = append(out, s)
	}
	return out
}
