// Package tone scores how one turn of a conversation reads: how
// disrespectful (model Respect) or how much it shows empathy (Empathy). A
// model is a linear classifier (logistic regression) over hashed features
// of the turn's words, trained by cmd/traintone on the evaluation set's
// development cases (and, for Respect, labelled agent lines), with its
// weights embedded. The rules engine uses it as an additional, explainable
// signal of a criterion (rule key "tone"): the phrases it learnt to weigh
// are shown beside the score.
//
// A turn's features are its normalised words (transcript.NormalWords:
// case and accents folded, pictographs as words) outside quotation marks,
// their pairs, the character 4-grams of each word (so "explicado" shares
// with "expliqué"), and the conversation's language. Scoring costs a few
// microseconds and is deterministic.
package tone

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Bits is log2 of the number of feature buckets.
const Bits = 17

// magic starts a model file.
const magic = "TONE1\n"

// Model is a trained classifier: a weight per feature bucket and a bias.
// It is immutable, so one Model may serve concurrent audits.
type Model struct {
	Bias    float32
	Weights []float32 // 1 << Bits
}

// The names of the embedded models: Respect of disrespect by an agent,
// Empathy of an agent's acknowledging the customer's situation or feelings
// or restating what they said.
const (
	Respect = "respect"
	Empathy = "empathy"
)

var (
	//go:embed respect.model
	respectModel []byte
	//go:embed empathy.model
	empathyModel []byte
)

var builtin = map[string]*Model{}

func init() {
	for name, b := range map[string][]byte{Respect: respectModel, Empathy: empathyModel} {
		m, err := Decode(b)
		if err != nil {
			panic("tone: embedded " + name + " model: " + err.Error())
		}
		builtin[name] = m
	}
}

// Builtin returns the embedded model named name.
func Builtin(name string) (*Model, bool) {
	m, ok := builtin[name]
	return m, ok
}

// Names lists the embedded models' names, sorted.
func Names() []string {
	out := make([]string, 0, len(builtin))
	for n := range builtin {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// New returns a model of zero weights.
func New() *Model { return &Model{Weights: make([]float32, 1<<Bits)} }

// Encode writes m in the format Decode reads.
func (m *Model) Encode() []byte {
	var b bytes.Buffer
	b.WriteString(magic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(Bits))
	_ = binary.Write(&b, binary.LittleEndian, m.Bias)
	_ = binary.Write(&b, binary.LittleEndian, m.Weights)
	return b.Bytes()
}

// Decode reads a model Encode wrote.
func Decode(b []byte) (*Model, error) {
	if !bytes.HasPrefix(b, []byte(magic)) {
		return nil, errors.New("not a tone model")
	}
	r := bytes.NewReader(b[len(magic):])
	var bits uint32
	m := New()
	if err := binary.Read(r, binary.LittleEndian, &bits); err != nil || bits != Bits {
		return nil, fmt.Errorf("a model of %d bits, want %d", bits, Bits)
	}
	if err := binary.Read(r, binary.LittleEndian, &m.Bias); err != nil {
		return nil, err
	}
	if err := binary.Read(r, binary.LittleEndian, m.Weights); err != nil {
		return nil, err
	}
	return m, nil
}

// turn is a turn's normalised words outside quotation marks, and where
// its sentences end.
type turn struct {
	words []string
	// ends are the indexes in words after each sentence's last word.
	ends []int
	// spans are the sentences as written, text[from:to], parallel to ends.
	spans [][2]int32
}

// sentenceEnds are the runes after which a sentence ends.
const sentenceEnds = ".!?…\n"

// split normalises text, one turn, leaving out quoted words (someone
// else's), and finds its sentences.
func split(text string) turn {
	buf, ws := transcript.AppendWords(nil, nil, text)
	quoted := transcript.Quoted(text, len(ws), func(i int) (int32, int32) { return ws[i].From, ws[i].To })
	t := turn{words: make([]string, 0, len(ws))}
	norm := string(buf)
	from := int32(0)
	for i, w := range ws {
		if quoted == nil || !quoted[i] {
			t.words = append(t.words, norm[w.NormFrom:w.NormTo])
		}
		next := int32(len(text))
		if i+1 < len(ws) {
			next = ws[i+1].From
		}
		gap := text[w.To:next]
		if k := strings.LastIndexAny(gap, sentenceEnds); k >= 0 || i+1 == len(ws) {
			cut := next // the sentence takes its closing marks, the next one its opening ones
			if i+1 < len(ws) {
				_, size := utf8.DecodeRuneInString(gap[k:])
				cut = w.To + int32(k+size)
			}
			if len(t.ends) == 0 || t.ends[len(t.ends)-1] < len(t.words) {
				t.ends = append(t.ends, len(t.words))
				t.spans = append(t.spans, [2]int32{from, cut})
			}
			from = cut
		}
	}
	return t
}

// sentences returns the word ranges of t's sentences of minWords or more,
// none when there are fewer than two (the turn is its own sentence).
func (t turn) sentences() [][2]int {
	var out [][2]int
	start := 0
	for _, end := range t.ends {
		if end-start >= minWords {
			out = append(out, [2]int{start, end})
		}
		start = end
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// Sentences returns the sentences of text, one turn (ended by ".", "!",
// "?", "…" or a line break), of three words or more; none when it has
// fewer than two such sentences. Score judges them one by one too.
func Sentences(text string) []string {
	t := split(text)
	var out []string
	start := 0
	for i, end := range t.ends {
		if end-start >= minWords {
			out = append(out, strings.TrimSpace(text[t.spans[i][0]:t.spans[i][1]]))
		}
		start = end
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// minWords is the fewest words of a turn or sentence whose tone is
// judged: "Ya.", "Eso sería." or "Printer model?" say too little (a
// pictograph is a word).
const minWords = 3

// visit calls fn with the bucket of each feature of words (a turn's or a
// sentence's) but the language, and the words it stands for: a word (b
// empty), a pair of words, or nothing for a character n-gram.
func visit(words []string, fn func(bucket uint32, a, b string)) {
	var padded [64]byte
	for i, w := range words {
		fn(hash('w', w, ""), w, "")
		if i > 0 {
			fn(hash('b', words[i-1], w), words[i-1], w)
		} else {
			fn(hash('b', "<", w), w, "")
		}
		if n := len(w) + 2; n > 5 && n <= len(padded) {
			padded[0] = '<'
			copy(padded[1:], w)
			padded[n-1] = '>'
			for k := 0; k+4 <= n; k++ {
				fn(hashBytes('c', padded[k:k+4]), "", "")
			}
		}
	}
}

// languageBucket is the bucket of the language feature.
func languageBucket(lang string) uint32 {
	if scoring.IsSpanish(lang) {
		return hash('l', "es", "")
	}
	return hash('l', "en", "")
}

// hash is FNV-1a of kind, a and b, in Bits bits.
func hash(kind byte, a, b string) uint32 {
	h := uint32(2166136261)
	step := func(c byte) { h = (h ^ uint32(c)) * 16777619 }
	step(kind)
	for i := 0; i < len(a); i++ {
		step(a[i])
	}
	step(0)
	for i := 0; i < len(b); i++ {
		step(b[i])
	}
	return h >> (32 - Bits)
}

// hashBytes is hash of kind and a, b empty.
func hashBytes(kind byte, a []byte) uint32 {
	h := uint32(2166136261)
	step := func(c byte) { h = (h ^ uint32(c)) * 16777619 }
	step(kind)
	for _, c := range a {
		step(c)
	}
	step(0)
	return h >> (32 - Bits)
}

// margin is the model's linear score of words in language bucket lang
// (before the logistic function): the bias, the language's weight, and
// the words' features as a vector of length 1, so that a long turn
// weighs as much as a short one.
func (m *Model) margin(words []string, lang uint32) float64 {
	var sum float64
	n := 0
	visit(words, func(bucket uint32, _, _ string) {
		sum += float64(m.Weights[bucket])
		n++
	})
	return float64(m.Bias) + float64(m.Weights[lang]) + sum/math.Sqrt(float64(max(n, 1)))
}

// Score returns the probability that text, one turn in language lang (a
// BCP 47 tag), reads as the model's class (for Respect: disrespectful;
// for Empathy: showing empathy),
// from 0 to 1: of the whole turn or of its most telling sentence,
// whichever is higher, so that one rude remark in a long, otherwise
// courteous turn still tells. Words in quotation marks are someone else's
// and left out; a turn of fewer than three words scores 0.
func (m *Model) Score(text, lang string) float64 {
	t := split(text)
	if len(t.words) < minWords {
		return 0
	}
	l := languageBucket(lang)
	best := m.margin(t.words, l)
	for _, s := range t.sentences() {
		best = max(best, m.margin(t.words[s[0]:s[1]], l))
	}
	return sigmoid(best)
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Telling explains a score of text, one turn in language lang: the
// sentence that scored highest (the whole turn when it is one sentence,
// trimmed), and up to n pairs of words in it that weigh most towards the
// class, most first.
func (m *Model) Telling(text, lang string, n int) (string, []string) {
	t := split(text)
	sentence, words := strings.TrimSpace(text), t.words
	l := languageBucket(lang)
	best := m.margin(t.words, l)
	for _, s := range t.sentences() {
		if mg := m.margin(t.words[s[0]:s[1]], l); mg > best {
			best, words = mg, t.words[s[0]:s[1]]
			sentence = strings.TrimSpace(text[t.spans[t.sentenceOf(s[1])][0]:t.spans[t.sentenceOf(s[1])][1]])
		}
	}
	type weighed struct {
		pair string
		w    float32
	}
	var ws []weighed
	seen := map[string]bool{}
	visit(words, func(bucket uint32, a, b string) {
		if b == "" || seen[a+" "+b] || m.Weights[bucket] <= 0 {
			return
		}
		seen[a+" "+b] = true
		ws = append(ws, weighed{a + " " + b, m.Weights[bucket]})
	})
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].w > ws[j].w })
	pairs := make([]string, 0, n)
	for _, x := range ws[:min(n, len(ws))] {
		pairs = append(pairs, x.pair)
	}
	return sentence, pairs
}

// sentenceOf returns the index of the sentence that ends at word end.
func (t turn) sentenceOf(end int) int {
	i, _ := slices.BinarySearch(t.ends, end)
	return i
}
