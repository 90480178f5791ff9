package transcript

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAssess(t *testing.T) {
	t.Parallel()
	seg := func(start, end float64, text string, quality ...float64) Segment {
		s := Segment{Start: &start, End: &end, Text: text, Speaker: Unknown}
		if len(quality) > 0 {
			s.Quality = &quality[0]
		}
		return s
	}
	require.Nil(t, Assess(nil, 0.5))

	// Each segment weighs its words: (0.9×3 + 0.3×1) / 4 = 0.75.
	q := Assess([]Segment{seg(0, 1, "good morning madam", 0.9), seg(2, 3, "ya", 0.3)}, 0.55)
	require.InDelta(t, 0.75, *q.Score, 1e-9)
	require.InDelta(t, 2.0, *q.WordsPerSecond, 1e-9, "4 words in 2 s of speech: the pause between is not speech")
	require.Empty(t, q.Unreliable)
	require.Equal(t, 1, q.DoubtfulSegments)
	require.Equal(t, 0.55, q.Floor)

	q = Assess([]Segment{seg(0, 2, "what what are ya ya what you", 0.31)}, 0.55)
	require.Equal(t, LowQuality, q.Unreliable)
	require.Equal(t, 1, q.DoubtfulSegments)

	// Low quality says more than speed; speed alone is enough.
	q = Assess([]Segment{seg(0, 1, "thank you thank you thank you thank you", 0.2)}, 0.55)
	require.Equal(t, LowQuality, q.Unreliable)
	q = Assess([]Segment{seg(0, 1, "thank you thank you thank you thank you", 0.9)}, 0.55)
	require.Equal(t, TooFast, q.Unreliable)
	require.InDelta(t, 8.0, *q.WordsPerSecond, 1e-9)

	// No engine signal (a server's plain json): only the speed is judged.
	q = Assess([]Segment{seg(0, 10, "hello there how are you")}, 0.55)
	require.Nil(t, q.Score)
	require.InDelta(t, 0.5, *q.WordsPerSecond, 1e-9)
	require.Empty(t, q.Unreliable)
	require.Zero(t, q.DoubtfulSegments)
	q = Assess([]Segment{{Text: "no times", Speaker: Unknown}}, 0.55)
	require.Nil(t, q.WordsPerSecond)
	require.Empty(t, q.Unreliable)

	// The floor decides; exactly on it is reliable.
	q = Assess([]Segment{seg(0, 1, "hello", 0.55)}, 0.55)
	require.Empty(t, q.Unreliable)
	require.Zero(t, q.DoubtfulSegments)
}
