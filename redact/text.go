package redact

import (
	"regexp"
	"strings"

	"github.com/almerlucke/go-iban/iban"
)

// dottedDNI is a DNI written with thousands dots: "12.345.678-Z".
var dottedDNI = regexp.MustCompile(`\b(\d{1,2}\.\d{3}\.\d{3})[ -]?([A-Za-z])\b`)

// ibanCandidate is what may begin an IBAN: a country, two check digits and
// up to 30 letters or digits, in groups separated by single spaces.
var ibanCandidate = regexp.MustCompile(`(?i)\b[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}`)

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
		for i := m[0]; i < m[1]; i++ {
			if text[i] != ' ' {
				ends = append(ends, i+1)
			}
		}
		for n := len(ends) - 1; n >= 15; n-- {
			end := ends[n]
			if end < len(text) && isAlnum(text[end]) {
				continue
			}
			if _, err := iban.NewIBAN(text[m[0]:end]); err == nil {
				out = append(out, span{m[0], end, "IBAN", "iban"})
				break
			}
		}
	}
	return out
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

func isAlnum(b byte) bool {
	return isDigit(b) || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// Spoken e-mail addresses. The local part is words joined by a spoken
// separator, or followed by a number said in words ("pablo punto arias
// ochenta y dos"); the domain ends in a common top-level domain, maybe
// followed by a country ("co dot uk", "com punto ve"). After "arroba" the
// dots may be written ("juan.perez arroba gmail.com"); after "at", an
// everyday English word, they must be said, so that "sign up at
// taskly.io/trial" stays.
const (
	emailWord      = `[\p{L}0-9._-]+`
	emailSeparator = `\s+(?:punto|dot|gui[oó]n(?:\s+bajo)?|barra\s+baja|underscore|dash|hyphen)\s+`
	emailNumber    = `\s+(?:(?:y|and)\s+)?(?:[0-9]+|cero|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|` +
		`dieci\p{L}+|veinte|veinti\p{L}+|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa|zero|one|two|three|four|five|six|seven|` +
		`eight|nine|ten|eleven|twelve|\p{L}+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b`
	emailLocal = `\b` + emailWord + `(?:` + emailSeparator + emailWord + `|` + emailNumber + `)*`
	emailTLD   = `(?:com|es|net|org|edu|gov|io|co|uk|eu|info|me|mx|ar|cl|pe|biz|de|fr|it|pt|cat)\b`
)

var (
	writtenEmail = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	spokenEmail  = regexp.MustCompile(`(?i)` + emailLocal + `\s+(?:` +
		`arroba\s+[\p{L}0-9-]+(?:(?:\s+punto\s+|\.)[\p{L}0-9-]+)*(?:\s+punto\s+|\.)` + emailTLD + `(?:(?:\s+punto\s+|\.)[a-z]{2}\b)*|` +
		`at\s+[\p{L}0-9-]+(?:\s+dot\s+[\p{L}0-9-]+)*\s+dot\s+` + emailTLD + `(?:\s+dot\s+[a-z]{2}\b)*)`)
)

// findEmails finds e-mail addresses, written or spoken.
// The expressions run only on a text holding what they need: unanchored,
// they cost a pass of the whole automaton at every word.
func findEmails(text string) []span {
	var out []span
	if strings.IndexByte(text, '@') >= 0 {
		for _, m := range writtenEmail.FindAllStringIndex(text, -1) {
			out = append(out, span{m[0], m[1], "EMAIL", "email"})
		}
	}
	if lower := strings.ToLower(text); strings.Contains(lower, "arroba") || strings.Contains(lower, " at ") {
		for _, m := range spokenEmail.FindAllStringIndex(text, -1) {
			out = append(out, span{m[0], m[1], "EMAIL", "email_spoken"})
		}
	}
	return out
}
