package asr_test

import (
	"strings"
	"unicode"
)

// wer is the word error rate of a hypothesis against a reference: the
// fewest word substitutions, deletions and insertions that turn one into the
// other (word-level Levenshtein distance), returned with the reference's
// length, both after normalise.
func wer(reference, hypothesis string) (edits, words int) {
	ref, hyp := normalise(reference), normalise(hypothesis)
	// prev[j] is the distance between the first i-1 reference words and the
	// first j hypothesis words.
	prev := make([]int, len(hyp)+1)
	cur := make([]int, len(hyp)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ref); i++ {
		cur[0] = i
		for j := 1; j <= len(hyp); j++ {
			sub := prev[j-1]
			if ref[i-1] != hyp[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(hyp)], len(ref)
}

// normalise lower-cases s and splits it into words, dropping punctuation
// but keeping apostrophes inside words ("don't").
func normalise(s string) []string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			return unicode.ToLower(r)
		default:
			return ' '
		}
	}, s)
	var words []string
	for _, w := range strings.Fields(s) {
		if w = strings.Trim(w, "'"); w != "" {
			words = append(words, w)
		}
	}
	return words
}
