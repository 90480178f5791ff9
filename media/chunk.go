package media

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Silence detection for cutting chunks: quieter than silenceLevel for at
// least silenceMin. -35 dBFS sits below conversational speech and above the
// hiss of ordinary phone recordings; pauses between sentences last longer
// than 0.3 s, gaps inside words do not.
const (
	silenceLevel = "-35dB"
	silenceMin   = 300 * time.Millisecond
)

// minPiece is the shortest chunk Chunks cuts: a sliver at the end of a
// recording holds no word, and some servers refuse audio under 0.1 s.
const minPiece = time.Second

// Span is a stretch of a recording, from its start.
type Span struct {
	Start, End time.Duration
}

// Chunk is one piece of a recording that Chunks cut.
type Chunk struct {
	// Path is the chunk's WAV file.
	Path string
	// Offset is where the chunk starts in the whole recording: add it to
	// times measured in the chunk.
	Offset time.Duration
	// Duration is how long the chunk lasts.
	Duration time.Duration
}

// Silences returns the silent spans of path in time order: quieter than
// -35 dBFS for at least 0.3 s. A silence that runs to the end of the
// recording ends at the recording's duration as Probe reports it. It returns
// a *ToolError quoting ffmpeg when path cannot be decoded.
func Silences(ctx context.Context, path string) ([]Span, error) {
	info, err := Probe(ctx, path)
	if err != nil {
		return nil, err
	}
	return silences(ctx, path, info.Duration)
}

// silences is Silences for a recording of duration d.
func silences(ctx context.Context, path string, d time.Duration) ([]Span, error) {
	// ametadata prints silencedetect's findings on stdout, apart from the log.
	out, _, err := Run(ctx, "ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-i", path, "-map", "0:a:0",
		"-af", fmt.Sprintf("silencedetect=noise=%s:d=%g,ametadata=mode=print:file=-", silenceLevel, silenceMin.Seconds()),
		"-f", "null", "-")
	if err != nil {
		return nil, err
	}
	var spans []Span
	open := false
	for line := range strings.Lines(string(out)) {
		key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		switch key {
		case "lavfi.silence_start":
			spans = append(spans, Span{Start: seconds(value)})
			open = true
		case "lavfi.silence_end":
			if open {
				spans[len(spans)-1].End = seconds(value)
				open = false
			}
		}
	}
	if open {
		spans[len(spans)-1].End = max(d, spans[len(spans)-1].Start)
	}
	return spans, nil
}

// Chunks cuts the WAV file wav into pieces of at most maxLen, written to
// outDir, and returns them in order. Each cut falls in the middle of the
// latest silence that ends a piece of at least half of maxLen; where speech
// runs on without such a pause the piece is cut at maxLen. No piece is
// shorter than a second (the last cut moves earlier). A recording no
// longer than maxLen is returned whole as one chunk (its own path, nothing
// written). maxLen must be at least 2 s. It returns a *ToolError quoting
// ffmpeg when wav cannot be read or cut.
func Chunks(ctx context.Context, wav, outDir string, maxLen time.Duration) ([]Chunk, error) {
	if maxLen < 2*minPiece {
		return nil, fmt.Errorf("media: chunk length %v is under %v", maxLen, 2*minPiece)
	}
	info, err := Probe(ctx, wav)
	if err != nil {
		return nil, err
	}
	if info.Duration <= maxLen {
		return []Chunk{{Path: wav, Duration: info.Duration}}, nil
	}
	quiet, err := silences(ctx, wav, info.Duration)
	if err != nil {
		return nil, err
	}
	cuts := cutPoints(info.Duration, maxLen, quiet)

	// One ffmpeg run decodes the file once and writes every chunk; output
	// seeking (-ss/-t after -i) trims to the sample.
	args := []string{"-i", wav}
	chunks := make([]Chunk, 0, len(cuts)+1)
	start := time.Duration(0)
	for _, end := range append(cuts, info.Duration) {
		path, err := newWAV(outDir, "chunk")
		if err != nil {
			removeChunks(chunks)
			return nil, err
		}
		chunks = append(chunks, Chunk{Path: path, Offset: start, Duration: end - start})
		args = append(args, "-map", "0:a:0", "-ss", ffTime(start), "-t", ffTime(end-start))
		args = append(append(args, wavOutput...), path)
		start = end
	}
	if err := ffmpeg(ctx, args...); err != nil {
		removeChunks(chunks)
		return nil, err
	}
	return chunks, nil
}

// cutPoints chooses where to cut a recording of duration d into pieces of at
// most maxLen, preferring the middle of a silence.
func cutPoints(d, maxLen time.Duration, silences []Span) []time.Duration {
	var cuts []time.Duration
	for pos := time.Duration(0); d-pos > maxLen; {
		limit := pos + maxLen
		cut := limit // a hard cut, unless a silence offers better
		for _, s := range silences {
			if s.Start >= limit {
				break
			}
			mid := min(s.Start+(s.End-s.Start)/2, limit)
			if mid > pos+maxLen/2 {
				cut = mid // later silences overwrite earlier ones: the latest wins
			}
		}
		// d-pos > maxLen >= 2*minPiece, so this stays after pos + minPiece.
		cut = min(cut, d-minPiece)
		cuts = append(cuts, cut)
		pos = cut
	}
	return cuts
}

// ffTime formats d as ffmpeg's seconds, to the microsecond.
func ffTime(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 6, 64)
}

func removeChunks(chunks []Chunk) {
	for _, c := range chunks {
		_ = os.Remove(c.Path)
	}
}
