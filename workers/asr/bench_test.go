package asr_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/workers/asr"
)

// BenchmarkPocketSphinxRTF measures PocketSphinx's real-time factor on the
// LibriVox recordings (already 16 kHz mono, so the engine alone): seconds of
// processing per second of audio, one recording at a time, the recogniser's
// start-up (loading the model, about half a second) included, as every
// chunk pays it. "rtf" is wall-clock time, which other work on the machine
// inflates; "cpu-rtf" is the recogniser's own CPU time (user + system),
// which it does not.
func BenchmarkPocketSphinxRTF(b *testing.B) {
	recs := mediatest.LibriVox(b)
	var audio time.Duration
	for _, r := range recs {
		audio += r.Duration
	}
	engine := asr.PocketSphinx{}
	cpu0 := childCPU(b)
	start := time.Now()
	n := 0
	for b.Loop() {
		for _, r := range recs {
			tr, err := engine.Transcribe(b.Context(), asr.Input{Path: r.Path, Language: "en", Duration: r.Duration})
			require.NoError(b, err)
			require.NotEmpty(b, tr.Segments)
		}
		n++
	}
	total := float64(n) * audio.Seconds()
	b.ReportMetric(time.Since(start).Seconds()/total, "rtf")
	b.ReportMetric((childCPU(b)-cpu0).Seconds()/total, "cpu-rtf")
	b.ReportMetric(audio.Seconds(), "audio-s/op")
}

// childCPU returns the CPU time used by this process's finished children.
func childCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
