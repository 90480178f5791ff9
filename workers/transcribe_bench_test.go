package workers

import (
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/media/mediatest"
	"github.com/auditd/auditd/workers/asr"
)

// BenchmarkTranscribeCalls measures calls transcribed per second with
// PocketSphinx, from upload (the recording written to the blob store, the
// task and its job committed) to transcribed (the worker's last
// transaction), with 1, 2 and 4 transcription slots (TRANSCRIBE_CONCURRENCY)
// in one worker. Each iteration uploads four calls, LibriVox recordings of
// 4 to 7 s of speech (20 s in all), and waits for all of them.
// PocketSphinx takes a core per call, so the machine's free cores bound the
// gain from more slots: "cpu-s/call" (the CPU time of ffmpeg and
// PocketSphinx per call, which other work on the machine does not inflate)
// says what a call costs, and cores / cpu-s/call is the most a worker can
// do.
func BenchmarkTranscribeCalls(b *testing.B) {
	recs := mediatest.LibriVox(b)
	const calls = 4
	for _, slots := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			tb := setupTranscribe(b)
			client := tb.start(b, TranscribeConfig{Engine: asr.PocketSphinx{}}, slots)
			var audio time.Duration
			n := 0
			cpu0 := childCPU(b)
			start := time.Now()
			for b.Loop() {
				for i := range calls {
					rec := recs[i%len(recs)]
					tb.upload(b, client.Client, call{path: rec.Path, language: "en", salt: strconv.Itoa(n)})
					audio += rec.Duration
					n++
				}
				for range calls {
					e := client.next(b)
					require.Equal(b, "job_completed", string(e.Kind))
				}
			}
			elapsed := time.Since(start).Seconds()
			b.ReportMetric(float64(n)/elapsed, "calls/s")
			b.ReportMetric(audio.Seconds()/elapsed, "audio-s/s")
			b.ReportMetric((childCPU(b)-cpu0).Seconds()/float64(n), "cpu-s/call")
		})
	}
}

// childCPU returns the CPU time used by this process's finished children
// (ffmpeg, ffprobe, PocketSphinx).
func childCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
