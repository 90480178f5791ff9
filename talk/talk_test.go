package talk_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/talk"
	"github.com/auditd/auditd/transcript"
)

// tolerance is how far a measured time may be from the one synthesised:
// a frame at each edge, and the rounding.
const tolerance = 0.06

func s(start, end float64) transcript.Span { return transcript.Span{Start: start, End: end} }

// tone is a voice-like tone of channel from start to end, in seconds.
func tone(channel int, start, end float64) mediatest.Tone {
	return mediatest.Tone{Start: time.Duration(start * float64(time.Second)), Length: time.Duration((end - start) * float64(time.Second)),
		Hz: 300 + 200*channel, Channel: channel}
}

// call is a minute of stereo call whose figures are known: the agent
// (left) speaks 17 s, the customer 4 s, overtalking the agent for a second
// at 8 s; from 17 s to 37 s the customer hears music (unbroken sound) and
// nobody speaks from 16 s to 40 s (a hold) nor from 46 s to the end.
func call(t testing.TB, dir string) string {
	path := filepath.Join(dir, "call.wav")
	mediatest.Tones(t, path, time.Minute,
		tone(0, 1, 6), tone(0, 8, 14), tone(0, 40, 46),
		tone(1, 6.5, 9), tone(1, 14.5, 16), tone(1, 17, 37))
	return path
}

func requireSpans(t testing.TB, want, got []transcript.Span, what string) {
	t.Helper()
	require.Len(t, got, len(want), "%s: %v", what, got)
	for i := range want {
		require.InDelta(t, want[i].Start, got[i].Start, tolerance, "%s %d: %v", what, i, got)
		require.InDelta(t, want[i].End, got[i].End, tolerance, "%s %d: %v", what, i, got)
	}
}

func TestAnalyseStereoCall(t *testing.T) {
	t.Parallel()
	path := call(t, t.TempDir())
	c, err := talk.Analyse(t.Context(), path, talk.Options{})
	require.NoError(t, err)
	require.True(t, c.Stereo)
	require.InDelta(t, 60, c.DurationSeconds, tolerance)
	requireSpans(t, []transcript.Span{s(1, 6), s(8, 14), s(40, 46)}, c.AgentTalk, "agent")
	// The music is no talk.
	requireSpans(t, []transcript.Span{s(6.5, 9), s(14.5, 16)}, c.CustomerTalk, "customer")
	requireSpans(t, []transcript.Span{s(1, 6), s(6.5, 14), s(14.5, 16), s(40, 46)}, c.Talk, "talk")
	require.InDelta(t, 17, *c.AgentSeconds, 3*tolerance)
	require.InDelta(t, 4, *c.CustomerSeconds, 2*tolerance)
	require.InDelta(t, 17.0/21, *c.AgentTalkRatio, 0.01)
	require.InDelta(t, 40.0/60, c.SilenceShare, 0.01)
	require.InDelta(t, 24, c.LongestSilenceSeconds, 2*tolerance)
	require.Equal(t, 10.0, c.DeadAirSeconds)
	requireSpans(t, []transcript.Span{s(16, 40), s(46, 60)}, c.DeadAir, "dead air")
	requireSpans(t, []transcript.Span{s(8, 9)}, c.Overtalk, "overtalk")
	require.InDelta(t, 1, *c.OvertalkSeconds, 2*tolerance)
	requireSpans(t, []transcript.Span{s(16, 40)}, c.Holds, "holds")

	// The campaign says the agent is on the right.
	swapped, err := talk.Analyse(t.Context(), path, talk.Options{AgentChannel: "right"})
	require.NoError(t, err)
	require.Equal(t, c.AgentTalk, swapped.CustomerTalk)
	require.Equal(t, c.CustomerTalk, swapped.AgentTalk)
	require.InDelta(t, 4.0/21, *swapped.AgentTalkRatio, 0.01)
	requireSpans(t, c.Holds, swapped.Holds, "holds, agent on the right")
}

// TestAnalyseNoisyLine puts both channels on a hissing line, at -45 dBFS:
// above MinLevelDB, so only the adaptive floor tells it from talk.
func TestAnalyseNoisyLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clean := call(t, dir)
	noisy := filepath.Join(dir, "noisy.wav")
	mediatest.FFmpeg(t, "-i", clean, "-f", "lavfi", "-i", "anoisesrc=a=0.01:c=white:r=16000:d=60:seed=7",
		"-filter_complex", "[1]asplit[a][b];[a][b]amerge=inputs=2[n];[0][n]amix=inputs=2:normalize=0", noisy)
	c, err := talk.Analyse(t.Context(), noisy, talk.Options{})
	require.NoError(t, err)
	require.True(t, c.Stereo)
	requireSpans(t, []transcript.Span{s(1, 6), s(8, 14), s(40, 46)}, c.AgentTalk, "agent")
	requireSpans(t, []transcript.Span{s(6.5, 9), s(14.5, 16)}, c.CustomerTalk, "customer")
	requireSpans(t, []transcript.Span{s(8, 9)}, c.Overtalk, "overtalk")
}

func TestAnalyseMono(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mono.mp3")
	mediatest.Tones(t, path, 30*time.Second, tone(0, 2, 5), tone(0, 20, 25))
	c, err := talk.Analyse(t.Context(), path, talk.Options{})
	require.NoError(t, err)
	require.False(t, c.Stereo)
	// MP3 pads its frames: the decoded length is a little more.
	require.InDelta(t, 30, c.DurationSeconds, 0.1)
	requireSpans(t, []transcript.Span{s(2, 5), s(20, 25)}, c.Talk, "talk")
	requireSpans(t, []transcript.Span{s(5, 20)}, c.DeadAir, "dead air")
	require.InDelta(t, 15, c.LongestSilenceSeconds, 2*tolerance)
	require.InDelta(t, 22.0/30, c.SilenceShare, 0.01)
	// Who spoke is not known: no figure says so.
	require.Nil(t, c.AgentTalk)
	require.Nil(t, c.CustomerTalk)
	require.Nil(t, c.AgentSeconds)
	require.Nil(t, c.AgentTalkRatio)
	require.Nil(t, c.Overtalk)
	require.Nil(t, c.OvertalkSeconds)
	require.Nil(t, c.Holds)
}

// TestAnalyseSameSignalTwice is a mono call stored as stereo: analysed as mono.
func TestAnalyseSameSignalTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mono := filepath.Join(dir, "mono.wav")
	mediatest.Tones(t, mono, 10*time.Second, tone(0, 2, 5))
	twice := filepath.Join(dir, "twice.wav")
	mediatest.FFmpeg(t, "-i", mono, "-ac", "2", twice)
	c, err := talk.Analyse(t.Context(), twice, talk.Options{})
	require.NoError(t, err)
	require.False(t, c.Stereo)
	requireSpans(t, []transcript.Span{s(2, 5)}, c.Talk, "talk")
}

func TestAnalyseSilentStereo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "silent.wav")
	mediatest.FFmpeg(t, "-f", "lavfi", "-i", "anullsrc=r=8000:cl=stereo:d=25", path)
	c, err := talk.Analyse(t.Context(), path, talk.Options{})
	require.NoError(t, err)
	// Both channels silent: nothing tells them apart, nor anyone spoke.
	require.Empty(t, c.Talk)
	require.NotNil(t, c.Talk)
	require.Equal(t, 1.0, c.SilenceShare)
	require.InDelta(t, 25, c.LongestSilenceSeconds, tolerance)
	requireSpans(t, []transcript.Span{s(0, 25)}, c.DeadAir, "dead air")
	require.Nil(t, c.AgentTalkRatio)
}

func TestAnalyseNotAudio(t *testing.T) {
	t.Parallel()
	_, err := talk.Analyse(t.Context(), "talk_test.go", talk.Options{})
	require.ErrorContains(t, err, "not an audio file")
}

// TestAnalyseLibriVox is a smoke test on real speech: two readers, one on
// each channel, the second starting as the first ends.
func TestAnalyseLibriVox(t *testing.T) {
	t.Parallel()
	recs := mediatest.LibriVox(t)
	a, b := recs[0], recs[1]
	path := filepath.Join(t.TempDir(), "readers.wav")
	gap := 3 * time.Second
	total := a.Duration + gap + b.Duration + gap
	mediatest.Mix(t, path, total, []mediatest.Clip{{Path: a.Path}}, []mediatest.Clip{{Path: b.Path, At: a.Duration + gap}})
	c, err := talk.Analyse(t.Context(), path, talk.Options{})
	require.NoError(t, err)
	require.True(t, c.Stereo)
	// Readers pause between sentences: most, not all, of each recording is talk.
	require.Greater(t, *c.AgentSeconds, 0.6*a.Duration.Seconds())
	require.LessOrEqual(t, *c.AgentSeconds, a.Duration.Seconds())
	require.Greater(t, *c.CustomerSeconds, 0.6*b.Duration.Seconds())
	require.LessOrEqual(t, *c.CustomerSeconds, b.Duration.Seconds())
	require.Less(t, c.AgentTalk[len(c.AgentTalk)-1].End, c.CustomerTalk[0].Start, "the agent ends before the customer starts")
	require.GreaterOrEqual(t, c.LongestSilenceSeconds, gap.Seconds())
	require.Empty(t, c.Overtalk)
	require.Empty(t, c.Holds)
}

func TestSpeakingRates(t *testing.T) {
	t.Parallel()
	agent, customer := 30.0, 20.0
	c := transcript.Channels{Stereo: true, AgentSeconds: &agent, CustomerSeconds: &customer}
	c.SpeakingRates([]transcript.Segment{
		{Speaker: transcript.Agent, Text: "Buenos días, le atiende Lucía."},
		{Speaker: transcript.Agent, Text: "¿En qué puedo ayudarle?"},
		{Speaker: transcript.Customer, Text: "I'd like a refund, please"},
	})
	require.InDelta(t, 9.0/30*60, *c.AgentWordsPerMinute, 1e-9)
	require.InDelta(t, 5.0/20*60, *c.CustomerWordsPerMinute, 1e-9)
	mono := transcript.Channels{}
	mono.SpeakingRates([]transcript.Segment{{Speaker: transcript.Unknown, Text: "hello"}})
	require.Nil(t, mono.AgentWordsPerMinute)
}
