package rules

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Engine audits transcripts against one scorecard version, compiled once by
// New. It is immutable, so one Engine may serve concurrent audits.
type Engine struct {
	card     scoring.Scorecard
	criteria []criterion // parallel to card.Criteria
	words    wordIndex
	// phrases are the distinct phrases of all rules, as word ids.
	phrases [][]int32
}

// criterion is a compiled rule.
type criterion struct {
	rule rule
	any  group   // nil when the rule has no "any"
	all  []group // one per item of "all"
	none group   // nil when the rule has no "none"
}

// group is a list of alternative phrases.
type group []phraseRef

// phraseRef is a phrase as a rule wrote it, with its compiled id.
type phraseRef struct {
	id   int32
	text string
}

// New compiles card for auditing. It returns the *scoring.ValidationError of
// scoring.Validate(card, CheckRule) when card is not valid.
func New(card scoring.Scorecard) (*Engine, error) {
	if err := scoring.Validate(card, CheckRule); err != nil {
		return nil, err
	}
	e := &Engine{card: card, criteria: make([]criterion, len(card.Criteria)), words: newWordIndex()}
	wordIDs := map[string]int32{}
	phraseIDs := map[string]int32{}
	wordID := func(w string, exact bool) int32 {
		runes := []rune(w)
		edits := maxEdits(len(runes))
		if exact {
			edits = 0
		}
		key := fmt.Sprintf("%s/%d", w, edits)
		if id, ok := wordIDs[key]; ok {
			return id
		}
		id := e.words.add(runes, edits)
		wordIDs[key] = id
		return id
	}
	compile := func(phrases []string, exact bool) group {
		g := make(group, len(phrases))
		for i, p := range phrases {
			words := NormalWords(p)
			key := fmt.Sprintf("%t/%s", exact, strings.Join(words, " "))
			id, ok := phraseIDs[key]
			if !ok {
				ids := make([]int32, len(words))
				for j, w := range words {
					ids[j] = wordID(w, exact)
				}
				id = int32(len(e.phrases))
				phraseIDs[key] = id
				e.phrases = append(e.phrases, ids)
			}
			g[i] = phraseRef{id: id, text: p}
		}
		return g
	}
	for i, c := range card.Criteria {
		r, _ := parseRule(c.Rule) // Validate accepted it
		cc := criterion{rule: r}
		if r.any != nil {
			cc.any = compile(r.any, r.exact)
		}
		for _, alternatives := range r.all {
			cc.all = append(cc.all, compile(alternatives, r.exact))
		}
		if r.none != nil {
			cc.none = compile(r.none, r.exact)
		}
		e.criteria[i] = cc
	}
	return e, nil
}

// Audit judges every criterion of the engine's scorecard that applies to
// kind (scoring.Call or scoring.Chat) against t, in scorecard order, with
// explanations in lang ("es" for Spanish, anything else English). It returns
// an error only for an unknown kind.
func (e *Engine) Audit(kind string, t transcript.Transcript, lang string) ([]scoring.Verdict, error) {
	if kind != scoring.Call && kind != scoring.Chat {
		return nil, fmt.Errorf("unknown interaction kind %q: want %q or %q", kind, scoring.Call, scoring.Chat)
	}
	a := e.prepare(kind, t, wordingFor(lang))
	verdicts := make([]scoring.Verdict, 0, len(e.criteria))
	for i, c := range e.card.Criteria {
		if c.Applies(kind) {
			verdicts = append(verdicts, a.judge(c.ID, &e.criteria[i]))
		}
	}
	return verdicts, nil
}

// audit is the state of one Audit call: the transcript's words, which
// phrase words each may be, and the phrases found so far.
type audit struct {
	e    *Engine
	w    wording
	segs []transcript.Segment
	// speakers[i] is segs[i].Speaker, with anything unexpected as Unknown.
	speakers []string
	// timed: positions are seconds (a call whose segments all have a start
	// time); otherwise they are turns.
	timed    bool
	duration float64 // seconds, when timed
	norm     string  // every normalised word, concatenated
	words    []word
	// runs[i] numbers the stretch of consecutive same-speaker segments word
	// i belongs to: a phrase never spans two speakers.
	runs  []int32
	cands [][]int32 // cands[i]: ids of the phrase words word i matches
	at    [][]int32 // at[v]: positions of the words that match phrase word v
	found [][]span  // found[p]: occurrences of phrase p, once computed
	done  []bool    // done[p]: found[p] is computed
}

// span is an occurrence of a phrase: its first and last word (inserted
// words included).
type span struct{ first, last int32 }

func (e *Engine) prepare(kind string, t transcript.Transcript, w wording) *audit {
	segs := t.Segments
	if len(segs) == 0 && strings.TrimSpace(t.Text) != "" {
		segs = []transcript.Segment{{Speaker: transcript.Unknown, Text: t.Text}}
	}
	a := &audit{
		e: e, w: w, segs: segs,
		speakers: make([]string, len(segs)),
		timed:    kind == scoring.Call && len(segs) > 0,
		at:       make([][]int32, len(e.words.words)),
		found:    make([][]span, len(e.phrases)),
		done:     make([]bool, len(e.phrases)),
	}
	size := 0
	for _, s := range segs {
		size += len(s.Text)
	}
	buf := make([]byte, 0, size)
	a.words = make([]word, 0, size/5) // words average about 5 bytes with their separator
	a.runs = make([]int32, 0, size/5)
	run := int32(-1)
	for i, s := range segs {
		switch s.Speaker {
		case transcript.Agent, transcript.Customer:
			a.speakers[i] = s.Speaker
		default:
			a.speakers[i] = transcript.Unknown
		}
		if i == 0 || a.speakers[i] != a.speakers[i-1] {
			run++
		}
		if s.Start == nil {
			a.timed = false
		} else {
			a.duration = max(a.duration, *s.Start)
		}
		if s.End != nil {
			a.duration = max(a.duration, *s.End)
		}
		from := len(a.words)
		buf, a.words = appendWords(buf, a.words, s.Text)
		for j := from; j < len(a.words); j++ {
			a.words[j].seg = int32(i)
			a.runs = append(a.runs, run)
		}
	}
	a.norm = string(buf)
	a.cands = make([][]int32, len(a.words))
	memo := make(map[string][]int32, len(a.words)/2)
	for i, wd := range a.words {
		text := a.norm[wd.normFrom:wd.normTo]
		ids, ok := memo[text]
		if !ok {
			ids = e.words.lookup(text)
			memo[text] = ids
		}
		a.cands[i] = ids
		for _, v := range ids {
			a.at[v] = append(a.at[v], int32(i))
		}
	}
	return a
}

// occurrences returns where phrase p was said, in transcript order. A
// phrase is its words in order within one speaker's run, each possibly
// preceded by one inserted word ("buenos eh días"); of the ways to match
// from a first word, the shortest is kept.
func (a *audit) occurrences(p int32) []span {
	if a.done[p] {
		return a.found[p]
	}
	a.done[p] = true
	ids := a.e.phrases[p]
	n := int32(len(a.words))
	for _, first := range a.at[ids[0]] {
		// ends holds the offsets from first at which the words so far
		// can end.
		ends := uint64(1)
		for _, v := range ids[1:] {
			var next uint64
			for rest := ends; rest != 0; rest &= rest - 1 {
				off := int32(bits.TrailingZeros64(rest))
				for step := int32(1); step <= 2; step++ {
					pos := first + off + step
					if pos < n && a.runs[pos] == a.runs[first] && contains(a.cands[pos], v) {
						next |= 1 << (off + step)
					}
				}
			}
			if ends = next; ends == 0 {
				break
			}
		}
		if ends != 0 {
			a.found[p] = append(a.found[p], span{first, first + int32(bits.TrailingZeros64(ends))})
		}
	}
	return a.found[p]
}

// inScope reports whether segment seg is within r's speaker and window.
// A segment of unknown speaker (a mono recording) is in every speaker's
// scope. Windows in seconds apply when the audit is timed, windows in turns
// otherwise; a segment is in the first N seconds when it starts by N, in the
// last N when it ends at or after the end of the recording minus N.
func (a *audit) inScope(r *rule, seg int32) bool {
	if sp := a.speakers[seg]; r.speaker != anySpeaker && sp != transcript.Unknown && sp != r.speaker {
		return false
	}
	if a.timed {
		s := a.segs[seg]
		end := *s.Start
		if s.End != nil {
			end = *s.End
		}
		return (r.withinFirst == 0 || *s.Start <= r.withinFirst) &&
			(r.withinLast == 0 || end >= a.duration-r.withinLast)
	}
	return (r.withinFirstTurns == 0 || int(seg) < r.withinFirstTurns) &&
		(r.withinLastTurns == 0 || int(seg) >= len(a.segs)-r.withinLastTurns)
}

// hit is an occurrence of a phrase of a group.
type hit struct {
	phrase string // as the rule wrote it
	span   span
}

// first returns the earliest occurrence of any phrase of g, among those
// in scope (inScope true) or out of it.
func (a *audit) first(g group, r *rule, inScope bool) (hit, bool) {
	var best hit
	ok := false
	for _, ref := range g {
		for _, sp := range a.occurrences(ref.id) {
			if a.inScope(r, a.words[sp.first].seg) != inScope {
				continue
			}
			if !ok || sp.first < best.span.first {
				best, ok = hit{ref.text, sp}, true
			}
			break // later occurrences of this phrase come later
		}
	}
	return best, ok
}

// judge applies criterion c (id) to the transcript.
func (a *audit) judge(id string, c *criterion) scoring.Verdict {
	r := &c.rule
	sc := scope{speaker: r.speaker}
	if a.timed {
		sc.first, sc.last = r.withinFirst, r.withinLast
	} else {
		sc.firstTurns, sc.lastTurns = r.withinFirstTurns, r.withinLastTurns
	}
	var failures, findings []string
	var cited []hit
	want := c.all
	if c.any != nil {
		want = append([]group{c.any}, want...)
	}
	for _, g := range want {
		if h, ok := a.first(g, r, true); ok {
			findings = append(findings, a.w.said(a.cite(h)))
			cited = append(cited, h)
			continue
		}
		var outside *citation
		if h, ok := a.first(g, r, false); ok {
			ct := a.cite(h)
			outside = &ct
			cited = append(cited, h)
		}
		failures = append(failures, a.w.missing(phrasesOf(g), sc, outside))
	}
	if c.none != nil {
		var said []hit
		for _, ref := range c.none {
			for _, sp := range a.occurrences(ref.id) {
				if a.inScope(r, a.words[sp.first].seg) {
					said = append(said, hit{ref.text, sp})
				}
			}
		}
		if len(said) == 0 {
			findings = append(findings, a.w.clean(sc))
		} else {
			slices.SortFunc(said, func(x, y hit) int { return cmp.Compare(x.span.first, y.span.first) })
			// Overlapping phrases ("that's not my problem", "not my
			// problem") are one thing said.
			times, end := 0, int32(-1)
			for _, h := range said {
				if h.span.first > end {
					times++
				}
				end = max(end, h.span.last)
			}
			failures = append(failures, a.w.forbidden(a.cite(said[0]), times))
			cited = append(cited, said[0])
		}
	}
	return scoring.Verdict{
		CriterionID: id,
		Complies:    len(failures) == 0,
		Explanation: strings.Join(append(failures, findings...), " "),
		Evidence:    a.evidence(cited),
	}
}

func phrasesOf(g group) []string {
	out := make([]string, len(g))
	for i, ref := range g {
		out[i] = ref.text
	}
	return out
}

// citation is what an explanation says about a hit.
type citation struct {
	phrase  string // as the rule wrote it
	quote   string // the words as said
	speaker string
	// loose: the words said differ from the phrase (misspelt, or with an
	// inserted word), so the explanation shows both.
	loose bool
	timed bool
	at    float64 // seconds from the start, when timed
	turn  int     // from 1, otherwise
}

func (a *audit) cite(h hit) citation {
	first, last := a.words[h.span.first], a.words[h.span.last]
	var quote strings.Builder
	for s := first.seg; s <= last.seg; s++ {
		text := a.segs[s].Text
		from, to := 0, len(text)
		if s == first.seg {
			from = int(first.from)
		}
		if s == last.seg {
			to = int(last.to)
		}
		if quote.Len() > 0 {
			quote.WriteByte(' ')
		}
		quote.WriteString(strings.TrimSpace(text[from:to]))
	}
	said := make([]string, 0, h.span.last-h.span.first+1)
	for _, w := range a.words[h.span.first : h.span.last+1] {
		said = append(said, a.norm[w.normFrom:w.normTo])
	}
	c := citation{
		phrase:  h.phrase,
		quote:   quote.String(),
		speaker: a.speakers[first.seg],
		loose:   !slices.Equal(said, NormalWords(h.phrase)),
		timed:   a.timed,
		turn:    int(first.seg) + 1,
	}
	if a.timed {
		c.at = *a.segs[first.seg].Start
	}
	return c
}

// evidence quotes, verbatim and once each, the segments the hits are in.
func (a *audit) evidence(hits []hit) string {
	var lines []string
	for _, h := range hits {
		var parts []string
		for s := a.words[h.span.first].seg; s <= a.words[h.span.last].seg; s++ {
			parts = append(parts, strings.TrimSpace(a.segs[s].Text))
		}
		if line := strings.Join(parts, " "); !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}
