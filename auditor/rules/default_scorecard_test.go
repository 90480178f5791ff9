package rules_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// defaultEngine compiles the default scorecard.
func defaultEngine(t testing.TB) (scoring.Scorecard, *rules.Engine) {
	t.Helper()
	card, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	e, err := rules.New(card)
	require.NoError(t, err)
	return card, e
}

// complies maps criterion ids to their verdicts' Complies.
func complies(vs []scoring.Verdict) map[string]bool {
	out := map[string]bool{}
	for _, v := range vs {
		out[v.CriterionID] = v.Complies
	}
	return out
}

func explanation(t *testing.T, vs []scoring.Verdict, id string) string {
	t.Helper()
	for _, v := range vs {
		if v.CriterionID == id {
			return v.Explanation
		}
	}
	require.Failf(t, "no verdict", "for %s", id)
	return ""
}

// goodCall is a stereo call (agent and customer on their own channels) as
// a transcription engine returns it, with the slips of speech recognition.
func goodCall() transcript.Transcript {
	return segments(
		timed(agent, 0.4, 6.2, "Buenos días, gracias por llamar a Telecable, le atiende Marta. Le informo de que esta llamada puede ser grabada."),
		timed(customer, 6.8, 14.1, "Hola Marta, mire, tengo un problema con la factura de este mes, me han cobrado dos veces."),
		timed(agent, 14.5, 19.9, "Vaya, lo siento mucho, entiendo su preocupación. Para poder ayudarle, ¿me indica su DNI?"),
		timed(customer, 20.3, 25, "Sí, es el cinco tres dos uno cero nueve ocho siete, letra K."),
		timed(agent, 25.6, 33, "Gracias. ¿Me confirma también su fecha de nacimiento?"),
		timed(customer, 33.2, 36, "El doce de marzo del ochenta y cuatro."),
		timed(agent, 36.5, 58, "Perfecto. Efectivamente veo el cargo duplicado. Ya está solucionado: le devolvemos el importe y recibirá un correo con el número de incidencia en un plazo de cuarenta y ocho horas."),
		timed(customer, 58.4, 61, "Ah, estupendo, muchas gracias."),
		timed(agent, 61.3, 65, "¿Hay algo más en lo que pueda ayudarle?"),
		timed(customer, 65.5, 67, "No, nada más, gracias."),
		timed(agent, 67.4, 71.8, "Gracias a usted por su paciencia, que tenga un buen día."),
	)
}

func TestDefaultScorecardGoodCall(t *testing.T) {
	t.Parallel()
	card, e := defaultEngine(t)
	vs, err := e.Audit(scoring.Call, goodCall(), "es")
	require.NoError(t, err)
	require.Equal(t, map[string]bool{
		"greeting": true, "recording_notice": true, "verification": true, "no_forbidden_phrases": true,
		"empathy": true, "resolution": true, "further_help": true, "farewell": true,
	}, complies(vs))
	require.Equal(t, "El agente dijo «Buenos días» en 00:00. El agente dijo «le atiende Marta» en 00:00.", explanation(t, vs, "greeting"))
	require.Equal(t, "El agente dijo «llamada puede ser grabada» en 00:00.", explanation(t, vs, "recording_notice"))
	require.Equal(t, "El agente dijo «Ya está solucionado» en 00:36.", explanation(t, vs, "resolution"))

	res, err := scoring.Score(card, scoring.Call, vs, 85)
	require.NoError(t, err)
	require.Equal(t, 100.0, res.Score)
	require.True(t, res.Passed)
}

func TestDefaultScorecardBadCall(t *testing.T) {
	t.Parallel()
	card, e := defaultEngine(t)
	bad := segments(
		timed(customer, 0, 8, "¿Hola? ¿Es el servicio técnico? Llevo media hora esperando."),
		timed(agent, 8.5, 12, "Sí, dígame."),
		timed(customer, 12.3, 30, "No tengo internet desde ayer y nadie me da una solución."),
		timed(agent, 31, 40, "Pues eso no es mi problema, llame a su compañía de luz."),
		timed(customer, 40.5, 44, "¿Cómo que no es su problema?"),
		timed(agent, 44.2, 52, "Hola, soy Jorge. Cállese y déjeme mirar su caso."),
		timed(customer, 52.5, 55, "Esto es increíble."),
		timed(agent, 55.2, 60, "Mire, reinicie el router."),
	)
	vs, err := e.Audit(scoring.Call, bad, "es")
	require.NoError(t, err)
	require.Equal(t, map[string]bool{
		"greeting": false, "recording_notice": false, "verification": false, "no_forbidden_phrases": false,
		"empathy": false, "resolution": false, "further_help": false, "farewell": false,
	}, complies(vs), explanation(t, vs, "verification"))
	require.Equal(t, "Frase prohibida: el agente dijo «no es mi problema» en 00:31 (2 frases prohibidas en total).",
		explanation(t, vs, "no_forbidden_phrases"))

	res, err := scoring.Score(card, scoring.Call, vs, 85)
	require.NoError(t, err)
	require.Equal(t, 0.0, res.Score)
	require.False(t, res.Passed)
	require.Equal(t, []string{"recording_notice", "no_forbidden_phrases"}, res.FailedCritical)
}

// verdictOf judges one criterion of the default scorecard on a chat of
// alternating agent and customer turns (agent first).
func verdictOf(t *testing.T, id string, turns ...string) scoring.Verdict {
	t.Helper()
	_, e := defaultEngine(t)
	var segs []transcript.Segment
	for i, text := range turns {
		who := agent
		if i%2 == 1 {
			who = customer
		}
		segs = append(segs, turn(who, text))
	}
	vs, err := e.Audit(scoring.Chat, segments(segs...), "en")
	require.NoError(t, err)
	for _, v := range vs {
		if v.CriterionID == id {
			return v
		}
	}
	require.Failf(t, "no verdict", "for %s", id)
	return scoring.Verdict{}
}

// TestDefaultScorecardIssueExamples holds what the analysts' review found
// the previous default got wrong, and the traps it must keep right.
func TestDefaultScorecardIssueExamples(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id    string
		turns []string
		want  bool
	}{
		{"resolution", []string{"Hello, how can I help?", "I was charged twice.",
			"I have issued a full refund of 49.99, reference RF-2201; it will reach your card in 3 to 5 working days"}, true},
		{"resolution", []string{"Hola, ¿en qué le ayudo?", "No me llega el reembolso.",
			"Le abro una incidencia con referencia INC-4432 y en 48 horas tendrá el reembolso"}, true},
		{"resolution", []string{"Hola.", "Mi pedido no llega.", "Ya le llamarán, lo estamos mirando."}, false},
		// A confirmation then a vague promise, or "nothing can be done", is
		// not a resolution; with a time frame in its turn it is.
		{"resolution", []string{"Hi.", "Where's my refund?", "I've checked it's confirmed on our side. Someone will be in touch."}, false},
		{"resolution", []string{"Hi.", "Can you cover it?", "Your policy doesn't cover it. Sorry, there's nothing we can do."}, false},
		{"resolution", []string{"Hi.", "Where's my refund?", "I've checked: someone will be in touch within 48 hours."}, true},
		{"resolution", []string{"Hola.", "¿Y la visita?", "Ya quedó registrada la avería; ellos le contactan."}, false},
		{"resolution", []string{"Hola.", "¿Y la visita?", "Ya quedó registrada la avería; le llamarán mañana antes de las 12."}, true},
		{"greeting", []string{"Hi there, I'm Connor from Vista Mobile"}, true},
		{"greeting", []string{"Buenos días, le saluda Andrés"}, true},
		{"greeting", []string{"Morning! Dave here"}, true},
		{"greeting", []string{"Hi there, how can I help?"}, false},
		{"verification", []string{"Hi.", "My order hasn't arrived.", "Could you confirm your order number and the e-mail on the account?"}, true},
		{"verification", []string{"Hola.", "Quiero cambiar mi tarifa.", "Hecho, ya le he cambiado la tarifa."}, false},
		{"verification", []string{"Hello.", "What time do you open on Sundays?", "We open at ten."}, true}, // not applicable
		// Asked only after acting on the account is too late; acting on it
		// makes verification apply.
		{"verification", []string{"Hi.", "Can you move my payment date?", "Done, I've moved your payment date to the 18th. Can you confirm your date of birth?"}, false},
		{"verification", []string{"Hola.", "Quiero cambiar la dirección.", "Ya le cambié la dirección. ¿Me confirma su DNI?"}, false},
		{"verification", []string{"Hello.", "Hi, quick question.", "I can see your account is overdue."}, false},
		{"verification", []string{"Hola.", "Una consulta.", "Veo su contrato: vence en mayo."}, false},
		// Transcripts are redacted before they are audited (package
		// redact): asking for a placeholder is asking for the item.
		{"verification", []string{"Hi.", "I want to change my address.", "Sure, could you confirm your [DNI]?"}, true},
		{"verification", []string{"Hola.", "Quiero cambiar la dirección.", "¿Me confirma su [DNI]?"}, true},
		{"verification", []string{"Hola.", "Quiero pagar la factura.", "Claro, me da el número de [CARD]"}, true},
		{"verification", []string{"Hola.", "Quiero cambiar la tarifa.", "¿Me facilita su [PHONE], por favor?"}, true},
		{"verification", []string{"Hi.", "I'd like to change my direct debit.", "Can you read me your [IBAN]?"}, true},
		{"verification", []string{"Hi.", "My parcel is late.", "What's the [EMAIL] on the account?"}, true},
		{"verification", []string{"Hola.", "Quiero cambiar la tarifa.", "Hecho, cargado en [CARD], ya tiene la nueva tarifa."}, false},
		{"no_forbidden_phrases", []string{"Hi.", "It doesn't work.", "That's a you problem"}, false},
		{"no_forbidden_phrases", []string{"Hola.", "No lo entiendo.", "Te lo explico despacito para que lo entiendas"}, false},
		{"no_forbidden_phrases", []string{"Hola.", "¿Dónde lo miro?", "Búsquelo en internet"}, false},
		{"no_forbidden_phrases", []string{"Hi.", "Can you check again?", "I've got a queue of people waiting, I can't spend all day on this"}, false},
		{"no_forbidden_phrases", []string{"Hello.", "This is f***ing useless, you idiots!", "I'm sorry, let me fix it for you."}, true},
		{"no_forbidden_phrases", []string{"¿En qué idioma prefiere que le atienda?"}, true},
		{"no_forbidden_phrases", []string{"Hi.", "Thanks!", "No problem."}, true},
		{"no_forbidden_phrases", []string{"Hola.", "Gracias.", "No es ningún problema."}, true},
		{"no_forbidden_phrases", []string{"Hi.", "I'm worried.", "I'm not going to let this be a problem for you."}, true},
		// Rudeness without a rude word: hurrying, blaming, brushing off,
		// moralising; and their polite neighbours.
		{"no_forbidden_phrases", []string{"Hola.", "Le explico lo que pasó con el pedido…", "Al grano, que tengo la cola llena."}, false},
		{"no_forbidden_phrases", []string{"Hi.", "Well, it started last week when…", "Just answer the question."}, false},
		{"no_forbidden_phrases", []string{"Hola.", "No sabía que era sin devolución.", "Eso había que leerlo antes de pagar."}, false},
		{"no_forbidden_phrases", []string{"Hi.", "I didn't know it was non-refundable.", "That was your choice."}, false},
		{"no_forbidden_phrases", []string{"Hola.", "El paquete llegó roto.", "Eso es problema del transportista, no nuestro."}, false},
		{"no_forbidden_phrases", []string{"Hi.", "The parcel arrived broken.", "That's an issue for the courier, not us."}, false},
		{"no_forbidden_phrases", []string{"Hola.", "Borré las fotos sin copia.", "Pues que le sirva de lección."}, false},
		{"no_forbidden_phrases", []string{"Hola.", "Perdone, estoy muy nerviosa.", "No se apure, señora, ya lo reviso yo."}, true},
		{"no_forbidden_phrases", []string{"Hola.", "¿Y la próxima vez?", "Para la próxima, puede pedirlo desde la app."}, true},
		{"no_forbidden_phrases", []string{"Hi.", "Is it your fault or the courier's?", "It's on us, not the courier; I've refunded you."}, true},
		{"no_forbidden_phrases", []string{"Hi.", "The heating's been off for two days.", "It's not exactly an emergency, is it?"}, false},
		{"no_forbidden_phrases", []string{"Hi.", "I already cleared the cache.", "Okay, let's start with the basics!"}, false},
		// Quoting someone else's words to apologise for them is not saying them.
		{"no_forbidden_phrases", []string{"Hi.", "Your receptionist said \"not my problem\".",
			"I'm so sorry; being told \"that's not my problem\" is not acceptable."}, true},
		{"no_forbidden_phrases", []string{"Hola.", "Me dijeron que no era su problema.",
			"Lamento que le dijeran «no es mi problema»; no es forma de tratarle."}, true},
		{"no_forbidden_phrases", []string{"Hi.", "Can you help?", "\"Not my problem, honestly."}, false}, // never closed: not a quotation
		// … nor is reporting them in speech, which has no quotation marks;
		// the speaker's own words stay theirs.
		{"no_forbidden_phrases", []string{"hi", "the girl at reception said and i quote that's not our problem",
			"oh no i'm so sorry so you were told that's not our problem that's not how anyone should be spoken to"}, true},
		{"no_forbidden_phrases", []string{"hola", "en recepción me dijeron que no es su problema",
			"lo siento mucho o sea que le dijeron no es mi problema eso no es forma de tratarle"}, true},
		{"no_forbidden_phrases", []string{"hi", "can you check again", "as i said that's not my problem"}, false},
		{"no_forbidden_phrases", []string{"hi", "can you check again", "i've already told you calm down"}, false},
		{"no_forbidden_phrases", []string{"hola", "puede mirarlo otra vez", "ya le dije que no es mi problema"}, false},
		{"no_forbidden_phrases", []string{"hola", "el asesor me dijo eso no es problema mío",
			"qué pena con usted que le hayan respondido eso no es problema mío no es la forma de atenderlo"}, true},
		{"no_forbidden_phrases", []string{"hola", "puede mirarlo otra vez", "ya le he contestado no es problema mío"}, false},
		{"no_forbidden_phrases", []string{"hi", "they hung up on me", "i'm sorry they answered not our problem, that's wrong"}, true},
		{"farewell", []string{"Hello.", "Thanks, goodbye!", "..."}, false},
		{"further_help", []string{"Hola, ¿algo más?", "Sí, otra cosa.", "Vale.", "Gracias.", "Se lo he cambiado.", "Adiós.", "Hasta luego."}, false},
		{"further_help", []string{"Hello.", "Hi.", "I can't help you with anything else."}, false},
		{"further_help", []string{"Hello.", "Hi.", "Is there anything else I can help you with?"}, true},
	} {
		v := verdictOf(t, tt.id, tt.turns...)
		require.Equal(t, tt.want, v.Complies, "%s %q: %s", tt.id, tt.turns, v.Explanation)
	}
}

func TestDefaultScorecardInnocentNeighbours(t *testing.T) {
	t.Parallel()
	_, e := defaultEngine(t)
	chat := segments(
		turn(agent, "¿En qué idioma prefiere que le atienda? Which language, idiom?"),
		turn(agent, "Le llamaremos; ¿en cuál de las dos calles vive? Es un estudio muy completo."),
	)
	vs, err := e.Audit(scoring.Chat, chat, "es")
	require.NoError(t, err)
	require.True(t, complies(vs)["no_forbidden_phrases"], explanation(t, vs, "no_forbidden_phrases"))
}

// TestDefaultScorecardIssue38 holds what issue 38 found: a curt farewell
// is no cordial one, and a greeting only the customer said is neither the
// agent's nor quoted as their evidence.
func TestDefaultScorecardIssue38(t *testing.T) {
	t.Parallel()
	v := verdictOf(t, "farewell", "Hello, I'm Sam, how can I help?", "Nothing, I'm leaving.", "Whatever. Bye.")
	require.False(t, v.Complies, v.Explanation)
	v = verdictOf(t, "farewell", "Hola, soy Ana.", "Nada más.", "Lo que sea. Adiós.")
	require.False(t, v.Complies, v.Explanation)
	require.True(t, verdictOf(t, "farewell", "Hello, I'm Sam.", "That's all.", "Thanks for calling, bye!").Complies)

	v = verdictOf(t, "greeting", "What do you want?", "Good morning! I'm calling about my bill.")
	require.False(t, v.Complies)
	require.Empty(t, v.Evidence, "the customer's greeting is not the agent's evidence")
	require.NotContains(t, v.Explanation, "Good morning")

	// A promise with no time frame is no resolution, whatever else is done.
	v = verdictOf(t, "resolution", "Hi, I'm Sam.", "My refund never came.",
		"I've escalated it. I can't give you a time, someone will look at it.")
	require.False(t, v.Complies, v.Explanation)
	v = verdictOf(t, "resolution", "Hola, soy Ana.", "¿Y mi reembolso?", "Ya lo escalé, pero todavía no hay fecha.")
	require.False(t, v.Complies, v.Explanation)

	// Reading the account from the caller's number, or on a name alone,
	// makes verification apply, and fail.
	v = verdictOf(t, "verification", "Hi, I'm Sam.", "I'd like to change my address.",
		"I can see you're calling from the number on the account. What's the new address?")
	require.False(t, v.Complies, v.Explanation)
	v = verdictOf(t, "verification", "Hola, soy Ana.", "Soy Marta Gil, quiero cambiar la entrega.",
		"Veo que la reserva está a su nombre. Le actualicé la entrega al sábado.")
	require.False(t, v.Complies, v.Explanation)

	// Issue 38's last held-out set: the place reached is no agent's name,
	// a "whatever" that closes the conversation is dismissive, and an
	// agent who picks up how the customer would feel shows empathy.
	v = verdictOf(t, "greeting", "Hello, you're through to Harbour Bank, how can I help?", "Hi, it's about my card.")
	require.False(t, v.Complies, v.Explanation)
	v = verdictOf(t, "greeting", "Hello, you're through to Priya at Harbour Bank, how can I help?", "Hi, it's about my card.")
	require.True(t, v.Complies, v.Explanation)
	v = verdictOf(t, "no_forbidden_phrases", "Hi, I'm Sam.", "This is the third time I've asked!", "Whatever, goodbye.")
	require.False(t, v.Complies, v.Explanation)
	require.True(t, verdictOf(t, "empathy", "Hi, I'm Sam.", "They charged me twice.", "Ugh, I'd be fuming too. Let me look.").Complies)
	require.True(t, verdictOf(t, "empathy", "Hola, soy Ana.", "Me mudo el lunes.", "¡Qué bien que ya tenga fecha! Lo preparo.").Complies)
}

// TestDefaultScorecardIssue38FifthRound holds what issue 38's fourth
// held-out set taught, each in Spanish and English: ironic sarcasm («claro,
// porque … solos, ¿no?», "because … themselves, right?"), talking down
// («hasta un chico lo entiende», "even a kid could"), curt asks for a line
// or meter number, restating with "is that right", "as soon as possible"
// or «ellos le van a buscar» with no time frame, and a request done in few
// words («baja hecha», «le agendo el jueves», "done and dusted").
func TestDefaultScorecardIssue38FifthRound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		turns []string
		rude  bool
	}{
		{[]string{"Hola, soy Ana.", "El auto se rompió otra vez.", "Claro, porque los autos se arreglan solos, ¿no?"}, true},
		{[]string{"Hola, soy Ana.", "No entiendo la factura.", "Esto es muy sencillo, hasta un chico lo entiende."}, true},
		{[]string{"Hola, soy Ana.", "¿Y la tarjeta nueva?", "Bueno, como sea. Le mando otra."}, true},
		{[]string{"Hi, I'm Sam.", "The router stopped again.", "Sure, because routers just reset themselves, right?"}, true},
		{[]string{"Hi, I'm Sam.", "I don't get the bill.", "It's simple, even a kid could follow it."}, true},
		{[]string{"Hola, soy Ana.", "¿Por qué no tengo señal?", "Claro, porque la antena de su zona está en obras hasta el viernes."}, false},
		{[]string{"Hola, soy Ana.", "¿Y si no llega?", "Sea como sea, se lo solucionamos hoy."}, false},
		{[]string{"Hi, I'm Sam.", "Why did it reset?", "It resets itself at night, because of the update."}, false},
	} {
		v := verdictOf(t, "no_forbidden_phrases", c.turns...)
		require.Equal(t, !c.rude, v.Complies, "%q: %s", c.turns[2], v.Explanation)
	}

	require.True(t, verdictOf(t, "verification", "Hola, soy Ana.", "Me cortaron la línea y ya pagué.", "Número de línea.",
		"3157720914", "El pago entró ayer, le reconecto ahora.").Complies)
	require.True(t, verdictOf(t, "verification", "Hi, I'm Sam.", "I paid but the power is still off.",
		"Please share your meter number.", "0412 5531", "Your payment came through, restoring it now.").Complies)

	require.True(t, verdictOf(t, "empathy", "Hi, I'm Sam.", "There are five of us, studio or five single plans?",
		"So five of you, weighing the studio plan against five singles, is that right?").Complies)
	require.True(t, verdictOf(t, "empathy", "Hola, soy Ana.", "La cisterna pierde agua todo el día.",
		"Qué rollo lo de la cisterna. Mando a alguien.").Complies)

	require.True(t, verdictOf(t, "resolution", "Hola, soy Ana.", "Quiero dar de baja la cuota.",
		"Baja hecha, no se le cobra más desde el 1.").Complies)
	require.True(t, verdictOf(t, "resolution", "Hola, soy Ana.", "El coche hace un ruido.",
		"Tiene garantía, le agendo el jueves a las nueve.").Complies)
	require.True(t, verdictOf(t, "resolution", "Hi, I'm Sam.", "Can you move my flight to the evening?",
		"Done and dusted, the new itinerary is in your inbox.").Complies)
	v := verdictOf(t, "resolution", "Hi, I'm Sam.", "When will the power be back?",
		"I can confirm there's an outage. We'll restore it as soon as possible.")
	require.False(t, v.Complies, v.Explanation)
	v = verdictOf(t, "resolution", "Hola, soy Ana.", "Me rompieron la mesa en la mudanza.",
		"Le actualicé la dirección de la factura. Lo de la mesa, ellos le van a buscar.")
	require.False(t, v.Complies, v.Explanation)
}

// TestDefaultScorecardIssue38SixthRound holds what issue 38's fifth
// held-out set taught, each in Spanish and English: a customer saying it
// works now after the fix, a request done in few words ("I've frozen",
// «le he congelado»), account data read out before the first verification
// item ("has a balance of", «veo en su tarjeta terminada en…»), a curt
// ask for a waybill number or an account's reference, an awkward moment
// and an apology for our own failure as empathy, dialect closings ("owt
// else", "ta-ra", «otra cosita que le pueda…», «nos hablamos»), and a
// brush-off of two words said together («allá usted», "who cares"), not
// with a word between («de allá y usted lo presenta», "who really cares").
func TestDefaultScorecardIssue38SixthRound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		id    string
		turns []string
		met   bool
	}{
		{"resolution", []string{"Hi, I'm Sam.", "The label prints blank.", "Try a different browser.", "Ok got it, it prints now."}, true},
		{"resolution", []string{"Hola, soy Ana.", "La etiqueta sale en blanco.", "Pruebe con otro navegador.", "Vale, ya imprime."}, true},
		{"resolution", []string{"Hi, I'm Sam.", "Can I pause my gym membership?", "I've frozen your membership until 2 June."}, true},
		{"resolution", []string{"Hola, soy Ana.", "¿Puedo pausar la cuota del gimnasio?", "Le he congelado la cuota hasta junio."}, true},
		{"verification", []string{"Hi, I'm Sam.", "Why no bonus interest on my savings?", "Your saver has a balance of $18,420 and I can see a withdrawal on the 14th.",
			"Oh, right.", "Can you confirm your date of birth?"}, false},
		{"verification", []string{"Hola, soy Ana.", "Tengo un cobro raro en mi tarjeta.", "Veo en su tarjeta terminada en 4471 un cargo de 300 euros.",
			"No lo hice yo.", "¿Me confirma su DNI?"}, false},
		{"verification", []string{"Hi, I'm Sam.", "My parcel never came.", "Waybill number?", "SWC 7720 1189", "It was left with security at 10:42."}, true},
		{"verification", []string{"Hola, soy Ana.", "Me cobraron dos veces la factura.", "¿Referencia del contrato?", "CT-4410",
			"Gracias. Ya veo el cobro duplicado, se lo devuelvo."}, true},
		{"empathy", []string{"Hi, I'm Sam.", "The engineer is booked on my wedding day.", "Ah, that's awkward timing. Let me find another slot."}, true},
		{"empathy", []string{"Hola, soy Ana.", "Nadie me avisó de que la furgoneta no estaba lista.", "Perdone que no le hayamos avisado. Estará el jueves."}, true},
		{"empathy", []string{"Hola, soy Ana.", "Me dan la cita el día de la boda.", "Uy, qué mal momento. Le busco otra fecha."}, true},
		{"farewell", []string{"Hi, I'm Sam.", "That's all, thanks.", "Enjoy the new place, ta-ra."}, true},
		{"farewell", []string{"Hola, soy Ana.", "Nada más, gracias.", "Perfecto, nos hablamos."}, true},
		{"further_help", []string{"Hi, I'm Sam.", "Thanks, that's sorted.", "Is there owt else I can sort for you?"}, true},
		{"further_help", []string{"Hola, soy Ana.", "Gracias, ya está.", "¿Hay otra cosita que le pueda revisar?"}, true},
		{"no_forbidden_phrases", []string{"Hola, soy Ana.", "¿Y si no lo lee?", "Allá usted si no lo lee."}, false},
		{"no_forbidden_phrases", []string{"Hola, soy Ana.", "¿Quién firma?", "Él firma ante el consulado de allá y usted lo presenta aquí."}, true},
		{"no_forbidden_phrases", []string{"Hi, I'm Sam.", "It's only a tiny dent.", "Who cares? It's a tiny dent."}, false},
		{"no_forbidden_phrases", []string{"Hi, I'm Sam.", "Is my data safe?", "You're talking to a team who really cares about your data."}, true},
	} {
		v := verdictOf(t, c.id, c.turns...)
		require.Equal(t, c.met, v.Complies, "%s %q: %s", c.id, c.turns, v.Explanation)
	}
}
