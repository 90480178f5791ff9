package tone_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/tone"
)

// TestRespectModel holds the embedded model to clear-cut lines, none of
// them in its training data, in both languages, and to the traps: the
// courtesies that share words with brush-offs, firm refusals, reassurance
// and someone else's rude words quoted. Only clear cases, so that
// retraining does not break it.
func TestRespectModel(t *testing.T) {
	t.Parallel()
	m, ok := tone.Builtin(tone.Respect)
	require.True(t, ok)
	rude := map[string][]string{
		"es": {
			"¿Otra vez con lo mismo? Ya se lo expliqué antes, léase el correo que le mandé.",
			"Mire, si hubiera prestado atención no tendría este problema.",
			"Eso es cosa suya, a mí no me corresponde.",
		},
		"en": {
			"I've already explained this twice, please read my previous message before asking again.",
			"If you had read the instructions you wouldn't be in this mess.",
			"Look, that's your problem, not mine.",
		},
	}
	polite := map[string][]string{
		"es": {
			"No es ningún problema, se lo cambio ahora mismo.",
			"No se preocupe, lo dejamos resuelto hoy mismo.",
			"Lo siento, no puedo hacer esa devolución, pero le ofrezco un vale por el importe.",
			"Lamento que le dijeran «no es mi problema»; no debió pasar.",
			"Gracias por su paciencia, ya tengo el pedido localizado.",
		},
		"en": {
			"No problem at all, I'll change it right now.",
			"I'm not going to let this be a problem for you.",
			"Don't worry, we'll have it fixed today.",
			`I'm sorry you were told "it's not my problem", that shouldn't happen.`,
			"I'm sorry, I can't refund that, but I can offer you a voucher for the full amount.",
		},
	}
	for lang, lines := range rude {
		for _, l := range lines {
			require.Greater(t, m.Score(l, lang), 0.8, l)
		}
	}
	for lang, lines := range polite {
		for _, l := range lines {
			require.Less(t, m.Score(l, lang), 0.5, l)
		}
	}
}

// TestEmpathyModel holds the embedded empathy model to clear-cut agent
// lines, none of them in its training data, in both languages: an
// acknowledgement in the agent's own words reads as empathy, a bare fact
// or a hold does not. Only clear cases, so that retraining does not break
// it.
func TestEmpathyModel(t *testing.T) {
	t.Parallel()
	m, ok := tone.Builtin(tone.Empathy)
	require.True(t, ok)
	for lang, lines := range map[string][]string{
		"en": {"Oh no, that sounds really stressful with the wedding so close.", "I totally get why you'd be upset about that."},
		"es": {"Uf, qué mal trago, lo de perder la maleta en plena luna de miel.",
			"Me imagino lo preocupada que estará con su madre ingresada."},
	} {
		for _, l := range lines {
			require.Greater(t, m.Score(l, lang), 0.7, l)
		}
	}
	for lang, lines := range map[string][]string{
		"en": {"Your order number is 44812 and it ships tomorrow.", "Please hold while I check the system.",
			"The fee is twenty dollars per month."},
		"es": {"El número de pedido es 44812 y sale mañana.", "Un momento, que lo consulto en el sistema.",
			"La cuota es de veinte euros al mes."},
	} {
		for _, l := range lines {
			require.Less(t, m.Score(l, lang), 0.3, l)
		}
	}
	require.Equal(t, []string{tone.Empathy, tone.Respect}, tone.Names())
}

func TestScore(t *testing.T) {
	t.Parallel()
	m, _ := tone.Builtin(tone.Respect)
	// Too short to judge.
	require.Zero(t, m.Score("Ya.", "es"))
	require.Zero(t, m.Score("Printer model?", "en"))
	// One rude sentence in a long, courteous turn tells.
	rude := "If you had read the instructions you wouldn't be in this mess."
	long := "Thanks for waiting. I have your order open now and I can see the parcel left the warehouse on Monday. " + rude +
		" The courier shows it was delivered to the locker. You can pick it up with the code I'll send you by text."
	require.Greater(t, m.Score(long, "en"), 0.8)
	// Quoted words are someone else's.
	require.Less(t, m.Score(`The courier wrote "if you had read the instructions you wouldn't be in this mess", sorry.`, "en"),
		m.Score(rude, "en"))
	// Deterministic.
	require.Equal(t, m.Score(long, "en"), m.Score(long, "en"))
	sentence, pairs := m.Telling(long, "en", 3)
	require.Equal(t, rude, sentence)
	require.NotEmpty(t, pairs)
	require.LessOrEqual(t, len(pairs), 3)
}

func TestSentences(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"Hola, buenas tardes.", "¿En qué le puedo ayudar hoy?"},
		tone.Sentences("Hola, buenas tardes. ¿En qué le puedo ayudar hoy?"))
	require.Nil(t, tone.Sentences("Hello there, how can I help?"))
	require.Nil(t, tone.Sentences("Ok. Thanks for waiting, I have it here."), "one sentence of three words or more")
}

func TestTrainIsDeterministic(t *testing.T) {
	t.Parallel()
	examples := []tone.Example{
		{Text: "That's your problem, not mine.", Lang: "en", Positive: true},
		{Text: "Eso no es asunto mío, búsquese la vida.", Lang: "es", Positive: true},
		{Text: "No problem, I'll sort it out for you.", Lang: "en"},
		{Text: "No se preocupe, se lo soluciono ahora.", Lang: "es", Weight: 0.5},
	}
	settings := tone.Training{Epochs: 5, Rate: 0.5, L2: 1e-4, Seed: 1}
	a, b := tone.Train(examples, settings), tone.Train(examples, settings)
	require.Equal(t, a.Encode(), b.Encode())
	require.Greater(t, a.Score("That's your problem, not mine.", "en"), a.Score("No problem, I'll sort it out for you.", "en"))
	decoded, err := tone.Decode(a.Encode())
	require.NoError(t, err)
	require.Equal(t, a, decoded)
	_, err = tone.Decode([]byte("not a model"))
	require.Error(t, err)
	_, err = tone.Decode(a.Encode()[:100])
	require.Error(t, err)
}
