package transcript

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuotes(t *testing.T) {
	t.Parallel()
	tr := Transcript{Segments: []Segment{
		{Speaker: Agent, Text: "Buenos días, le atiende Lucía."},
		{Speaker: Customer, Text: "Hola, el router no va."},
		{Speaker: Agent, Text: "Eso no es mi problema, señora."},
		{Speaker: Agent, Text: "Mire la web… o llame mañana."},
	}}
	q := NewQuotes(tr)
	tests := []struct {
		quote string
		seg   int
		found bool
	}{
		{"le atiende Lucía", 0, true},
		{"LE ATIENDE LUCIA", 0, true},        // case and accents
		{"eso no es mi problema", 2, true},   // punctuation ignored
		{"señora. Mire la web", 2, true},     // across turns: where it begins
		{"Buenos días … la web", 0, true},    // elided: each part in order
		{"la web ... Buenos días", 0, false}, // parts out of order
		{"no es tu problema", 0, false},
		{"…", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		seg, found := q.Find(tt.quote)
		require.Equal(t, tt.found, found, tt.quote)
		if found {
			require.Equal(t, tt.seg, seg, tt.quote)
		}
	}

	// The rules engine's evidence is a line per quoted stretch of turns.
	require.Equal(t, []int{3, 0, 1}, q.Turns("Eso no es mi problema, señora.\nnever said\nBuenos días, le atiende Lucía."))
	require.Nil(t, q.Turns("never said"))
	require.Nil(t, q.Turns(""))

	// A transcript without segments finds quotes in its text, in no turn.
	flat := NewQuotes(Transcript{Text: "Good morning, Dave here."})
	seg, found := flat.Find("dave here")
	require.True(t, found)
	require.Equal(t, -1, seg)
	require.Nil(t, flat.Turns("dave here"))
}
