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
	card, err := scoring.DefaultScorecard()
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
	require.Equal(t, "El agente dijo «Buenos días» en 00:00. El agente dijo «le atiende» en 00:00.", explanation(t, vs, "greeting"))
	require.Equal(t, "El agente dijo «llamada puede ser grabada» en 00:00.", explanation(t, vs, "recording_notice"))
	require.Equal(t, "El agente dijo «DNI» en 00:14.", explanation(t, vs, "verification"))
	require.Equal(t, "El agente dijo «lo siento» en 00:14.", explanation(t, vs, "empathy"))
	require.Equal(t, "El agente dijo «Ya está solucionado» en 00:36.", explanation(t, vs, "resolution"))
	require.Equal(t, "El agente dijo «algo más en lo que pueda ayudarle» (entendido como «algo más en que pueda ayudarle») en 01:01.",
		explanation(t, vs, "further_help"))
	// "Gracias a usted por su paciencia" has two words inserted: not the phrase.
	require.Equal(t, "El agente dijo «que tenga un buen día» en 01:07.", explanation(t, vs, "farewell"))

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
		timed(agent, 44.2, 52, "Buenos días, soy Jorge. Cállese y déjeme mirar su caso."),
		timed(customer, 52.5, 55, "Esto es increíble."),
		timed(agent, 55.2, 60, "Ya está, reinicie el router."),
	)
	vs, err := e.Audit(scoring.Call, bad, "es")
	require.NoError(t, err)
	require.Equal(t, map[string]bool{
		"greeting": false, "recording_notice": false, "verification": false, "no_forbidden_phrases": false,
		"empathy": false, "resolution": false, "further_help": false, "farewell": false,
	}, complies(vs))
	require.Equal(t, "El agente no dijo ninguna de estas frases en los primeros 30 s: «buenos días», «buenas tardes», "+
		"«buenas noches», «buenas», «hola» (y 14 más). Fuera de ese ámbito, el cliente dijo «Hola» en 00:00. "+
		"El agente no dijo ninguna de estas frases en los primeros 30 s: «mi nombre es», «me llamo», «le atiende», «le habla», «soy» (y 5 más). "+
		"Fuera de ese ámbito, el agente dijo «soy» en 00:44.",
		explanation(t, vs, "greeting"))
	require.Equal(t, "Frase prohibida: el agente dijo «no es mi problema» en 00:31 (2 frases prohibidas en total).",
		explanation(t, vs, "no_forbidden_phrases"))

	res, err := scoring.Score(card, scoring.Call, vs, 85)
	require.NoError(t, err)
	require.Equal(t, 0.0, res.Score)
	require.False(t, res.Passed)
	require.Equal(t, []string{"recording_notice", "no_forbidden_phrases"}, res.FailedCritical)
}

func TestDefaultScorecardChats(t *testing.T) {
	t.Parallel()
	card, e := defaultEngine(t)

	t.Run("a good English chat without times", func(t *testing.T) {
		t.Parallel()
		chat := segments(
			turn(customer, "hi, my parcel never arrived"),
			turn(agent, "Hello! My name is Sam, thanks for contacting us. I'm sorry to hear that."),
			turn(agent, "Could you give me your account number or the postcode, please?"),
			turn(customer, "SW1A 1AA"),
			turn(agent, "Thanks. I've sent a replacement, you will receive it within 48 hours. Your reference number is 5521."),
			turn(customer, "great"),
			turn(agent, "Is there anything else I can help you with?"),
			turn(customer, "no thanks"),
			turn(agent, "Have a great day, goodbye!"),
		)
		vs, err := e.Audit(scoring.Chat, chat, "en")
		require.NoError(t, err)
		require.Len(t, vs, 7) // the recording notice is for calls only
		require.Equal(t, map[string]bool{
			"greeting": true, "verification": true, "no_forbidden_phrases": true,
			"empathy": true, "resolution": true, "further_help": true, "farewell": true,
		}, complies(vs))
		require.Equal(t, `The agent said "Hello" in turn 2. The agent said "My name is" in turn 2.`, explanation(t, vs, "greeting"))
		res, err := scoring.Score(card, scoring.Chat, vs, 85)
		require.NoError(t, err)
		require.Equal(t, 100.0, res.Score)
	})

	t.Run("a Spanish chat typed without accents and with typos", func(t *testing.T) {
		t.Parallel()
		chat := segments(
			turn(customer, "buenas, no me funciona la app"),
			turn(agent, "hola buenas tardes, mi nombre es Lucia"),
			turn(agent, "me podria indicar su numero de cliente??"),
			turn(customer, "4432"),
			turn(agent, "vale, un momento"),
			turn(customer, "ok"),
			turn(agent, "le he enviado un enlace para restablecer la contraseña"),
			turn(customer, "gracias"),
			turn(agent, "grasias a usted, que tenga un buen dia"),
		)
		vs, err := e.Audit(scoring.Chat, chat, "es")
		require.NoError(t, err)
		require.Equal(t, map[string]bool{
			"greeting": true, "verification": true, "no_forbidden_phrases": true,
			"empathy": false, "resolution": true, "further_help": false, "farewell": true,
		}, complies(vs))
		require.Equal(t, "El agente dijo «numero de cliente» en el turno 3.", explanation(t, vs, "verification"))
		require.Equal(t, "El agente no dijo ninguna de estas frases en los últimos 6 turnos: «algo más en que pueda ayudarle», "+
			"«puedo ayudarle en algo más», «puedo ayudarle con algo más», «le puedo ayudar en algo más», «necesita algo más» (y 9 más).",
			explanation(t, vs, "further_help"))
		res, err := scoring.Score(card, scoring.Chat, vs, 85)
		require.NoError(t, err)
		require.Equal(t, 72.22, res.Score) // 65 of 90
		require.False(t, res.Passed)
		require.Equal(t, []scoring.CategoryScore{
			{Category: "OPENING", Earned: 10, Possible: 10, Score: 100},
			{Category: "COMPLIANCE", Earned: 25, Possible: 25, Score: 100},
			{Category: "SKILLS", Earned: 20, Possible: 35, Score: 57.14},
			{Category: "CLOSING", Earned: 10, Possible: 20, Score: 50},
		}, res.Categories)
	})

	t.Run("innocent neighbours of forbidden words", func(t *testing.T) {
		t.Parallel()
		chat := segments(
			turn(agent, "¿En qué idioma prefiere que le atienda? Which language, idiom?"),
			turn(agent, "Le llamaremos; ¿en cuál de las dos calles vive? Es un estudio muy completo."),
		)
		vs, err := e.Audit(scoring.Chat, chat, "es")
		require.NoError(t, err)
		require.True(t, complies(vs)["no_forbidden_phrases"], explanation(t, vs, "no_forbidden_phrases"))
	})
}
