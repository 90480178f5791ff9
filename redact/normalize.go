package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns text as the detectors read it, and as a redacted
// transcript keeps it: in Unicode's compatibility composition (NFKC:
// full-width letters and digits, no-break, thin and other spaces, circled
// and superscript digits become their plain forms; the ordinals "º" and
// "ª" stay), with the decimal digits of every script as ASCII digits
// ("٤١١١", "४१११" are "4111"), keycap digits ("4️⃣") as their digits, and
// without invisible format characters (zero-width spaces, joiners outside
// emoji, soft hyphens, direction marks). What is redacted and what the search
// index reads are then the same text: no digit the detectors did not see
// as one can become one later.
func Normalize(text string) string {
	if isPlain(text) {
		return text
	}
	text = nfkc(text)
	var b strings.Builder
	b.Grow(len(text))
	var prev rune
	for i, r := range text {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case unicode.IsDigit(r):
			r = rune('0' + digitValue(r))
			b.WriteRune(r)
		case '0' <= prev && prev <= '9' && (unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Me, r)):
			continue // a keycap digit ("4️⃣") is its digit
		case r == '\u200d' && !isASCIIAlnum(prev) && !isASCIIAlnum(nextRune(text, i+utf8.RuneLen(r))):
			b.WriteRune(r) // joins the parts of an emoji
		case unicode.Is(unicode.Cf, r):
			continue
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// ordinals are the Spanish ordinal indicators ("nº", "1ª"), which NFKC
// would make plain letters ("no", "1a") though they are neither digits nor
// spaces: they stay as written.
const ordinals = "ºª"

// nfkc is text in NFKC but for its ordinals.
func nfkc(text string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(text, ordinals)
		if i < 0 {
			b.WriteString(norm.NFKC.String(text))
			return b.String()
		}
		_, n := utf8.DecodeRuneInString(text[i:])
		b.WriteString(norm.NFKC.String(text[:i]))
		b.WriteString(text[i : i+n])
		text = text[i+n:]
	}
}

// isPlain reports whether text is ASCII, which Normalize leaves as it is:
// most transcripts.
func isPlain(text string) bool {
	for i := range len(text) {
		if text[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// digitValue is the value of r, a decimal digit (Unicode's Nd) of any
// script: Unicode puts each script's digits in order from zero, in runs of
// ten (a stability guarantee), so the value is r's place in its run.
func digitValue(r rune) byte {
	n := 0
	for unicode.IsDigit(r - rune(n) - 1) {
		n++
	}
	return byte(n % 10)
}

func nextRune(text string, at int) rune {
	r, _ := utf8.DecodeRuneInString(text[at:])
	return r
}

func isASCIIAlnum(r rune) bool { return r < utf8.RuneSelf && isAlnum(byte(r)) }
