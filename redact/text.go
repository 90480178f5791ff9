package redact

import (
	"regexp"
	"strings"

	"github.com/almerlucke/go-iban/iban"
)

// dottedDNI is a DNI written with thousands dots: "12.345.678-Z".
var dottedDNI = regexp.MustCompile(`\b(\d{1,2}\.\d{3}\.\d{3})[ -]?([A-Za-z])\b`)

// ibanCandidate is what may begin an IBAN: a country, two check digits and
// up to 30 letters or digits, in groups apart by a space, a line break (in
// turns joined), a dot, a slash or a hyphen.
var ibanCandidate = regexp.MustCompile(`(?i)\b[a-z]{2}[0-9]{2}(?:[ \n./-]?[a-z0-9]){11,30}`)

// findIBANs finds IBANs: for each candidate, the longest prefix (ending
// where a group does) that is a valid IBAN of its country (length, format
// and the mod 97 check, by package iban).
func findIBANs(text string) []span {
	var out []span
	if !letterDigits(text) {
		return nil
	}
	for _, m := range ibanCandidate.FindAllStringIndex(text, -1) {
		// ends[n] is the byte where the first n letters and digits end.
		ends := []int{m[0]}
		compact := make([]byte, 0, 34)
		for i := m[0]; i < m[1]; i++ {
			if isAlnum(text[i]) {
				ends = append(ends, i+1)
				compact = append(compact, text[i])
			}
		}
		for n := len(ends) - 1; n >= 15; n-- {
			end := ends[n]
			if end < len(text) && isAlnum(text[end]) {
				continue
			}
			if _, err := iban.NewIBAN(string(compact[:n])); err == nil {
				out = append(out, span{m[0], end, "IBAN", "iban"})
				break
			}
		}
	}
	return out
}

// findSpokenIBANs finds IBANs said aloud: the country's letters apart
// ("e s", "g b", "e ese") or written in capitals ("ES"), then the check
// digits and the account in numbers said or written, maybe with letters
// between ("g b eighty two w e s t twelve thirty four…", "e s noventa y
// uno dos uno cero cero…"); checked as findIBANs checks them, on the
// longest prefix ending where a letter or a part of a number does.
func findSpokenIBANs(text string, toks []token, rs []run) []span {
	var out []span
	done := 0 // where the last IBAN found ends
	for next, start := range rs {
		end := start.units[0].first - 1 // the country's last token
		k, a, b, ok := countryBefore(text, toks, end)
		if !ok || toks[k].from < done || !joins(text[toks[end].to:start.from], true) {
			continue
		}
		// Letters and parts of numbers, and where each ends.
		compact := []byte{a, b}
		ends := []int{toks[end].to, toks[end].to}
		last := end
		for r := next; len(compact) <= 34; {
			if r < len(rs) && rs[r].units[0].first == last+1 && joins(text[toks[last].to:rs[r].from], true) {
				for _, u := range rs[r].units {
					compact = append(compact, u.digits...)
					for range u.digits {
						ends = append(ends, u.to)
					}
				}
				last = rs[r].units[len(rs[r].units)-1].last
				r++
				continue
			}
			l, lend, ok := letterAt(toks, last+1)
			if !ok || !joins(text[toks[last].to:toks[last+1].from], true) {
				break
			}
			compact = append(compact, l)
			ends = append(ends, toks[lend].to)
			last = lend
		}
		for n := min(len(compact), 34); n >= 15; n-- {
			if n < len(compact) && ends[n] == ends[n-1] {
				continue // inside a part
			}
			if _, err := iban.NewIBAN(string(compact[:n])); err == nil {
				out = append(out, span{toks[k].from, ends[n-1], "IBAN", "iban_spoken"})
				done = ends[n-1]
				break
			}
		}
	}
	return out
}

// countryBefore reads the country of an IBAN ending at token end: its
// first token and letters.
func countryBefore(text string, toks []token, end int) (k int, a, b byte, ok bool) {
	// Two letters take at most four tokens ("uve doble i griega").
	for k = max(0, end-3); k <= end; k++ {
		if a, b, last, ok := countryAt(text, toks, k); ok && last == end {
			return k, a, b, true
		}
	}
	return 0, 0, 0, false
}

// countryAt reads the country of an IBAN said from token k: two letters
// said apart or one token of two capitals, and its last token.
func countryAt(text string, toks []token, k int) (a, b byte, end int, ok bool) {
	if t := toks[k]; t.to-t.from == 2 && isCapital(text[t.from]) && isCapital(text[t.from+1]) {
		return text[t.from], text[t.from+1], k, true
	}
	a, ea, ok := letterAt(toks, k)
	if !ok || ea+1 >= len(toks) || !joins(text[toks[ea].to:toks[ea+1].from], true) {
		return 0, 0, 0, false
	}
	b, end, ok = letterAt(toks, ea+1)
	return a, b, end, ok
}

// letterDigits reports whether text has a letter followed by two digits,
// as an IBAN begins.
func letterDigits(text string) bool {
	for i := 0; i+2 < len(text); i++ {
		if isDigit(text[i+1]) && isDigit(text[i+2]) && isAlnum(text[i]) && !isDigit(text[i]) {
			return true
		}
	}
	return false
}

func isCapital(b byte) bool { return 'A' <= b && b <= 'Z' }

func isAlnum(b byte) bool {
	return isDigit(b) || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// Spoken e-mail addresses. The local part is words joined by a
// separator, said or written ("juan punto perez", "juan . perez"), or
// followed by a number said in words ("pablo punto arias ochenta y dos");
// the domain ends in a common top-level domain, maybe followed by a country
// ("co dot uk", "com punto ve"). The at sign is "@" with spaces around,
// "arroba", or either word in brackets ("(arroba)", "[at]"); after those,
// the dots may be written, said or bracketed ("[dot]"). After a bare "at",
// an everyday English word, they must be said or bracketed, so that "sign
// up at taskly.io/trial" stays.
const (
	emailWord    = `[\p{L}0-9._-]+`
	emailOpen    = `[\(\[\{<]\s*`
	emailShut    = `\s*[\)\]\}>]`
	emailSaidDot = `(?:\s+(?:punto|dot)\s+|\s*` + emailOpen + `(?:punto|dot)` + emailShut + `\s*)`
	emailDot     = `(?:` + emailSaidDot + `|\.|\s+\.\s+)`
	emailAt      = `(?:\s+arroba\s+|\s*` + emailOpen + `(?:arroba|at)` + emailShut + `\s*|\s*@\s*)`
	emailSep     = `(?:` + emailDot + `|\s+(?:gui[oó]n(?:\s+bajo)?|barra\s+baja|underscore|dash|hyphen)\s+)`
	emailNumber  = `\s+(?:(?:y|and)\s+)?(?:[0-9]+|cero|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|` +
		`dieci\p{L}+|veinte|veinti\p{L}+|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa|zero|one|two|three|four|five|six|seven|` +
		`eight|nine|ten|eleven|twelve|\p{L}+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b`
	emailLocal = `\b` + emailWord + `(?:` + emailSep + emailWord + `|` + emailNumber + `)*`
	emailLabel = `[\p{L}0-9-]+`
	emailTLD   = `(?:com|es|net|org|edu|gov|io|co|uk|eu|info|me|mx|ar|cl|pe|biz|de|fr|it|pt|cat)\b`
)

var (
	writtenEmail = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	spokenEmail  = regexp.MustCompile(`(?i)` + emailLocal + `(?:` +
		emailAt + emailLabel + `(?:` + emailDot + emailLabel + `)*` + emailDot + emailTLD + `(?:` + emailDot + `[a-z]{2}\b)*|` +
		`\s+at\s+` + emailLabel + `(?:` + emailSaidDot + emailLabel + `)*` + emailSaidDot + emailTLD + `(?:` + emailSaidDot + `[a-z]{2}\b)*)`)
)

// findEmails finds e-mail addresses, written or spoken.
// The expressions run only on a text holding what they need: unanchored,
// they cost a pass of the whole automaton at every word.
func findEmails(text string) []span {
	var out []span
	at := strings.IndexByte(text, '@') >= 0
	if at {
		for _, m := range writtenEmail.FindAllStringIndex(text, -1) {
			out = append(out, span{m[0], m[1], "EMAIL", "email"})
		}
	}
	if lower := strings.ToLower(text); at || strings.Contains(lower, "arroba") || hasWord(lower, "at") {
		for _, m := range spokenEmail.FindAllStringIndex(text, -1) {
			out = append(out, span{m[0], m[1], "EMAIL", "email_spoken"})
		}
	}
	return out
}

// hasWord reports whether word is in text apart from letters on both sides.
func hasWord(text, word string) bool {
	for i := 0; ; {
		k := strings.Index(text[i:], word)
		if k < 0 {
			return false
		}
		k += i
		if (k == 0 || !isAlnum(text[k-1])) && (k+len(word) == len(text) || !isAlnum(text[k+len(word)])) {
			return true
		}
		i = k + 1
	}
}
