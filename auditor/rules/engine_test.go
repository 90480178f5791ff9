package rules_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

const (
	agent    = transcript.Agent
	customer = transcript.Customer
	unknown  = transcript.Unknown
)

type auditCase struct {
	name        string
	rule        string
	kind        string
	transcript  transcript.Transcript
	complies    bool
	explanation string
	evidence    string
}

func runCases(t *testing.T, lang string, tests []auditCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := judge(t, tt.rule, tt.kind, tt.transcript, lang)
			require.Equal(t, tt.complies, v.Complies, v.Explanation)
			require.Equal(t, tt.explanation, v.Explanation)
			require.Equal(t, tt.evidence, v.Evidence)
		})
	}
}

func TestAuditSpanishChat(t *testing.T) {
	t.Parallel()
	greeting := `{"any": ["buenos días"], "speaker": "agent"}`
	runCases(t, "es", []auditCase{
		{
			name: "transcript without accents matches a phrase with them",
			rule: greeting, kind: scoring.Chat,
			transcript: segments(turn(customer, "Hola, buenas"), turn(agent, "buenos dias, soy Ana")),
			complies:   true, explanation: "El agente dijo «buenos dias» en el turno 2.", evidence: "buenos dias, soy Ana",
		},
		{
			name: "phrase without accents matches a transcript with them",
			rule: `{"any": ["informacion"], "speaker": "agent"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Le envío la información por correo.")),
			complies:   true, explanation: "El agente dijo «información» en el turno 1.", evidence: "Le envío la información por correo.",
		},
		{
			name: "case and punctuation do not matter",
			rule: `{"any": ["algo más en que pueda ayudarle"]}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "¿ALGO MÁS, en que pueda AYUDARLE?")),
			complies:   true, explanation: "El agente dijo «ALGO MÁS, en que pueda AYUDARLE» en el turno 1.",
			evidence: "¿ALGO MÁS, en que pueda AYUDARLE?",
		},
		{
			name: "transposed letters",
			rule: `{"any": ["gracias por llamar"], "speaker": "agent"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Gracais por llamar, adiós")),
			complies:   true, explanation: "El agente dijo «Gracais por llamar» (entendido como «gracias por llamar») en el turno 1.",
			evidence: "Gracais por llamar, adiós",
		},
		{
			name: "two errors in a long word",
			rule: `{"any": ["información"]}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "le mando la imformasion")),
			complies:   true, explanation: "El agente dijo «imformasion» (entendido como «información») en el turno 1.",
			evidence: "le mando la imformasion",
		},
		{
			name: "two errors are too many for a six-letter word",
			rule: `{"any": ["gracias por llamar"], "speaker": "agent"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "gracias por yamar")),
			complies:   false, explanation: "El agente no dijo «gracias por llamar».",
		},
		{
			name: "short words must be exact",
			rule: `{"any": ["por favor"]}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "pro favor")),
			complies:   false, explanation: "Nadie dijo «por favor».",
		},
		{
			name: "one inserted word between phrase words",
			rule: greeting, kind: scoring.Chat,
			transcript: segments(turn(agent, "Buenos, eh, días.")),
			complies:   true, explanation: "El agente dijo «Buenos, eh, días» (entendido como «buenos días») en el turno 1.",
			evidence: "Buenos, eh, días.",
		},
		{
			name: "two inserted words are not a phrase",
			rule: greeting, kind: scoring.Chat,
			transcript: segments(turn(agent, "Buenos, eh, pues días.")),
			complies:   false, explanation: "El agente no dijo «buenos días».",
		},
		{
			name: "no word is inserted before an =word",
			rule: `{"none": ["es un =pesado"], "speaker": "agent"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Lo sé, es un trámite pesado, pero se lo hago yo.")),
			complies:   true, explanation: "El agente no dijo ninguna frase prohibida.",
		},
		{
			name: "an =word said right after its predecessor",
			rule: `{"none": ["es un =pesado"], "speaker": "agent"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Mire, usted es un pesado.")),
			complies:   false, explanation: "Frase prohibida: el agente dijo «es un pesado» en el turno 1.",
			evidence: "Mire, usted es un pesado.",
		},
		{
			name: "the customer saying it does not meet an agent criterion, nor is quoted as its evidence",
			rule: greeting, kind: scoring.Chat,
			transcript:  segments(turn(customer, "Buenos días"), turn(agent, "¿Qué desea?")),
			complies:    false,
			explanation: "El agente no dijo «buenos días».",
		},
		{
			name: "customer criterion",
			rule: `{"any": ["muchas gracias", "perfecto"], "speaker": "customer"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Perfecto, ya está"), turn(customer, "¡Perfecto! Muchas gracias")),
			complies:   true, explanation: "El cliente dijo «Perfecto» en el turno 2.", evidence: "¡Perfecto! Muchas gracias",
		},
		{
			name: "a phrase does not span two speakers",
			rule: `{"any": ["buenos días"]}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "¿Buenos"), turn(customer, "días?")),
			complies:   false, explanation: "Nadie dijo «buenos días».",
		},
		{
			name: "a phrase spans consecutive turns of one speaker",
			rule: greeting, kind: scoring.Chat,
			transcript: segments(turn(agent, "Buenos"), turn(agent, "días, soy Ana")),
			complies:   true, explanation: "El agente dijo «Buenos días» en el turno 1.", evidence: "Buenos días, soy Ana",
		},
		{
			name: "first turns",
			rule: `{"any": ["buenos días"], "speaker": "agent", "within_first_turns": 2}`, kind: scoring.Chat,
			transcript: segments(turn(customer, "Hola"), turn(agent, "Un momento"), turn(agent, "Buenos días")),
			complies:   false,
			explanation: "El agente no dijo «buenos días» en los primeros 2 turnos. " +
				"Fuera de ese ámbito, el agente dijo «Buenos días» en el turno 3.",
			evidence: "Buenos días",
		},
		{
			name: "last turn",
			rule: `{"any": ["adiós", "hasta luego"], "speaker": "agent", "within_last_turns": 1}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Hasta luego"), turn(customer, "Adiós")),
			complies:   false,
			explanation: "El agente no dijo ninguna de estas frases en el último turno: «adiós», «hasta luego». " +
				"Fuera de ese ámbito, el agente dijo «Hasta luego» en el turno 1.",
			evidence: "Hasta luego",
		},
		{
			name: "a chat is positioned by turns even when its turns have times",
			rule: `{"any": ["buenos días"], "speaker": "agent", "within_first": 30}`, kind: scoring.Chat,
			transcript: segments(timed(customer, 0, 1, "Hola"), timed(agent, 45, 46, "Buenos días")),
			complies:   true, explanation: "El agente dijo «Buenos días» en el turno 2.", evidence: "Buenos días",
		},
		{
			name: "every item of all",
			rule: `{"all": [["hola", "buenos días"], "mi nombre es"], "speaker": "agent"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Hola, soy Ana")),
			complies:   false, explanation: "El agente no dijo «mi nombre es». El agente dijo «Hola» en el turno 1.",
			evidence: "Hola, soy Ana",
		},
		{
			name: "any, all and none together",
			rule: `{"any": ["dni", "fecha de nacimiento"], "all": ["gracias"], "none": ["no es mi problema"], "speaker": "agent"}`,
			kind: scoring.Chat,
			transcript: segments(turn(agent, "¿Su fecha de nacimiento?"), turn(customer, "1 de mayo"),
				turn(agent, "Gracias. Eso no es mi problema.")),
			complies: false,
			explanation: "Frase prohibida: el agente dijo «no es mi problema» en el turno 3. " +
				"El agente dijo «fecha de nacimiento» en el turno 1. El agente dijo «Gracias» en el turno 3.",
			evidence: "¿Su fecha de nacimiento?\nGracias. Eso no es mi problema.",
		},
		{
			name: "nothing forbidden",
			rule: `{"none": ["no es mi problema", "cállese"], "speaker": "agent"}`, kind: scoring.Chat,
			transcript: segments(turn(agent, "Es un problema, sí"), turn(customer, "¡Cállese!")),
			complies:   true, explanation: "El agente no dijo ninguna frase prohibida.",
		},
		{
			name: "many alternatives are summarised",
			rule: `{"any": ["uno", "dos", "tres", "cuatro", "cinco", "seis", "siete"]}`, kind: scoring.Chat,
			transcript:  segments(turn(agent, "ocho")),
			complies:    false,
			explanation: "Nadie dijo ninguna de estas frases: «uno», «dos», «tres», «cuatro», «cinco» (y 2 más).",
		},
	})
}

func TestAuditCallWindows(t *testing.T) {
	t.Parallel()
	greeting := `{"any": ["good morning", "buenos días"], "speaker": "agent", "within_first": 30}`
	call := func(greetAt float64) transcript.Transcript {
		return segments(
			timed(customer, 0, 3, "Hello?"),
			timed(agent, greetAt, greetAt+2, "Good morning, this is Ana."),
			timed(customer, 100, 110, "Thanks, bye."),
		)
	}
	runCases(t, "en", []auditCase{
		{
			name: "greeting at 45 s is late for the first 30 s", rule: greeting, kind: scoring.Call, transcript: call(45),
			complies: false,
			explanation: `The agent did not say "good morning" within the first 30 s. ` +
				`Outside that scope, the agent said "Good morning" at 00:45.`,
			evidence: "Good morning, this is Ana.",
		},
		{
			name: "greeting at 12 s", rule: greeting, kind: scoring.Call, transcript: call(12.7),
			complies: true, explanation: `The agent said "Good morning" at 00:12.`, evidence: "Good morning, this is Ana.",
		},
		{
			name: "greeting starting at 30 s is within the first 30 s", rule: greeting, kind: scoring.Call, transcript: call(30),
			complies: true, explanation: `The agent said "Good morning" at 00:30.`, evidence: "Good morning, this is Ana.",
		},
		{
			name: "last seconds: a segment counts when it ends inside the window",
			rule: `{"any": ["bye"], "within_last": 5}`, kind: scoring.Call, transcript: call(12),
			complies: true, explanation: `The customer said "bye" at 01:40.`, evidence: "Thanks, bye.",
		},
		{
			name: "last seconds: too early",
			rule: `{"any": ["this is ana"], "within_last": 60}`, kind: scoring.Call, transcript: call(12),
			complies:    false,
			explanation: `Nobody said "this is ana" in the last 60 s. Outside that scope, the agent said "this is Ana" at 00:12.`,
			evidence:    "Good morning, this is Ana.",
		},
		{
			name: "both windows apply",
			rule: `{"any": ["hello"], "within_first": 10, "within_last": 10.5}`, kind: scoring.Call, transcript: call(12),
			complies: false,
			explanation: `Nobody said "hello" within the first 10 s and in the last 10.5 s. ` +
				`Outside that scope, the customer said "Hello" at 00:00.`,
			evidence: "Hello?",
		},
		{
			name: "turn windows do not apply to a timed call",
			rule: `{"any": ["bye"], "within_first_turns": 1}`, kind: scoring.Call, transcript: call(12),
			complies: true, explanation: `The customer said "bye" at 01:40.`, evidence: "Thanks, bye.",
		},
		{
			name: "a call without times falls back to turns",
			rule: `{"any": ["good morning"], "within_first": 1, "within_first_turns": 1}`, kind: scoring.Call,
			transcript: segments(timed(customer, 0, 3, "Hello?"), turn(agent, "Good morning")),
			complies:   false,
			explanation: `Nobody said "good morning" in the first turn. ` +
				`Outside that scope, the agent said "Good morning" in turn 2.`,
			evidence: "Good morning",
		},
		{
			name: "a mono recording's unknown speaker counts as the agent",
			rule: greeting, kind: scoring.Call,
			transcript: segments(timed(unknown, 2, 5, "Good morning, you're through to Ana.")),
			complies:   true, explanation: `"Good morning" was said at 00:02.`, evidence: "Good morning, you're through to Ana.",
		},
		{
			name: "times past an hour",
			rule: `{"any": ["goodbye"]}`, kind: scoring.Call,
			transcript: segments(timed(agent, 4503.9, 4505, "Goodbye")),
			complies:   true, explanation: `The agent said "Goodbye" at 75:03.`, evidence: "Goodbye",
		},
	})
}

func TestAuditForbiddenPhraseFailsTheAudit(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Version: 3, Criteria: []scoring.Criterion{
		criterion("greeting", `{"any": ["good morning", "buenos días"], "speaker": "agent"}`),
		{
			ID: "respect", Category: "COMPLIANCE", Question: "Did the agent stay respectful?", Weight: 5, Critical: true,
			AppliesTo: scoring.Both,
			Rule:      json.RawMessage(`{"none": ["no es mi problema", "that's not my problem", "not my problem", "idiota"], "speaker": "agent", "exact": true}`),
		},
		criterion("farewell", `{"any": ["adiós", "goodbye"], "speaker": "agent"}`),
	}}
	e, err := rules.New(card)
	require.NoError(t, err)

	call := segments(
		timed(agent, 1, 4, "Buenos días, le atiende Luis."),
		timed(customer, 5, 60, "Mi router no funciona desde ayer y nadie me ayuda."),
		timed(agent, 72.4, 75, "Eso no es mi problema, señora."),
		timed(agent, 90, 92, "Adiós."),
	)
	vs, err := e.Audit(scoring.Call, call, "es")
	require.NoError(t, err)
	require.Equal(t, []scoring.Verdict{
		{CriterionID: "greeting", Complies: true, Explanation: "El agente dijo «Buenos días» en 00:01.", Evidence: "Buenos días, le atiende Luis.", Assessment: evidence},
		{CriterionID: "respect", Complies: false, Explanation: "Frase prohibida: el agente dijo «no es mi problema» en 01:12.", Evidence: "Eso no es mi problema, señora.", Assessment: evidence},
		{CriterionID: "farewell", Complies: true, Explanation: "El agente dijo «Adiós» en 01:30.", Evidence: "Adiós.", Assessment: evidence},
	}, vs)
	res, err := scoring.Score(card, scoring.Call, vs, 50)
	require.NoError(t, err)
	require.Equal(t, 0.0, res.Score)
	require.False(t, res.Passed)
	require.Equal(t, []string{"respect"}, res.FailedCritical)
	require.Equal(t, 2.0, res.Earned)
	require.Equal(t, 7.0, res.Possible)

	t.Run("overlapping phrases are said once", func(t *testing.T) {
		t.Parallel()
		vs, err := e.Audit(scoring.Chat, segments(
			turn(agent, "Good morning."), turn(agent, "That's not my problem."), turn(customer, "What?"),
			turn(agent, "Not my problem! Goodbye."),
		), "en")
		require.NoError(t, err)
		require.Equal(t, scoring.Verdict{
			CriterionID: "respect", Complies: false,
			Explanation: `Forbidden phrase: the agent said "That's not my problem" in turn 2 (2 forbidden phrases said in all).`,
			Evidence:    "That's not my problem.",
			Assessment:  evidence,
		}, vs[1])
	})

	t.Run("without it the same call passes", func(t *testing.T) {
		t.Parallel()
		polite := segments(call.Segments[0], call.Segments[1], timed(agent, 72.4, 75, "Lo reviso ahora mismo, señora."), call.Segments[3])
		vs, err := e.Audit(scoring.Call, polite, "es")
		require.NoError(t, err)
		require.Equal(t, scoring.Verdict{CriterionID: "respect", Complies: true, Explanation: "El agente no dijo ninguna frase prohibida.", Assessment: absence}, vs[1])
		res, err := scoring.Score(card, scoring.Call, vs, 50)
		require.NoError(t, err)
		require.Equal(t, 100.0, res.Score)
		require.True(t, res.Passed)
	})
}

func TestAuditExactRules(t *testing.T) {
	t.Parallel()
	language := segments(turn(agent, "¿En qué idioma prefiere que le atienda?"))
	// "idioma" is one letter from "idiota": tolerance would fail an agent
	// for a courtesy, so forbidden words are matched exactly.
	v := judge(t, `{"none": ["idiota"], "speaker": "agent"}`, scoring.Chat, language, "es")
	require.False(t, v.Complies)
	require.Equal(t, "Frase prohibida: el agente dijo «idioma» (entendido como «idiota») en el turno 1.", v.Explanation)
	v = judge(t, `{"none": ["idiota"], "speaker": "agent", "exact": true}`, scoring.Chat, language, "es")
	require.True(t, v.Complies, v.Explanation)
	// Exact still ignores case, accents and punctuation.
	v = judge(t, `{"none": ["idiota"], "speaker": "agent", "exact": true}`, scoring.Chat,
		segments(turn(agent, "¡IDIÓTA!")), "es")
	require.False(t, v.Complies)
	require.Equal(t, "Frase prohibida: el agente dijo «IDIÓTA» en el turno 1.", v.Explanation)
}

func TestAuditLanguages(t *testing.T) {
	t.Parallel()
	chat := segments(turn(customer, "Hola"), turn(agent, "Adiós"))
	rule := `{"any": ["hola"], "speaker": "agent", "within_first_turns": 3}`
	for lang, want := range map[string]string{
		"es":    "El agente no dijo «hola» en los primeros 3 turnos.",
		"es-MX": "El agente no dijo «hola» en los primeros 3 turnos.",
		"ES_es": "El agente no dijo «hola» en los primeros 3 turnos.",
		"en":    `The agent did not say "hola" in the first 3 turns.`,
		"fr":    `The agent did not say "hola" in the first 3 turns.`,
		"":      `The agent did not say "hola" in the first 3 turns.`,
	} {
		require.Equal(t, want, judge(t, rule, scoring.Chat, chat, lang).Explanation, lang)
	}
	// Seconds in Spanish take a decimal comma.
	v := judge(t, `{"any": ["hola"], "within_first": 2.5}`, scoring.Call, segments(timed(agent, 3, 4, "Hola")), "es")
	require.Equal(t, "Nadie dijo «hola» en los primeros 2,5 s. Fuera de ese ámbito, el agente dijo «Hola» en 00:03.", v.Explanation)
	v = judge(t, `{"none": ["hola"], "speaker": "customer", "within_last": 60}`, scoring.Call, segments(timed(agent, 3, 4, "Hola")), "en")
	require.Equal(t, "The customer said no forbidden phrase in the last 60 s.", v.Explanation)

	chat = segments(turn(agent, "Thanks, adiós"), turn(customer, "ok, adiós"), turn(agent, "bye"))
	for _, tt := range []struct{ rule, lang, want string }{
		{`{"any": ["thanks"], "speaker": "customer", "within_last_turns": 2}`, "en",
			`The customer did not say "thanks" in the last 2 turns.`}, // the agent's "Thanks" is not theirs
		{`{"any": ["adiós"], "speaker": "customer", "within_first_turns": 1}`, "es",
			"El cliente no dijo «adiós» en el primer turno. Fuera de ese ámbito, el cliente dijo «adiós» en el turno 2."},
		{`{"any": ["gracias"], "speaker": "customer"}`, "es", "El cliente no dijo «gracias»."},
		{`{"none": ["adiós"], "speaker": "customer"}`, "es", "Frase prohibida: el cliente dijo «adiós» en el turno 2."},
		{`{"none": ["idiota"], "speaker": "customer", "within_first_turns": 1}`, "es",
			"El cliente no dijo ninguna frase prohibida en el primer turno."},
		{`{"none": ["idiota"], "within_last_turns": 2}`, "es", "Nadie dijo ninguna frase prohibida en los últimos 2 turnos."},
		{`{"none": ["idiot"], "speaker": "agent", "within_first_turns": 1, "within_last_turns": 1}`, "en",
			"The agent said no forbidden phrase in the first turn and in the last turn."},
		{`{"any": ["bye"], "speaker": "any", "within_first_turns": 2}`, "es",
			"Nadie dijo «bye» en los primeros 2 turnos. Fuera de ese ámbito, el agente dijo «bye» en el turno 3."},
	} {
		require.Equal(t, tt.want, judge(t, tt.rule, scoring.Chat, chat, tt.lang).Explanation, tt.rule)
	}
}

func TestAuditEdgeCases(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{
		criterion("greet", `{"any": ["hola"]}`),
		criterion("clean", `{"none": ["idiota"]}`),
		{ID: "notice", Category: "C", Question: "Notice?", Weight: 1, AppliesTo: scoring.Call,
			Rule: json.RawMessage(`{"any": ["grabada"]}`)},
	}}
	e, err := rules.New(card)
	require.NoError(t, err)

	t.Run("empty transcript", func(t *testing.T) {
		t.Parallel()
		vs, err := e.Audit(scoring.Chat, transcript.Transcript{}, "es")
		require.NoError(t, err)
		require.Equal(t, []scoring.Verdict{
			{CriterionID: "greet", Complies: false, Explanation: "Nadie dijo «hola».", Assessment: absence},
			{CriterionID: "clean", Complies: true, Explanation: "Nadie dijo ninguna frase prohibida.", Assessment: absence},
		}, vs)
	})

	t.Run("text without segments", func(t *testing.T) {
		t.Parallel()
		vs, err := e.Audit(scoring.Call, transcript.Transcript{Text: "Hola. Esta llamada será grabada."}, "en")
		require.NoError(t, err)
		require.Equal(t, []scoring.Verdict{
			{CriterionID: "greet", Complies: true, Explanation: `"Hola" was said in turn 1.`, Evidence: "Hola. Esta llamada será grabada.", Assessment: evidence},
			{CriterionID: "clean", Complies: true, Explanation: "No forbidden phrase was said.", Assessment: absence},
			{CriterionID: "notice", Complies: true, Explanation: `"grabada" was said in turn 1.`, Evidence: "Hola. Esta llamada será grabada.", Assessment: evidence},
		}, vs)
	})

	t.Run("unexpected speaker labels count as unknown", func(t *testing.T) {
		t.Parallel()
		v := judge(t, `{"any": ["hola"], "speaker": "customer"}`, scoring.Chat, segments(turn("bot", "Hola")), "en")
		require.True(t, v.Complies)
		require.Equal(t, `"Hola" was said in turn 1.`, v.Explanation)
	})

	t.Run("unknown kind", func(t *testing.T) {
		t.Parallel()
		_, err := e.Audit("email", segments(turn(agent, "hola")), "es")
		require.EqualError(t, err, `unknown interaction kind "email": want "call" or "chat"`)
	})

	t.Run("invalid scorecard", func(t *testing.T) {
		t.Parallel()
		_, err := rules.New(scoring.Scorecard{Criteria: []scoring.Criterion{criterion("a", `{"any": [], "speaker": "bot"}`)}})
		var ve *scoring.ValidationError
		require.ErrorAs(t, err, &ve)
		require.Equal(t, []scoring.Problem{
			{Index: 0, ID: "a", Field: "rule.any", Message: "must list at least one phrase"},
			{Index: 0, ID: "a", Field: "rule.speaker", Message: `must be "agent", "customer" or "any"`},
		}, ve.Problems)
	})

	t.Run("concurrent audits share one engine", func(t *testing.T) {
		t.Parallel()
		chat := segments(turn(agent, "Hola"), turn(agent, "idiota"))
		want, err := e.Audit(scoring.Chat, chat, "es")
		require.NoError(t, err)
		var wg sync.WaitGroup
		results := make([][]scoring.Verdict, 8)
		for i := range results {
			wg.Go(func() {
				results[i], _ = e.Audit(scoring.Chat, chat, "es")
			})
		}
		wg.Wait()
		for _, got := range results {
			require.Equal(t, want, got)
		}
	})
}

// TestAuditQuestionsAndPressing: "have you restarted…?" asks, so it is not
// "have restarted" with a word inserted; a customer pressing after what
// met the criterion ("but when?") leaves it met, says so, and calibrates
// it apart.
func TestAuditQuestionsAndPressing(t *testing.T) {
	t.Parallel()
	done := `{"any": ["i've|have restarted"], "speaker": "agent"}`
	require.False(t, judge(t, done, scoring.Chat, segments(turn(agent, "Have you restarted the router?")), "en").Complies)
	require.True(t, judge(t, done, scoring.Chat, segments(turn(agent, "I have restarted the router.")), "en").Complies)
	require.True(t, judge(t, done, scoring.Chat, segments(turn(agent, "We have now restarted it.")), "en").Complies)

	rule := `{"any": ["someone will call you"], "speaker": "agent", "pressed": ["but when", "pero cuándo"]}`
	e := engine(t, "resolution", rule)
	for _, tt := range []struct {
		lang, customer, want, signal string
	}{
		{"en", "But when? Today?", `The agent said "Someone will call you" in turn 2. Then the customer said "But when" in turn 3, which puts it in doubt; an analyst may read it otherwise.`, rules.SignalPhrase + rules.SignalPressedSuffix},
		{"en", "Okay, thanks.", `The agent said "Someone will call you" in turn 2.`, rules.SignalPhrase},
		{"es", "¿Pero cuándo?", `El agente dijo «Someone will call you» en el turno 2. Después el cliente dijo «Pero cuándo» en el turno 3, lo que lo pone en duda; un analista puede verlo de otro modo.`, rules.SignalPhrase + rules.SignalPressedSuffix},
	} {
		tr := segments(turn(customer, "My internet is down, but when I call nobody answers."), turn(agent, "Someone will call you."), turn(customer, tt.customer))
		vs, cells := e.Judge(scoring.Chat, tr, tt.lang)
		require.True(t, vs[0].Complies, tt.customer)
		require.Equal(t, tt.want, vs[0].Explanation)
		require.Equal(t, tt.signal, cells[0].Signal, "the customer's own \"but when\" before it does not count")
	}
}

// TestAuditRestatement: a sentence with a restating phrase that repeats two
// of the customer's words said right before meets the criterion, quoted
// whole and calibrated apart; the same phrase repeating fewer, or words
// of the customer's earlier turns, or said by the customer, does not.
func TestAuditRestatement(t *testing.T) {
	t.Parallel()
	rule := `{"any": ["i understand"], "restates": ["so a|you're", "quieres"], "speaker": "agent"}`
	e := engine(t, "empathy", rule)
	ask := "Hi, I'd like to book a camper and a dog on the Rosslare to Cherbourg ferry in August."
	for _, tt := range []struct {
		name, lang string
		segs       transcript.Transcript
		complies   bool
		want       string
	}{
		{"restated", "en", segments(turn(customer, ask), turn(agent, "Hello! So a camper and the dog on Rosslare–Cherbourg in August, lovely. Which date?")), true,
			`The agent said "So a camper and the dog on Rosslare–Cherbourg in August, lovely" in turn 2, restating what the customer had just said.`},
		{"in Spanish", "es", segments(turn(customer, "Quiero cambiar la cita del dermatólogo del jueves."), turn(agent, "Vale, quieres cambiar la del dermatólogo del jueves.")), true,
			`El agente dijo «Vale, quieres cambiar la del dermatólogo del jueves» en el turno 2, con lo que reformula lo que el cliente acababa de decir.`},
		{"one word repeated", "en", segments(turn(customer, ask), turn(agent, "So a booking in August then.")), false, ""},
		{"words of an earlier turn", "en", segments(turn(customer, ask), turn(agent, "Sure."), turn(customer, "Thanks."), turn(agent, "So a camper in August.")), false, ""},
		{"said by the customer", "en", segments(turn(agent, "A camper and a dog in August?"), turn(customer, "So a camper and a dog in August, yes.")), false, ""},
	} {
		vs, cells := e.Judge(scoring.Chat, tt.segs, tt.lang)
		require.Equal(t, tt.complies, vs[0].Complies, tt.name)
		if tt.complies {
			require.Equal(t, tt.want, vs[0].Explanation, tt.name)
			require.Equal(t, rules.SignalRestated, cells[0].Signal, tt.name)
			require.Equal(t, scoring.BasisEvidence, vs[0].Basis, tt.name)
		} else {
			require.Equal(t, rules.SignalAbsence, cells[0].Signal, tt.name)
		}
	}
	_, err := rules.New(scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{criterion("empathy", `{"none": ["x"], "restates": ["so you're"], "speaker": "agent"}`)}})
	require.ErrorContains(t, err, `rule.restates: only means something with "any"`)
}

// TestAuditSettled: with nothing the rule looks for said, the customer's
// thanks in their last two turns ("No, thanks" too) is a hint that the
// criterion is met, named but never quoted as the agent's evidence;
// thanks said earlier, or a verdict a phrase decided, are left alone.
func TestAuditSettled(t *testing.T) {
	t.Parallel()
	rule := `{"any": ["i've refunded"], "settled": ["thanks", "gracias"], "speaker": "agent"}`
	e := engine(t, "resolution", rule)
	for _, tt := range []struct {
		name, lang    string
		segs          transcript.Transcript
		complies      bool
		signal, words string
	}{
		{"thanked at the end", "en", segments(turn(customer, "Can I bring my dog?"), turn(agent, "Yes, dogs under 10 kg travel free."), turn(customer, "No, thanks, that's all.")),
			true, rules.SignalSettled,
			`The agent did not say "i've refunded". Nothing decisive was said, but at the end the customer said "thanks" in turn 3, which suggests it is met; an analyst should confirm.`},
		{"in Spanish", "es", segments(turn(customer, "¿Abren el domingo?"), turn(agent, "Sí, de 10 a 14."), turn(customer, "Perfecto, gracias.")),
			true, rules.SignalSettled,
			`El agente no dijo «i've refunded». No se dijo nada concluyente, pero al final el cliente dijo «gracias» en el turno 3, lo que indica que se cumple; conviene que lo confirme un analista.`},
		{"thanked early", "en", segments(turn(customer, "Thanks for picking up."), turn(agent, "Sure."), turn(customer, "My parcel never came."), turn(agent, "Let me see."), turn(customer, "Well?"), turn(agent, "It's lost."), turn(customer, "Unbelievable.")),
			false, rules.SignalAbsence, ""},
		{"a phrase decided", "en", segments(turn(customer, "Refund please."), turn(agent, "I've refunded it."), turn(customer, "Thanks!")),
			true, rules.SignalPhrase, ""},
	} {
		vs, cells := e.Judge(scoring.Chat, tt.segs, tt.lang)
		require.Equal(t, tt.complies, vs[0].Complies, tt.name)
		require.Equal(t, tt.signal, cells[0].Signal, tt.name)
		if tt.words != "" {
			require.Equal(t, tt.words, vs[0].Explanation, tt.name)
			require.Equal(t, scoring.BasisConflict, vs[0].Basis, tt.name)
			require.Empty(t, vs[0].Evidence, tt.name)
		}
	}
	_, err := rules.New(scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{criterion("resolution", `{"none": ["x"], "settled": ["thanks"], "speaker": "agent"}`)}})
	require.ErrorContains(t, err, `rule.settled: only means something with "any"`)
}
