package redact

import (
	"strings"
	"unicode"

	"github.com/auditd/auditd/transcript"
)

// chains returns the numbers said over several turns: each chain is the
// indexes of one speaker's turns, where each ends with a number and the
// next begins with one ("4500 1234" … "5678 9012"), with at most two short
// acknowledgements of others between them ("vale", "mhm", «ajá», "go on").
func chains(segments []transcript.Segment, an []analysis) [][]int {
	var out [][]int
	taken := make([]bool, len(segments))
	for i := range segments {
		if taken[i] {
			continue
		}
		c := []int{i}
		for last := i; endsWithNumber(an[last]); {
			j := nextTurn(segments, an, last)
			if j < 0 || !startsWithNumber(an[j]) {
				break
			}
			c, last, taken[j] = append(c, j), j, true
		}
		if len(c) > 1 {
			out = append(out, c)
		}
	}
	return out
}

// nextTurn returns the index of the next turn of turn i's speaker when
// only short acknowledgements of others come before it, or -1.
func nextTurn(segments []transcript.Segment, an []analysis, i int) int {
	for j := i + 1; j < len(segments) && j <= i+3; j++ {
		if segments[j].Speaker == segments[i].Speaker && segments[j].Name == segments[i].Name {
			return j
		}
		if len(an[j].runs) > 0 || len(an[j].toks) > 3 {
			return -1
		}
	}
	return -1
}

func endsWithNumber(a analysis) bool {
	return len(a.runs) > 0 && !strings.ContainsFunc(a.text[a.runs[len(a.runs)-1].to:], isWordRune)
}

func startsWithNumber(a analysis) bool {
	return len(a.runs) > 0 && !strings.ContainsFunc(a.text[:a.runs[0].from], isWordRune)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// acrossTurns returns, by turn, the pieces of what the number detectors
// find in the turns of chain c read as one text (one turn a line) that
// spans more than one turn. A card so found must have 15 or 16 digits and
// at least 4 in each turn: two unrelated numbers pass Luhn one time in ten.
func acrossTurns(c []int, an []analysis, lang string) map[int][]span {
	var b strings.Builder
	starts := make([]int, len(c)+1)
	for k, i := range c {
		if k > 0 {
			b.WriteByte('\n')
		}
		starts[k] = b.Len()
		b.WriteString(an[i].text)
	}
	starts[len(c)] = b.Len() + 1
	joined := analyse(b.String(), lang)
	out := map[int][]span{}
	for _, s := range numbers(joined) {
		first, last := turnAt(starts, s.from), turnAt(starts, s.to-1)
		if first == last {
			continue // found in the turn alone
		}
		detector := s.detector + "_split"
		if s.label == "CARD" {
			detector = "card_split"
			if n := digitsIn(joined.runs, s.from, s.to); n != 15 && n != 16 {
				continue
			}
		}
		var pieces []span
		for k := first; k <= last; k++ {
			from, to := max(s.from, starts[k]), min(s.to, starts[k+1]-1)
			if s.label == "CARD" && digitsIn(joined.runs, from, to) < 4 {
				pieces = nil
				break
			}
			pieces = append(pieces, span{from - starts[k], to - starts[k], s.label, detector})
		}
		for k, p := range pieces {
			out[c[first+k]] = append(out[c[first+k]], p)
		}
	}
	return out
}

// turnAt is the index of the turn holding byte at of a chain's text.
func turnAt(starts []int, at int) int {
	k := 0
	for k+1 < len(starts)-1 && starts[k+1] <= at {
		k++
	}
	return k
}

// digitsIn counts the digits of the parts of numbers within [from, to).
func digitsIn(rs []run, from, to int) int {
	n := 0
	for _, r := range rs {
		for _, u := range r.units {
			if u.from >= from && u.to <= to {
				n += len(u.digits)
			}
		}
	}
	return n
}
