package redact

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/auditd/auditd/transcript"
)

// token is a run of letters or of ASCII digits in a segment's text.
type token struct {
	from, to int
	text     string // lower case
	numeral  bool
}

// tokenize splits text into tokens; a letter next to a digit starts a new
// token ("12345678Z" is "12345678" and "z").
func tokenize(text string) []token {
	var out []token
	cur := token{from: -1}
	flush := func(at int) {
		if cur.from >= 0 {
			cur.to = at
			cur.text = strings.ToLower(text[cur.from:at])
			out = append(out, cur)
			cur.from = -1
		}
	}
	for i, r := range text {
		digit := '0' <= r && r <= '9'
		letter := !digit && (unicode.IsLetter(r) || unicode.Is(unicode.Mn, r))
		switch {
		case !digit && !letter:
			flush(i)
		case cur.from >= 0 && cur.numeral != digit:
			flush(i)
			cur = token{from: i, numeral: digit}
		case cur.from < 0:
			cur = token{from: i, numeral: digit}
		}
	}
	flush(len(text))
	return out
}

// spokenDigits are digits said as words, in Spanish and English. "oh" is
// zero only inside a number ("five oh oh"), never first.
var spokenDigits = map[string]byte{
	"cero": '0', "uno": '1', "dos": '2', "tres": '3', "cuatro": '4', "cinco": '5', "seis": '6', "siete": '7', "ocho": '8', "nueve": '9',
	"zero": '0', "oh": '0', "one": '1', "two": '2', "three": '3', "four": '4', "five": '5', "six": '6', "seven": '7', "eight": '8', "nine": '9',
}

// repeats say the next digit twice or three times: "double five", "doble cinco".
var repeats = map[string]int{"double": 2, "doble": 2, "triple": 3}

// numberWords are the words of numbers read in groups, as people read a
// card, a phone or an account aloud ("cuarenta y cinco cero cero doce",
// "forty five oh oh twelve"): teens and the like, which stand alone; tens,
// which a unit may follow; and, in Spanish, hundreds ("seiscientos doce"),
// which the rest may follow, except "cien", which stands alone. English
// hundreds ("four hundred fifteen") are not read: English speakers read
// such groups digit by digit or in tens ("four fifteen").
var numberWords = map[string]int{
	"diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16, "dieciseis": 16,
	"diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veintiuno": 21, "veintidós": 22, "veintidos": 22,
	"veintitrés": 23, "veintitres": 23, "veinticuatro": 24, "veinticinco": 25, "veintiséis": 26, "veintiseis": 26,
	"veintisiete": 27, "veintiocho": 28, "veintinueve": 29,
	"veinte": 20, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90,
	"cien": 100, "ciento": 100, "doscientos": 200, "trescientos": 300, "cuatrocientos": 400, "quinientos": 500,
	"seiscientos": 600, "setecientos": 700, "ochocientos": 800, "novecientos": 900,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19,
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// homographs are number words that are everyday words of the other
// language ("once a month", "ten cuidado"), and the language they are
// numbers in: in a transcript of the other language they are words.
var homographs = map[string]string{"once": "es", "ten": "en"}

// tight reports whether the text between tokens k-1 and k joins the
// words of one number: a space or a hyphen ("forty-five"), not a comma
// ("cuarenta, cinco" is 40 and 5).
func tight(text string, toks []token, k int) bool {
	if k >= len(toks) {
		return false
	}
	gap := strings.Trim(text[toks[k-1].to:toks[k].from], " ")
	return gap == "" || gap == "-"
}

// unitAt reads a digit from 1 to 9 said as a word at token k, joined to
// the word before it.
func unitAt(text string, toks []token, k int) (int, bool) {
	if !tight(text, toks, k) {
		return 0, false
	}
	d, ok := spokenDigits[toks[k].text]
	return int(d - '0'), ok && d != '0'
}

// group reads a number said in words from token i ("doce", "treinta y
// cuatro", "forty-five", "seiscientos doce") of a text in language lang
// ("" when unknown): its value and its last token, or ok false.
func group(text string, toks []token, i int, lang string) (value, last int, ok bool) {
	// No number word is shorter than "ten": most words of a call ("de",
	// "la", "y", "a") and numerals skip the look-up.
	if len(toks[i].text) < 3 || toks[i].numeral {
		return 0, 0, false
	}
	value, ok = numberWords[toks[i].text]
	switch {
	case !ok:
		return 0, 0, false
	case lang != "" && homographs[toks[i].text] != "" && homographs[toks[i].text] != lang:
		return 0, 0, false
	case value >= 100 && toks[i].text != "cien":
		// The rest of the hundreds: a group below one hundred or a digit;
		// "ciento" never stands alone.
		if tight(text, toks, i+1) {
			if rest, end, ok := group(text, toks, i+1, lang); ok && rest < 100 {
				return value + rest, end, true
			}
			if d, ok := unitAt(text, toks, i+1); ok {
				return value + d, i + 1, true
			}
		}
		return value, i, toks[i].text != "ciento"
	case value%10 != 0 || value < 20 || value >= 100:
		return value, i, true
	}
	// Tens and a unit: "forty five", "forty-five", "treinta y cuatro".
	if d, ok := unitAt(text, toks, i+1); ok {
		return value + d, i + 1, true
	}
	if tight(text, toks, i+1) && toks[i+1].text == "y" {
		if d, ok := unitAt(text, toks, i+2); ok {
			return value + d, i + 2, true
		}
	}
	return value, i, true
}

// unit is one part of a number: a numeral ("4500"), a spoken digit
// ("cuatro"), a repeated one ("double five") or a group said in words
// ("cuarenta y cinco").
type unit struct {
	from, to int
	digits   string
	spoken   bool
	first    int // index of its first token
	last     int // index of its last token
}

// run is a number as written or said: units joined only by spaces,
// hyphens, brackets or a comma and a space.
type run struct {
	units  []unit
	digits string
	plus   bool // preceded by "+"
	from   int  // the "+" included
	to     int
}

func (r run) spoken() bool {
	for _, u := range r.units {
		if u.spoken {
			return true
		}
	}
	return false
}

// sub is the run of units [i, j).
func (r run) sub(i, j int) run {
	s := run{units: r.units[i:j], from: r.units[i].from, to: r.units[j-1].to}
	if i == 0 {
		s.plus, s.from = r.plus, r.from
	}
	for _, u := range s.units {
		s.digits += u.digits
	}
	return s
}

// joins reports whether gap may separate two parts of one number; a
// comma only between digits said as words ("cuatro, cinco"), never
// between numerals ("14/02/1985, 0412").
func joins(gap string, spoken bool) bool {
	if gap == "" || len(gap) > 4 {
		return false
	}
	comma := false
	for _, r := range gap {
		switch r {
		case ' ', '\t', '\n', '-', '–', '(', ')':
			comma = false
		case ',':
			comma = true
		default:
			return false
		}
	}
	return !comma && (spoken || !strings.Contains(gap, ","))
}

// runs finds the numbers of text, tokenized as toks, in language lang (""
// when unknown).
func runs(text string, toks []token, lang string) []run {
	var out []run
	var cur run
	flush := func() {
		if len(cur.units) > 0 {
			cur.to = cur.units[len(cur.units)-1].to
			out = append(out, cur)
		}
		cur = run{}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		u, ok := unit{from: t.from, to: t.to, first: i, last: i}, false
		value, end, grouped := group(text, toks, i, lang)
		switch d, spoken := spokenDigits[t.text]; {
		case t.numeral:
			u.digits, ok = t.text, true
		case grouped:
			u.digits, u.spoken, u.to, u.last, ok = strconv.Itoa(value), true, toks[end].to, end, true
			i = end
		case spoken && (t.text != "oh" || len(cur.units) > 0 && joins(text[cur.units[len(cur.units)-1].to:t.from], true)):
			u.digits, u.spoken, ok = string(d), true, true
		case repeats[t.text] > 0 && i+1 < len(toks) && joins(text[t.to:toks[i+1].from], false):
			next := toks[i+1]
			d, spoken := spokenDigits[next.text]
			if next.numeral && len(next.text) == 1 {
				d, spoken = next.text[0], true
			}
			if spoken {
				u.digits, u.spoken, u.to, u.last, ok = strings.Repeat(string(d), repeats[t.text]), true, next.to, i+1, true
				i++
			}
		}
		if !ok {
			flush()
			continue
		}
		if prev := len(cur.units) - 1; prev >= 0 && !joins(text[cur.units[prev].to:u.from], u.spoken && cur.units[prev].spoken) {
			flush()
		}
		if len(cur.units) == 0 {
			cur.from = u.from
			if strings.HasSuffix(text[:u.from], "(") {
				cur.from-- // "(415) 555-2671"
			}
			if before := strings.TrimRight(text[:cur.from], " "); strings.HasSuffix(before, "+") {
				cur.plus, cur.from = true, len(before)-1
			}
		}
		cur.units = append(cur.units, u)
		cur.digits += u.digits
	}
	flush()
	return out
}

// luhn reports whether digits pass the Luhn check of card numbers.
func luhn(digits string) bool {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func isCard(digits string) bool {
	return len(digits) >= 13 && len(digits) <= 19 && luhn(digits)
}

func cardDetector(r run, split bool) string {
	switch {
	case split:
		return "card_split"
	case r.spoken():
		return "card_spoken"
	}
	return "card"
}

// cardFinds are the card numbers of a transcript and the security codes
// said right after one ("… nueve cero uno dos tres", "…9010 123").
type cardFinds struct {
	cards [][]span
	cvvs  [][]span
}

// findCards finds card numbers in each segment's runs, and those split
// between the last number of a turn and the first of the same speaker's
// next turn (with at most two turns of others between).
func findCards(segments []transcript.Segment, runsOf [][]run) cardFinds {
	f := cardFinds{cards: make([][]span, len(segments)), cvvs: make([][]span, len(segments))}
	used := make([]map[int]bool, len(segments)) // runs already in a card
	for i, rs := range runsOf {
		used[i] = map[int]bool{}
		for k, r := range rs {
			if isCard(r.digits) {
				f.cards[i] = append(f.cards[i], span{r.from, r.to, "CARD", cardDetector(r, false)})
				used[i][k] = true
				continue
			}
			// A card followed by its 3 or 4 digit code in one breath.
			for j := len(r.units) - 1; j > 0; j-- {
				tail := len(r.digits) - len(r.sub(0, j).digits)
				if tail > 4 {
					break
				}
				if head := r.sub(0, j); tail >= 3 && isCard(head.digits) {
					f.cards[i] = append(f.cards[i], span{head.from, head.to, "CARD", cardDetector(r, false)})
					code := r.sub(j, len(r.units))
					f.cvvs[i] = append(f.cvvs[i], span{code.from, code.to, "CVV", "cvv"})
					used[i][k] = true
					break
				}
			}
		}
	}
	for i := range segments {
		if len(runsOf[i]) == 0 || used[i][len(runsOf[i])-1] {
			continue
		}
		for j := i + 1; j < len(segments) && j <= i+3; j++ {
			if segments[j].Speaker != segments[i].Speaker || segments[j].Name != segments[i].Name {
				continue
			}
			if len(runsOf[j]) > 0 && !used[j][0] {
				// Both halves long enough and a 15 or 16 digit whole:
				// two unrelated numbers pass Luhn one time in ten.
				a, b := runsOf[i][len(runsOf[i])-1], runsOf[j][0]
				whole := a.digits + b.digits
				if len(a.digits) >= 4 && len(b.digits) >= 4 && (len(whole) == 15 || len(whole) == 16) && isCard(whole) {
					f.cards[i] = append(f.cards[i], span{a.from, a.to, "CARD", "card_split"})
					f.cards[j] = append(f.cards[j], span{b.from, b.to, "CARD", "card_split"})
					used[j][0] = true
				}
			}
			break
		}
	}
	return f
}

// fold lower-cases s and drops the accents of Spanish letters, keeping its
// length in runes.
var fold = strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u", "Á", "a", "É", "e", "Í", "i", "Ó", "o", "Ú", "u")

// securityWords name a card's security code.
var securityWords = []string{"cvv", "cvc", "codigo de seguridad", "numero de seguridad", "security code", "card verification",
	"digitos de atras", "digitos del reverso", "digitos de detras", "tres digitos", "three digits", "digits on the back"}

// cardWords mention a card.
var cardWords = []string{"tarjeta", "card", "visa", "mastercard", "amex"}

func mentions(text string, words []string) bool {
	t := strings.ToLower(fold.Replace(text))
	for _, w := range words {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// findCVVs finds security codes: numbers of 3 or 4 digits in a turn that
// names a security code, or right after one that does, when a card or a
// mention of one is in that turn or the six before; and those said right
// after a card number.
func findCVVs(segments []transcript.Segment, runsOf [][]run, cards cardFinds) [][]span {
	out := make([][]span, len(segments))
	for i := range segments {
		out[i] = append(out[i], cards.cvvs[i]...)
		short := false
		for _, r := range runsOf[i] {
			short = short || len(r.digits) == 3 || len(r.digits) == 4
		}
		if !short {
			continue
		}
		named := mentions(segments[i].Text, securityWords) || i > 0 && mentions(segments[i-1].Text, securityWords)
		if !named {
			continue
		}
		card := false
		for j := max(0, i-6); j <= i && !card; j++ {
			card = len(cards.cards[j]) > 0 || mentions(segments[j].Text, cardWords)
		}
		if !card {
			continue
		}
		for _, r := range runsOf[i] {
			if n := len(r.digits); n >= 3 && n <= 4 {
				out[i] = append(out[i], span{r.from, r.to, "CVV", "cvv"})
			}
		}
	}
	return out
}

// dniLetters are the control letters of a DNI, by the number modulo 23.
const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE"

// letterNames are Spanish letters said as words.
var letterNames = map[string]byte{
	"a": 'A', "be": 'B', "ce": 'C', "de": 'D', "e": 'E', "efe": 'F', "ge": 'G', "hache": 'H', "i": 'I', "jota": 'J',
	"ka": 'K', "ele": 'L', "eme": 'M', "ene": 'N', "o": 'O', "pe": 'P', "cu": 'Q', "erre": 'R', "ese": 'S', "te": 'T',
	"u": 'U', "uve": 'V', "ve": 'V', "equis": 'X', "ye": 'Y', "zeta": 'Z', "doble": 'W',
}

// letterAt reads a letter written or said at token k: the letter and the
// index of its last token, or ok false.
func letterAt(toks []token, k int) (byte, int, bool) {
	if k >= len(toks) || toks[k].numeral {
		return 0, 0, false
	}
	t := toks[k].text
	if len(t) == 1 && t[0] >= 'a' && t[0] <= 'z' {
		return t[0] - 'a' + 'A', k, true
	}
	if t == "uve" && k+1 < len(toks) && toks[k+1].text == "doble" {
		return 'W', k + 1, true
	}
	if t == "i" && k+1 < len(toks) && toks[k+1].text == "griega" {
		return 'Y', k + 1, true
	}
	l, ok := letterNames[t]
	return l, k, ok && t != "doble"
}

// idGap may separate a DNI's number from its letter: nothing, a space or
// a hyphen.
func idGap(gap string) bool {
	return gap == "" || gap == " " || gap == "-" || gap == " - "
}

// findDNIs finds DNIs (8 digits and their control letter) and NIEs (X, Y
// or Z, 7 digits and the control letter), written or spoken, and DNIs
// written with dots ("12.345.678-Z").
func findDNIs(text string, toks []token, rs []run) []span {
	var out []span
	for _, r := range rs {
		last := r.units[len(r.units)-1].last
		letter, end, ok := letterAt(toks, last+1)
		if !ok || !idGap(text[r.to:toks[last+1].from]) {
			continue
		}
		switch first := r.units[0].first; len(r.digits) {
		case 8:
			if dniLetter(r.digits) == letter {
				out = append(out, span{r.from, toks[end].to, "DNI", "dni"})
			}
		case 7:
			if first == 0 {
				continue
			}
			// The prefix may be two tokens back ("i griega").
			k := first - 1
			if toks[k].text == "griega" && k > 0 && toks[k-1].text == "i" {
				k--
			}
			prefix, _, ok := letterAt(toks, k)
			if !ok || !idGap(text[toks[first-1].to:r.from]) {
				continue
			}
			if p := strings.IndexByte("XYZ", prefix); p >= 0 && dniLetter(string(rune('0'+p))+r.digits) == letter {
				out = append(out, span{toks[k].from, toks[end].to, "DNI", "nie"})
			}
		}
	}
	if !digitDotDigit(text) {
		return out
	}
	for _, m := range dottedDNI.FindAllStringSubmatchIndex(text, -1) {
		digits := strings.ReplaceAll(text[m[2]:m[3]], ".", "")
		if dniLetter(digits) == text[m[4]]&^0x20 {
			out = append(out, span{m[0], m[1], "DNI", "dni"})
		}
	}
	return out
}

// digitDotDigit reports whether text has a dot between two digits, as a
// dotted DNI has.
func digitDotDigit(text string) bool {
	for i := 1; i+1 < len(text); i++ {
		if text[i] == '.' && isDigit(text[i-1]) && isDigit(text[i+1]) {
			return true
		}
	}
	return false
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func dniLetter(digits string) byte {
	n := 0
	for i := range len(digits) {
		n = (n*10 + int(digits[i]-'0')) % 23
	}
	return dniLetters[n]
}

// nanp reports whether ten digits are a North American number.
func nanp(d string) bool {
	return len(d) == 10 && d[0] >= '2' && d[3] >= '2'
}

// findPhones finds Spanish (9 digits from 6 to 9, +34 or 0034), British
// (0 and 10 digits, +44 or 0044) and North American (+1, or ten digits
// said or written in groups) phone numbers.
func findPhones(rs []run) []span {
	var out []span
	for _, r := range rs {
		d := r.digits
		ok := false
		switch {
		case r.plus:
			ok = phoneCountry(d)
		case strings.HasPrefix(d, "00"):
			ok = phoneCountry(d[2:])
		case len(d) == 9:
			ok = strings.IndexByte("6789", d[0]) >= 0 && spanishGroups(r)
		case len(d) == 11 && d[0] == '0':
			ok = strings.IndexByte("1237", d[1]) >= 0
		case len(d) == 10 || len(d) == 11 && d[0] == '1':
			ok = nanp(d[len(d)-10:]) && tenDigitGroups(r)
		}
		if ok {
			out = append(out, span{r.from, r.to, "PHONE", "phone"})
		}
	}
	return out
}

// spanishGroups reports whether the nine digits of r are written as a
// Spanish number is: at once, or in groups of two or three ("612 345 678",
// "91 234 56 78"), not "88-4471203" (a policy number).
func spanishGroups(r run) bool {
	if len(r.units) == 1 || r.spoken() {
		return true
	}
	for _, u := range r.units {
		if len(u.digits) > 3 {
			return false
		}
	}
	return true
}

// tenDigitGroups reports whether a ten (or eleven, after a 1) digit run
// is said digit by digit or written as phone numbers of the Americas are
// ("415 555 2671", "(415) 555-2671", "55 1234 5678"); a plain ten-digit
// numeral or "2026-558109" is more often a reference.
func tenDigitGroups(r run) bool {
	if r.spoken() {
		return true
	}
	var sizes []int
	for _, u := range r.units {
		sizes = append(sizes, len(u.digits))
	}
	if len(sizes) == 4 && sizes[0] == 1 {
		sizes = sizes[1:]
	}
	return slices.Equal(sizes, []int{3, 3, 4}) || slices.Equal(sizes, []int{2, 4, 4})
}

// phoneCountry reports whether d, after "+" or "00", is a Spanish, British
// or North American number.
func phoneCountry(d string) bool {
	switch {
	case strings.HasPrefix(d, "34"):
		return len(d) == 11 && strings.IndexByte("6789", d[2]) >= 0
	case strings.HasPrefix(d, "44"):
		return len(d) == 12 && d[2] != '0'
	case strings.HasPrefix(d, "1"):
		return nanp(d[1:])
	}
	return false
}
