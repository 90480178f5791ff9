package rules

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/auditd/auditd/transcript"
)

// A phrase, as a rule writes it, is parsed once into an expression: terms
// (sequences of items) joined by proximity operators. See the package
// documentation for the syntax.
type expression struct {
	terms []term
	ops   []proximity // ops[i] joins terms[i] and terms[i+1]
}

// term is a sequence of items said in order.
type term []item

// item is one position of a term: one of a set of words, or a slot.
type item struct {
	words []pattern // alternatives; empty for a slot
	slot  slot
}

// pattern is one alternative word of an item.
type pattern struct {
	word   string // normalised
	prefix bool   // word* : any word that starts with word
	exact  bool   // =word : no tolerance for misspellings
	// adjacent: =word, which no inserted word may precede (an exact rule's
	// words are exact, not adjacent).
	adjacent bool
}

// proximity joins two terms: the second within n words of the first, in
// either order unless ordered (then after it).
type proximity struct {
	within  int
	ordered bool
}

// Proximity operators, upper case so that "near" and "before" stay words.
const (
	opNear   = "NEAR/"
	opBefore = "BEFORE/"
	// maxWithin bounds a proximity: matches are tracked within one
	// speaker's stretch of talk, and further apart is no longer "near".
	maxWithin = 50
	// minPrefix is the shortest stem a wildcard may have: "re*" would match
	// half the language.
	minPrefix = 3
)

// phraseError is a problem with a phrase, located at a character of it.
type phraseError struct {
	at  int // 1-based character position
	msg string
}

func (e *phraseError) Error() string {
	if e.at == 0 {
		return e.msg
	}
	return fmt.Sprintf("at character %d: %s", e.at, e.msg)
}

// maxExpansions bounds the phrases one phrase with groups stands for.
const maxExpansions = 64

// expandGroups returns the phrases p stands for: p itself, or, when it has
// groups of alternative word sequences in parentheses ("(ha quedado|han
// quedado) registrado", "(no one|nobody) reads"), every combination of
// them, in order. "|" outside parentheses separates the alternatives of
// one word. A parenthesis not closed, or closed but not opened, is an
// error: a group meant and mistyped would otherwise stand for words
// nobody says.
func expandGroups(p string) ([]string, error) {
	if !strings.ContainsAny(p, "()") {
		return []string{p}, nil
	}
	out := []string{""}
	rest := p
	for {
		open := strings.IndexAny(rest, "()")
		if open < 0 {
			break
		}
		at := utf8.RuneCountInString(p[:len(p)-len(rest)+open]) + 1
		if rest[open] == ')' {
			return nil, &phraseError{at: at, msg: "closes a group that was not opened with ("}
		}
		end := strings.IndexAny(rest[open+1:], "()")
		if end < 0 || rest[open+1+end] == '(' {
			return nil, &phraseError{at: at, msg: "opens a group that is not closed with ) before another one: groups do not nest, as in \"(ha quedado|han quedado) registrado\""}
		}
		// A group of one alternative, "(por favor)", is its words, as
		// parentheses were before groups.
		alts := strings.Split(rest[open+1:open+1+end], "|")
		if len(out)*len(alts) > maxExpansions {
			return nil, &phraseError{msg: fmt.Sprintf("stands for more than %d phrases; write fewer groups or alternatives", maxExpansions)}
		}
		next := make([]string, 0, len(out)*len(alts))
		for _, prefix := range out {
			for _, alt := range alts {
				if strings.TrimSpace(alt) == "" {
					return nil, &phraseError{at: at, msg: "has an empty alternative in a group; write (one word|two words)"}
				}
				next = append(next, prefix+rest[:open]+" "+strings.TrimSpace(alt)+" ")
			}
		}
		out, rest = next, rest[open+1+end+1:]
	}
	for i := range out {
		out[i] = strings.Join(strings.Fields(out[i]+rest), " ")
	}
	return out, nil
}

// parseExpression parses a phrase. exact makes every word exact (the
// rule's "exact" key).
func parseExpression(p string, exact bool) (expression, error) {
	var x expression
	var cur term
	pendingOp := false
	at := 0 // byte offset of the current token
	fail := func(format string, args ...any) (expression, error) {
		return expression{}, &phraseError{at: utf8.RuneCountInString(p[:at]) + 1, msg: fmt.Sprintf(format, args...)}
	}
	rest := p
	for {
		trimmed := strings.TrimLeft(rest, " \t\n\r")
		at += len(rest) - len(trimmed)
		rest = trimmed
		if rest == "" {
			break
		}
		end := strings.IndexAny(rest, " \t\n\r")
		if end < 0 {
			end = len(rest)
		}
		tok := rest[:end]
		if op, ok, err := parseOperator(tok); err != nil {
			return fail("%s", err)
		} else if ok {
			if len(cur) == 0 {
				return fail("%s needs words before it, as in \"refund %s5 card\"", tok, opNear)
			}
			x.terms = append(x.terms, cur)
			x.ops = append(x.ops, op)
			cur, pendingOp = nil, true
		} else {
			items, err := parseToken(tok, exact)
			if err != nil {
				return fail("%s", err)
			}
			cur = append(cur, items...)
			pendingOp = false
		}
		at += end
		rest = rest[end:]
	}
	if pendingOp {
		return fail("%s needs words after it", x.lastOpText())
	}
	if len(cur) == 0 {
		return expression{}, &phraseError{msg: "has no words to look for"}
	}
	x.terms = append(x.terms, cur)
	for _, t := range x.terms {
		if len(t) > maxPhraseWords {
			return expression{}, &phraseError{msg: fmt.Sprintf("has %d words in a row; a phrase has at most %d", len(t), maxPhraseWords)}
		}
	}
	return x, nil
}

func (x expression) lastOpText() string {
	op := x.ops[len(x.ops)-1]
	if op.ordered {
		return opBefore + strconv.Itoa(op.within)
	}
	return opNear + strconv.Itoa(op.within)
}

// parseOperator reads NEAR/n or BEFORE/n; ok is false for any other token.
func parseOperator(tok string) (proximity, bool, error) {
	var p proximity
	var num string
	switch {
	case strings.HasPrefix(tok, opNear):
		num = tok[len(opNear):]
	case strings.HasPrefix(tok, opBefore):
		num, p.ordered = tok[len(opBefore):], true
	default:
		return p, false, nil
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > maxWithin {
		name, _, _ := strings.Cut(tok, "/")
		return p, false, fmt.Errorf("%s/ takes a number of words from 1 to %d, as in %s/5", name, maxWithin, name)
	}
	p.within = n
	return p, true, nil
}

// parseToken reads one space-free token: a slot, alternatives, or words
// (a token such as "e-mail" is two words).
func parseToken(tok string, exact bool) ([]item, error) {
	if strings.HasPrefix(tok, "{") {
		name, ok := strings.CutSuffix(tok[1:], "}")
		s, known := slotNames[strings.ToLower(name)]
		if !ok || !known {
			return nil, fmt.Errorf("%q is not a slot; slots are %s", tok, slotList())
		}
		return []item{{slot: s}}, nil
	}
	if !strings.ContainsAny(tok, "|*=") {
		var items []item
		for _, w := range transcript.NormalWords(tok) {
			items = append(items, item{words: []pattern{{word: w, exact: exact}}})
		}
		return items, nil // punctuation alone adds nothing
	}
	var it item
	for _, alt := range strings.Split(tok, "|") {
		pt := pattern{exact: exact}
		if s, ok := strings.CutPrefix(alt, "="); ok {
			alt, pt.exact, pt.adjacent = s, true, true
		}
		if s, ok := strings.CutSuffix(alt, "*"); ok {
			alt, pt.prefix = s, true
		}
		words := transcript.NormalWords(alt)
		switch {
		case alt == "" || len(words) == 0:
			return nil, fmt.Errorf("%q has an empty alternative; write word|other, =word or stem*", tok)
		case len(words) > 1 || strings.ContainsAny(alt, "|*="):
			return nil, fmt.Errorf("%q: each alternative is one word (=word, stem* or word)", tok)
		case pt.prefix && utf8.RuneCountInString(words[0]) < minPrefix:
			return nil, fmt.Errorf("%q: a wildcard needs a stem of at least %d letters", tok, minPrefix)
		}
		pt.word = words[0]
		it.words = append(it.words, pt)
	}
	return []item{it}, nil
}
