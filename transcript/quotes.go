package transcript

import (
	"slices"
	"sort"
	"strings"
)

// Quotes finds quotations in a transcript: its words normalised as
// NormalWords does, so a quote differing only in case, accents or
// punctuation is found, and where each segment's words begin.
type Quotes struct {
	words []string
	// starts[i] is the index in words of segment i's first word.
	starts []int
}

// NewQuotes indexes t's segments (its text when it has none).
func NewQuotes(t Transcript) Quotes {
	var q Quotes
	for _, s := range t.Segments {
		q.starts = append(q.starts, len(q.words))
		q.words = append(q.words, NormalWords(s.Text)...)
	}
	if len(t.Segments) == 0 {
		q.words = NormalWords(t.Text)
	}
	return q
}

// Find reports whether quote's words appear in the transcript in a row,
// and the segment (from 0) where they begin; -1 for a transcript without
// segments. A quote elided with "..." or "…" needs each part, in order, and
// begins where its first part does. A quote without words is not found.
func (q Quotes) Find(quote string) (segment int, found bool) {
	pos, first := 0, -1
	for part := range strings.SplitSeq(strings.ReplaceAll(quote, "...", "…"), "…") {
		words := NormalWords(part)
		if len(words) == 0 {
			continue
		}
		i := q.find(words, pos)
		if i < 0 {
			return 0, false
		}
		if first < 0 {
			first = i
		}
		pos = i + len(words)
	}
	if first < 0 {
		return 0, false
	}
	return sort.SearchInts(q.starts, first+1) - 1, true
}

// Turns returns, for each line of evidence, the turn (segment, numbered
// from 1) where it is quoted, or 0 when that line is not found in the
// transcript; nil when no line is found or the transcript has no segments.
func (q Quotes) Turns(evidence string) []int {
	lines := strings.Split(evidence, "\n")
	turns := make([]int, len(lines))
	quoted := false
	for i, line := range lines {
		if seg, ok := q.Find(line); ok && seg >= 0 {
			turns[i], quoted = seg+1, true
		}
	}
	if !quoted {
		return nil
	}
	return turns
}

// find returns where words first occur in a row at or after from, or -1.
func (q Quotes) find(words []string, from int) int {
	for i := from; i+len(words) <= len(q.words); i++ {
		if slices.Equal(q.words[i:i+len(words)], words) {
			return i
		}
	}
	return -1
}
