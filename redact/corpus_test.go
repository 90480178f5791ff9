package redact_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/transcript"
)

// TestEvasions is a corpus of the ways a customer, an agent or a speech
// engine writes data so that a naive detector misses it, written from how
// people and systems write (other scripts' digits, every kind of space and
// dash, spelled-out e-mail addresses, numbers dictated over several
// turns), not from the detectors; with every type on, each must become its
// placeholder. Beside them, numbers that are not data must stay.
func TestEvasions(t *testing.T) {
	t.Parallel()
	requireRedacted(t, []detection{
		// Cards written with other separators.
		{"card dots", "la tarjeta es 5500.0055.5555.5559", "la tarjeta es [CARD]"},
		{"card slashes", "4111/1111/1111/1111", "[CARD]"},
		{"card mixed separators", "4539-1488 0343.6467 gracias", "[CARD] gracias"},
		{"card spaced dots", "4111 . 1111 . 1111 . 1111", "[CARD]"},
		{"card spaced slashes", "4111 / 1111 / 1111 / 1111", "[CARD]"},
		{"card spaced hyphens", "4111 - 1111 - 1111 - 1111", "[CARD]"},
		{"card commas", "4111,1111,1111,1111", "[CARD]"},
		{"card underscores", "4111_1111_1111_1111", "[CARD]"},
		{"card bars", "4111|1111|1111|1111", "[CARD]"},
		{"card em dashes", "4111—1111—1111—1111", "[CARD]"},
		{"card minus signs", "4111−1111−1111−1111", "[CARD]"},
		{"card amex dots", "amex 3782.822463.10005", "amex [CARD]"},
		// Cards with spaces of other kinds, or none to see.
		{"card no-break spaces", "4111\u00a01111\u00a01111\u00a01111", "[CARD]"},
		{"card thin spaces", "4111\u20091111\u20091111\u20091111", "[CARD]"},
		{"card narrow no-break spaces", "4111\u202f1111\u202f1111\u202f1111", "[CARD]"},
		{"card ideographic spaces", "4111\u30001111\u30001111\u30001111", "[CARD]"},
		{"card zero-width spaces", "4111\u200b1111\u200b1111\u200b1111", "[CARD]"},
		{"card zero-width inside groups", "41\u200b11 11\u200c11 1\u200d111 11\u206011", "[CARD]"},
		{"card soft hyphens", "4111\u00ad1111\u00ad1111\u00ad1111", "[CARD]"},
		{"card direction marks", "\u202e4111 1111 1111 1111\u202c", "[CARD]"},
		// Cards in other scripts' digits.
		{"card full-width", "mi tarjeta: ４１１１ １１１１ １１１１ １１１１", "mi tarjeta: [CARD]"},
		{"card full-width unspaced", "４１１１１１１１１１１１１１１１", "[CARD]"},
		{"card arabic-indic", "٤١١١ ١١١١ ١١١١ ١١١١", "[CARD]"},
		{"card persian", "۴۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱", "[CARD]"},
		{"card devanagari", "४१११ ११११ ११११ ११११", "[CARD]"},
		{"card bengali", "৪১১১ ১১১১ ১১১১ ১১১১", "[CARD]"},
		{"card mathematical", "𝟒𝟏𝟏𝟏 𝟏𝟏𝟏𝟏 𝟏𝟏𝟏𝟏 𝟏𝟏𝟏𝟏", "[CARD]"},
		{"card mixed scripts", "4111 ١١١١ １１１１ ११११", "[CARD]"},
		{"card keycaps", "4\ufe0f\u20e31\ufe0f\u20e31\ufe0f\u20e31\ufe0f\u20e3 1\ufe0f\u20e31\ufe0f\u20e31\ufe0f\u20e31\ufe0f\u20e3 1111 1111", "[CARD]"},
		{"card circled", "①②③④ in words: 4111 1111 1111 1111", "1234 in words: [CARD]"},
		{"card full-width keycaps", "４\ufe0f\u20e3111 1111 1111 1111", "[CARD]"},
		{"card superscripts", "⁴¹¹¹ ¹¹¹¹ ¹¹¹¹ ¹¹¹¹", "[CARD]"},
		{"card digit by digit", "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "[CARD]"},
		{"card parenthesised digits", "⑷⑴⑴⑴ ⑴⑴⑴⑴ ⑴⑴⑴⑴ ⑴⑴⑴⑴", "[CARD])"}, // NFKC: "(4)(1)…(1)"
		{"card full-width hyphens", "５５００－００５５－５５５５－５５５９", "[CARD]"},
		// A code and an expiry date by a card or its placeholder.
		{"code after placeholder", "[CARD] caduca 12/29 y el código 123", "[CARD] caduca [EXPIRY] y el código [CVV]"},
		{"cvv alone", "el cvv es 737", "el cvv es [CVV]"},
		{"cvc en", "and the CVC is 4321", "and the CVC is [CVV]"},
		{"expiry en", "card 4000 0566 5566 5556 expires 08/27", "card [CARD] expires [EXPIRY]"},
		{"expiry es long", "la tarjeta 5555 5555 5555 4444, fecha de caducidad 03/2028", "la tarjeta [CARD], fecha de caducidad [EXPIRY]"},
		{"expiry valid thru", "visa ending 1111, valid thru 11-28, code 123", "visa ending 1111, valid thru [EXPIRY], code [CVV]"},
		{"expiry vence", "la tarjeta vence el 07/30", "la tarjeta vence el [EXPIRY]"},
		// Phones.
		{"phone dots", "mi móvil es 612.345.678", "mi móvil es [PHONE]"},
		{"phone dots pairs", "fijo 91.234.56.78", "fijo [PHONE]"},
		{"phone slashes", "612/345/678", "[PHONE]"},
		{"phone prefix dots", "+34.612.345.678", "[PHONE]"},
		{"phone full-width", "６１２ ３４５ ６７８", "[PHONE]"},
		{"phone no-break spaces", "612\u00a0345\u00a0678", "[PHONE]"},
		{"phone uk dots", "call 07700.900.123 after six", "call [PHONE] after six"},
		{"phone us dots", "it's 415.555.2671", "it's [PHONE]"},
		// E-mail addresses spelled out.
		{"email spaced", "juan . perez @ gmail . com", "[EMAIL]"},
		{"email spaced at", "escribe a juan @ gmail.com", "escribe a [EMAIL]"},
		{"email bracketed es", "JUAN (arroba) gmail (punto) com", "[EMAIL]"},
		{"email bracketed en", "juan[at]gmail[dot]com", "[EMAIL]"},
		{"email parentheses en", "mail me at jane.doe(at)outlook(dot)co(dot)uk please", "mail me at [EMAIL] please"},
		{"email braces", "juan{at}gmail{dot}com", "[EMAIL]"},
		{"email bracketed spaced", "maria [ at ] hotmail [ dot ] es", "[EMAIL]"},
		{"email said es upper", "MARIA PUNTO LOPEZ ARROBA HOTMAIL PUNTO ES", "[EMAIL]"},
		{"email said en", "it's jane at gmail dot com", "it's [EMAIL]"},
		{"email full-width", "ｊｕａｎ＠ｇｍａｉｌ．ｃｏｍ", "[EMAIL]"},
		{"email zero-width", "juan\u200b@\u200bgmail.com", "[EMAIL]"},
		// IBANs.
		{"iban dots", "ES91.2100.0418.4502.0005.1332", "[IBAN]"},
		{"iban hyphens", "cuenta ES91-2100-0418-4502-0005-1332 ok", "cuenta [IBAN] ok"},
		{"iban full-width", "ＥＳ９１ ２１００ ０４１８ ４５０２ ０００５ １３３２", "[IBAN]"},
		{"iban no-break spaces", "GB82\u00a0WEST\u00a01234\u00a05698\u00a07654\u00a032", "[IBAN]"},
		// DNI / NIE.
		{"dni full-width", "DNI １２３４５６７８Ｚ", "DNI [DNI]"},
		{"dni spaced groups", "12 345 678 Z", "[DNI]"},
		{"dni slashes", "12/34/56/78 Z", "[DNI]"},
		{"dni zero-width", "87654321\u200bX", "[DNI]"},
		{"nie hyphens", "X-1234567-L", "[DNI]"},
		{"nie arabic-indic", "Y ٧٦٥٤٣٢١ G", "[DNI]"},
		// What must stay.
		{"order number fails luhn dots", "pedido 4111.1111.1111.1112", "pedido 4111.1111.1111.1112"},
		{"order number full-width", "pedido ５１２３ ４５６７ ８９０１ ２３４５", "pedido 5123 4567 8901 2345"},
		{"tracking number", "tracking 1Z999AA10123456784 and 9400 1000 0000 0000 0000 00", "tracking 1Z999AA10123456784 and 9400 1000 0000 0000 0000 00"},
		{"two dates", "del 12/05/2024 - 13/05/2024 y del 01.02.2025 al 03.04.2025", "del 12/05/2024 - 13/05/2024 y del 01.02.2025 al 03.04.2025"},
		{"date then letter", "el 12/05/2024 y el 23.11.2025 a las 10.30", "el 12/05/2024 y el 23.11.2025 a las 10.30"},
		{"date then count", "01/02/2024 123 unidades", "01/02/2024 123 unidades"},
		{"amount es", "son 1.234,56 € y 12.345.678,90 euros", "son 1.234,56 € y 12.345.678,90 euros"},
		{"amount en", "£1,234.56 or $12,345.67, 612,345,678 or 1,234,567,890", "£1,234.56 or $12,345.67, 612,345,678 or 1,234,567,890"},
		{"list of years", "in 2019, 2020, 2021, 2022 and 2023", "in 2019, 2020, 2021, 2022 and 2023"},
		{"times", "de 9.30 a 14.00 y de 16:00 a 18:45", "de 9.30 a 14.00 y de 16:00 a 18:45"},
		{"years and counts", "en 2024 y 2025 pedí 3 de 5", "en 2024 y 2025 pedí 3 de 5"},
		{"version and address", "la versión 10.2.3 en 192.168.1.10", "la versión 10.2.3 en 192.168.1.10"},
		{"postcode by card", "la tarjeta llega al código postal 28013", "la tarjeta llega al código postal 28013"},
		{"security code without card", "the alarm's security code is 123", "the alarm's security code is 123"},
		{"expiry without card", "el plazo caduca el 12/05", "el plazo caduca el 12/05"},
		{"sixteen digit reference", "su referencia es 5123-4567-8901-2345", "su referencia es 5123-4567-8901-2345"},
		{"season", "the 2024/25 season", "the 2024/25 season"},
		{"said punto", "Estoy en casa. Punto. Gracias", "Estoy en casa. Punto. Gracias"},
		{"at and dot words", "I'm at work, dot the i's", "I'm at work, dot the i's"},
		{"sentence before address", "Vale. juan@gmail.com. Es todo", "Vale. [EMAIL]. Es todo"},
	})
}

// turn is one turn of a conversation in a corpus case: "C: …" is the
// customer's, "A: …" the agent's.
func conversation(lang string, lines ...string) transcript.Transcript {
	tr := transcript.Transcript{Language: lang}
	for _, l := range lines {
		speaker := transcript.Customer
		if strings.HasPrefix(l, "A: ") {
			speaker = transcript.Agent
		}
		tr.Segments = append(tr.Segments, transcript.Segment{Speaker: speaker, Text: l[3:]})
	}
	return tr
}

// TestEvasionsOverTurns: numbers dictated over several turns, with the
// other speaker's acknowledgements between them, and details said after
// the card.
func TestEvasionsOverTurns(t *testing.T) {
	t.Parallel()
	r, err := redact.New(all)
	require.NoError(t, err)
	cases := []struct {
		name string
		in   transcript.Transcript
		want string
	}{
		{"card in four turns es", conversation("es", "A: ¿El número de la tarjeta?", "C: 4111", "A: vale", "C: 1111", "A: sí",
			"C: 1111", "A: ajá", "C: 1111"),
			"¿El número de la tarjeta?\n[CARD]\nvale\n[CARD]\nsí\n[CARD]\najá\n[CARD]"},
		{"card in four turns en", conversation("en", "A: Card number please", "C: 4539", "A: ok", "C: 1488", "A: mhm", "C: 0343",
			"A: go on", "C: 6467."),
			"Card number please\n[CARD]\nok\n[CARD]\nmhm\n[CARD]\ngo on\n[CARD]."},
		{"card in turns said en", conversation("en", "C: four one one one one one one one", "A: uh huh", "C: one one one one one one one one"),
			"[CARD]\nuh huh\n[CARD]"},
		{"card in turns said es", conversation("es", "C: cinco cinco cero cero, cero cero cinco cinco", "A: mhm",
			"C: cinco cinco cinco cinco, cinco cinco cinco nueve"),
			"[CARD]\nmhm\n[CARD]"},
		{"card in turns full-width", conversation("es", "C: ４１１１ １１１１", "A: ok", "C: １１１１ １１１１"), "[CARD]\nok\n[CARD]"},
		{"card then code and expiry", conversation("es", "C: la tarjeta es 4111 1111 1111 1111", "A: ¿y el código de seguridad?",
			"C: 123", "A: ¿caducidad?", "C: caduca el 09/28"),
			"la tarjeta es [CARD]\n¿y el código de seguridad?\n[CVV]\n¿caducidad?\ncaduca el [EXPIRY]"},
		{"security code after card en", conversation("en", "C: 4111 1111 1111 1111", "A: thanks", "C: security code is 123"),
			"[CARD]\nthanks\nsecurity code is [CVV]"},
		{"iban in two turns", conversation("es", "A: ¿Me da el IBAN?", "C: ES91 2100 0418 4502", "A: vale", "C: 0005 1332"),
			"¿Me da el IBAN?\n[IBAN]\nvale\n[IBAN]"},
		{"iban in three turns", conversation("es", "C: ES91 2100", "A: sí", "C: 0418 4502", "A: ok", "C: 0005 1332 y ya está"),
			"[IBAN]\nsí\n[IBAN]\nok\n[IBAN] y ya está"},
		{"phone in two turns", conversation("es", "C: mi móvil es el 612", "A: ajá", "C: 345 678"), "mi móvil es el [PHONE]\najá\n[PHONE]"},
		// What must stay.
		{"two order numbers", conversation("es", "C: mi pedido es 4500 1234", "A: vale", "C: 5678 9010"),
			"mi pedido es 4500 1234\nvale\n5678 9010"},
		{"numbers of both speakers", conversation("es", "C: 4111 1111", "A: 1111 1111"), "4111 1111\n1111 1111"},
		{"numbers apart by a question", conversation("en", "C: the box says error 4111 1111",
			"A: and the number on your account, please?", "C: 1111 1111"),
			"the box says error 4111 1111\nand the number on your account, please?\n1111 1111"},
		{"years over turns", conversation("es", "C: desde 2019", "A: vale", "C: 2024 más o menos"), "desde 2019\nvale\n2024 más o menos"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, recs := r.Transcript(c.in)
			require.Equal(t, c.want, out.Text)
			require.Equal(t, placeholders(c.want), len(recs))
		})
	}
}

// TestNormalized: the redacted text is the text the detectors read, so
// that what stores or indexes it cannot read a number they did not.
func TestNormalized(t *testing.T) {
	t.Parallel()
	r, err := redact.New(redact.RedactionSettings{})
	require.NoError(t, err)
	out, recs := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{{Text: "pedido ５１２３\u200b٤٥٦\u00a0ﬁn 👩\u200d💻, nº 5, 1ª"}}})
	require.Empty(t, recs)
	require.Equal(t, "pedido 5123456 fin 👩\u200d💻, nº 5, 1ª", out.Text)
}
