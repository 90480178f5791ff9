package redact_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// benchChat is a chat of the length the pipeline's benchmarks upload,
// with a DNI and a card number.
const benchChat = `Agente: Buenos dias, gracias por contactar con Telecable, le atiende Marta.
Cliente: Hola, me han cobrado dos veces la factura de este mes.
Agente: Vaya, lo siento mucho, entiendo su preocupacion. Para ayudarle, me indica su DNI?
Cliente: Si, 12345678Z.
Agente: Gracias. Efectivamente veo el cargo duplicado. Ya esta solucionado, le devolvemos el importe en 48 horas a la tarjeta 4500 1234 5678 9012.
Cliente: Estupendo, gracias.
Agente: Hay algo mas en lo que pueda ayudarle?
Cliente: No, nada mas.
Agente: Gracias a usted, que tenga un buen dia.
`

// BenchmarkRedact measures redacting a chat of every type against the
// CPU work the pipeline does with it anyway in the same run: parsing it
// and the rules engine's audit (audit-ns; the database's work, most of
// the pipeline's cost, not counted). overhead-% is the first over the
// second: an upper bound of what redaction adds to the pipeline's CPU.
func BenchmarkRedact(b *testing.B) {
	r, err := redact.New(redact.RedactionSettings{Types: redact.Types})
	require.NoError(b, err)
	card, err := scoring.DefaultScorecard("es")
	require.NoError(b, err)
	tr, _, err := transcript.ParseChat([]byte(benchChat))
	require.NoError(b, err)
	engine := &auditor.Rules{}
	if _, recs := r.Transcript(tr); len(recs) != 2 {
		b.Fatalf("redacted %v", recs)
	}
	ctx := context.Background()
	// Each iteration handles chats chats, so that make bench's few
	// iterations (BENCHTIME=3x) still time thousands.
	const chats = 500
	var audit, redaction float64
	b.ResetTimer()
	for range b.N {
		for range chats {
			start := nanotime()
			t, _, err := transcript.ParseChat([]byte(benchChat))
			require.NoError(b, err)
			_, err = auditor.Judge(ctx, engine, card, scoring.Chat, t, "es", 85, 0.8)
			require.NoError(b, err)
			mid := nanotime()
			r.Transcript(t)
			end := nanotime()
			audit += float64(mid - start)
			redaction += float64(end - mid)
		}
	}
	n := float64(b.N * chats)
	b.ReportMetric(audit/n, "audit-ns/chat")
	b.ReportMetric(redaction/n, "redact-ns/chat")
	b.ReportMetric(redaction/audit*100, "overhead-%")
}

func nanotime() int64 { return time.Now().UnixNano() }
