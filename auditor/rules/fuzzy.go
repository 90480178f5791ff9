package rules

import "strings"

// maxEdits is how many typing or recognition errors a phrase word of n
// runes tolerates: none up to 5 runes (short words differ by one letter from
// too many others: "mal"/"más", "diga"/"día", "read"/"ready"), 1 from 6 to
// 8, 2 from 9 on.
func maxEdits(n int) int {
	switch {
	case n <= 5:
		return 0
	case n <= 8:
		return 1
	default:
		return 2
	}
}

// distance is the optimal string alignment distance between a and b
// (Damerau-Levenshtein where a substring is edited once: insertions,
// deletions, substitutions and transpositions of adjacent runes each cost
// 1), or limit+1 when it exceeds limit.
func distance(a, b []rune, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	// Three rows of the dynamic programme: i-2, i-1 and i.
	var store [3 * 40]int
	w := len(b) + 1
	var rows []int
	if 3*w <= len(store) {
		rows = store[:3*w]
	} else {
		rows = make([]int, 3*w)
	}
	prev2, prev, cur := rows[:w], rows[w:2*w], rows[2*w:]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

// hashBase is the base of the polynomial hash of rune strings used as
// deletion keys.
const hashBase = 0x100000001b3

// maxDeletions is the largest k deletions handles: the most edits a phrase
// word tolerates.
const maxDeletions = 2

// deletions calls fn with the hash of s and of every string made by
// deleting up to k (at most maxDeletions) runes of s, with the number
// deleted, and with repeats when s has repeated runes. Two words within k edits of each other (adjacent
// transpositions included) share at least one such string, so an index of
// the phrase words' deletion hashes finds the candidates for a transcript
// word by looking up its own (symmetric deletion), without comparing it
// with every phrase word. Hashes, not strings, keep this free of
// allocations; a collision only adds a candidate, which distance rejects.
func deletions(s []rune, k int, fn func(key uint64, deleted int)) {
	n := len(s)
	// prefix[i] is the hash of s[:i]; pow[i] is hashBase^i.
	var prefixStore, powStore [49]uint64
	prefix, pow := prefixStore[:], powStore[:]
	if n+1 > len(prefix) {
		prefix, pow = make([]uint64, n+1), make([]uint64, n+1)
	}
	pow[0] = 1
	for i, r := range s {
		prefix[i+1] = prefix[i]*hashBase + uint64(r)
		pow[i+1] = pow[i] * hashBase
	}
	// sub is the hash of s[a:b]; the hash of x+y is hash(x)·base^len(y) + hash(y).
	sub := func(a, b int) uint64 { return prefix[b] - prefix[a]*pow[b-a] }
	fn(prefix[n], 0)
	if k >= 1 {
		for i := range n {
			fn(prefix[i]*pow[n-1-i]+sub(i+1, n), 1)
		}
	}
	if k >= 2 {
		for i := range n {
			for j := i + 1; j < n; j++ {
				fn(prefix[i]*pow[n-2-i]+sub(i+1, j)*pow[n-1-j]+sub(j+1, n), 2)
			}
		}
	}
}

// vocabWord is a normalised phrase word with the edits it tolerates. The
// same word is two vocabWords when exact and tolerant rules both use it.
type vocabWord struct {
	runes []rune
	edits int
	// stem: the word is a wildcard's stem, matching any word that starts
	// with it (not indexed by deletions).
	stem string
}

// filterWords sizes wordIndex.filter: 2^16 bits, 8 KiB, a few percent full
// for a scorecard of hundreds of phrases.
const filterWords = 1 << 10

// wordIndex finds the phrase words a transcript word may be.
type wordIndex struct {
	words []vocabWord
	// keys maps deletion keys to the ids of the words they came from. A
	// word tolerating k edits files its keys in space k (see spaceKey):
	// a transcript word need only look up its d-deletion keys in spaces
	// k ≥ d, since two words within k edits meet within k deletions each.
	keys map[uint64][]int32
	// filter has bit filterBit(k) set for every key k of keys: most
	// deletions of a transcript word are in no phrase word, and a bit test
	// rejects them at a fraction of a map lookup's cost.
	filter *[filterWords]uint64
	// lens[k] bounds the lengths in runes of the keys in space k (all
	// zero when the space is empty): a key of another length is not there.
	lens [maxDeletions + 1]struct{ min, max int }
	// stems are the ids of the wildcards' stems.
	stems []int32
}

func newWordIndex() wordIndex {
	return wordIndex{keys: map[uint64][]int32{}, filter: new([filterWords]uint64)}
}

// spaceKey separates the keys of words that tolerate different numbers of
// edits.
func spaceKey(key uint64, edits int) uint64 {
	return key ^ uint64(edits)*0x9e3779b97f4a7c15
}

// filterBit picks the bit of wordIndex.filter for a key, from the high bits
// of the key mixed by a multiplicative hash.
func filterBit(key uint64) (word, mask uint64) {
	b := (key * 0x9e3779b97f4a7c15) >> 48
	return b >> 6, 1 << (b & 63)
}

// add indexes a word tolerating edits (at most maxDeletions) and returns its id.
func (ix *wordIndex) add(runes []rune, edits int) int32 {
	id := int32(len(ix.words))
	ix.words = append(ix.words, vocabWord{runes: runes, edits: edits})
	l := &ix.lens[edits]
	if l.max == 0 || len(runes)-edits < l.min {
		l.min = max(len(runes)-edits, 0)
	}
	l.max = max(l.max, len(runes))
	deletions(runes, edits, func(k uint64, _ int) {
		k = spaceKey(k, edits)
		// A word with repeated runes yields a key more than once.
		if ids := ix.keys[k]; len(ids) == 0 || ids[len(ids)-1] != id {
			ix.keys[k] = append(ids, id)
		}
		w, mask := filterBit(k)
		ix.filter[w] |= mask
	})
	return id
}

// addStem indexes a wildcard's stem and returns its id.
func (ix *wordIndex) addStem(stem string) int32 {
	id := int32(len(ix.words))
	ix.words = append(ix.words, vocabWord{stem: stem})
	ix.stems = append(ix.stems, id)
	return id
}

// lookup returns the ids of the words that text is within their tolerated
// edits of, and of the stems it starts with.
func (ix *wordIndex) lookup(text string) []int32 {
	out := ix.lookupWords(text)
	for _, id := range ix.stems {
		if strings.HasPrefix(text, ix.words[id].stem) {
			out = append(out, id)
		}
	}
	return out
}

func (ix *wordIndex) lookupWords(text string) []int32 {
	var store [48]rune
	runes := append(store[:0], []rune(text)...)
	n := len(runes)
	deleted := 0 // the most deletions that can meet a key of some space
	for d := 1; d <= maxDeletions; d++ {
		for k := d; k <= maxDeletions; k++ {
			if l := ix.lens[k]; l.max > 0 && l.min <= n-d && n-d <= l.max {
				deleted = d
			}
		}
	}
	var out []int32
	deletions(runes, deleted, func(key uint64, d int) {
		for k := d; k <= maxDeletions; k++ {
			if l := ix.lens[k]; n-d < l.min || n-d > l.max {
				continue
			}
			sk := spaceKey(key, k)
			if w, mask := filterBit(sk); ix.filter[w]&mask == 0 {
				continue
			}
			for _, v := range ix.keys[sk] {
				vw := ix.words[v]
				if !contains(out, v) && distance(vw.runes, runes, vw.edits) <= vw.edits {
					out = append(out, v)
				}
			}
		}
	})
	return out
}

func contains(ids []int32, v int32) bool {
	for _, id := range ids {
		if id == v {
			return true
		}
	}
	return false
}
