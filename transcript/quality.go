package transcript

import "strings"

// DefaultQualityFloor is the quality (Segment.Quality, Quality.Score) under
// which a transcript's words are not to be trusted, unless configured
// otherwise (TRANSCRIPT_QUALITY_FLOOR). Measured with PocketSphinx on the
// LibriVox readings of pocketsphinx-testdata: clean 16 kHz speech scores
// 0.61 to 0.66; the same readings as 8 kHz telephone audio 0.23 to 0.52;
// Spanish (espeak-ng) through the English model 0.35 to 0.38 (see
// docs/engines.md). For a Whisper-like server 0.55 is an avg_logprob of
// -0.6.
const DefaultQualityFloor = 0.55

// MaxWordsPerSecond is the fastest speech a transcript may hold: people
// say 2 to 4 words a second and rarely more than 5; more is an engine
// inventing words (a Whisper-like model repeating itself).
const MaxWordsPerSecond = 6.0

// Why a transcript is unreliable (Quality.Unreliable).
const (
	// LowQuality: the engine was unsure of its words (Quality.Score under
	// the floor).
	LowQuality = "low_quality"
	// TooFast: more words a second of speech than anyone says
	// (MaxWordsPerSecond).
	TooFast = "too_fast"
)

// Quality is how far a call's transcript can be trusted, from its speech
// engine's own signals. Chats have none.
type Quality struct {
	// Score is the mean of the segments' qualities (Segment.Quality), each
	// weighing its words: from 0 to 1. Nil when no segment has one (a
	// server that answered plain json).
	Score *float64 `json:"score,omitempty" minimum:"0" maximum:"1" doc:"How sure the speech engine was of the transcript's words, from 0 to 1: the mean of the segments' qualities, each weighing its words; absent when the engine gave no such signal"`
	// WordsPerSecond is the transcript's words over the seconds its
	// segments span; nil when they span none.
	WordsPerSecond *float64 `json:"words_per_second,omitempty" minimum:"0" doc:"The transcript's words over the seconds of speech its segments span: people say 2 to 4 a second, more than 6 is an engine inventing words"`
	// Floor is the quality floor the transcript was judged against
	// (TRANSCRIPT_QUALITY_FLOOR when it was transcribed).
	Floor float64 `json:"floor" minimum:"0" maximum:"1" doc:"The quality floor it was judged against (TRANSCRIPT_QUALITY_FLOOR when it was transcribed)"`
	// Unreliable says why the transcript as a whole is not to be trusted:
	// LowQuality or TooFast; "" when it is.
	Unreliable string `json:"unreliable,omitempty" enum:"low_quality,too_fast" doc:"Why the transcript is unreliable, when it is: low_quality (score under the floor) or too_fast (more words a second than anyone says); every automatic verdict of its audit then needs review"`
	// DoubtfulSegments counts the segments whose quality is under the
	// floor: a verdict resting on what was not said (absence) cannot
	// trust them.
	DoubtfulSegments int `json:"doubtful_segments,omitempty" minimum:"0" doc:"How many segments have a quality under the floor; an automatic verdict that rests on absence then needs review"`
}

// Assess measures the quality of segments, an engine's, against floor:
// their Score and WordsPerSecond, and whether the whole is unreliable. It
// returns nil when the segments are empty.
func Assess(segments []Segment, floor float64) *Quality {
	if len(segments) == 0 {
		return nil
	}
	q := Quality{Floor: floor}
	var words, scored int
	var sum, seconds float64
	for _, s := range segments {
		n := len(strings.Fields(s.Text))
		words += n
		if s.Start != nil && s.End != nil {
			seconds += max(*s.End-*s.Start, 0)
		}
		if s.Quality == nil {
			continue
		}
		sum += *s.Quality * float64(n)
		scored += n
		if *s.Quality < floor {
			q.DoubtfulSegments++
		}
	}
	if scored > 0 {
		score := sum / float64(scored)
		q.Score = &score
	}
	if seconds > 0 {
		wps := float64(words) / seconds
		q.WordsPerSecond = &wps
	}
	switch {
	case q.Score != nil && *q.Score < floor:
		q.Unreliable = LowQuality
	case q.WordsPerSecond != nil && *q.WordsPerSecond > MaxWordsPerSecond:
		q.Unreliable = TooFast
	}
	return &q
}
