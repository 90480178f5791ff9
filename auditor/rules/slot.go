package rules

import (
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// slot is a kind of thing a phrase can name instead of words: {ref},
// {amount}, … It matches one or more transcript words.
type slot uint8

const (
	noSlot slot = iota
	slotRef
	slotAmount
	slotTimeframe
	slotDate
	slotName
	slotAgentName
	slotNumber
	numSlots
)

// slotNames are the slots as rules write them, between braces.
var slotNames = map[string]slot{
	"ref": slotRef, "amount": slotAmount, "timeframe": slotTimeframe, "date": slotDate,
	"name": slotName, "agent_name": slotAgentName, "number": slotNumber,
}

func slotList() string {
	names := make([]string, 0, len(slotNames))
	for n := range slotNames {
		names = append(names, "{"+n+"}")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// tokens is what slot recognition sees of a transcript: its normalised
// words, the text between consecutive words of a segment (gaps keep the
// "-" of INC-4432, the "€" of 49,99 €), and whether each word was written
// with a capital.
type tokens struct {
	norm []string
	// gap[i] is the text between word i-1 and word i, "\n" across segments.
	gap []string
	// after[i] is the text after word i up to the next word or the end of
	// its segment.
	after []string
	// upper[i]: word i is capitalised, and only its first letter ("Marta",
	// not "CloudNest" or "IBM", which are brands).
	upper []bool
	// initial[i]: word i starts a sentence or a segment.
	initial []bool
	// caseless[i]: word i's segment has no capital at all (speech
	// recognition's lower case), so capitals say nothing of names.
	caseless []bool
}

// spans returns, for every word, the last word of each span of kind s
// starting there (nil where none starts). agentNames are the agent's names
// from the chat's speaker labels.
func (tk *tokens) spans(s slot, agentNames []string) [][]int32 {
	n := len(tk.norm)
	out := make([][]int32, n)
	for i := range n {
		var ends []int32
		switch s {
		case slotRef:
			ends = tk.ref(i)
		case slotAmount:
			ends = tk.amount(i)
		case slotTimeframe:
			ends = tk.timeframe(i)
		case slotDate:
			ends = tk.date(i)
		case slotName:
			ends = tk.name(i, nil)
		case slotAgentName:
			if len(agentNames) > 0 {
				ends = tk.name(i, agentNames)
			}
		case slotNumber:
			if j := tk.number(i); j >= 0 {
				ends = []int32{int32(j)}
			}
		}
		out[i] = ends
	}
	return out
}

// org reports whether word i, in the segment of word i-1, is one of
// orgWords.
func (tk *tokens) org(i int) bool {
	return i < len(tk.norm) && tk.gap[i] != "\n" && orgWords[tk.norm[i]]
}

func one(j int) []int32 {
	if j < 0 {
		return nil
	}
	return []int32{int32(j)}
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

// joined reports whether word i is glued to word i-1 by gap characters
// only (the "-" of INC-4432, the "," of 49,99).
func (tk *tokens) joined(i int, chars string) bool {
	g := tk.gap[i]
	return g != "" && strings.Trim(g, chars) == ""
}

// number returns the last word of a number written in digits starting at
// i, with its groups ("1.250,00", "3 456" is two numbers), or -1.
func (tk *tokens) number(i int) int {
	if !isDigits(tk.norm[i]) {
		return -1
	}
	j := i
	for j+1 < len(tk.norm) && isDigits(tk.norm[j+1]) && tk.joined(j+1, ".,") {
		j++
	}
	return j
}

// unitSuffix is a unit glued to digits: 48h, 24hrs, 5pm, 15th.
func unitSuffix(w string, units ...string) bool {
	d := strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' })
	return d > 0 && slices.Contains(units, w[d:])
}

var (
	currencySymbols = "€$£¥₡₲₱₹¢"
	currencyWords   = set("euro euros eur dolar dolares dollar dollars usd pesos peso mxn cop clp ars libras libra pounds pound gbp quid bucks soles sol pen cents centimos centavos pence reais bolivares")
	numberWords     = set("un una uno dos tres cuatro cinco seis siete ocho nueve diez once doce quince veinte veinticuatro treinta cuarenta cincuenta sesenta setenta noventa cien one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty seventy ninety hundred a an")
	rangeWords      = set("a to y o or and al")
	unitWords       = set("minuto minutos min mins minute minutes hora horas hour hours hr hrs h hs dia dias day days semana semanas week weeks mes meses month months")
	qualBefore      = set("working business calendar full")
	qualAfter       = set("habiles laborables naturales utiles")
	weekdays        = set("lunes martes miercoles jueves viernes sabado domingo monday tuesday wednesday thursday friday saturday sunday")
	months          = set("enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec")
	thisWords       = set("esta este this")
	nextWords       = set("next proxima proximo siguiente")
	periodWords     = set("tarde noche semana mes finde afternoon evening week weekend month morning tonight")
	dayRefs         = set("hoy today tomorrow tonight mediodia noon midday eod")
	clockSuffix     = []string{"am", "pm", "h", "hs", "hrs"}
	ordinalSuffix   = []string{"st", "nd", "rd", "th", "o", "a"}
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// ref recognises a reference code: letters glued to digits by a dash or
// slash (INC-4432, RF/2201), a word mixing letters and digits with at least
// two digits (AB12CD34, INC4432), three digits or more after "#" (#88231),
// or five digits or more (00451).
func (tk *tokens) ref(i int) []int32 {
	w := tk.norm[i]
	switch {
	case isLetters(w) && utf8.RuneCountInString(w) <= 6 && i+1 < len(tk.norm) &&
		isDigits(tk.norm[i+1]) && len(tk.norm[i+1]) >= 3 && tk.joined(i+1, "-/_"):
		j := i + 1
		for j+1 < len(tk.norm) && tk.joined(j+1, "-/_") && !isLetters(tk.norm[j+1]) {
			j++
		}
		return one(j)
	case !isDigits(w) && !isLetters(w) && len(w) >= 4 && digitCount(w) >= 2 &&
		!unitSuffix(w, "h", "hs", "hr", "hrs", "min", "mins", "am", "pm", "st", "nd", "rd", "th", "km", "gb", "mb", "mbps", "g"):
		return one(i)
	case isDigits(w) && (len(w) >= 5 || len(w) >= 3 && strings.HasSuffix(strings.TrimSpace(tk.gap[i]), "#")):
		return one(i)
	}
	return nil
}

func digitCount(s string) int {
	n := 0
	for _, r := range s {
		if '0' <= r && r <= '9' {
			n++
		}
	}
	return n
}

// amount recognises money: a number with a currency symbol or word before
// or after it (49,99 €, $1,250, 20 euros, USD 40), or a number with two
// decimals (49.99).
func (tk *tokens) amount(i int) []int32 {
	if currencyWords[tk.norm[i]] && i+1 < len(tk.norm) && tk.gap[i+1] != "\n" {
		if j := tk.number(i + 1); j >= 0 {
			return one(j)
		}
	}
	j := tk.number(i)
	if j < 0 {
		return nil
	}
	switch {
	case strings.ContainsAny(lastRunes(tk.gap[i], 2), currencySymbols):
		return one(j)
	case strings.ContainsAny(firstRunes(tk.after[j], 2), currencySymbols):
		return one(j)
	case j+1 < len(tk.norm) && currencyWords[tk.norm[j+1]] && tk.gap[j+1] != "\n":
		return one(j + 1)
	case j > i && len(tk.norm[j]) == 2:
		return one(j)
	}
	return nil
}

func lastRunes(s string, n int) string {
	r := []rune(strings.TrimRight(s, " "))
	return string(r[max(len(r)-n, 0):])
}

func firstRunes(s string, n int) string {
	r := []rune(strings.TrimLeft(s, " "))
	return string(r[:min(len(r), n)])
}

// quantity reads a count: digits, a number word, "a couple of", "un par
// de", and a range ("3 a 5", "3 to 5", "24-48"). It returns the last word,
// or -1.
func (tk *tokens) quantity(i int) int {
	n := len(tk.norm)
	j := -1
	switch w := tk.norm[i]; {
	case isDigits(w):
		j = tk.number(i)
	case (w == "couple" || w == "par") && i+1 < n && (tk.norm[i+1] == "of" || tk.norm[i+1] == "de"):
		j = i + 1
	case (w == "a" || w == "un") && i+2 < n && (tk.norm[i+1] == "couple" || tk.norm[i+1] == "par"):
		return tk.quantity(i + 1)
	case numberWords[w]:
		j = i
	}
	if j < 0 {
		return -1
	}
	if j+2 < n && rangeWords[tk.norm[j+1]] {
		if k := tk.quantity(j + 2); k >= 0 {
			return k
		}
	}
	if j+1 < n && tk.joined(j+1, "-") {
		if k := tk.quantity(j + 1); k >= 0 {
			return k
		}
	}
	return j
}

// timeframe recognises when something will happen: a duration ("48
// horas", "3 to 5 working days", "an hour", "48h"), a day ("mañana",
// "tomorrow", "el viernes", "by Friday", "next week", "esta tarde", "end
// of the day"), a time ("antes de las 12", "by 5pm", "noon") or a date.
func (tk *tokens) timeframe(i int) []int32 {
	n := len(tk.norm)
	w := tk.norm[i]
	at := func(k int) string {
		if k < n && tk.gap[k] != "\n" {
			return tk.norm[k]
		}
		return ""
	}
	if unitSuffix(w, "h", "hs", "hrs", "d", "min", "mins") {
		return one(i)
	}
	if j := tk.quantity(i); j >= 0 {
		// "hace dos meses", "two months ago": when it was, not when it will be.
		if i > 0 && tk.norm[i-1] == "hace" || at(j+2) == "ago" || at(j+3) == "ago" {
			return nil
		}
		k := j + 1
		if qualBefore[at(k)] {
			k++
		}
		if unitWords[at(k)] || unitSuffix(at(k), "h", "hs", "hrs") {
			if qualAfter[at(k+1)] {
				k++
			}
			return one(k)
		}
	}
	switch {
	case w == "manana":
		if i > 0 && (tk.norm[i-1] == "la" || tk.norm[i-1] == "las" || tk.norm[i-1] == "esta") {
			return nil // "por la mañana", "esta mañana": a morning
		}
		if at(i+1) == "por" || at(i+1) == "a" { // "mañana por la tarde", "mañana a primera hora"
			return one(min(i+3, n-1))
		}
		return one(i)
	case w == "pasado" && at(i+1) == "manana":
		return one(i + 1)
	case dayRefs[w], weekdays[w]:
		return one(i)
	case (thisWords[w] || nextWords[w]) && (periodWords[at(i+1)] || weekdays[at(i+1)]):
		return one(i + 1)
	case (w == "semana" || w == "mes") && at(i+1) == "que" && at(i+2) == "viene":
		return one(i + 2)
	case (w == "end" || w == "close") && at(i+1) == "of":
		if at(i+2) == "the" && at(i+3) != "" {
			return one(i + 3)
		}
		if at(i+2) != "" {
			return one(i + 2)
		}
	case (w == "fin" || w == "final" || w == "finales") && at(i+1) == "de" && at(i+2) != "":
		return one(i + 2)
	case w == "las" && isDigits(at(i+1)) || unitSuffix(w, clockSuffix...):
		if w == "las" {
			if tk.logged(i + 2) {
				return nil
			}
			return one(tk.clock(i + 1))
		}
		if tk.logged(i) {
			return nil
		}
		return one(i)
	case isDigits(w) && at(i+1) != "" && slices.Contains(clockSuffix, at(i+1)):
		return one(i + 1)
	case isDigits(w) && len(w) <= 2 && i+1 < n && tk.joined(i+1, ":") && isDigits(tk.norm[i+1]) && !tk.logged(i+1):
		return one(i + 1)
	}
	return tk.date(i)
}

// logged reports whether word k is the minutes of a time off the quarter
// hours ("14:32", "4:52pm"): a time recorded, when something happened,
// never one promised, which is round ("by 5pm", "a las 14:30").
func (tk *tokens) logged(k int) bool {
	if k >= len(tk.norm) || !tk.joined(k, ":") {
		return false
	}
	m := strings.TrimRightFunc(tk.norm[k], unicode.IsLetter)
	minutes, err := strconv.Atoi(m)
	return err == nil && len(m) == 2 && minutes%15 != 0
}

// clock reads "12", "12:30", "5 pm" from i.
func (tk *tokens) clock(i int) int {
	j := i
	if j+1 < len(tk.norm) && tk.joined(j+1, ":") && isDigits(tk.norm[j+1]) {
		j++
	}
	if j+1 < len(tk.norm) && tk.gap[j+1] != "\n" && slices.Contains(clockSuffix, tk.norm[j+1]) {
		j++
	}
	return j
}

// date recognises a calendar date: "15 de marzo", "March 15th", "15th of
// March", "15/03(/2026)", "2026-03-15".
func (tk *tokens) date(i int) []int32 {
	n := len(tk.norm)
	w := tk.norm[i]
	day := func(s string) bool {
		if unitSuffix(s, ordinalSuffix...) {
			s = strings.TrimRightFunc(s, unicode.IsLetter)
		}
		return isDigits(s) && len(s) <= 2
	}
	at := func(k int) string {
		if k < n && tk.gap[k] != "\n" {
			return tk.norm[k]
		}
		return ""
	}
	switch {
	case day(w) && at(i+1) == "de" && months[at(i+2)]:
		return one(i + 2)
	case day(w) && at(i+1) == "of" && months[at(i+2)]:
		return one(i + 2)
	case day(w) && months[at(i+1)]:
		return one(i + 1)
	case months[w] && day(at(i+1)) && w != "may" && w != "mar":
		return one(i + 1)
	case isDigits(w) && i+1 < n && tk.joined(i+1, "/-.") && isDigits(tk.norm[i+1]) && len(tk.norm[i+1]) <= 2 && len(w) <= 4:
		j := i + 1
		if j+1 < n && tk.joined(j+1, "/-.") && isDigits(tk.norm[j+1]) {
			j++
		}
		return one(j)
	}
	return nil
}

//go:embed names.txt
var namesText string

// firstNames are common given names (Spanish- and English-speaking
// countries, and beyond), normalised (lower case, no accents). Names that
// are also common words ("may", "rosa", "clara", "sean") are left out.
var firstNames = set(namesText)

// notNames are capitalised words that often follow "soy", "I'm" or "this
// is" without being a name.
var notNames = set("sorry here happy glad afraid calling sure just not the el la los las su tu un una de del con en from with your our customer cliente service servicio support soporte team equipo i yo usted " +
	"a an at in on of to for about and or but so very really going gonna trying calling ringing back good great fine ok okay yes yeah no well " +
	"that this it is was be been being have has had what who how why when where there they them he she we you me my mine " +
	"aqui aca alli muy bien que quien como donde cuando porque pero por para al lo le les se nos mi mis tus sus es esta estoy " +
	"encantado encantada nuevo nueva responsable encargado encargada agente asesor asesora operador operadora recorded monitored grabada grabado")

// orgWords end an organisation's name ("you're through to Castle Bank",
// "you've reached Ballymount Medical"): a word right before one, in the
// same segment, names a place, not a person.
var orgWords = set("bank banking building society surgery medical medicine health healthcare practice clinic clinics hospital dental " +
	"council library libraries insurance assurance energy power water gas electric telecom mobile broadband internet " +
	"airline airlines airways hotel hotels resort group services ltd limited inc plc university college school academy " +
	"motors rentals rental travel tours logistics delivery deliveries couriers express pharmacy vets veterinary housing homes " +
	"properties lettings estates finance financial credit loans mortgages solutions systems software technologies")

// name recognises a person's given name: one of agentNames (the agent's,
// from the chat's labels) when given, else a known first name, a
// capitalised word inside a sentence, or, in a segment without capitals
// (speech recognition), any word of 3 letters or more that is not a
// common one ({agent_name} matches nothing when the labels name no agent);
// never a word an organisation's name goes on with (orgWords).
func (tk *tokens) name(i int, agentNames []string) []int32 {
	w := tk.norm[i]
	if len(agentNames) > 0 {
		if slices.Contains(agentNames, w) {
			return one(i)
		}
		return nil
	}
	if notNames[w] || weekdays[w] || months[w] || isDigits(w) || tk.org(i+1) {
		return nil
	}
	switch {
	case firstNames[w], tk.upper[i] && !tk.initial[i] && isLetters(w),
		tk.caseless[i] && isLetters(w) && utf8.RuneCountInString(w) >= 3:
		return one(i)
	}
	return nil
}
