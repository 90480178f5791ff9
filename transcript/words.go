package transcript

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Word locates one normalised word: its normalised form is
// buf[NormFrom:NormTo] of the buffer it was appended to, and it was written
// as text[From:To] of its source.
type Word struct {
	From, To         int32
	NormFrom, NormTo int32
}

// AppendWords splits text into words and appends their normalised forms to
// buf and their locations to words. Normalising folds case, drops accents
// and other non-spacing marks (compatibility decomposition, then removing
// Unicode category Mn: "Días" → "dias", "ñ" → "n"), and treats every rune
// that is not a letter, digit or spacing mark as a separator, except
// apostrophes, which join ("don't" → "dont") so that a phrase and its
// contracted spelling agree. A pictograph outside Latin-1 (Unicode
// category So: "🙄", "😅", "☕") is a word of its own, so a rule can name it.
func AppendWords(buf []byte, words []Word, text string) ([]byte, []Word) {
	var cur Word
	in := false // inside a word
	var src [utf8.UTFMax]byte
	var dec [4 * utf8.UTFMax]byte
	for i, r := range text {
		size := utf8.RuneLen(r)
		if r < utf8.RuneSelf {
			switch {
			case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
			case 'A' <= r && r <= 'Z':
				r += 'a' - 'A'
			case r == '\'':
				continue
			default:
				if in {
					cur.NormTo = int32(len(buf))
					words = append(words, cur)
					in = false
				}
				continue
			}
			if !in {
				cur = Word{From: int32(i), NormFrom: int32(len(buf))}
				in = true
			}
			buf = append(buf, byte(r))
			cur.To = int32(i + 1)
			continue
		}
		if r == '’' || r == 'ʼ' {
			continue
		}
		if r > unicode.MaxLatin1 && unicode.Is(unicode.So, r) {
			// A pictograph ("🙄", "😅") is a word of its own.
			if in {
				cur.NormTo = int32(len(buf))
				words = append(words, cur)
				in = false
			}
			words = append(words, Word{From: int32(i), To: int32(i + size), NormFrom: int32(len(buf))})
			buf = utf8.AppendRune(buf, r)
			words[len(words)-1].NormTo = int32(len(buf))
			continue
		}
		kept := false
		sep := false
		d := norm.NFKD.Append(dec[:0], utf8.AppendRune(src[:0], r)...)
		for len(d) > 0 {
			dr, n := utf8.DecodeRune(d)
			d = d[n:]
			switch {
			case unicode.Is(unicode.Mn, dr):
			case unicode.IsLetter(dr) || unicode.IsDigit(dr) || unicode.IsMark(dr):
				if !in {
					cur = Word{From: int32(i), NormFrom: int32(len(buf))}
					in = true
				}
				buf = utf8.AppendRune(buf, unicode.ToLower(dr))
				kept = true
			default:
				sep = true
			}
		}
		switch {
		case kept:
			cur.To = int32(i + size)
		case sep && in:
			cur.NormTo = int32(len(buf))
			words = append(words, cur)
			in = false
		}
	}
	if in {
		cur.NormTo = int32(len(buf))
		words = append(words, cur)
	}
	return buf, words
}

// NormalWords returns the normalised words of text, as AppendWords
// normalises them: the form in which the rules engine compares phrases and
// transcripts, the LLM engine finds a quote in a transcript, and a chat's
// speaker labels are read.
func NormalWords(text string) []string {
	buf, ws := AppendWords(nil, nil, text)
	s := string(buf)
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = s[w.NormFrom:w.NormTo]
	}
	return out
}
