package transcript

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"¿Algo MÁS en que pueda ayudarle?", []string{"algo", "mas", "en", "que", "pueda", "ayudarle"}},
		{"Buenos días, Ñandú", []string{"buenos", "dias", "nandu"}},
		{"di\u0301as", []string{"dias"}}, // already decomposed
		{"That's not my problem", []string{"thats", "not", "my", "problem"}},
		{"I’m here", []string{"im", "here"}},
		{"'quoted'", []string{"quoted"}},
		{"DNI: 12.345.678-Z", []string{"dni", "12", "345", "678", "z"}},
		{"ﬁnal", []string{"final"}}, // compatibility ligature
		{"e-mail", []string{"e", "mail"}},
		{"Straße", []string{"straße"}},
		{"Ελληνικά", []string{"ελληνικα"}},
		{"…¡!¿?", []string{}},
		{"Ya veo🙄 claro", []string{"ya", "veo", "🙄", "claro"}},
		{"😂😂 ok", []string{"😂", "😂", "ok"}},
		{"👍🏽 vale", []string{"👍", "vale"}},           // the skin tone is a separator
		{"❤️gracias", []string{"❤", "gracias"}},      // the variation selector is dropped
		{"20°C © 2026", []string{"20", "c", "2026"}}, // Latin-1 signs separate
		{"", []string{}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, NormalWords(tt.in), tt.in)
	}
}

func TestAppendWordsLocatesTheOriginal(t *testing.T) {
	t.Parallel()
	text := "¿Buenos DÍAS? Soy Ángela"
	buf, words := AppendWords([]byte("prev"), nil, text)
	var said, norm []string
	for _, w := range words {
		said = append(said, text[w.From:w.To])
		norm = append(norm, string(buf[w.NormFrom:w.NormTo]))
	}
	require.Equal(t, []string{"Buenos", "DÍAS", "Soy", "Ángela"}, said)
	require.Equal(t, []string{"buenos", "dias", "soy", "angela"}, norm)
	require.Equal(t, "prevbuenosdiassoyangela", string(buf))
}
