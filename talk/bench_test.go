package talk_test

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/talk"
)

// BenchmarkChannelAnalysis measures the analysis of a 20-minute stereo
// call (16 kHz WAV, the test call repeated), in seconds of analysis per
// hour of audio (analysis-s/audio-h), beside its baseline measured in the
// same iterations: ffmpeg decoding the same audio to the same samples and
// nothing else (decode-s/audio-h), so the ratio is what the detector and
// the figures add. Goal: under 10 s per audio hour (an hour-long call is
// analysed in a fraction of what transcribing it takes), the detector
// adding under 50 % to the decoding.
func BenchmarkChannelAnalysis(b *testing.B) {
	dir := b.TempDir()
	one := call(b, dir)
	path := filepath.Join(dir, "long.wav")
	const repeats = 20
	mediatest.FFmpeg(b, "-stream_loop", "19", "-i", one, "-c", "copy", path)
	hours := (repeats * time.Minute).Hours()
	var analysis, decode, analysisCPU, decodeCPU time.Duration
	for b.Loop() {
		start, cpu := time.Now(), cpuTime(b)
		c, err := talk.Analyse(b.Context(), path, talk.Options{})
		analysis, analysisCPU = analysis+time.Since(start), analysisCPU+cpuTime(b)-cpu
		require.NoError(b, err)
		require.Len(b, c.Holds, repeats)
		start, cpu = time.Now(), cpuTime(b)
		require.NoError(b, media.Decode(b.Context(), path, talk.SampleRate, 2, io.Discard))
		decode, decodeCPU = decode+time.Since(start), decodeCPU+cpuTime(b)-cpu
	}
	n := float64(b.N)
	b.ReportMetric(analysis.Seconds()/n/hours, "analysis-s/audio-h")
	b.ReportMetric(decode.Seconds()/n/hours, "decode-s/audio-h")
	b.ReportMetric(analysis.Seconds()/decode.Seconds(), "ratio")
	// CPU time, ffmpeg's included, which a busy machine does not inflate.
	b.ReportMetric(analysisCPU.Seconds()/n/hours, "analysis-cpu-s/audio-h")
	b.ReportMetric(decodeCPU.Seconds()/n/hours, "decode-cpu-s/audio-h")
}

// cpuTime is the CPU time used so far by this process and its children.
func cpuTime(b *testing.B) time.Duration {
	var self, children syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &self))
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children))
	var d time.Duration
	for _, r := range []syscall.Rusage{self, children} {
		d += time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return d
}
