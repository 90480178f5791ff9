// Package talk measures who spoke when on a call from its audio alone:
// voice activity on each channel, and from it the talk time of the agent
// and of the customer, their ratio, the silences and dead air, the
// overtalk and the holds (transcript.Channels). It needs no speech engine,
// so it holds for every language.
//
// The voice-activity detector is a plain energy detector, chosen over a
// library because the Go module proxy serves no maintained pure-Go one:
// the audio is decoded with ffmpeg to 8 kHz 16-bit PCM (what a telephone
// line carries) and cut into 20 ms frames. A frame is voice when its level
// is at least MarginDB above the channel's noise floor and above
// MinLevelDB. The floor adapts: it starts at the channel's 10th percentile
// of frame levels (each side of a call is quiet most of the time), drops
// at once to any quieter frame and rises by FloorRiseDB a second
// otherwise, following a line's hiss as it changes. Pauses shorter than
// Hangover are bridged (the speaker is still speaking) and blips shorter
// than MinTalk dropped (clicks, line noise).
//
// From the talk of each channel: silence is when neither side speaks;
// dead air a silence of DeadAir or more; overtalk a stretch of OvertalkMin
// or more when both speak. Unbroken sound on a channel, lasting MusicMin
// or more without a pause of Hangover, is not talk but music or a
// recorded message (people pause for breath); a hold is a stretch of
// HoldMin or more in which nobody speaks, silent or with such music (on
// a stereo call only: on a mono one a hold cannot be told from a silence
// of the recording). Holds are dead air too: a rule that allows holds
// reads holds, one that allows no silence reads dead air. A "stereo"
// file whose channels carry the same signal (a mono call stored as
// stereo) is analysed as mono: who spoke is then unknown, and only the
// talk and silences are reported.
package talk

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/transcript"
)

// The detector's settings; see the package documentation.
const (
	// SampleRate is the rate the audio is decoded at: a telephone's band.
	SampleRate = 8000
	// Frame is the length of one analysed frame.
	Frame = 20 * time.Millisecond
	// MarginDB is how far above the noise floor a voiced frame is.
	MarginDB = 12.0
	// MinLevelDB is the level (RMS, dBFS) under which a frame is never
	// voice, whatever the floor: quiet line hiss sits around -60.
	MinLevelDB = -50.0
	// FloorRiseDB is how fast the noise floor rises, in dB a second.
	FloorRiseDB = 0.5
	// Hangover is the longest pause bridged within one stretch of talk.
	Hangover = 300 * time.Millisecond
	// MinTalk is the shortest stretch of talk kept.
	MinTalk = 100 * time.Millisecond
	// DeadAir is the shortest silence counted as dead air.
	DeadAir = 10 * time.Second
	// OvertalkMin is the shortest overtalk counted.
	OvertalkMin = 500 * time.Millisecond
	// HoldMin is the shortest hold counted.
	HoldMin = 20 * time.Second
	// MusicMin is how long unbroken sound lasts before it is taken for
	// music or a message rather than speech.
	MusicMin = 15 * time.Second
	// sameSignalDB: channels whose difference peaks this far under the
	// louder one carry the same signal (as workers/asr decides).
	sameSignalDB = 30.0
	// floorPercentile is where the noise floor starts.
	floorPercentile = 0.10
)

// Options shape one analysis.
type Options struct {
	// AgentChannel is "left" or "right", the channel of a stereo recording
	// that holds the agent (the campaign's agent_channel). Defaults to
	// "left", the usual convention of PBX recorders.
	AgentChannel string
}

// Analyse measures the recording at path. It returns media.Probe's errors
// (wrapping media.ErrNotAudio for a file that is not a recording) and a
// *media.ToolError when ffmpeg cannot decode it.
func Analyse(ctx context.Context, path string, opts Options) (transcript.Channels, error) {
	info, err := media.Probe(ctx, path)
	if err != nil {
		return transcript.Channels{}, err
	}
	fr := newFramer(min(info.Channels, 2))
	if err := media.Decode(ctx, path, SampleRate, fr.channels, fr); err != nil {
		return transcript.Channels{}, err
	}
	fr.flush()
	return figures(fr, opts), nil
}

// figures turns the frames' levels into the call's figures.
func figures(fr *framer, opts Options) transcript.Channels {
	frames := len(fr.level[0])
	if fr.channels == 2 {
		frames = min(frames, len(fr.level[1]))
	}
	duration := float64(frames) * Frame.Seconds()
	stereo := fr.channels == 2 && !fr.sameSignal()
	if !stereo {
		return silences(transcript.Channels{Talk: speech(voice(fr.level[0][:frames]))}, duration)
	}
	left, right := speech(voice(fr.level[0][:frames])), speech(voice(fr.level[1][:frames]))
	agent, customer := left, right
	if opts.AgentChannel == "right" {
		agent, customer = right, left
	}
	c := transcript.Channels{Stereo: true, AgentTalk: agent, CustomerTalk: customer, Talk: union(agent, customer)}
	a, cu := total(agent), total(customer)
	c.AgentSeconds, c.CustomerSeconds = &a, &cu
	if a+cu > 0 {
		ratio := round(a / (a + cu))
		c.AgentTalkRatio = &ratio
	}
	c.Overtalk = atLeast(intersect(agent, customer), OvertalkMin)
	over := total(c.Overtalk)
	c.OvertalkSeconds = &over
	c.Holds = atLeast(complement(c.Talk, duration), HoldMin)
	return silences(c, duration)
}

// silences sets c's duration and the figures of the silences between its Talk.
func silences(c transcript.Channels, duration float64) transcript.Channels {
	c.DurationSeconds = round(duration)
	c.DeadAirSeconds = DeadAir.Seconds()
	if c.Talk == nil {
		c.Talk = []transcript.Span{}
	}
	quiet := complement(c.Talk, duration)
	for _, s := range quiet {
		c.LongestSilenceSeconds = max(c.LongestSilenceSeconds, round(s.Seconds()))
	}
	if duration > 0 {
		c.SilenceShare = round(total(quiet) / duration)
	}
	c.DeadAir = atLeast(quiet, DeadAir)
	return c
}

// voice finds the stretches of talk in a channel's frame levels (dBFS).
func voice(levels []float32) []transcript.Span {
	if len(levels) == 0 {
		return nil
	}
	floor := float64(percentile(levels, floorPercentile))
	rise := FloorRiseDB * Frame.Seconds()
	step := Frame.Seconds()
	var spans []transcript.Span
	start := -1
	for i, l := range append(levels, float32(math.Inf(-1))) {
		level := float64(l)
		if level < floor {
			floor = level
		} else {
			floor = min(floor+rise, level)
		}
		voiced := level >= floor+MarginDB && level >= MinLevelDB
		switch {
		case voiced && start < 0:
			start = i
		case !voiced && start >= 0:
			spans = append(spans, transcript.Span{Start: float64(start) * step, End: float64(i) * step})
			start = -1
		}
	}
	return atLeast(bridge(spans, Hangover.Seconds()), MinTalk)
}

// speech keeps the stretches of sound that pause as speech does: shorter
// than MusicMin.
func speech(sound []transcript.Span) []transcript.Span {
	var talk []transcript.Span
	for _, s := range sound {
		if s.Seconds() < MusicMin.Seconds() {
			talk = append(talk, s)
		}
	}
	return talk
}

// percentile returns the p-quantile of levels.
func percentile(levels []float32, p float64) float32 {
	sorted := slices.Clone(levels)
	slices.Sort(sorted)
	return sorted[int(p*float64(len(sorted)-1))]
}

// round keeps two decimals: a hundredth of a second is finer than a frame.
func round(x float64) float64 { return math.Round(x*100) / 100 }
