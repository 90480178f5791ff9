package api

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// hidden reports whether r changes how text around it reads without
// being seen: a control character (line breaks included) or a
// bidirectional control (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069),
// with which a name or an address can show itself reversed.
func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}

// plainText reports whether s is valid UTF-8 without hidden characters.
func plainText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, hidden)
}

// printable drops hidden characters and invalid UTF-8 from s, trims it and
// keeps at most max characters: what a client sends that is shown on one
// line.
func printable(s string, max int) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if hidden(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s))
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return s
}
