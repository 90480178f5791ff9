package transcript

import "strings"

// QuoteMarks are the double quotation marks Quoted reads.
const QuoteMarks = "\"“”«»„"

// Quoted reports which of the n words of text stand inside double
// quotation marks ("…", “…”, «…», „…“) closed in text, where at(i) locates
// word i as text[from:to], words in order. What a speaker quotes is
// someone else's words ("the receptionist said «that's not my problem»").
// Single quotes are left alone: they are also apostrophes. A mark left
// open quotes nothing. It returns nil when no word is quoted, after one
// scan when text has no quotation mark.
func Quoted(text string, n int, at func(i int) (from, to int32)) []bool {
	if !strings.ContainsAny(text, QuoteMarks) {
		return nil
	}
	var quoted []bool
	open, opened := false, 0 // opened: the first word after the last opening mark
	prevTo := int32(0)
	for j := 0; j <= n; j++ {
		from, to := prevTo, int32(len(text))
		if j < n {
			var end int32
			to, end = at(j)
			prevTo = end
		}
		for _, r := range text[from:to] {
			switch r {
			case '"':
				open = !open
			case '“', '«', '„':
				open = true
			case '”', '»':
				open = false
			default:
				continue
			}
			if open {
				opened = j
			}
		}
		if open && j < n {
			if quoted == nil {
				quoted = make([]bool, n)
			}
			quoted[j] = true
		}
	}
	if open && opened < n && quoted != nil { // never closed: not a quotation
		clear(quoted[opened:])
	}
	return quoted
}
