package asr

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/auditd/auditd/media"
	"github.com/auditd/auditd/transcript"
)

// PocketSphinx is the offline engine: CMU PocketSphinx's
// pocketsphinx_continuous (Debian packages pocketsphinx and
// pocketsphinx-en-us), run on each input. Its word times are grouped into
// segments at pauses; a segment's quality is the mean of its words'
// posterior probabilities (the confidence -time yes prints). The zero
// value transcribes US English with the installed model.
type PocketSphinx struct {
	// Command is the recogniser to run. Defaults to pocketsphinx_continuous.
	Command string
	// Args are added to the command line, for example -hmm, -lm and -dict
	// for another model.
	Args []string
	// Language is the BCP 47 language of the model; inputs in another
	// language are refused. Defaults to "en".
	Language string
	// MaxPause is the longest silence inside a segment: a longer one starts
	// the next. Defaults to 0.7 s, longer than the pauses between the
	// phrases of a sentence.
	MaxPause time.Duration
	// MaxSegment bounds a segment's length when the speaker does not pause.
	// Defaults to 15 s.
	MaxSegment time.Duration
}

// Name implements Engine.
func (p PocketSphinx) Name() string { return "pocketsphinx" }

// Transcribe implements Engine. It returns an error wrapping
// ErrUnsupportedLanguage when in.Language is not the model's, and a
// *media.ToolError quoting the recogniser when it fails.
func (p PocketSphinx) Transcribe(ctx context.Context, in Input) (transcript.Transcript, error) {
	lang := cmp.Or(p.Language, "en")
	if in.Language != "" && transcript.PrimaryLanguage(in.Language) != transcript.PrimaryLanguage(lang) {
		return transcript.Transcript{}, fmt.Errorf("%w: pocketsphinx transcribes %q, the recording is %q",
			ErrUnsupportedLanguage, lang, in.Language)
	}
	args := append([]string{"-infile", in.Path, "-time", "yes"}, p.Args...)
	out, _, err := media.Run(ctx, cmp.Or(p.Command, "pocketsphinx_continuous"), args...)
	if err != nil {
		return transcript.Transcript{}, err
	}
	return transcript.Transcript{
		Segments: p.group(words(string(out))),
		Engine:   p.Name(),
		Language: lang,
	}, nil
}

// word is a recognised word, when it was said (in seconds) and the
// recogniser's posterior probability of it.
type word struct {
	text       string
	start, end float64
	posterior  float64
}

// words reads pocketsphinx_continuous -time yes output: for each utterance
// a line with the hypothesis, then one "word start end confidence" line per
// word. Markers (<s>, </s>, <sil>, [NOISE], [SPEECH], ++FILLER++) are not
// words; "word(2)" is word in its second pronunciation.
func words(out string) []word {
	var ws []word
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		posterior, err3 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue // a four-word hypothesis
		}
		text := f[0]
		if strings.HasPrefix(text, "<") || strings.HasPrefix(text, "[") || strings.HasPrefix(text, "+") {
			continue
		}
		if i := strings.IndexByte(text, '('); i > 0 {
			text = text[:i]
		}
		ws = append(ws, word{text: text, start: start, end: end, posterior: min(max(posterior, 0), 1)})
	}
	return ws
}

// group gathers words into segments, starting a new one after a pause
// longer than MaxPause or when one would outgrow MaxSegment; a segment's
// quality is the mean of its words' posteriors.
func (p PocketSphinx) group(ws []word) []transcript.Segment {
	maxPause := cmp.Or(p.MaxPause, 700*time.Millisecond).Seconds()
	maxSegment := cmp.Or(p.MaxSegment, 15*time.Second).Seconds()
	var segments []transcript.Segment
	var text []string
	var start, end, posteriors float64
	flush := func() {
		if len(text) > 0 {
			s, e, q := start, end, posteriors/float64(len(text))
			segments = append(segments, transcript.Segment{Start: &s, End: &e, Speaker: transcript.Unknown,
				Text: strings.Join(text, " "), Quality: &q})
			text, posteriors = text[:0], 0
		}
	}
	for _, w := range ws {
		if len(text) > 0 && (w.start-end > maxPause || w.end-start > maxSegment) {
			flush()
		}
		if len(text) == 0 {
			start = w.start
		}
		text = append(text, w.text)
		posteriors += w.posterior
		end = w.end
	}
	flush()
	return segments
}
