// Package redact removes personal and payment data from transcripts before
// anything stores, audits, indexes, e-mails or exports them: card numbers
// (Luhn-checked, written, grouped by any separator, spoken in Spanish or
// English digit by digit or in groups such as "cuarenta y cinco cero cero
// doce" or "forty five oh oh twelve", or dictated over a speaker's turns)
// and their expiry dates, security codes near a card, DNI/NIE (control
// letter checked), IBANs (mod 97; also spoken: "e s noventa y uno…"), phone
// numbers, e-mail addresses (also spoken or disguised: "juan punto perez
// arroba gmail punto com", "juan[at]gmail[dot]com") and a campaign's own
// named patterns. The text is normalised first (Normalize), and kept so.
// Each finding is replaced by a typed placeholder ("[CARD]", "[DNI]",
// "[ORDER_REF]") and described by a Record that never holds the original
// value.
package redact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/auditd/auditd/transcript"
)

// Types of data the built-in detectors find, as campaign settings name them.
const (
	Card  = "card"
	CVV   = "cvv"
	DNI   = "dni"
	IBAN  = "iban"
	Phone = "phone"
	Email = "email"
)

// Types lists every built-in type, in the order a form shows them.
var Types = []string{Card, CVV, DNI, IBAN, Phone, Email}

// Limits of a campaign's own patterns.
const (
	MaxPatterns      = 20
	MaxPatternLength = 500
)

// AudioMargin widens the estimated time of a redacted span on each side
// before the recording is silenced there: segment times are exact but the
// place of a word inside a segment is estimated from its characters.
const AudioMargin = 0.4

// RedactionPattern is a campaign's own detector: matches of Regexp (RE2 syntax,
// https://golang.org/s/re2syntax) become "[Name]".
type RedactionPattern struct {
	Name   string `json:"name" doc:"Upper case letters, digits and _; the placeholder is [NAME]" example:"ORDER_REF"`
	Regexp string `json:"regexp" doc:"RE2 regular expression" example:"PED-[0-9]{6}"`
}

// RedactionSettings say what a campaign redacts (named so in the API's
// schemas, beside other packages' settings).
type RedactionSettings struct {
	// Types are the built-in types redacted (see Types).
	Types []string `json:"types" required:"false" maxItems:"6" doc:"Built-in types redacted: card, cvv, dni, iban, phone, email" example:"[\"card\",\"cvv\"]"`
	// Patterns are the campaign's own detectors.
	Patterns []RedactionPattern `json:"patterns" required:"false" doc:"The campaign's own detectors (at most 20)"`
}

// DefaultSettings are what a campaign of language (BCP 47) redacts until
// it is told otherwise: what PCI DSS forbids keeping (card numbers and
// security codes) in every language, plus what identifies a customer where
// the language is spoken: in Spanish DNI/NIE, IBANs and phone numbers, in
// English phone numbers and e-mail addresses.
func DefaultSettings(language string) RedactionSettings {
	types := []string{Card, CVV}
	switch transcript.PrimaryLanguage(language) {
	case "es":
		types = append(types, DNI, IBAN, Phone)
	case "en":
		types = append(types, Phone, Email)
	}
	return RedactionSettings{Types: types, Patterns: []RedactionPattern{}}
}

// Problem is one reason settings cannot be saved: Field is the JSON path
// within RedactionSettings ("types[2]", "patterns[0].regexp").
type Problem struct {
	Field   string
	Message string
}

var patternName = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,29}$`)

// Validate returns every problem of s, or none: unknown or repeated types,
// too many patterns, pattern names that are not upper-case identifiers (or
// are taken by a built-in type or another pattern), and expressions that
// are too long, do not compile, or match an empty text.
func (s RedactionSettings) Validate() []Problem {
	var out []Problem
	seen := map[string]bool{}
	for i, t := range s.Types {
		switch {
		case !slices.Contains(Types, t):
			out = append(out, Problem{fmt.Sprintf("types[%d]", i), fmt.Sprintf("unknown type %q: one of %s", t, strings.Join(Types, ", "))})
		case seen[t]:
			out = append(out, Problem{fmt.Sprintf("types[%d]", i), fmt.Sprintf("%q is listed twice", t)})
		}
		seen[t] = true
	}
	if len(s.Patterns) > MaxPatterns {
		out = append(out, Problem{"patterns", fmt.Sprintf("at most %d patterns, not %d", MaxPatterns, len(s.Patterns))})
	}
	names := map[string]bool{}
	for _, t := range Types {
		names[strings.ToUpper(t)] = true
	}
	for i, p := range s.Patterns {
		at := fmt.Sprintf("patterns[%d]", i)
		switch {
		case !patternName.MatchString(p.Name):
			out = append(out, Problem{at + ".name", fmt.Sprintf("%q is not a name of 1 to 30 upper-case letters, digits or _, starting with a letter", p.Name)})
		case names[p.Name]:
			out = append(out, Problem{at + ".name", fmt.Sprintf("the name %q is taken by a built-in type or another pattern", p.Name)})
		}
		names[p.Name] = true
		if n := utf8.RuneCountInString(p.Regexp); n > MaxPatternLength {
			out = append(out, Problem{at + ".regexp", fmt.Sprintf("at most %d characters, not %d", MaxPatternLength, n)})
			continue
		}
		re, err := regexp.Compile(p.Regexp)
		switch {
		case err != nil:
			out = append(out, Problem{at + ".regexp", "not a valid regular expression: " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")})
		case re.MatchString(""):
			out = append(out, Problem{at + ".regexp", "matches an empty text, so it would match everywhere"})
		}
	}
	return out
}

// Record describes one redaction without the value it replaced.
type Record struct {
	// Type is the placeholder's label: "CARD", "EXPIRY", "CVV", "DNI",
	// "IBAN", "PHONE", "EMAIL" or a pattern's name.
	Type string `json:"type"`
	// Segment is the index of the segment (the turn of a chat).
	Segment int `json:"segment"`
	// Start and End locate the placeholder in the segment's redacted
	// text, in characters (Unicode code points) from 0, End excluded.
	Start int `json:"start"`
	End   int `json:"end"`
	// Detector names what found it: "card", "card_spoken", "card_split",
	// "expiry", "cvv", "dni", "nie", "iban", "iban_spoken", "phone",
	// "email", "email_spoken", "pattern"; a number found over turns other
	// than a card adds "_split" ("iban_split", "phone_split").
	Detector string `json:"detector"`
	// AudioStart and AudioEnd are, for a timed segment, the seconds of the
	// recording where the redacted words were said: estimated within the
	// segment in proportion to characters and widened by AudioMargin.
	AudioStart *float64 `json:"audio_start,omitempty"`
	AudioEnd   *float64 `json:"audio_end,omitempty"`
}

// Redactor applies one campaign's settings. It is safe for concurrent use.
type Redactor struct {
	types    map[string]bool
	patterns []compiled
}

type compiled struct {
	name string
	re   *regexp.Regexp
}

// New returns the redactor of s. It returns an error for settings that
// Validate refuses.
func New(s RedactionSettings) (*Redactor, error) {
	if p := s.Validate(); len(p) > 0 {
		return nil, fmt.Errorf("redact: %s: %s", p[0].Field, p[0].Message)
	}
	r := &Redactor{types: map[string]bool{}}
	for _, t := range s.Types {
		r.types[t] = true
	}
	for _, p := range s.Patterns {
		r.patterns = append(r.patterns, compiled{p.Name, regexp.MustCompile(p.Regexp)})
	}
	return r, nil
}

// span is one finding in a segment's original text, in bytes.
type span struct {
	from, to int
	label    string // placeholder label: "CARD"
	detector string
}

// Transcript returns tr with its segments' text normalised (Normalize)
// and every finding replaced by its placeholder, its Text rebuilt from its
// segments (one per line, as engines and chats build it), and the records
// of what was replaced. A transcript without
// segments is redacted as one.
func (r *Redactor) Transcript(tr transcript.Transcript) (transcript.Transcript, []Record) {
	segments := tr.Segments
	noSegments := len(segments) == 0
	if noSegments {
		segments = []transcript.Segment{{Speaker: transcript.Unknown, Text: tr.Text}}
	}
	segments = slices.Clone(segments)
	for i := range segments {
		segments[i].Text = Normalize(segments[i].Text)
	}
	found := r.find(segments, transcript.PrimaryLanguage(tr.Language))
	out := tr
	out.Segments = make([]transcript.Segment, len(segments))
	var records []Record
	lines := make([]string, len(segments))
	for i, s := range segments {
		text, recs := apply(s, i, found[i])
		s.Text = text
		out.Segments[i] = s
		lines[i] = text
		records = append(records, recs...)
	}
	out.Text = strings.Join(lines, "\n")
	if noSegments {
		out.Segments = tr.Segments
	}
	return out, records
}

// typeOf is the setting that redacts each placeholder of the built-in
// detectors: a card's expiry date goes with its number.
var typeOf = map[string]string{"CARD": Card, "EXPIRY": Card, "CVV": CVV, "DNI": DNI, "IBAN": IBAN, "PHONE": Phone, "EMAIL": Email}

// analysis is a text's tokens and numbers.
type analysis struct {
	text  string
	toks  []token
	runs  []run
	lower string // folded's, once made
}

func analyse(text, lang string) analysis {
	toks := tokenize(text)
	return analysis{text: text, toks: toks, runs: runs(text, toks, lang)}
}

// find returns each segment's findings in a transcript of language lang
// ("" when unknown), sorted and without overlaps.
func (r *Redactor) find(segments []transcript.Segment, lang string) [][]span {
	an := make([]analysis, len(segments))
	found := make([][]span, len(segments))
	for i, s := range segments {
		an[i] = analyse(s.Text, lang)
		found[i] = numbers(an[i])
	}
	for _, c := range chains(segments, an) {
		for k, spans := range acrossTurns(c, an, lang) {
			found[k] = append(found[k], spans...)
		}
	}
	for i, spans := range findCardDetails(an, found) {
		found[i] = append(found[i], spans...)
	}
	for i, s := range segments {
		all := append(found[i], findEmails(s.Text)...)
		all = slices.DeleteFunc(all, func(sp span) bool { return !r.types[typeOf[sp.label]] })
		for _, p := range r.patterns {
			for _, m := range p.re.FindAllStringIndex(s.Text, -1) {
				if m[1] > m[0] {
					all = append(all, span{m[0], m[1], p.name, "pattern"})
				}
			}
		}
		found[i] = disjoint(all)
	}
	return found
}

// numbers returns what the detectors of numbers find in one text, in
// their order of priority: IBANs, cards (and a code said with one),
// DNI/NIE, phones.
func numbers(a analysis) []span {
	all := findIBANs(a.text)
	all = append(all, findSpokenIBANs(a.text, a.toks, a.runs)...)
	all = append(all, findCards(a.runs)...)
	all = append(all, findDNIs(a.text, a.toks, a.runs)...)
	return append(all, findPhones(a.runs)...)
}

// disjoint sorts spans by start and drops each one overlapping an earlier
// kept one; at the same start the longer wins, and at equal length the one
// found first (detectors run in priority order).
func disjoint(all []span) []span {
	slices.SortStableFunc(all, func(a, b span) int {
		if a.from != b.from {
			return a.from - b.from
		}
		return (b.to - b.from) - (a.to - a.from)
	})
	var out []span
	end := -1
	for _, s := range all {
		if s.from >= end {
			out = append(out, s)
			end = s.to
		}
	}
	return out
}

// apply replaces the spans of segment s (index i) and returns its new text
// and records.
func apply(s transcript.Segment, i int, spans []span) (string, []Record) {
	if len(spans) == 0 {
		return s.Text, nil
	}
	var b strings.Builder
	var recs []Record
	last, runes := 0, 0
	total := utf8.RuneCountInString(s.Text)
	for _, sp := range spans {
		head := s.Text[last:sp.from]
		b.WriteString(head)
		runes += utf8.RuneCountInString(head)
		placeholder := "[" + sp.label + "]"
		rec := Record{Type: sp.label, Segment: i, Start: runes, End: runes + utf8.RuneCountInString(placeholder), Detector: sp.detector}
		if s.Start != nil && s.End != nil && total > 0 {
			from := utf8.RuneCountInString(s.Text[:sp.from])
			to := from + utf8.RuneCountInString(s.Text[sp.from:sp.to])
			per := (*s.End - *s.Start) / float64(total)
			a := max(0, *s.Start+per*float64(from)-AudioMargin)
			z := *s.Start + per*float64(to) + AudioMargin
			rec.AudioStart, rec.AudioEnd = &a, &z
		}
		b.WriteString(placeholder)
		runes = rec.End
		recs = append(recs, rec)
		last = sp.to
	}
	b.WriteString(s.Text[last:])
	return b.String(), recs
}
