package rules_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// said is a chat of one agent turn.
func said(text string) transcript.Transcript {
	return segments(turn(agent, text))
}

func meets(t *testing.T, rule, text string) bool {
	t.Helper()
	return judge(t, rule, scoring.Chat, said(text), "en").Complies
}

func TestWildcards(t *testing.T) {
	t.Parallel()
	rule := `{"any": ["resuel*", "refund*"], "speaker": "agent"}`
	for text, want := range map[string]bool{
		"Ya está resuelto.":                 true,
		"Queda resuelta la incidencia.":     true,
		"The refund is on its way.":         true,
		"I have refunded the full amount.":  true,
		"Lo resolvemos mañana.":             false, // "resolv" is not "resuel"
		"We can't give refunds here, sorry": false, // negated
		"Re-fund? No.":                      false,
	} {
		require.Equal(t, want, meets(t, rule, text), text)
	}
}

func TestAlternativesAndExactWords(t *testing.T) {
	t.Parallel()
	rule := `{"none": ["es|eres un =idiota", "=stupid"], "speaker": "agent"}`
	for text, want := range map[string]bool{
		"Usted es un idiota.":                          false,
		"Eres un idiota.":                              false,
		"Prefiere otro idioma, ¿es un idioma oficial?": true, // "idioma" is not "idiota"
		"That was a stupid mistake of mine? No.":       false,
		"That was a stupud thing":                      true, // exact: no tolerance
	} {
		require.Equal(t, want, meets(t, rule, text), text)
	}
}

func TestSlots(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		rule, text string
		want       bool
	}{
		{`{"any": ["referencia {ref}"]}`, "Le abro una incidencia con referencia INC-4432.", true},
		{`{"any": ["reference {ref}"]}`, "Your refund reference is RF-2201.", true},
		{`{"any": ["ticket {ref}"]}`, "Ticket #88231 is open.", true},
		{`{"any": ["ticket {ref}"]}`, "Ticket 12 is open.", false},
		{`{"any": ["case {ref}"]}`, "Your case 00451 is logged.", true},
		{`{"any": ["código {ref}"]}`, "Su código AB12CD34 ya funciona.", true},
		{`{"any": ["refund of {amount}"]}`, "I have issued a full refund of 49.99", true},
		{`{"any": ["refund of {amount}"]}`, "A refund of £49.99 is due.", true},
		{`{"any": ["reembolso de {amount}"]}`, "Le hago un reembolso de 49,99 € ahora.", true},
		{`{"any": ["cargo de {amount}"]}`, "Hay un cargo de $1.250 MXN.", true},
		{`{"any": ["cargo de {amount}"]}`, "Hay un cargo de 20 euros.", true},
		{`{"any": ["cargo de {amount}"]}`, "Hay un cargo de 3 líneas.", false},
		{`{"any": ["en {timeframe}"]}`, "Tendrá el reembolso en 48 horas.", true},
		{`{"any": ["within {timeframe}"]}`, "It will reach your card within 3 to 5 working days.", true},
		{`{"any": ["en {timeframe}"]}`, "Lo recibe en 3 a 5 días hábiles.", true},
		{`{"any": ["llega {timeframe}"]}`, "El técnico llega mañana antes de las 12.", true},
		{`{"any": ["by {timeframe}"]}`, "You'll have it by Friday.", true},
		{`{"any": ["in {timeframe}"]}`, "Expect a call in a couple of days.", true},
		{`{"any": ["en {timeframe}"]}`, "Le escribo en 24-48h.", true},
		{`{"any": ["llamarán {timeframe}"]}`, "Ya le llamarán.", false},
		{`{"any": ["enviamos {timeframe}"]}`, "Se la enviamos hace dos meses.", false},
		{`{"any": ["sent NEAR/3 {timeframe}"]}`, "We sent it two weeks ago.", false},
		{`{"any": ["vuelve por la {timeframe}"]}`, "Vuelve por la mañana.", false}, // a morning, not tomorrow
		{`{"any": ["llamamos NEAR/4 {timeframe}"]}`, "Le llamamos a las 14:30.", true},
		{`{"any": ["call NEAR/4 {timeframe}"]}`, "We'll call you at 4:45pm.", true},
		// A time off the quarter hours is when something happened.
		{`{"any": ["entregado NEAR/4 {timeframe}"]}`, "Figura entregado a las 14:32 por Envíos.", false},
		{`{"any": ["delivered NEAR/4 {timeframe}"]}`, "It shows delivered 4:52pm.", false},
		{`{"any": ["delivered NEAR/4 {timeframe}"]}`, "It shows delivered at 16:52.", false},
		{`{"any": ["el {date}"]}`, "Se lo enviamos el 15 de marzo.", true},
		{`{"any": ["on {date}"]}`, "Delivered on March 15th.", true},
		{`{"any": ["on {date}"]}`, "Delivered on 15/03/2026.", true},
		{`{"any": ["número {number}"]}`, "Es el número 7.", true},
	} {
		require.Equal(t, tt.want, meets(t, tt.rule, tt.text), "%s ~ %s", tt.rule, tt.text)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	rule := `{"all": [["hi", "hello", "hola", "morning", "buenos días"], ["i'm {name}", "{name} here", "le saluda {name}", "soy {name}", "soy de {name}", "through to {name}"]], "speaker": "agent"}`
	for text, want := range map[string]bool{
		"Hi there, I'm Connor from Vista Mobile": true,
		"Buenos días, le saluda Andrés":          true,
		"Morning! Dave here":                     true,
		"hola soy priya":                         true, // a known name, lower case (speech)
		"hola soy dana":                          true, // any word, in a transcript without capitals
		"hi im sorry i didnt catch that":         false,
		"Hi there, I'm sorry to hear that":       false,
		"Hola, soy de atención al cliente":       false,
		"Hi, I'm happy to help":                  false,
		"Hello, you're through to CloudNest":     false, // a brand, not a person
		"Hola, soy de ViajaPerú":                 false,
	} {
		require.Equal(t, want, meets(t, rule, text), text)
	}

	// The agent's name from the chat's labels.
	chat, _, err := transcript.ParseChat([]byte("Agente Lucía: Hola, Lucía al habla.\nCliente: Hola"))
	require.NoError(t, err)
	require.True(t, judge(t, `{"any": ["{agent_name} al habla"], "speaker": "agent"}`, scoring.Chat, chat, "es").Complies)
	chat, _, err = transcript.ParseChat([]byte("Agente: Hola, Lucía al habla.\nCliente: Hola"))
	require.NoError(t, err)
	require.False(t, judge(t, `{"any": ["{agent_name} al habla"], "speaker": "agent"}`, scoring.Chat, chat, "es").Complies,
		"no label names the agent")
}

func TestProximity(t *testing.T) {
	t.Parallel()
	near := `{"any": ["refund|reembolso NEAR/5 {amount}"]}`
	before := `{"any": ["call|llamada BEFORE/6 record*|grab*"]}`
	for _, tt := range []struct {
		rule, text string
		want       bool
	}{
		{near, "A refund was issued today of 49.99", true},
		{near, "49,99 € es el reembolso", true},
		{near, "The refund, as discussed with my supervisor earlier this week, is 49.99", false},
		{before, "This call may be recorded", true},
		{before, "Esta llamada podrá ser grabada", true},
		{before, "Recorded for training: this call", false},
	} {
		require.Equal(t, tt.want, meets(t, tt.rule, tt.text), "%s ~ %s", tt.rule, tt.text)
	}
}

func TestNegation(t *testing.T) {
	t.Parallel()
	help := `{"any": ["puedo ayudarle", "i can help", "anything else"], "speaker": "agent"}`
	for text, want := range map[string]bool{
		"Claro, puedo ayudarle con eso.":           true,
		"No puedo ayudarle con eso.":               false,
		"I can help with that.":                    true,
		"I can't help you, sorry.":                 false,
		"I can't help you with anything else.":     false,
		"No, pero puedo ayudarle con otra cosa.":   true, // "pero" ends the negation
		"No worries. Is there anything else?":      true,
		"no worries anything else i can help with": true, // a courtesy, unpunctuated
		"no problema puedo ayudarle con algo más":  true,
		"no pasa nada puedo ayudarle":              true,
		"I won't bother, I can help":               true, // the comma ends the negation
		"we won't bother with anything else":       false,
		"I never stress about anything else":       false,
		"hoy no pasa que puedo ayudarle":           false,
		"no se preocupe puedo ayudarle":            true, // reassurance, unpunctuated
		"no te preocupes puedo ayudarle":           true,
		"don't worry i can help":                   true,
		"no se puede ayudarle":                     false,
		"no te puedo ayudarle":                     false,
		"There isn't anything else I can do.":      false,
		"I don't understand":                       false,
	} {
		require.Equal(t, want, meets(t, help+"", text), text)
	}
	require.False(t, meets(t, `{"any": ["i understand"]}`, "I don't understand"), "a negation is never an inserted word")
	require.False(t, meets(t, `{"any": ["se lo buscó"]}`, "Sí, se puede. Lo busco ahora."), "no word is inserted across a sentence's end")
	require.True(t, meets(t, `{"any": ["se lo buscó"]}`, "Eso se lo buscó él."), "within a sentence it is")
	v := judge(t, help, scoring.Chat, said("No puedo ayudarle con eso."), "es")
	require.Equal(t, scoring.BasisConflict, v.Basis)
	require.Contains(t, v.Explanation, "en negativo")

	// A phrase that starts with its own negation keeps it; negation can be
	// turned off.
	require.False(t, meets(t, `{"none": ["no es mi problema"]}`, "Eso no es mi problema."))
	require.True(t, meets(t, `{"any": ["puedo ayudarle"], "negation": false}`, "No puedo ayudarle."))

	// A phrase starting with a first-person subject starts its own clause,
	// punctuated or not; without one the negation still reaches it.
	sorry := `{"any": ["i'm|im sorry", "yo lo siento", "lo siento"]}`
	require.True(t, meets(t, sorry, "oh that is not good im sorry"))
	require.True(t, meets(t, sorry, "no es justo yo lo siento mucho"))
	require.False(t, meets(t, sorry, "no lo siento"))
}

func TestPositions(t *testing.T) {
	t.Parallel()
	chat := segments(
		turn(agent, "Hola."),
		turn(customer, "Hola, mi factura está mal."),
		turn(agent, "Soy Marta. ¿Algo más?"),
		turn(customer, "Sí, otra cosa."),
		turn(agent, "Le abro la incidencia INC-4432."),
		turn(agent, "Lo revisamos."),
		turn(customer, "Adiós."),
		turn(customer, "Gracias."),
	)
	for _, tt := range []struct {
		rule string
		want bool
	}{
		{`{"any": ["soy"], "speaker": "agent", "within_first_own_turns": 2}`, true},
		{`{"any": ["soy"], "speaker": "agent", "within_first_own_turns": 1}`, false},
		{`{"any": ["soy"], "speaker": "agent", "within_first_turns": 2}`, false},
		{`{"any": ["algo más"], "speaker": "agent", "within_last_own_turns": 2}`, false}, // asked mid-chat only
		{`{"any": ["algo más"], "speaker": "agent", "within_last_own_turns": 3}`, true},
		{`{"any": ["adiós"], "speaker": "agent"}`, false}, // only the customer says goodbye
		{`{"any": ["incidencia"], "speaker": "agent", "after_customer_turns": 1}`, true},
		{`{"any": ["hola"], "speaker": "agent", "after_customer_turns": 1}`, false},
	} {
		require.Equal(t, tt.want, judge(t, tt.rule, scoring.Chat, chat, "es").Complies, tt.rule)
	}
	v := judge(t, `{"any": ["algo más"], "speaker": "agent", "within_last_own_turns": 2}`, scoring.Chat, chat, "en")
	require.Equal(t, `The agent did not say "algo más" in their last 2 turns. Outside that scope, the agent said "Algo más" in turn 3.`, v.Explanation)
}

// TestCues: different cues said together in one agent turn act as a hint;
// one alone, the same one twice, cues spread over turns, negated ones and
// the customer's do not.
func TestCues(t *testing.T) {
	t.Parallel()
	rule := `{"none": ["=idiot", "=idiota"], "speaker": "agent", "cues": ["well", "honestly", "people", "pues", "la gente", "de verdad"]}`
	for _, tt := range []struct {
		text     string
		lang     string
		complies bool
	}{
		{"Agent: Well, people usually read the email first.\nCustomer: ok", "en", false},
		{"Agent: Honestly, I've refunded it.\nCustomer: ok", "en", true},
		{"Agent: Well, well. Let me check.\nCustomer: ok", "en", true},
		{"Agent: Well, let me check.\nCustomer: ok\nAgent: Honestly it's done.", "en", true},
		{"Agent: Well, it's not that people forget.\nCustomer: ok", "en", true},
		{"Customer: well honestly people are slow\nAgent: Sorry about that.", "en", true},
		{"Agente: Pues la gente no lee, de verdad.\nCliente: vale", "es", false},
		{"Agente: Pues ya está hecho.\nCliente: vale", "es", true},
	} {
		chat, _, err := transcript.ParseChat([]byte(tt.text))
		require.NoError(t, err)
		v := judge(t, rule, scoring.Chat, chat, tt.lang)
		require.Equal(t, tt.complies, v.Complies, tt.text)
		if !tt.complies {
			require.Equal(t, scoring.BasisConflict, v.Basis)
			require.InDelta(t, 0.6, v.Confidence, 1e-9)
		}
	}
	chat, _, err := transcript.ParseChat([]byte("Agent: Well, people usually read the email first.\nCustomer: ok"))
	require.NoError(t, err)
	require.Equal(t, `Possibly not met: the agent said "Well" in turn 1 and the agent said "people" in turn 1, which together suggest it; an analyst should confirm. The agent said no forbidden phrase.`,
		judge(t, rule, scoring.Chat, chat, "en").Explanation)
	chat, _, err = transcript.ParseChat([]byte("Agente: Well, people usually read the email first.\nCustomer: ok"))
	require.NoError(t, err)
	require.False(t, judge(t, `{"none": ["=idiot"], "speaker": "agent", "cues": ["well", "people", "email"], "cues_together": 3}`, scoring.Chat, chat, "en").Complies)
	// Shared laughter is no cue: the customer laughed first.
	rule = `{"none": ["=idiot"], "speaker": "agent", "cues": ["=jajaja", "=bueno"], "unprompted": ["jaja*"]}`
	chat, _, err = transcript.ParseChat([]byte("Cliente: me llegó el mando pero no la tele jajaja\nAgente: Jajaja bueno, vamos a solucionarlo."))
	require.NoError(t, err)
	require.True(t, judge(t, rule, scoring.Chat, chat, "es").Complies)
	chat, _, err = transcript.ParseChat([]byte("Cliente: me llegó el mando pero no la tele\nAgente: Jajaja bueno, vamos a solucionarlo."))
	require.NoError(t, err)
	require.False(t, judge(t, rule, scoring.Chat, chat, "es").Complies)
	require.True(t, judge(t, `{"none": ["=idiot"], "speaker": "agent", "cues": ["well", "people", "refund"], "cues_together": 3}`, scoring.Chat, chat, "en").Complies)
}

// What the customer says back to an agent's turn tells on it: a reply is a
// hint about the turn it answers, a reply cue one of its cues. Only the
// turn right before counts, only the other party's words, never negated.
func TestReplies(t *testing.T) {
	t.Parallel()
	rule := `{"none": ["=idiot", "=idiota"], "speaker": "agent", "cues": ["well", "people", "pues", "la gente"],
		"replies": ["how rude", "excuse me", "no me hable así", "qué maleducado"], "reply_cues": ["unbelievable", "wow", "increíble"]}`
	for _, tt := range []struct {
		text     string
		lang     string
		complies bool
	}{
		{"Agent: I'm guessing you didn't read the terms.\nCustomer: excuse me?", "en", false},
		{"Agente: Eso lo sabe cualquiera.\nCliente: oiga, no me hable así", "es", false},
		{"Agent: Well, people manage it.\nCustomer: ok", "en", false},
		{"Agent: Well, that's how it works.\nCustomer: unbelievable", "en", false},
		{"Agente: Pues es lo que hay.\nCliente: increíble", "es", false},
		{"Agent: Your flight is cancelled, I'm sorry.\nCustomer: unbelievable", "en", true},
		{"Agent: I've rebooked you.\nCustomer: wow, unbelievable, thank you", "en", true},
		{"Agente: Su vuelo sale mañana.\nCliente: increíble, ¡por fin!", "es", true},
		{"Agent: Sorry, I'll check.\nCustomer: I'm not saying you're rude\nAgent: Thanks.", "en", true},
		{"Customer: how rude was your colleague yesterday\nAgent: I'm sorry to hear that.", "en", true},
		{"Agent: Let me check.\nCustomer: ok\nCustomer: excuse me, are you there?", "en", true},
		{"Agent: Hi, I'm Ana.\nCustomer: excuse me, not you: the last agent, how rude he was", "en", false},
	} {
		chat, _, err := transcript.ParseChat([]byte(tt.text))
		require.NoError(t, err)
		v := judge(t, rule, scoring.Chat, chat, tt.lang)
		require.Equal(t, tt.complies, v.Complies, tt.text)
		if !tt.complies {
			require.Equal(t, scoring.BasisConflict, v.Basis, tt.text)
		}
	}
	chat, _, err := transcript.ParseChat([]byte("Agent: Well, that's how it works.\nCustomer: Unbelievable."))
	require.NoError(t, err)
	require.Equal(t, `Possibly not met: the agent said "Well" in turn 1 and the customer said "Unbelievable" in turn 2, which together suggest it; an analyst should confirm. The agent said no forbidden phrase.`,
		judge(t, rule, scoring.Chat, chat, "en").Explanation)
	chat, _, err = transcript.ParseChat([]byte("Agente: Eso lo sabe cualquiera.\nCliente: No me hable así."))
	require.NoError(t, err)
	require.Equal(t, `Posible incumplimiento: el cliente dijo «No me hable así» en el turno 2; conviene que lo confirme un analista. El agente no dijo ninguna frase prohibida.`,
		judge(t, rule, scoring.Chat, chat, "es").Explanation)
}

// Laughter that answers laughter is shared, and so is laughter once the
// customer has laughed; laughter before any of theirs is at the customer.
// A pictograph is a word a rule can name, and no negation undoes a sign of
// tone.
func TestUnprompted(t *testing.T) {
	t.Parallel()
	rule := `{"none": ["=idiot", "=idiota"], "speaker": "agent", "unprompted": ["jaja*", "haha*", "=lol", "😂", "🙄"]}`
	for _, tt := range []struct {
		text     string
		lang     string
		complies bool
	}{
		{"Customer: the parcel was stolen from my porch\nAgent: lol, happens a lot round there", "en", false},
		{"Cliente: me robaron el paquete\nAgente: Pues a veces los vecinos se llevan cosas que no son suyas jajaja", "es", false},
		{"Customer: I typed my password wrong five times\nAgent: 🙄 ok, resetting it.", "en", false},
		{"Cliente: puse mal la contraseña\nAgente: 😂 vale, te la reseteo", "es", false},
		{"Customer: my cat walked on the keyboard haha\nAgent: Haha, cats! Let me fix it.", "en", true},
		{"Cliente: mi gato pisó el teclado 😂\nAgente: Jajaja, los gatos. Te lo arreglo.", "es", true},
		{"Customer: jaja ok, my fault\nAgent: No worries.\nAgent: haha, it's done.", "en", true},
		{"Agent: Hello! 😊\nCustomer: hi\nAgent: All sorted.", "en", true},
		{"Agent: haha hi, how can I help?", "en", false},
		{"Customer: it's broken\nAgent: Sorry about that, let me check.\nCustomer: lol ok", "en", true},
		{"Customer: I went twice this month haha\nAgent: Happens!\nCustomer: so can I cancel?\nAgent: Yes, done. Enjoy the couch jaja", "en", true},
		{"Customer: so can I cancel?\nAgent: lol yes\nCustomer: haha great", "en", false},
	} {
		chat, _, err := transcript.ParseChat([]byte(tt.text))
		require.NoError(t, err)
		v := judge(t, rule, scoring.Chat, chat, tt.lang)
		require.Equal(t, tt.complies, v.Complies, tt.text)
		if !tt.complies {
			require.Equal(t, []any{scoring.BasisConflict, 0.6}, []any{v.Basis, v.Confidence}, tt.text)
		}
	}
	chat, _, err := transcript.ParseChat([]byte("Customer: the parcel was stolen\nAgent: lol, happens"))
	require.NoError(t, err)
	require.Equal(t, `Possibly not met: the agent said "lol" in turn 2, though the customer had said nothing like it before; an analyst should confirm. The agent said no forbidden phrase.`,
		judge(t, rule, scoring.Chat, chat, "en").Explanation)
	chat, _, err = transcript.ParseChat([]byte("Cliente: me robaron el paquete\nAgente: 🙄 vale"))
	require.NoError(t, err)
	require.Equal(t, `Posible incumplimiento: el agente dijo «🙄» en el turno 2 sin que el cliente hubiera dicho nada parecido antes; conviene que lo confirme un analista. El agente no dijo ninguna frase prohibida.`,
		judge(t, rule, scoring.Chat, chat, "es").Explanation)
}

// TestAppliesIfOwn: a criterion applies when the customer names their
// account, and also when the agent opens one the customer never named; the
// agent's own phrases said by the customer do not make it apply.
func TestAppliesIfOwn(t *testing.T) {
	t.Parallel()
	rule := `{"any": ["date of birth", "fecha de nacimiento"], "speaker": "agent",
		"applies_if": ["my account", "mi cuenta"], "applies_if_speaker": "customer",
		"applies_if_own": ["i can see your booking", "ya veo su reserva"]}`
	for _, tt := range []struct {
		name, chat, language string
		complies             bool
		basis                string
	}{
		{"the agent opens the booking", "Customer: can I move the flight to Friday?\nAgent: I can see your booking, it's moved.", "en",
			false, scoring.BasisAbsence},
		{"the agent opens the booking after asking", "Customer: can I move the flight?\nAgent: Your date of birth, please?\nCustomer: 2 May 1990\nAgent: I can see your booking, it's moved.", "en",
			true, scoring.BasisEvidence},
		{"informational", "Customer: what time do you open?\nAgent: At nine.", "en", true, scoring.BasisAbsence},
		{"el agente abre la reserva", "Cliente: quiero pasar el vuelo al viernes\nAgente: Ya veo su reserva, queda cambiada.", "es",
			false, scoring.BasisAbsence},
		{"the customer's words", "Cliente: ya veo su reserva de mesas en la web, ¿a qué hora abren?\nAgente: A las nueve.", "es",
			true, scoring.BasisAbsence},
	} {
		chat, _, err := transcript.ParseChat([]byte(tt.chat))
		require.NoError(t, err, tt.name)
		v := judge(t, rule, scoring.Chat, chat, tt.language)
		require.Equal(t, []any{tt.complies, tt.basis}, []any{v.Complies, v.Basis}, tt.name)
	}
}

// TestBefore: verification counts only when asked before the agent acts
// on the account; acting on it also makes the criterion apply.
func TestBefore(t *testing.T) {
	t.Parallel()
	rule := `{"any": ["date of birth", "fecha de nacimiento"], "speaker": "agent",
		"applies_if": ["my account", "mi cuenta"], "applies_if_speaker": "customer",
		"before": ["i've moved your", "ya le moví"]}`
	for _, tt := range []struct {
		name, chat, language string
		complies             bool
		basis                string
	}{
		{"asked, then moved", "Customer: move my payment date please\nAgent: Your date of birth?\nCustomer: 2 May 1990\nAgent: Done, I've moved your payment date.",
			"en", true, scoring.BasisEvidence},
		{"moved, then asked", "Customer: move the payment date please\nAgent: Done, I've moved your payment date. And your date of birth, for our records?",
			"en", false, scoring.BasisEvidence},
		{"moved, never asked", "Customer: move the payment date please\nAgent: Done, I've moved your payment date.", "en", false, scoring.BasisAbsence},
		{"the customer's words", "Customer: you said 'I've moved your date' last time, what is my date of birth on file?\nAgent: I can't read it out, sorry.",
			"en", true, scoring.BasisAbsence},
		{"movido antes de preguntar", "Cliente: cámbieme la fecha de pago\nAgente: Ya le moví la fecha al 18. ¿Me confirma su fecha de nacimiento?",
			"es", false, scoring.BasisEvidence},
		{"preguntado antes de mover", "Cliente: cámbieme la fecha de pago\nAgente: ¿Su fecha de nacimiento?\nCliente: 3/4/1980\nAgente: Ya le moví la fecha al 18.",
			"es", true, scoring.BasisEvidence},
	} {
		chat, _, err := transcript.ParseChat([]byte(tt.chat))
		require.NoError(t, err, tt.name)
		v := judge(t, rule, scoring.Chat, chat, tt.language)
		require.Equal(t, []any{tt.complies, tt.basis}, []any{v.Complies, v.Basis}, tt.name+": "+v.Explanation)
	}
}

// TestAgainst: a vague promise or a "nothing can be done" undoes a
// resolution, unless its own turn gives a time frame or a reference.
func TestAgainst(t *testing.T) {
	t.Parallel()
	rule := `{"any": ["i've checked", "he revisado"], "speaker": "agent",
		"against": ["someone will be in touch", "nothing i|we can do", "ya le llamarán", "no hay nada que pueda hacer"],
		"unless": ["{timeframe}", "{ref}"]}`
	for _, tt := range []struct {
		name, chat, language string
		complies             bool
	}{
		{"checked", "Customer: my refund?\nAgent: I've checked, it was paid yesterday.", "en", true},
		{"vague", "Customer: my refund?\nAgent: I've checked. Someone will be in touch.", "en", false},
		{"vague, later", "Customer: my refund?\nAgent: I've checked.\nCustomer: and?\nAgent: Sorry, there's nothing we can do.", "en", false},
		{"with a time frame", "Customer: my refund?\nAgent: I've checked. Someone will be in touch within 48 hours.", "en", true},
		{"with a reference", "Customer: my refund?\nAgent: I've checked. Someone will be in touch, reference INC-4432.", "en", true},
		{"negated", "Customer: my refund?\nAgent: I've checked. It's not that someone will be in touch: it's paid.", "en", true},
		{"vago", "Cliente: ¿y mi reembolso?\nAgente: He revisado el caso. Ya le llamarán.", "es", false},
		{"con plazo", "Cliente: ¿y mi reembolso?\nAgente: He revisado el caso. Ya le llamarán mañana antes de las 12.", "es", true},
		{"nada que hacer", "Cliente: ¿y ahora?\nAgente: He revisado la póliza y no hay nada que pueda hacer.", "es", false},
	} {
		chat, _, err := transcript.ParseChat([]byte(tt.chat))
		require.NoError(t, err, tt.name)
		v := judge(t, rule, scoring.Chat, chat, tt.language)
		require.Equal(t, tt.complies, v.Complies, tt.name+": "+v.Explanation)
	}
}

func TestAssessment(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, rule, text string
		complies         bool
		basis            string
		confidence       float64
	}{
		{"evidence", `{"any": ["thank you"]}`, "Thank you!", true, scoring.BasisEvidence, 0.95},
		{"plain evidence", `{"any": ["thank you"]}`, "Thank you so much!", true, scoring.BasisEvidence, 0.95},
		{"misspelt evidence", `{"any": ["gracias"]}`, "Gracais!", true, scoring.BasisEvidence, 0.85},
		{"absence", `{"any": ["thank you"], "absence_confidence": 0.9}`, "Bye.", false, scoring.BasisAbsence, 0.9},
		{"negated", `{"any": ["thank you"]}`, "No thank you.", false, scoring.BasisConflict, 0.6},
		{"hint", `{"none": ["shut up"], "hints": ["as i said"], "hint_confidence": 0.5}`, "As I said, no.", false, scoring.BasisConflict, 0.5},
		{"not applicable", `{"any": ["date of birth"], "applies_if": ["my account"]}`, "What time do you open?", true, scoring.BasisAbsence, 0.7},
		{"applicable", `{"any": ["date of birth"], "applies_if": ["my account"]}`, "My account is locked.", false, scoring.BasisAbsence, 0.7},
	} {
		v := judge(t, tt.rule, scoring.Chat, segments(turn(transcript.Unknown, tt.text)), "en")
		require.Equal(t, []any{tt.complies, tt.basis, tt.confidence}, []any{v.Complies, v.Basis, v.Confidence}, tt.name)
	}
}

// TestGroups reads a group of alternative word sequences in parentheses
// as the phrases it stands for, in both languages: "|" alone separates
// the alternatives of one word.
func TestGroups(t *testing.T) {
	t.Parallel()
	rule := `{"any": ["(ha quedado|han quedado|queda) registrad*", "(no one|nobody) (reads|checks) it"]}`
	for text, want := range map[string]bool{
		"Su cambio ha quedado registrado.":      true,
		"Sus cambios han quedado registrados.":  true,
		"Queda registrada la incidencia.":       true,
		"Ha registrado la incidencia.":          false, // not "ha quedado"
		"Quedado registrado.":                   false,
		"Honestly, no one reads it.":            true,
		"nobody checks it":                      true,
		"Someone reads it.":                     false,
		"ha han quedado registrado (por error)": true,
	} {
		require.Equal(t, want, meets(t, rule, text), text)
	}
	// "|" alone is per word: without the group, the same words are a
	// phrase of four words nobody says.
	require.False(t, meets(t, `{"any": ["ha quedado|han quedado registrado"]}`, "Ha quedado registrado."))
	// A group of one alternative is its words, as parentheses were
	// before groups.
	require.True(t, meets(t, `{"any": ["(lo siento) mucho"]}`, "Lo siento mucho."))
	// The explanation quotes the phrase said.
	v := judge(t, rule, scoring.Chat, said("Sus cambios han quedado registrados."), "es")
	require.Contains(t, v.Explanation, "«han quedado registrados»")
}

func TestPhraseErrors(t *testing.T) {
	t.Parallel()
	for rule, want := range map[string]string{
		`{"any": ["refund NEAR/x card"]}`:                         `rule.any[0]: "refund NEAR/x card" at character 8: NEAR/ takes a number of words from 1 to 50, as in NEAR/5`,
		`{"any": ["NEAR/3 card"]}`:                                `rule.any[0]: "NEAR/3 card" at character 1: NEAR/3 needs words before it, as in "refund NEAR/5 card"`,
		`{"any": ["card BEFORE/3"]}`:                              `rule.any[0]: "card BEFORE/3" at character 14: BEFORE/3 needs words after it`,
		`{"any": ["ref {code}"]}`:                                 `rule.any[0]: "ref {code}" at character 5: "{code}" is not a slot; slots are {agent_name}, {amount}, {date}, {name}, {number}, {ref}, {timeframe}`,
		`{"any": ["re* fund"]}`:                                   `rule.any[0]: "re* fund" at character 1: "re*": a wildcard needs a stem of at least 3 letters`,
		`{"any": ["a||b"]}`:                                       `rule.any[0]: "a||b" at character 1: "a||b" has an empty alternative; write word|other, =word or stem*`,
		`{"any": ["x"], "absence_confidence": 2}`:                 `rule.absence_confidence: must be a number from 0 to 1, such as 0.8`,
		`{"any": ["x"], "hint_confidence": 0.5}`:                  `rule.hint_confidence: only means something with "hints", "cues", "replies", "reply_cues", "unprompted", "settled" or "tone"`,
		`{"none": ["x"], "cues_together": 3}`:                     `rule.cues_together: only means something with "cues" or "reply_cues"`,
		`{"any": ["x"], "applies_if_own": ["y"]}`:                 `rule.applies_if_own: only means something with "applies_if"`,
		`{"none": ["x"], "replies": ["how rude"]}`:                `rule.speaker: must be "agent" or "customer" when the rule has "replies", "reply_cues", "unprompted", "restates" or "settled": they look at the other party's turns too`,
		`{"none": ["x"], "unprompted": ["lol"]}`:                  `rule.speaker: must be "agent" or "customer" when the rule has "replies", "reply_cues", "unprompted", "restates" or "settled": they look at the other party's turns too`,
		`{"none": ["x"], "speaker": "agent", "unprompted": [""]}`: `rule.unprompted[0]: "" has no words to look for`,
		`{"any": ["x"], "restates": ["so you're"]}`:               `rule.speaker: must be "agent" or "customer" when the rule has "replies", "reply_cues", "unprompted", "restates" or "settled": they look at the other party's turns too`,
		`{"any": ["x"], "settled": ["thanks"]}`:                   `rule.speaker: must be "agent" or "customer" when the rule has "replies", "reply_cues", "unprompted", "restates" or "settled": they look at the other party's turns too`,
		`{"any": ["x"], "speaker": "agent", "settled": []}`:       `rule.settled: must list at least one phrase`,
		`{"none": ["x"], "speaker": "agent", "reply_cues": []}`:   `rule.reply_cues: must list at least one phrase`,
		`{"none": ["x"], "cues": ["well"], "cues_together": 1}`:   `rule.cues_together: must be a whole number from 2 to 10: how many different cues in one turn count as a hint`,
		`{"any": ["x"], "within_last_own_turns": 2}`:              `rule.speaker: must be "agent" or "customer" when the rule counts the speaker's own turns`,
		`{"none": ["x"], "before": ["y"], "speaker": "agent"}`:    `rule.before: only means something with "any" or "all"`,
		`{"all": [["x"]], "against": ["y"], "speaker": "agent"}`:  `rule.against: only means something with "any"`,
		`{"any": ["x"], "unless": ["{ref}"], "speaker": "agent"}`: `rule.unless: only means something with "against"`,
		`{"any": ["x"], "before": ["y"]}`:                         `rule.speaker: must be "agent" or "customer" when the rule has "before" or "unless": they look at the speaker's turns in order`,
		`{"any": ["(ha quedado|han quedado registrado"]}`:         `rule.any[0]: "(ha quedado|han quedado registrado" at character 1: opens a group that is not closed with ) before another one: groups do not nest, as in "(ha quedado|han quedado) registrado"`,
		`{"any": ["(a|(b c)|d)"]}`:                                `rule.any[0]: "(a|(b c)|d)" at character 1: opens a group that is not closed with ) before another one: groups do not nest, as in "(ha quedado|han quedado) registrado"`,
		`{"any": ["lo siento) mucho"]}`:                           `rule.any[0]: "lo siento) mucho" at character 10: closes a group that was not opened with (`,
		`{"any": ["x (a b| ) y"]}`:                                `rule.any[0]: "x (a b| ) y" at character 3: has an empty alternative in a group; write (one word|two words)`,
		`{"any": ["(a|b|c|d) (e|f|g|h) (i|j|k|l) (m|n)"]}`:        `rule.any[0]: "(a|b|c|d) (e|f|g|h) (i|j|k|l) (m|n)" stands for more than 64 phrases; write fewer groups or alternatives`,
		`{"any": ["(ha quedado|NEAR/3) x"]}`:                      `rule.any[0]: "(ha quedado|NEAR/3) x" (as "NEAR/3 x") at character 1: NEAR/3 needs words before it, as in "refund NEAR/5 card"`,
	} {
		err := scoring.Validate(scoring.Scorecard{Criteria: []scoring.Criterion{criterion("c", rule)}}, rules.CheckRule)
		var invalid *scoring.ValidationError
		require.ErrorAs(t, err, &invalid, rule)
		require.Equal(t, "scorecard is not valid: criterion 0 (c): "+want, invalid.Error(), rule)
	}
}

// TestPhraseErrorsAtTheirCharacter: a phrase's syntax error carries its
// character, so a form can point at it; one found in an expansion of the
// phrase (its groups written out) or in the whole phrase has none.
func TestPhraseErrorsAtTheirCharacter(t *testing.T) {
	t.Parallel()
	for rule, at := range map[string]int{
		`{"any": ["hola", "buenos NEAR/x días"]}`:          8,
		`{"any": ["lo siento) mucho"]}`:                    10,
		`{"all": ["x", ["y", "señora {code}"]]}`:           8,
		`{"any": ["(ha quedado|NEAR/3) x"]}`:               0,
		`{"any": ["(por favor) NEAR/3"]}`:                  0,
		`{"any": ["(a|b|c|d) (e|f|g|h) (i|j|k|l) (m|n)"]}`: 0,
		`{"any": [""]}`: 0,
	} {
		problems := rules.CheckRule(json.RawMessage(rule))
		require.Len(t, problems, 1, rule)
		require.Equal(t, at, problems[0].At, "%s: %s", rule, problems[0].Message)
	}
}
