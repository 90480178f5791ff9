package media

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// MutedContentType is the type of what Mute writes.
const MutedContentType = "audio/flac"

// Mute writes in, every channel silenced during spans, to a FLAC file
// created in outDir (16-bit and lossless, so the rest keeps every sample
// it had, and smaller than WAV; the channels and the sample rate stay),
// silent to the sample
// and returns its path. Spans may overlap and run past the end. It returns
// a *ToolError quoting ffmpeg when in cannot be decoded.
func Mute(ctx context.Context, in, outDir string, spans []Span) (string, error) {
	f, err := os.CreateTemp(outDir, "muted-*.flac")
	if err != nil {
		return "", err
	}
	out := f.Name()
	if err := f.Close(); err != nil {
		return "", err
	}
	filter := "anull"
	if len(spans) > 0 {
		between := make([]string, len(spans))
		for i, s := range spans {
			between[i] = fmt.Sprintf("between(t,%.3f,%.3f)", s.Start.Seconds(), s.End.Seconds())
		}
		// aeval computes every sample (volume's enable= acts on whole
		// frames, up to a quarter of a second); quoted, the commas stay
		// inside the expression.
		filter = fmt.Sprintf("aeval=exprs='val(ch)*not(%s)':channel_layout=same", strings.Join(between, "+"))
	}
	if err := ffmpeg(ctx, "-i", in, "-map", "0:a:0", "-af", filter, "-c:a", "flac", "-sample_fmt", "s16",
		"-map_metadata", "-1", "-f", "flac", out); err != nil {
		_ = os.Remove(out)
		return "", err
	}
	return out, nil
}
