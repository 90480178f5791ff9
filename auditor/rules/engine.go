package rules

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auditd/auditd/auditor/tone"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Engine audits transcripts against one scorecard version, compiled once by
// New. It is immutable, so one Engine may serve concurrent audits.
type Engine struct {
	card     scoring.Scorecard
	criteria []criterion // parallel to card.Criteria
	words    wordIndex
	// terms are the distinct terms of all phrases, compiled.
	terms [][]citem
	// exprs are the distinct phrases, as their terms' ids and operators.
	exprs []cexpr
	// slots: which slots some phrase uses (only those are recognised).
	slots [numSlots]bool
	// cal is the calibration table Audit reads confidences from.
	cal *Calibration
}

// citem is a compiled item: the ids of its alternative words, or a slot.
type citem struct {
	ids  []int32
	slot slot
	// adjacent: no word may be inserted before it (a name, or =words
	// only: "es un pesado" is not "es un trámite pesado").
	adjacent bool
}

// cexpr is a compiled phrase.
type cexpr struct {
	terms []int32
	ops   []proximity
	// negator: the phrase starts with a negation ("no es mi problema"), so
	// a negation before it does not undo it.
	negator bool
	// subject: the phrase starts with a first-person subject ("I'm sorry",
	// "we apologise"), so it starts its own clause and a negation before it
	// belongs to the clause before ("oh, that's not good, I'm sorry").
	subject bool
	// plain: words only, one alternative each, no operator: what was said
	// can be shown beside the phrase when they differ.
	plain bool
}

// criterion is a compiled rule.
type criterion struct {
	rule       rule
	any        group   // nil when the rule has no "any"
	all        []group // one per item of "all"
	none       group   // nil when the rule has no "none"
	hints      group
	cues       group
	replies    group
	replyCues  group
	unprompted group
	appliesIf  group
	// appliesIfOwn is nil when the rule has no "applies_if_own".
	appliesIfOwn group
	// before, against and unless are nil when the rule has none.
	before, against, unless group
	// pressed, restates and settled are nil when the rule has none.
	pressed, restates, settled group
	// model scores the speaker's turns; nil when the rule has no "tone".
	model *tone.Model
	// fingerprint names the criterion in the calibration table.
	fingerprint string
}

// group is a list of alternative phrases.
type group []phraseRef

// phraseRef is a phrase as a rule wrote it, with its compiled id.
type phraseRef struct {
	id   int32
	text string
}

// New compiles card for auditing, with package tone's embedded models. It
// returns the Invalid error of scoring.Validate(card, CheckRule) when card
// is not valid.
func New(card scoring.Scorecard) (*Engine, error) {
	return NewWithModels(card, tone.Builtin)
}

// NewWithModels is New with the tone models that models names (a rule's
// "tone" must still name an embedded one to be valid): for measuring a
// model trained on part of the data.
func NewWithModels(card scoring.Scorecard, models func(name string) (*tone.Model, bool)) (*Engine, error) {
	if err := scoring.Validate(card, CheckRule); err != nil {
		return nil, err
	}
	c := compiler{e: &Engine{card: card, criteria: make([]criterion, len(card.Criteria)), words: newWordIndex(), cal: Fitted()},
		wordIDs: map[string]int32{}, termIDs: map[string]int32{}, exprIDs: map[string]int32{}}
	for i, cr := range card.Criteria {
		r, _ := parseRule(cr.Rule) // Validate accepted it
		cc := criterion{rule: r, any: c.group(r.any), none: c.group(r.none), hints: c.group(r.hints), cues: c.group(r.cues),
			replies: c.group(r.replies), replyCues: c.group(r.replyCues), unprompted: c.group(r.unprompted),
			appliesIf: c.group(r.appliesIf), appliesIfOwn: c.group(r.appliesIfOwn), before: c.group(r.before),
			against: c.group(r.against), unless: c.group(r.unless), pressed: c.group(r.pressed),
			restates: c.group(r.restates), settled: c.group(r.settled), fingerprint: fingerprint(cr)}
		for _, alternatives := range r.all {
			cc.all = append(cc.all, c.group(alternatives))
		}
		if r.tone != nil {
			m, ok := models(r.tone.model)
			if !ok {
				return nil, fmt.Errorf("criterion %s: no tone model %q", cr.ID, r.tone.model)
			}
			cc.model = m
		}
		c.e.criteria[i] = cc
	}
	return c.e, nil
}

// compiler numbers the words, terms and phrases of a scorecard, each
// distinct one once.
type compiler struct {
	e                         *Engine
	wordIDs, termIDs, exprIDs map[string]int32
}

func (c *compiler) group(phrases []phrase) group {
	if phrases == nil {
		return nil
	}
	g := make(group, len(phrases))
	for i, p := range phrases {
		g[i] = phraseRef{id: c.expr(p.expr), text: p.text}
	}
	return g
}

func (c *compiler) expr(x expression) int32 {
	ce := cexpr{ops: x.ops}
	keys := make([]string, len(x.terms))
	for i, t := range x.terms {
		var id int32
		id, keys[i] = c.term(t)
		ce.terms = append(ce.terms, id)
	}
	key := fmt.Sprint(keys, x.ops)
	if id, ok := c.exprIDs[key]; ok {
		return id
	}
	if first := x.terms[0][0]; len(first.words) > 0 {
		ce.negator = true
		ce.subject = true
		for _, p := range first.words {
			ce.negator = ce.negator && !p.prefix && negators[p.word]
			ce.subject = ce.subject && !p.prefix && subjects[p.word]
		}
	}
	ce.plain = len(x.terms) == 1
	for _, it := range x.terms[0] {
		ce.plain = ce.plain && len(it.words) == 1 && !it.words[0].prefix
	}
	id := int32(len(c.e.exprs))
	c.exprIDs[key] = id
	c.e.exprs = append(c.e.exprs, ce)
	return id
}

func (c *compiler) term(t term) (int32, string) {
	items := make([]citem, len(t))
	parts := make([]string, len(t))
	for i, it := range t {
		if it.slot != noSlot {
			items[i] = citem{slot: it.slot, adjacent: it.slot == slotName || it.slot == slotAgentName}
			c.e.slots[it.slot] = true
			parts[i] = fmt.Sprintf("{%d}", it.slot)
			continue
		}
		var alts []string
		items[i].adjacent = true
		for _, p := range it.words {
			items[i].ids = append(items[i].ids, c.word(p))
			items[i].adjacent = items[i].adjacent && p.adjacent
			alts = append(alts, fmt.Sprint(p))
		}
		parts[i] = strings.Join(alts, "|")
	}
	key := strings.Join(parts, " ")
	if id, ok := c.termIDs[key]; ok {
		return id, key
	}
	id := int32(len(c.e.terms))
	c.termIDs[key] = id
	c.e.terms = append(c.e.terms, items)
	return id, key
}

func (c *compiler) word(p pattern) int32 {
	runes := []rune(p.word)
	edits := maxEdits(len(runes))
	if p.exact {
		edits = 0
	}
	key := fmt.Sprintf("%s/%d", p.word, edits)
	if p.prefix {
		key = p.word + "*"
	}
	if id, ok := c.wordIDs[key]; ok {
		return id
	}
	var id int32
	if p.prefix {
		id = c.e.words.addStem(p.word)
	} else {
		id = c.e.words.add(runes, edits)
	}
	c.wordIDs[key] = id
	return id
}

// Audit judges every criterion of the engine's scorecard that applies to
// kind (scoring.Call or scoring.Chat) against t, in scorecard order, with
// explanations in lang ("es" for Spanish, anything else English). Each
// verdict says how it was reached and how confident the engine is
// (scoring.Assessment). It returns an error only for an unknown kind.
func (e *Engine) Audit(kind string, t transcript.Transcript, lang string) ([]scoring.Verdict, error) {
	if kind != scoring.Call && kind != scoring.Chat {
		return nil, fmt.Errorf("unknown interaction kind %q: want %q or %q", kind, scoring.Call, scoring.Chat)
	}
	verdicts, cells := e.Judge(kind, t, lang)
	for i := range verdicts {
		verdicts[i].Confidence = e.cal.Confidence(cells[i])
	}
	return verdicts, nil
}

// Judge is Audit without the calibration table: each verdict with the
// confidence its rule gives (see Confidence in the package documentation),
// and the cell of the calibration table it falls in, for fitting the table
// (package eval). kind must be scoring.Call or scoring.Chat.
func (e *Engine) Judge(kind string, t transcript.Transcript, lang string) ([]scoring.Verdict, []Cell) {
	a := e.prepare(kind, t, wordingFor(lang))
	a.lang = lang
	verdicts := make([]scoring.Verdict, 0, len(e.criteria))
	cells := make([]Cell, 0, len(e.criteria))
	for i, c := range e.card.Criteria {
		if c.Applies(kind) {
			v, d := a.judge(c.ID, &e.criteria[i])
			verdicts = append(verdicts, v)
			cells = append(cells, newCell(e.criteria[i].fingerprint, d, v, lang, kind))
		}
	}
	return verdicts, cells
}

// audit is the state of one Audit call: the transcript's words, which
// phrase words each may be, and the phrases found so far.
type audit struct {
	e    *Engine
	w    wording
	lang string // the transcript's language, for tone models
	segs []transcript.Segment
	// channels is what the call's channels tell; nil when unknown.
	channels *transcript.Channels
	// speakers[i] is segs[i].Speaker, with anything unexpected as Unknown.
	speakers []string
	// own[i] numbers segment i among its speaker's segments, from 0;
	// owned[speaker] is how many that speaker has.
	own   []int
	owned map[string]int
	// customerBefore[i] is how many customer segments come before segment i.
	customerBefore []int
	// timed: positions are seconds (a call whose segments all have a start
	// time); otherwise they are turns.
	timed    bool
	duration float64 // seconds, when timed
	norm     string  // every normalised word, concatenated
	words    []word
	// runs[i] numbers the stretch of consecutive same-speaker segments word
	// i belongs to: a phrase never spans two speakers.
	runs []int32
	// clauses[i] numbers the clause word i is in (punctuation and "but"
	// end one): a negation reaches no further.
	clauses []int32
	// sentences[i]: word i starts a sentence within its segment (the text
	// before it ends one: ".", "?", "!"…).
	sentences []bool
	// negs[i]: word i is a negation ("no", "not", "can't").
	negs []bool
	// quoted[i]: word i is inside quotation marks its segment closes; may
	// be nil, and then no word is.
	quoted []bool
	cands  [][]int32 // cands[i]: ids of the phrase words word i matches
	at     [][]int32 // at[v]: positions of the words that match phrase word v
	// slotEnds[s][i] are the last words of the spans of slot s starting at
	// word i; computed for the slots the scorecard uses.
	slotEnds [numSlots][][]int32
	terms    memo
	exprs    memo
}

// memo holds occurrences computed once per audit.
type memo struct {
	found [][]span
	done  []bool
}

func newMemo(n int) memo { return memo{found: make([][]span, n), done: make([]bool, n)} }

// span is an occurrence of a phrase: its first and last word (inserted
// words included).
type span struct{ first, last int32 }

// subjects are the first-person subjects that start a clause of their own.
var subjects = set("i im ive ill id we weve yo")

// courtesies are the words that make a "no" just before them a courtesy
// of its own ("no problem", "no worries"; «no pasa nada» too), which
// negates nothing after it.
var courtesies = set("problem problemo problema worries worry bother bothers prob probs drama dramas stress")

// worries are the forms of «preocuparse» that make «no se…» / «no te…»
// just before them a reassurance, not a negation.
var worries = set("preocupe preocupes preocupen preocupés")

// negators are the words that negate what follows them in their clause.
var negators = set("no not never nothing nunca jamas tampoco ni nor neither cant cannot dont doesnt didnt wont wouldnt couldnt shouldnt isnt arent wasnt werent aint unable")

// reporters are the words that introduce someone else's words: "you were
// told", "the receptionist said", «le dijeron». Spanish forms are third
// person; English ones count unless a first-person subject says them ("as
// I said", "I've already told you" are the speaker's own), but for "quote"
// ("and I quote").
var reporters = set("told said says saying quote quoted answered replied dijo dijeron dicen decia decian comento comentaron " +
	"contesto contestaron respondio respondieron " + participles)

// participles are the Spanish reporters that also follow a first-person
// auxiliary: «le hayan respondido» reports, «ya le he contestado» does not.
const participles = "dicho respondido contestado comentado"

// firstPerson are the Spanish first-person auxiliaries of participles.
var firstPerson, participle = set("he hemos habia habiamos"), set(participles)

// reportReach is how many words before a phrase a reporter reaches.
const reportReach = 6

// reported reports whether the occurrence sp is words the speaker reports
// someone else saying, which a call's transcript cannot put in quotation
// marks: a reporter shortly before it in its segment, with no first-person
// subject between (which starts the speaker's own words again).
func (a *audit) reported(sp span) bool {
	seg := a.words[sp.first].seg
	said := func(k int32) bool { return k >= 0 && a.words[k].seg == seg }
	for k := sp.first - 1; said(k) && k >= sp.first-reportReach; k-- {
		w := a.text(int(k))
		switch {
		case subjects[w]:
			return false
		case reporters[w]:
			own := false
			for j := k - 1; j >= k-2 && said(j); j-- {
				own = own || subjects[a.text(int(j))] || participle[w] && firstPerson[a.text(int(j))]
			}
			return !own || w == "quote"
		}
	}
	return false
}

// clauseBreakers end a clause after them.
var clauseBreakers = set("pero but aunque although sino however though")

func (e *Engine) prepare(kind string, t transcript.Transcript, w wording) *audit {
	segs := t.Segments
	if len(segs) == 0 && strings.TrimSpace(t.Text) != "" {
		segs = []transcript.Segment{{Speaker: transcript.Unknown, Text: t.Text}}
	}
	a := &audit{
		e: e, w: w, segs: segs, channels: t.Channels,
		speakers:       make([]string, len(segs)),
		own:            make([]int, len(segs)),
		owned:          map[string]int{},
		customerBefore: make([]int, len(segs)),
		timed:          kind == scoring.Call && len(segs) > 0,
		at:             make([][]int32, len(e.words.words)),
		terms:          newMemo(len(e.terms)),
		exprs:          newMemo(len(e.exprs)),
	}
	size := 0
	for _, s := range segs {
		size += len(s.Text)
	}
	buf := make([]byte, 0, size)
	a.words = make([]word, 0, size/5) // words average about 5 bytes with their separator
	a.runs = make([]int32, 0, size/5)
	run := int32(-1)
	customers := 0
	var scratch []transcript.Word
	for i, s := range segs {
		switch s.Speaker {
		case transcript.Agent, transcript.Customer:
			a.speakers[i] = s.Speaker
		default:
			a.speakers[i] = transcript.Unknown
		}
		a.own[i] = a.owned[a.speakers[i]]
		a.owned[a.speakers[i]]++
		a.customerBefore[i] = customers
		if a.speakers[i] == transcript.Customer {
			customers++
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
		buf, a.words, scratch = appendWords(buf, a.words, scratch, s.Text, int32(i))
		for range len(a.words) - from {
			a.runs = append(a.runs, run)
		}
	}
	a.norm = string(buf)
	a.markQuoted()
	a.cands = make([][]int32, len(a.words))
	a.negs = make([]bool, len(a.words))
	a.clauses = make([]int32, len(a.words))
	a.sentences = make([]bool, len(a.words))
	clause := int32(0)
	memo := make(map[string][]int32, len(a.words)/2)
	for i, wd := range a.words {
		text := a.text(i)
		ids, ok := memo[text]
		if !ok {
			ids = e.words.lookup(text)
			memo[text] = ids
		}
		a.cands[i] = ids
		for _, v := range ids {
			a.at[v] = append(a.at[v], int32(i))
		}
		a.negs[i] = negators[text]
		// "no worries", «no pasa nada»: a courtesy, not a negation of what
		// follows ("no worries cheers").
		if i > 0 && a.words[i-1].seg == wd.seg && a.text(i-1) == "no" && courtesies[text] {
			a.negs[i-1] = false
		}
		if i > 1 && a.words[i-2].seg == wd.seg && text == "nada" && a.text(i-1) == "pasa" && a.text(i-2) == "no" {
			a.negs[i-2] = false
		}
		// "don't worry", «no se preocupe», «no te preocupes»: reassurance,
		// which negates nothing after it («no se preocupe, entiendo…»).
		if i > 0 && a.words[i-1].seg == wd.seg && a.text(i-1) == "dont" && (text == "worry" || text == "worries") {
			a.negs[i-1] = false
		}
		if i > 1 && a.words[i-2].seg == wd.seg && worries[text] && (a.text(i-1) == "se" || a.text(i-1) == "te") && a.text(i-2) == "no" {
			a.negs[i-2] = false
		}
		if i > 0 && wd.seg == a.words[i-1].seg {
			gap := a.gap(i)
			a.sentences[i] = endsSentence(gap)
			if a.sentences[i] || strings.ContainsAny(gap, ".,;:!?¡¿()—") || clauseBreakers[a.text(i-1)] {
				clause++
			}
		} else if i > 0 {
			clause++
		}
		a.clauses[i] = clause
	}
	if slices.Contains(e.slots[:], true) {
		tk := a.tokens()
		names := agentNames(segs)
		for s := range numSlots {
			if e.slots[s] {
				a.slotEnds[s] = tk.spans(s, names)
			}
		}
	}
	return a
}

// markQuoted marks the words that stand inside double quotation marks
// closed in their segment (transcript.Quoted): what a speaker quotes is
// someone else's words, so no phrase is found in them alone.
func (a *audit) markQuoted() {
	for first := 0; first < len(a.words); {
		seg := a.words[first].seg
		last := first
		for last+1 < len(a.words) && a.words[last+1].seg == seg {
			last++
		}
		q := transcript.Quoted(a.segs[seg].Text, last-first+1, func(i int) (int32, int32) {
			return a.words[first+i].from, a.words[first+i].to
		})
		if q != nil {
			if a.quoted == nil {
				a.quoted = make([]bool, len(a.words))
			}
			copy(a.quoted[first:], q)
		}
		first = last + 1
	}
}

// inQuotes reports whether every word of sp is quoted.
func (a *audit) inQuotes(sp span) bool {
	for k := sp.first; k <= sp.last; k++ {
		if !a.quoted[k] {
			return false
		}
	}
	return true
}

// text is word i's normalised form.
func (a *audit) text(i int) string {
	wd := a.words[i]
	return a.norm[wd.normFrom:wd.normTo]
}

// gap is the text between words i-1 and i, "\n" across segments.
func (a *audit) gap(i int) string {
	if i == 0 || a.words[i].seg != a.words[i-1].seg {
		return "\n"
	}
	return a.segs[a.words[i].seg].Text[a.words[i-1].to:a.words[i].from]
}

func (a *audit) tokens() *tokens {
	n := len(a.words)
	tk := &tokens{norm: make([]string, n), gap: make([]string, n), after: make([]string, n),
		upper: make([]bool, n), initial: make([]bool, n), caseless: make([]bool, n)}
	for i, wd := range a.words {
		tk.norm[i] = a.text(i)
		tk.gap[i] = a.gap(i)
		text := a.segs[wd.seg].Text
		if i+1 < n && a.words[i+1].seg == wd.seg {
			tk.after[i] = text[wd.to:a.words[i+1].from]
		} else {
			tk.after[i] = text[wd.to:]
		}
		r, size := utf8.DecodeRuneInString(text[wd.from:])
		tk.upper[i] = unicode.IsUpper(r) && !strings.ContainsFunc(text[int(wd.from)+size:wd.to], unicode.IsUpper)
		tk.initial[i] = tk.gap[i] == "\n" || strings.ContainsAny(tk.gap[i], ".!?¡¿:")
		tk.caseless[i] = strings.ToLower(text) == text
	}
	return tk
}

// agentNames are the names in the agent's speaker labels ("Agente Lucía",
// "Connor"), normalised, without the role words.
func agentNames(segs []transcript.Segment) []string {
	var names []string
	for _, s := range segs {
		if s.Speaker != transcript.Agent || s.Name == "" {
			continue
		}
		for _, w := range transcript.NormalWords(s.Name) {
			if len(w) > 1 && !isDigits(w) && transcript.SpeakerOf(w) == transcript.Unknown && !notNames[w] &&
				!slices.Contains(names, w) {
				names = append(names, w)
			}
		}
	}
	return names
}

// ends calls fn with the last word of each way item it matches from word pos.
func (a *audit) ends(it *citem, pos int32, fn func(end int32)) {
	if it.slot != noSlot {
		for _, end := range a.slotEnds[it.slot][pos] {
			fn(end)
		}
		return
	}
	for _, id := range it.ids {
		if contains(a.cands[pos], id) {
			fn(pos)
			return
		}
	}
}

// starts returns the words from which item may match, in order.
func (a *audit) starts(it *citem) []int32 {
	if it.slot != noSlot {
		var out []int32
		for i, ends := range a.slotEnds[it.slot] {
			if len(ends) > 0 {
				out = append(out, int32(i))
			}
		}
		return out
	}
	if len(it.ids) == 1 {
		return a.at[it.ids[0]]
	}
	var out []int32
	for _, id := range it.ids {
		out = append(out, a.at[id]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// termOccurrences returns where term t was said, in transcript order. A
// term is its items in order within one speaker's run, each word possibly
// preceded by one inserted word that is not a negation ("buenos eh días",
// never "I don't understand" for "I understand"); a name follows its
// predecessor directly. Of the ways to match from a first word, the
// shortest is kept.
func (a *audit) termOccurrences(t int32) []span {
	if a.terms.done[t] {
		return a.terms.found[t]
	}
	a.terms.done[t] = true
	items := a.e.terms[t]
	n := int32(len(a.words))
	for _, first := range a.starts(&items[0]) {
		// ends holds the offsets from first at which the items so far
		// can end.
		var ends uint64
		a.ends(&items[0], first, func(end int32) {
			if end-first < 64 {
				ends |= 1 << (end - first)
			}
		})
		for k := range items[1:] {
			it := &items[k+1]
			steps := int32(2)
			if it.adjacent {
				steps = 1
			}
			var next uint64
			for rest := ends; rest != 0; rest &= rest - 1 {
				off := int32(bits.TrailingZeros64(rest))
				for step := int32(1); step <= steps; step++ {
					pos := first + off + step
					if pos >= n || a.runs[pos] != a.runs[first] ||
						step == 2 && (a.negs[pos-1] || a.inverted(pos-1) || a.sentences[pos-1] || a.sentences[pos]) {
						break
					}
					a.ends(it, pos, func(end int32) {
						if end-first < 64 {
							next |= 1 << (end - first)
						}
					})
				}
			}
			if ends = next; ends == 0 {
				break
			}
		}
		if ends != 0 {
			a.terms.found[t] = append(a.terms.found[t], span{first, first + int32(bits.TrailingZeros64(ends))})
		}
	}
	return a.terms.found[t]
}

// occurrences returns where phrase p was said: its first term's
// occurrences, joined by each proximity operator with the next term's
// within the same speaker's run.
func (a *audit) occurrences(p int32) []span {
	if a.exprs.done[p] {
		return a.exprs.found[p]
	}
	a.exprs.done[p] = true
	x := &a.e.exprs[p]
	cur := a.termOccurrences(x.terms[0])
	for i, op := range x.ops {
		next := a.termOccurrences(x.terms[i+1])
		var joined []span
		for _, s1 := range cur {
			for _, s2 := range next {
				if a.runs[s1.first] != a.runs[s2.first] {
					continue
				}
				switch {
				case s2.first > s1.last && s2.first-s1.last-1 <= int32(op.within):
				case !op.ordered && s1.first > s2.last && s1.first-s2.last-1 <= int32(op.within):
				default:
					continue
				}
				joined = append(joined, span{min(s1.first, s2.first), max(s1.last, s2.last)})
			}
		}
		slices.SortFunc(joined, func(x, y span) int {
			return cmp.Or(cmp.Compare(x.first, y.first), cmp.Compare(x.last, y.last))
		})
		cur = slices.CompactFunc(joined, func(x, y span) bool { return x.first == y.first })
	}
	if a.quoted != nil {
		cur = slices.DeleteFunc(slices.Clone(cur), a.inQuotes)
	}
	a.exprs.found[p] = cur
	return cur
}

// inverting are the auxiliaries a question puts before "you".
var inverting = set("have has had do does did are is was were can could will would should shall may might")

// inverted reports whether word i is "you" after an auxiliary ("have you
// restarted…?"): a question, so it is never the word inserted into a
// phrase ("have restarted").
func (a *audit) inverted(i int32) bool {
	t := a.text(int(i))
	return (t == "you" || t == "u") && i > 0 && a.words[i-1].seg == a.words[i].seg && inverting[a.text(int(i-1))]
}

// negationReach is how many words before a phrase a negation reaches:
// "I can't help you with anything else" negates "anything else".
const negationReach = 4

// negated reports whether an occurrence of phrase p is in a negated
// clause: a negation among the negationReach words before it, in its
// clause.
func (a *audit) negated(p int32, sp span) bool {
	if e := a.e.exprs[p]; e.negator || e.subject {
		return false
	}
	for k := sp.first - 1; k >= 0 && k >= sp.first-negationReach && a.clauses[k] == a.clauses[sp.first]; k-- {
		if a.negs[k] {
			return true
		}
	}
	return false
}

// inScope reports whether segment seg is within r's speaker and positions.
// A segment of unknown speaker (a mono recording) is in every speaker's
// scope. Windows in the speaker's own turns always apply; windows in
// seconds apply when the audit is timed, windows in anyone's turns
// otherwise; a segment is in the first N seconds when it starts by N, in the
// last N when it ends at or after the end of the recording minus N.
func (a *audit) inScope(r *rule, seg int32) bool {
	if !a.speaks(r, seg) {
		return false
	}
	sp := a.speakers[seg]
	if a.customerBefore[seg] < r.afterCustomerTurns {
		return false
	}
	if (r.withinFirstOwnTurns > 0 && a.own[seg] >= r.withinFirstOwnTurns) ||
		(r.withinLastOwnTurns > 0 && a.own[seg] < a.owned[sp]-r.withinLastOwnTurns) {
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

// speaks reports whether segment seg is of r's speaker.
func (a *audit) speaks(r *rule, seg int32) bool {
	sp := a.speakers[seg]
	return r.speaker == anySpeaker || sp == transcript.Unknown || sp == r.speaker
}

// hit is an occurrence of a phrase of a group.
type hit struct {
	phrase string // as the rule wrote it
	id     int32
	span   span
}

// Where an occurrence stands, for first.
type place int

const (
	counted   place = iota // in scope, not negated: it counts
	negatedIn              // in scope, but negated
	outside                // out of scope, not negated
)

// first returns the earliest occurrence of any phrase of g at place, as
// rule r scopes it.
func (a *audit) first(g group, r *rule, want place) (hit, bool) {
	var best hit
	ok := false
	for _, ref := range g {
		for _, sp := range a.occurrences(ref.id) {
			in := a.inScope(r, a.words[sp.first].seg)
			neg := r.negation && a.negated(ref.id, sp)
			var at place
			switch {
			case in && !neg:
				at = counted
			case in:
				at = negatedIn
			case !neg:
				at = outside
			default:
				continue
			}
			if at != want {
				continue
			}
			// The earliest; of those, the longest (the most specific).
			if !ok || sp.first < best.span.first || sp.first == best.span.first && sp.last > best.span.last {
				best, ok = hit{ref.text, ref.id, sp}, true
			}
			break // later occurrences of this phrase come later
		}
	}
	return best, ok
}

// against returns the occurrences of g's phrases that count against the
// speaker, for none, hints and cues: in r's scope, not negated, and not
// someone else's words the speaker reports. Earliest first; of those that
// start together, the longest (the most specific) first.
func (a *audit) against(g group, r *rule) []hit {
	return a.said(g, r, r.negation)
}

// said is against, with negation saying whether a negation undoes a
// phrase.
func (a *audit) said(g group, r *rule, negation bool) []hit {
	var hs []hit
	for _, ref := range g {
		for _, sp := range a.occurrences(ref.id) {
			if a.inScope(r, a.words[sp.first].seg) && !(negation && a.negated(ref.id, sp)) && !a.reported(sp) {
				hs = append(hs, hit{ref.text, ref.id, sp})
			}
		}
	}
	slices.SortFunc(hs, func(x, y hit) int {
		return cmp.Or(cmp.Compare(x.span.first, y.span.first), cmp.Compare(y.span.last, x.span.last))
	})
	return hs
}

// together returns the cues of the earliest turn in r's scope where
// r.cuesTogether different cues count against the speaker: cues of g said
// in the turn (against), and at most one reply cue of replies said back to it; nil when
// no turn has that many.
func (a *audit) together(g, replies, laughter group, r *rule) []hit {
	if len(g) == 0 && len(replies) == 0 {
		return nil
	}
	// Each cue counts once in a turn, and the turn's hits stay in order
	// (a reply cue comes after them, in the next turn). Laughter shared
	// (see firstUnprompted) is no cue.
	bySeg := map[int32][]hit{}
	seen := map[[2]int32]bool{}
	shared := a.sharedFrom(laughter, r)
	for _, h := range a.against(g, r) {
		seg := a.words[h.span.first].seg
		if seg >= shared && a.overlaps(laughter, h.span) {
			continue
		}
		if k := [2]int32{seg, h.id}; !seen[k] {
			seen[k] = true
			bySeg[seg] = append(bySeg[seg], h)
		}
	}
	answered := map[int32]bool{}
	for _, ref := range replies {
		for _, sp := range a.occurrences(ref.id) {
			if turn, ok := a.answers(r, ref.id, sp); ok && !answered[turn] {
				answered[turn] = true
				bySeg[turn] = append(bySeg[turn], hit{ref.text, ref.id, sp})
			}
		}
	}
	var best []hit
	bestSeg := int32(-1)
	for seg, hs := range bySeg {
		if len(hs) >= r.cuesTogether && (bestSeg < 0 || seg < bestSeg) {
			best, bestSeg = hs, seg
		}
	}
	return best
}

// overlaps reports whether one of g's phrases is said on a word of sp.
func (a *audit) overlaps(g group, sp span) bool {
	for _, ref := range g {
		for _, o := range a.occurrences(ref.id) {
			if o.first <= sp.last && sp.first <= o.last {
				return true
			}
		}
	}
	return false
}

// answers returns the turn that the occurrence sp of phrase p replies to:
// the turn right before it, when that is a turn in r's scope and sp is
// said, not negated, by the other party.
func (a *audit) answers(r *rule, p int32, sp span) (int32, bool) {
	seg := a.words[sp.first].seg
	if seg == 0 || !a.others(r, seg) || a.speakers[seg-1] != r.speaker || !a.inScope(r, seg-1) ||
		r.negation && a.negated(p, sp) {
		return 0, false
	}
	return seg - 1, true
}

// firstReply returns the earliest reply of g said back to a turn in r's
// scope.
func (a *audit) firstReply(g group, r *rule) (hit, bool) {
	var best hit
	ok := false
	for _, ref := range g {
		for _, sp := range a.occurrences(ref.id) {
			if _, yes := a.answers(r, ref.id, sp); yes {
				if !ok || sp.first < best.span.first {
					best, ok = hit{ref.text, ref.id, sp}, true
				}
				break
			}
		}
	}
	return best, ok
}

// pressedAfter returns the first phrase of g the other party said after
// sp (pressed).
func (a *audit) pressedAfter(g group, r *rule, sp span) (hit, bool) {
	return a.firstOthers(g, r, func(o span) bool { return o.first > sp.last })
}

// firstOthers returns the earliest phrase of g the other party of r's
// speaker said where keep holds, negated or not.
func (a *audit) firstOthers(g group, r *rule, keep func(o span) bool) (hit, bool) {
	var best hit
	ok := false
	for _, ref := range g {
		for _, o := range a.occurrences(ref.id) {
			if a.others(r, a.words[o.first].seg) && keep(o) {
				if !ok || o.first < best.span.first {
					best, ok = hit{ref.text, ref.id, o}, true
				}
				break
			}
		}
	}
	return best, ok
}

// settledTurns is how many of the other party's last turns settled
// looks at.
const settledTurns = 2

// settledBy returns the first phrase of g the other party said in their
// last settledTurns turns (settled), negated or not: "no, thanks" closes
// as well as "thanks".
func (a *audit) settledBy(g group, r *rule) (hit, bool) {
	return a.firstOthers(g, r, func(o span) bool {
		seg := a.words[o.first].seg
		return a.own[seg] >= a.owned[a.speakers[seg]]-settledTurns
	})
}

// restateShared is how many of the other party's words a sentence must
// repeat to restate them; restatedLen is how long a word must be to count
// (shorter ones are mostly grammar: "that", «para»), unless it has a digit.
const (
	restateShared = 2
	restatedLen   = 5
)

// restatement returns the earliest sentence of r's speaker, in scope, that
// says one of g's phrases and repeats at least restateShared words of the
// other party's turns right before its own ("So a camper and the dog on
// Rosslare–Cherbourg in August", after "a camper and a dog … Rosslare to
// Cherbourg … August"). The hit spans the sentence, with the phrase's
// text and no id: the sentence is quoted, not the phrase.
func (a *audit) restatement(g group, r *rule) (hit, bool) {
	for _, h := range a.said(g, r, r.negation) {
		first, last := a.sentence(h.span)
		if a.repeats(first, last, h.span, r) {
			return hit{phrase: h.phrase, id: -1, span: span{first, last}}, true
		}
	}
	return hit{}, false
}

// sentence returns the first and last words of the sentence around sp,
// within its segment.
func (a *audit) sentence(sp span) (first, last int32) {
	first, last = sp.first, sp.last
	for first > 0 && a.words[first-1].seg == a.words[first].seg && !a.sentences[first] {
		first--
	}
	for int(last)+1 < len(a.words) && a.words[last+1].seg == a.words[last].seg && !a.sentences[last+1] {
		last++
	}
	return first, last
}

// endsSentence reports whether the text between two words ends a sentence.
func endsSentence(gap string) bool { return strings.ContainsAny(gap, ".!?¡¿…") }

// repeats reports whether words first to last, but for those of mark,
// repeat restateShared different words of the other party's turns right
// before the speaker's stretch of turns they are in.
func (a *audit) repeats(first, last int32, mark span, r *rule) bool {
	start := first
	for start > 0 && a.runs[start-1] == a.runs[first] {
		start--
	}
	if start == 0 || !a.others(r, a.words[start-1].seg) {
		return false
	}
	from := start - 1
	for from > 0 && a.runs[from-1] == a.runs[start-1] {
		from--
	}
	var shared []string
	for k := first; k <= last && len(shared) < restateShared; k++ {
		w := a.text(int(k))
		if k >= mark.first && k <= mark.last || !telling(w) || slices.Contains(shared, w) {
			continue
		}
		for j := from; j < start; j++ {
			if a.text(int(j)) == w {
				shared = append(shared, w)
				break
			}
		}
	}
	return len(shared) >= restateShared
}

// telling reports whether a normalised word is long enough, or has a
// digit, to count as repeated.
func telling(w string) bool {
	return len(w) >= restatedLen || strings.ContainsAny(w, "0123456789")
}

// firstUnprompted returns the earliest phrase of g that counts against the
// speaker in a turn said before the other party said any of g's phrases:
// laughter answered with laughter is shared, and once the customer has
// laughed the conversation has a light tone that the agent's later
// laughter keeps (a joke of the agent's own, "por si te agarran ganas
// jaja"); laughter before any of theirs is at the customer. Unlike hints,
// they are never negated.
func (a *audit) firstUnprompted(g group, r *rule) (hit, bool) {
	if len(g) == 0 {
		return hit{}, false
	}
	shared := a.sharedFrom(g, r)
	// A sign of tone is not a claim, so no negation undoes it ("no son
	// suyas jeje").
	for _, h := range a.said(g, r, false) {
		if a.words[h.span.first].seg < shared {
			return h, true
		}
	}
	return hit{}, false
}

// sharedFrom returns the first turn after the other party's first saying
// one of g's phrases (their laughter): from there on, the speaker's
// laughter is shared. With none, it is past every turn.
func (a *audit) sharedFrom(g group, r *rule) int32 {
	first := int32(len(a.segs))
	for _, ref := range g {
		for _, sp := range a.occurrences(ref.id) {
			if seg := a.words[sp.first].seg; a.others(r, seg) && seg < first {
				first = seg
			}
		}
	}
	return first + 1
}

// others reports whether segment seg is the other party's, for a rule
// with one speaker.
func (a *audit) others(r *rule, seg int32) bool {
	sp := a.speakers[seg]
	return sp != r.speaker && sp != transcript.Unknown
}

// applies reports whether criterion c, which has applies_if, applies:
// one of its phrases is said by applies_if_speaker, negated or not, or
// one of applies_if_own or before by the rule's own speaker.
func (a *audit) applies(c *criterion) bool {
	if _, ok := a.first(c.appliesIf, &rule{speaker: c.rule.appliesIfSpeaker}, counted); ok {
		return true
	}
	own := &rule{speaker: c.rule.speaker}
	if _, ok := a.first(c.appliesIfOwn, own, counted); ok {
		return true
	}
	_, ok := a.first(c.before, own, counted)
	return ok
}

// anywhere is r without its positions: its speaker's every turn, negation
// as r has it.
func (r *rule) anywhere() *rule { return &rule{speaker: r.speaker, negation: r.negation} }

// opposite returns the first phrase of c's against said in r's scope (not
// negated, not reported) in a turn that says none of c's unless.
func (a *audit) opposite(c *criterion, r *rule) (hit, bool) {
	made := map[int32]bool{} // the turns that say an unless
	for _, h := range a.said(c.unless, r.anywhere(), r.negation) {
		made[a.words[h.span.first].seg] = true
	}
	for _, h := range a.against(c.against, r) {
		if !made[a.words[h.span.first].seg] {
			return h, true
		}
	}
	return hit{}, false
}

// decided is what decided a verdict: a Signal, and the phrase that did
// as the rule wrote it (empty for absence and tone).
type decided struct{ signal, phrase string }

// judge applies criterion c (id) to the transcript, and says what decided
// the verdict.
func (a *audit) judge(id string, c *criterion) (scoring.Verdict, decided) {
	r := &c.rule
	sc := scope{speaker: r.speaker, afterCustomer: r.afterCustomerTurns}
	if a.timed {
		sc.first, sc.last = r.withinFirst, r.withinLast
	} else {
		sc.firstTurns, sc.lastTurns = r.withinFirstTurns, r.withinLastTurns
	}
	sc.firstOwn, sc.lastOwn = r.withinFirstOwnTurns, r.withinLastOwnTurns
	if r.channels != nil {
		return a.judgeChannels(id, r.channels)
	}
	v := scoring.Verdict{CriterionID: id}
	if c.appliesIf != nil && !a.applies(c) {
		v.Complies, v.NotApplicable = true, true
		v.Explanation = a.w.notApplicable(phrasesOf(append(slices.Clip(c.appliesIf), c.appliesIfOwn...)))
		v.Basis, v.Confidence = scoring.BasisAbsence, r.notApplicableConfidence
		return v, decided{signal: SignalNotApplicable}
	}
	var failures, findings []string
	var decisive, cited []hit
	conflict := false
	want := c.all
	if c.any != nil {
		want = append([]group{c.any}, want...)
	}
	positive, violation, restated := true, false, false
	for i, g := range want {
		if h, ok := a.first(g, r, counted); ok {
			if b, ok := a.first(c.before, r.anywhere(), counted); ok &&
				b.span.first < h.span.first {
				failures = append(failures, a.w.late(a.cite(b), a.cite(h)))
				cited = append(cited, b, h)
				decisive = []hit{b}
				violation = true
				continue
			}
			findings = append(findings, a.w.said(a.cite(h)))
			cited = append(cited, h)
			decisive = append(decisive, h)
			continue
		}
		if i == 0 && c.any != nil {
			if h, ok := a.restatement(c.restates, r); ok {
				findings = append(findings, a.w.restated(a.cite(h)))
				cited = append(cited, h)
				decisive = append(decisive, h)
				restated = true
				continue
			}
		}
		positive = false
		if h, ok := a.first(g, r, negatedIn); ok {
			failures = append(failures, a.w.negated(a.cite(h)))
			cited = append(cited, h)
			conflict = true
			continue
		}
		var out *citation
		// Said by the speaker, out of place, points both ways. Said by the
		// other party, it says nothing of the speaker, and is never quoted
		// as their evidence.
		if h, ok := a.first(g, r.anywhere(), counted); ok {
			ct := a.cite(h)
			out = &ct
			cited = append(cited, h)
			conflict = true
		}
		failures = append(failures, a.w.missing(phrasesOf(g), sc, out))
	}
	if c.against != nil && len(failures) == 0 {
		if h, ok := a.opposite(c, r); ok {
			failures = append(failures, a.w.opposite(a.cite(h)))
			cited = append(cited, h)
			decisive = []hit{h}
			violation = true
		}
	}
	if c.none != nil {
		said := a.against(c.none, r)
		if len(said) == 0 {
			findings = append(findings, a.w.clean(sc))
			if h, ok := a.first(c.none, r, negatedIn); ok {
				findings = append(findings, a.w.negated(a.cite(h)))
				cited = append(cited, h)
				conflict = true
			}
		} else {
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
			decisive = []hit{said[0]}
			violation = true
		}
	}
	v.Complies = len(failures) == 0
	var d decided
	switch {
	case violation || positive && len(want) > 0:
		v.Basis, v.Confidence, d = scoring.BasisEvidence, confidenceExact, decided{SignalPhrase, decisive[0].phrase}
		switch {
		case violation:
			d.signal = SignalViolation
		case restated:
			v.Confidence, d.signal = confidenceLoose, SignalRestated
		}
		for _, h := range decisive {
			if h.id >= 0 && a.loose(h) {
				v.Confidence = confidenceLoose
				d.signal += SignalLooseSuffix
			}
		}
		if !violation {
			if h, ok := a.pressedAfter(c.pressed, &c.rule, decisive[len(decisive)-1].span); ok {
				findings = append(findings, a.w.pressed(a.cite(h)))
				cited = append(cited, h)
				d.signal += SignalPressedSuffix
			}
		}
	case conflict:
		v.Basis, v.Confidence, d = scoring.BasisConflict, confidenceConflict, decided{SignalConflict, cited[0].phrase}
	default:
		v.Basis, v.Confidence, d = scoring.BasisAbsence, r.absenceConfidence, decided{signal: SignalAbsence}
		// A hint, else a reply, else something unprompted, else cues
		// together turn the verdict.
		var signs []hit
		unprompted, sign := false, SignalHint
		if hs := a.against(c.hints, r); len(hs) > 0 {
			signs = hs[:1]
			if a.words[hs[len(hs)-1].span.first].seg != a.words[hs[0].span.first].seg {
				sign = SignalHints
			}
		} else if h, ok := a.firstReply(c.replies, r); ok {
			signs, sign = []hit{h}, SignalReply
		} else if h, ok := a.firstUnprompted(c.unprompted, r); ok {
			signs, unprompted, sign = []hit{h}, true, SignalUnprompted
		} else {
			signs, sign = a.together(c.cues, c.replyCues, c.unprompted, r), SignalCues
		}
		if signs != nil {
			v.Complies = !v.Complies
			v.Basis, v.Confidence, d = scoring.BasisConflict, r.hintConfidence, decided{sign, signs[0].phrase}
			cs := make([]citation, len(signs))
			for i, h := range signs {
				cs[i] = a.cite(h)
			}
			switch {
			case unprompted:
				failures = append(failures, a.w.unprompted(cs[0], v.Complies))
			case len(cs) == 1: // cues come at least two together
				failures = append(failures, a.w.hint(cs[0], v.Complies))
			default:
				failures = append(failures, a.w.cues(cs, v.Complies))
			}
			cited = append(cited, signs...)
		} else if h, ok := a.settledBy(c.settled, r); ok {
			// A hint of the other party's, named, not quoted: the evidence
			// of the speaker's criterion is the speaker's own words.
			v.Complies = true
			v.Basis, v.Confidence, d = scoring.BasisConflict, r.hintConfidence, decided{SignalSettled, h.phrase}
			failures = append(failures, a.w.settled(a.cite(h)))
		}
	}
	// A "none" rule's model (fails_at) is asked of a met verdict, an "any"
	// rule's of one nothing of which was said.
	none := c.model != nil && r.tone.failsAt > 0
	if none && v.Complies && !violation || c.model != nil && !none && !v.Complies && d.signal == SignalAbsence {
		if h, score, ok := a.toneOf(c); ok && score >= r.tone.reviewAt {
			// Of "none": a turn that reads as disrespectful fails the
			// criterion, one that might is a conflict. Of "any": a turn
			// that reads as meeting it meets it, one that might puts its
			// absence in doubt. Either way an analyst should see it.
			explain := a.w.tone
			v.Complies = score < r.tone.failsAt
			if !none {
				explain, v.Complies = a.w.shows, r.tone.meetsAt > 0 && score >= r.tone.meetsAt
			}
			v.Basis, v.Confidence, d = scoring.BasisConflict, min(v.Confidence, r.hintConfidence), decided{signal: SignalTone}
			ct := a.cite(h)
			var pairs []string
			ct.quote, pairs = c.model.Telling(a.segs[a.words[h.span.first].seg].Text, a.lang, toneTelling)
			failures = append(failures, explain(ct, score, pairs, v.Complies))
			cited = append(cited, h)
		}
	}
	v.Explanation = strings.Join(append(failures, findings...), " ")
	v.Evidence = a.evidence(cited)
	return v, d
}

// toneTelling is how many of a turn's most telling pairs of words a tone
// explanation names.
const toneTelling = 3

// toneOf returns the turn of c's speaker, in scope, that c's tone model
// scores highest, as a hit spanning the turn, with its score; false when
// the speaker said nothing in scope.
func (a *audit) toneOf(c *criterion) (hit, float64, bool) {
	var best hit
	top, ok := 0.0, false
	for first := 0; first < len(a.words); {
		seg := a.words[first].seg
		last := first
		for last+1 < len(a.words) && a.words[last+1].seg == seg {
			last++
		}
		if a.inScope(&c.rule, seg) {
			if s := c.model.Score(a.unreported(first, last), a.lang); !ok || s > top {
				best, top, ok = hit{phrase: c.rule.tone.model, id: -1, span: span{int32(first), int32(last)}}, s, true
			}
		}
		first = last + 1
	}
	return best, top, ok
}

// unreported returns the text of words first to last, one segment's,
// without the words the speaker reports someone else saying ("they
// answered not our problem"): the tone model leaves out quoted words, and
// speech has no quotation marks.
func (a *audit) unreported(first, last int) string {
	text := a.segs[a.words[first].seg].Text
	reports := false
	for k := first; k <= last && !reports; k++ {
		reports = reporters[a.text(k)]
	}
	if !reports {
		return text // most turns report nobody
	}
	var b strings.Builder
	from := 0
	for k := first; k <= last; k++ {
		if a.reported(span{int32(k), int32(k)}) {
			b.WriteString(text[from:a.words[k].from])
			from = int(a.words[k].to)
		}
	}
	if from == 0 {
		return text
	}
	b.WriteString(text[from:])
	return b.String()
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
	// loose: the words said differ from a plain phrase's (misspelt, or
	// with an inserted word), so the explanation shows both.
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
	c := citation{
		phrase:  h.phrase,
		quote:   quote.String(),
		speaker: a.speakers[first.seg],
		loose:   h.id >= 0 && a.e.exprs[h.id].plain && a.loose(h), // a tone hit (-1) is a whole turn
		timed:   a.timed,
		turn:    int(first.seg) + 1,
	}
	if a.timed {
		c.at = *a.segs[first.seg].Start
	}
	return c
}

// loose reports whether a hit's words differ from its phrase's: a plain
// phrase said with a misspelling or an inserted word. Phrases with
// wildcards, alternatives, slots or proximity match other words by design.
func (a *audit) loose(h hit) bool {
	x := a.e.exprs[h.id]
	if len(x.terms) > 1 {
		return false
	}
	items := a.e.terms[x.terms[0]]
	if int(h.span.last-h.span.first)+1 != len(items) {
		return true
	}
	for k, it := range items {
		if it.slot != noSlot || len(it.ids) != 1 {
			continue
		}
		vw := a.e.words.words[it.ids[0]]
		if vw.stem == "" && a.text(int(h.span.first)+k) != string(vw.runes) {
			return true
		}
	}
	return false
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
