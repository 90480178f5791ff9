package rules

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

func TestMaxEdits(t *testing.T) {
	t.Parallel()
	for n, want := range []int{0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2} {
		require.Equal(t, want, maxEdits(n), n)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"gracias", "gracias", 2, 0},
		{"gracias", "gracais", 2, 1}, // transposition
		{"gracias", "grasias", 2, 1}, // substitution
		{"gracias", "gracia", 2, 1},  // deletion
		{"gracias", "graciass", 2, 1},
		{"llamar", "yamar", 2, 2},
		{"informacion", "imformasion", 2, 2},
		{"ca", "abc", 3, 3}, // optimal string alignment: no edit of a transposed pair
		{"", "abc", 5, 3},
		{"abc", "", 5, 3},
		{"abcdef", "ab", 2, 3},         // length alone exceeds the limit: limit+1
		{"abcdefgh", "hgfedcba", 2, 3}, // capped at limit+1
		{"straße", "strasse", 2, 2},
		{"niño", "nino", 1, 1},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, distance([]rune(tt.a), []rune(tt.b), tt.limit), "%s/%s", tt.a, tt.b)
		require.Equal(t, tt.want, distance([]rune(tt.b), []rune(tt.a), tt.limit), "%s/%s", tt.b, tt.a)
	}
	// Words longer than the stack buffer.
	long := []rune("supercalifragilisticoespialidosoysuperlargo")
	other := slices.Clone(long)
	other[10] = 'x'
	require.Equal(t, 1, distance(long, other, 2))
}

func TestDeletions(t *testing.T) {
	t.Parallel()
	hash := func(s string) uint64 {
		var h []uint64
		deletions([]rune(s), 0, func(k uint64, _ int) { h = append(h, k) })
		require.Len(t, h, 1)
		return h[0]
	}
	var got []uint64
	deletions([]rune("día"), 2, func(k uint64, _ int) { got = append(got, k) })
	var want []uint64
	for _, s := range []string{"día", "ía", "da", "dí", "a", "í", "d"} {
		want = append(want, hash(s))
	}
	require.Equal(t, want, got)
	require.NotEqual(t, hash("ab"), hash("ba"))

	// Longer than the stack buffers.
	long := "supercalifragilisticoespialidosoysuperlargoyaunmas"
	got = nil
	deletions([]rune(long), 1, func(k uint64, _ int) { got = append(got, k) })
	require.Len(t, got, 1+len(long))
	require.Equal(t, hash(long[1:]), got[1])
	require.Equal(t, hash(long[:len(long)-1]), got[len(long)])
}

// TestCandidatesMatchBruteForce checks the deletion index against comparing
// a word with every phrase word: it must find exactly the phrase words
// within their tolerated edits, no fewer (a missed greeting) and no more.
func TestCandidatesMatchBruteForce(t *testing.T) {
	t.Parallel()
	vocab := []string{
		"hola", "buenos", "dias", "gracias", "llamar", "informacion", "nacimiento", "identidad",
		"dni", "soy", "me", "a", "straße", "grabada", "grabado", "callese", "respectable", "telefono",
	}
	phrases, _ := json.Marshal(vocab)
	card := scoring.Scorecard{Criteria: []scoring.Criterion{
		{ID: "x", Category: "X", Question: "X?", Weight: 1, AppliesTo: scoring.Both,
			Rule: json.RawMessage(fmt.Sprintf(`{"any": %s}`, phrases))},
		// The same words, exact: each gets a second vocab entry.
		{ID: "y", Category: "X", Question: "Y?", Weight: 1, AppliesTo: scoring.Both,
			Rule: json.RawMessage(fmt.Sprintf(`{"none": %s, "exact": true}`, phrases))},
	}}
	e, err := New(card)
	require.NoError(t, err)
	// Words of up to 5 runes are exact either way: one entry each.
	require.Len(t, e.words.words, 2*len(vocab)-6)

	brute := func(w []rune) []int32 {
		var out []int32
		for id, v := range e.words.words {
			if distance(v.runes, w, v.edits) <= v.edits {
				out = append(out, int32(id))
			}
		}
		return out
	}
	alphabet := []rune("abcdeilmnorsß")
	rng := rand.New(rand.NewPCG(1, 2))
	edit := func(w []rune) []rune {
		w = slices.Clone(w)
		switch i := rng.IntN(len(w) + 1); rng.IntN(4) {
		case 0: // insert
			return slices.Insert(w, i, alphabet[rng.IntN(len(alphabet))])
		case 1: // delete
			if i < len(w) {
				return slices.Delete(w, i, i+1)
			}
		case 2: // substitute
			if i < len(w) {
				w[i] = alphabet[rng.IntN(len(alphabet))]
			}
		default: // transpose
			if i+1 < len(w) {
				w[i], w[i+1] = w[i+1], w[i]
			}
		}
		return w
	}
	checked, found := 0, 0
	for _, v := range vocab {
		for range 300 {
			w := []rune(v)
			for range 1 + rng.IntN(3) {
				w = edit(w)
			}
			got := e.words.lookup(string(w))
			slices.Sort(got)
			require.Equal(t, brute(w), got, "%q", string(w))
			checked++
			if len(got) > 0 {
				found++
			}
		}
	}
	// The edits produced both matches and misses.
	require.Greater(t, found, checked/4)
	require.Less(t, found, checked)
}
