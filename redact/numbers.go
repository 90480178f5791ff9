package redact

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
	out := make([]token, 0, len(text)/5) // words of Spanish and English average under five letters and a space
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
	// loose: written apart from the numeral before it by a dot, a slash or
	// other punctuation ("5500.0055", "4111/1111"), as only some numbers
	// are (cardRun, idGroups, the phones' groups); comma: by a comma alone,
	// as only a card is taken to be ("4111,1111,1111,1111"; "612,345,678"
	// is an amount).
	loose, comma bool
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

// loose reports whether a part of r is joined by punctuation other than
// a hyphen (looseGap).
func (r run) loose() bool {
	return slices.ContainsFunc(r.units, func(u unit) bool { return u.loose })
}

// cardOnly reports whether r may only be a card: a comma joins its parts.
func (r run) cardOnly() bool {
	return slices.ContainsFunc(r.units, func(u unit) bool { return u.comma })
}

// sizes are the numbers of digits of r's parts.
func (r run) sizes() []int {
	out := make([]int, len(r.units))
	for i, u := range r.units {
		out[i] = len(u.digits)
	}
	return out
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

// looseGap reports whether gap, between two numerals, is punctuation that
// people put between the groups of a card or a phone number when
// writing it: dots, slashes, dashes of any kind, bars, stars, underscores,
// mixed with spaces ("5500.0055", "4111 / 1111", "4539-1488 0343.6467"),
// or a comma alone ("4111,1111"); never a colon, which parts times, nor a
// comma and a space, which part lists ("2019, 2020, 2021, 2022").
func looseGap(gap string) bool {
	if gap == "," {
		return true
	}
	if gap == "" || utf8.RuneCountInString(gap) > 4 {
		return false
	}
	punct := false
	for _, r := range gap {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '(' || r == ')':
		case strings.ContainsRune("./\\|*_~·•−", r) || unicode.Is(unicode.Pd, r):
			punct = true
		default:
			return false
		}
	}
	return punct
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
		if prev := len(cur.units) - 1; prev >= 0 {
			gap, spoken := text[cur.units[prev].to:u.from], u.spoken || cur.units[prev].spoken
			switch {
			case joins(gap, u.spoken && cur.units[prev].spoken):
			case !spoken && looseGap(gap):
				u.loose, u.comma = true, gap == ","
			default:
				flush()
			}
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

// cardRun reports whether r is a card number: its digits pass isCard and,
// when punctuation joins its groups, they are grouped as cards print them
// (fours, the last maybe shorter; American Express's 4-6-5 and Diners'
// 4-6-4), not as two dates or a date and an amount.
func cardRun(r run) bool {
	if !isCard(r.digits) {
		return false
	}
	if !r.loose() {
		return true
	}
	sizes := r.sizes()
	if slices.Equal(sizes, []int{4, 6, 5}) || slices.Equal(sizes, []int{4, 6, 4}) {
		return true
	}
	for i, n := range sizes {
		if n != 4 && (i < len(sizes)-1 || n > 4) {
			return false
		}
	}
	return true
}

func cardDetector(r run) string {
	if r.spoken() {
		return "card_spoken"
	}
	return "card"
}

// findCards finds the card numbers of one text's runs, and the security
// codes said right after one ("… nueve cero uno dos tres", "…9010 123").
func findCards(rs []run) []span {
	var out []span
	for _, r := range rs {
		if cardRun(r) {
			out = append(out, span{r.from, r.to, "CARD", cardDetector(r)})
			continue
		}
		// A card followed by its 3 or 4 digit code in one breath.
		for j := len(r.units) - 1; j > 0; j-- {
			head := r.sub(0, j)
			tail := len(r.digits) - len(head.digits)
			if tail > 4 {
				break
			}
			if tail >= 3 && cardRun(head) {
				code := r.sub(j, len(r.units))
				out = append(out, span{head.from, head.to, "CARD", cardDetector(r)}, span{code.from, code.to, "CVV", "cvv"})
				break
			}
		}
	}
	return out
}

// fold lower-cases s and drops the accents of Spanish letters, keeping its
// length in runes.
var fold = strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u", "Á", "a", "É", "e", "Í", "i", "Ó", "o", "Ú", "u")

// securityWords name a card's security code; cardCodeWords name it so
// that a card is meant without saying so.
var (
	securityWords = []string{"codigo", "code", "numero de seguridad", "card verification", "digitos de atras", "digitos del reverso",
		"digitos de detras", "tres digitos", "three digits", "digits on the back"}
	cardCodeWords = []string{"cvv", "cvc", "csc"}
)

// cardWords mention a card (or its placeholder, "[CARD]").
var cardWords = []string{"tarjeta", "card", "visa", "mastercard", "amex"}

// folded is a's text lower case and without accents, made once.
func (a *analysis) folded() string {
	if a.lower == "" {
		a.lower = strings.ToLower(fold.Replace(a.text))
	}
	return a.lower
}

func mentions(a *analysis, words []string) bool {
	return mention(a, words) >= 0
}

// mention returns where the first of words is in a's text, in runes, or -1.
func mention(a *analysis, words []string) int {
	t := a.folded()
	at := -1
	for _, w := range words {
		if k := strings.Index(t, w); k >= 0 && (at < 0 || k < at) {
			at = k
		}
	}
	if at < 0 {
		return -1
	}
	return utf8.RuneCountInString(t[:at])
}

// expiry is a card's expiry date after the words that introduce it
// ("caduca 12/29", "fecha de caducidad: 08/2027", "expires 08/27", "valid
// thru 11-28"): submatch 1 is the date.
var expiry = regexp.MustCompile(`(?i)\b(?:caduc\p{L}*|venc\p{L}*|expir\p{L}*|exp|v[aá]lid[ao]?\s+(?:hasta|thru|through|until)|good\s+thru)\b` +
	`[^0-9\n]{0,24}?\b((?:0?[1-9]|1[0-2])\s*[/.-]\s*(?:20)?[0-9]{2})\b`)

// findCardDetails finds what is said of a card near one (a card number
// found, the placeholder of one, or a mention, in the turn or the six
// before): its expiry date, and its security code: a number of 3 or 4
// digits, not part of the date, after the words that name it in a turn
// (anywhere in it when none is after them), or in the turn right after
// one that names it. A code named "cvv" needs no card near.
func findCardDetails(an []analysis, found [][]span) [][]span {
	out := make([][]span, len(an))
	for i := range an {
		a := &an[i]
		// Codes have 3 or 4 digits, dates 3 to 6 ("1/29", "12/2029").
		if !slices.ContainsFunc(a.runs, func(r run) bool { return len(r.digits) >= 3 && len(r.digits) <= 6 }) {
			continue
		}
		near := func(words []string) bool {
			return mentions(a, words) || i > 0 && mentions(&an[i-1], words)
		}
		card := near(cardCodeWords)
		for j := max(0, i-6); j <= i && !card; j++ {
			card = slices.ContainsFunc(found[j], func(s span) bool { return s.label == "CARD" }) || mentions(&an[j], cardWords)
		}
		if !card {
			continue
		}
		for _, m := range expiry.FindAllStringSubmatchIndex(a.text, -1) {
			out[i] = append(out[i], span{m[2], m[3], "EXPIRY", "expiry"})
		}
		if !near(securityWords) && !near(cardCodeWords) {
			continue
		}
		var codes []span
		for _, r := range a.runs {
			date := slices.ContainsFunc(out[i], func(s span) bool { return s.from < r.to && r.from < s.to })
			if n := len(r.digits); n >= 3 && n <= 4 && !r.loose() && !date {
				codes = append(codes, span{r.from, r.to, "CVV", "cvv"})
			}
		}
		if named := max(mention(a, securityWords), mention(a, cardCodeWords)); named >= 0 {
			after := slices.DeleteFunc(slices.Clone(codes), func(s span) bool { return utf8.RuneCountInString(a.text[:s.from]) < named })
			if len(after) > 0 {
				codes = after
			}
		}
		out[i] = append(out[i], codes...)
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
		if r.cardOnly() || r.loose() && !idGroups(r) {
			continue
		}
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

// idGroups reports whether the groups of r, joined by punctuation, are
// those of an id ("12.345.678", "12/34/56/78", "1234.5678"), not a date's
// ("12/05/2024 y…").
func idGroups(r run) bool {
	sizes := r.sizes()
	return slices.Max(sizes) <= 3 || slices.Equal(sizes, []int{4, 4})
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
		if r.cardOnly() {
			continue
		}
		switch {
		case r.plus:
			ok = phoneCountry(d)
		case strings.HasPrefix(d, "00"):
			ok = phoneCountry(d[2:])
		case len(d) == 9:
			ok = strings.IndexByte("6789", d[0]) >= 0 && spanishGroups(r)
		case len(d) == 11 && d[0] == '0':
			ok = strings.IndexByte("1237", d[1]) >= 0 && britishGroups(r)
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

// britishGroups reports whether the eleven digits of r are written as a
// British number is: the area code (3 to 5 digits) and groups of at least
// 3, or with spaces and hyphens only; not "01/02/2024 123".
func britishGroups(r run) bool {
	sizes := r.sizes()
	return !r.loose() || sizes[0] >= 3 && sizes[0] <= 5 && slices.Min(sizes) >= 3
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
