package rules_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// typicalChat is a 40-turn support chat in Spanish, about 450 words.
func typicalChat() transcript.Transcript {
	lines := []string{
		"hola buenas, tengo un problema con mi conexion de fibra",
		"¡Hola! Buenas tardes, mi nombre es Lucía y le atiendo en el chat de soporte. Siento las molestias.",
		"gracias lucia, desde ayer por la tarde no tengo internet en casa",
		"Vaya, lo lamento. Para poder revisarlo, ¿me indica su DNI o su número de cliente, por favor?",
		"si claro, es 53210987K",
		"Gracias. Un momento mientras compruebo su línea.",
		"vale espero",
		"Veo que su router aparece desconectado desde las 18:40 de ayer. ¿Tiene las luces encendidas?",
		"la luz de power si, la de internet parpadea en rojo",
		"Entiendo. ¿Podría apagarlo, esperar treinta segundos y volver a encenderlo?",
		"ok lo hago ahora",
		"Perfecto, quedo a la espera.",
		"ya esta, sigue igual, parpadeando en rojo",
		"De acuerdo. Voy a lanzar una prueba remota sobre la línea, tardará un par de minutos.",
		"vale",
		"La prueba indica una incidencia en la zona que ya están revisando los técnicos.",
		"y cuanto tardaran?? trabajo desde casa y lo necesito",
		"Le entiendo perfectamente. La previsión es que quede resuelto hoy antes de las 20:00.",
		"uf, vale. y me descontareis algo de la factura?",
		"Sí, por supuesto. Le aplicaré un descuento proporcional a los días sin servicio.",
		"genial gracias",
		"He abierto la reclamación; su número de referencia es INC-448812.",
		"me lo podeis mandar por correo?",
		"Claro que sí, recibirá un correo con el número de incidencia en unos minutos.",
		"ok, y si mañana sigue sin funcionar?",
		"En ese caso escríbanos de nuevo indicando la referencia y enviaremos un técnico a su domicilio.",
		"vale perfecto",
		"Mientras tanto, puede usar los datos del móvil: le he activado 20 GB adicionales sin coste.",
		"ah muy bien, eso me ayuda mucho",
		"Me alegro. ¿Le confirmo el correo al que enviamos la información? Termina en @gmail.com, ¿verdad?",
		"si ese es",
		"Perfecto, ya está enviado.",
		"muchas gracias por la ayuda",
		"Gracias a usted por su paciencia.",
		"una ultima cosa, el descuento sale en la proxima factura?",
		"Sí, aparecerá en la factura del mes que viene como abono.",
		"ok entendido",
		"¿Hay algo más en lo que pueda ayudarle?",
		"no, nada mas, gracias",
		"Que tenga un buen día. ¡Hasta luego!",
	}
	segs := make([]transcript.Segment, len(lines))
	for i, l := range lines {
		sp := transcript.Customer
		if i%2 == 1 {
			sp = transcript.Agent
		}
		segs[i] = turn(sp, l)
	}
	return segments(segs...)
}

// BenchmarkRulesAudit audits a typical 40-turn chat with the default
// scorecard, compiled once as a worker would keep it.
func BenchmarkRulesAudit(b *testing.B) {
	_, e := defaultEngine(b)
	chat := typicalChat()
	vs, err := e.Audit(scoring.Chat, chat, "es")
	require.NoError(b, err)
	for _, v := range vs {
		require.True(b, v.Complies, fmt.Sprintf("%s: %s", v.CriterionID, v.Explanation))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Audit(scoring.Chat, chat, "es"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRulesCompile compiles the default scorecard, for a worker that
// compiles per job instead of keeping engines.
func BenchmarkRulesCompile(b *testing.B) {
	card, err := scoring.DefaultScorecard("es")
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rules.New(card); err != nil {
			b.Fatal(err)
		}
	}
}
