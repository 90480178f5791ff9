package talk

import (
	"encoding/binary"
	"math"
)

// framerCapacity is the frames a framer expects first: a ten-minute call.
const framerCapacity = 30000

// framer is the io.Writer media.Decode streams samples to: it keeps only
// each frame's level per channel, and the peaks that tell a true stereo
// call from the same signal twice.
type framer struct {
	channels int
	// level holds each channel's frame levels in dBFS.
	level [2][]float32
	// sum holds the sums of squares of the frame under way.
	sum [2]float64
	// n is the samples of each channel in the frame under way.
	n int
	// peak holds each channel's peak and that of their difference.
	peak    [2]float64
	diff    float64
	partial []byte
}

// newFramer returns a framer of samples of 1 or 2 interleaved channels.
func newFramer(channels int) *framer {
	return &framer{channels: channels, level: [2][]float32{make([]float32, 0, framerCapacity), make([]float32, 0, framerCapacity)}}
}

// frameSamples is the samples of a channel in one frame.
var frameSamples = int(SampleRate * Frame.Seconds())

// Write implements io.Writer.
func (f *framer) Write(p []byte) (int, error) {
	n := len(p)
	width := 2 * f.channels
	if len(f.partial) > 0 {
		need := width - len(f.partial)
		if len(p) < need {
			f.partial = append(f.partial, p...)
			return n, nil
		}
		f.partial = append(f.partial, p[:need]...)
		f.samples(f.partial)
		f.partial, p = f.partial[:0], p[need:]
	}
	whole := len(p) / width * width
	f.samples(p[:whole])
	f.partial = append(f.partial, p[whole:]...)
	return n, nil
}

// samples takes whole sample groups (one sample of each channel).
func (f *framer) samples(p []byte) {
	width := 2 * f.channels
	for i := 0; i+width <= len(p); i += width {
		l := float64(int16(binary.LittleEndian.Uint16(p[i:])))
		f.sum[0] += l * l
		f.peak[0] = max(f.peak[0], math.Abs(l))
		if f.channels == 2 {
			r := float64(int16(binary.LittleEndian.Uint16(p[i+2:])))
			f.sum[1] += r * r
			f.peak[1] = max(f.peak[1], math.Abs(r))
			f.diff = max(f.diff, math.Abs(l-r))
		}
		if f.n++; f.n == frameSamples {
			f.flush()
		}
	}
}

// flush ends the frame under way, if it has samples.
func (f *framer) flush() {
	if f.n == 0 {
		return
	}
	for c := range f.channels {
		ms := f.sum[c] / float64(f.n) / (32768 * 32768)
		// 16-bit audio's floor is about -96 dBFS; digital silence stays there.
		f.level[c] = append(f.level[c], float32(10*math.Log10(ms+1e-10)))
		f.sum[c] = 0
	}
	f.n = 0
}

// sameSignal reports whether both channels carry the same signal.
func (f *framer) sameSignal() bool {
	return f.diff < max(f.peak[0], f.peak[1])*math.Pow(10, -sameSignalDB/20)
}
