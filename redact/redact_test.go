package redact_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/transcript"
)

var all = redact.RedactionSettings{Types: redact.Types}

// one redacts a single customer turn with every type on.
func one(t *testing.T, text string) (string, []redact.Record) {
	t.Helper()
	r, err := redact.New(all)
	require.NoError(t, err)
	out, recs := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{{Speaker: transcript.Customer, Text: text}}})
	return out.Segments[0].Text, recs
}

// detection is a text and what it must become with every type on.
type detection struct {
	name, in, want string
}

var placeholder = regexp.MustCompile(`\[[A-Z_]+\]`)

// placeholders counts the placeholders in text.
func placeholders(text string) int { return len(placeholder.FindAllString(text, -1)) }

// requireRedacted checks each case, and that the records point at the
// placeholders.
func requireRedacted(t *testing.T, cases []detection) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, recs := one(t, c.in)
			require.Equal(t, c.want, got)
			require.Equal(t, placeholders(c.want)-placeholders(c.in), len(recs))
			for _, r := range recs {
				require.Equal(t, "["+r.Type+"]", string([]rune(got)[r.Start:r.End]), "offsets of %+v", r)
			}
		})
	}
}

func TestDetectors(t *testing.T) {
	t.Parallel()
	requireRedacted(t, []detection{
		// Cards (Luhn).
		{"card digits", "mi tarjeta es la 4500123456789012 gracias", "mi tarjeta es la [CARD] gracias"},
		{"card grouped", "my card is 4500 1234 5678 9012.", "my card is [CARD]."},
		{"card hyphens", "4500-1234-5678-9012", "[CARD]"},
		{"card spoken es", "es la cuatro cinco cinco cinco cero cero cero cero uno dos tres cuatro cinco seis siete cinco vale",
			"es la [CARD] vale"},
		{"card spoken en", "it's four five double five oh oh oh oh one two three four five six seven five ok",
			"it's [CARD] ok"},
		{"card spoken commas", "cuatro, cinco, cinco, cinco, cero, cero, cero, cero, uno, dos, tres, cuatro, cinco, seis, siete, cinco",
			"[CARD]"},
		{"card then code", "4500 1234 5678 9012 123", "[CARD] [CVV]"},
		{"amex", "amex 3782 822463 10005", "amex [CARD]"},
		// Security codes near a card.
		{"cvv es", "el código de seguridad de la tarjeta es 123", "el código de seguridad de la tarjeta es [CVV]"},
		{"cvv en", "the CVV on my card is 4567", "the CVV on my card is [CVV]"},
		{"cvv spoken", "de la tarjeta, el cvv es uno dos tres", "de la tarjeta, el cvv es [CVV]"},
		// DNI / NIE.
		{"dni", "mi DNI es 12345678Z", "mi DNI es [DNI]"},
		{"dni spaced", "DNI 12345678 z, gracias", "DNI [DNI], gracias"},
		{"dni hyphen", "12345678-Z", "[DNI]"},
		{"dni dots", "12.345.678-Z", "[DNI]"},
		{"dni spoken", "uno dos tres cuatro cinco seis siete ocho zeta", "[DNI]"},
		{"nie", "NIE X1234567L", "NIE [DNI]"},
		{"nie spaced", "mi NIE es x 1234567 l", "mi NIE es [DNI]"},
		{"nie spoken", "equis uno dos tres cuatro cinco seis siete ele", "[DNI]"},
		// IBAN.
		{"iban es", "la cuenta ES91 2100 0418 4502 0005 1332 por favor", "la cuenta [IBAN] por favor"},
		{"iban compact", "IBAN: ES9121000418450200051332.", "IBAN: [IBAN]."},
		{"iban gb", "GB82 WEST 1234 5698 7654 32 thanks", "[IBAN] thanks"},
		{"iban lower", "es91 2100 0418 4502 0005 1332", "[IBAN]"},
		// Phones.
		{"phone es", "llámame al 612 345 678", "llámame al [PHONE]"},
		{"phone es plain", "mi móvil es 612345678", "mi móvil es [PHONE]"},
		{"phone es prefix", "+34 612 34 56 78", "[PHONE]"},
		{"phone es 0034", "0034 912 345 678", "[PHONE]"},
		{"phone es spoken", "seis uno dos tres cuatro cinco seis siete ocho", "[PHONE]"},
		{"phone uk", "call me on 07700 900123", "call me on [PHONE]"},
		{"phone uk intl", "+44 20 7946 0958", "[PHONE]"},
		{"phone us", "it's (415) 555-2671", "it's [PHONE]"},
		{"phone us intl", "+1 415 555 2671", "[PHONE]"},
		{"phone us spoken", "four one five five five five two six seven one", "[PHONE]"},
		// E-mail.
		{"email", "escríbeme a juan.perez@gmail.com", "escríbeme a [EMAIL]"},
		{"email spoken es", "es juan punto perez arroba gmail punto com", "es [EMAIL]"},
		{"email spoken en", "it's john dot smith at outlook dot co dot uk thanks", "it's [EMAIL] thanks"},
		{"email mixed", "juan.perez arroba gmail.com", "[EMAIL]"},
		// What must stay.
		{"order number fails luhn", "el pedido 4500 1234 5678 9010 llegó", "el pedido 4500 1234 5678 9010 llegó"},
		{"order number en", "order 4500123456789010 shipped", "order 4500123456789010 shipped"},
		{"dni without number", "¿me confirma su DNI, por favor?", "¿me confirma su DNI, por favor?"},
		{"dni wrong letter", "mi DNI es 12345678A", "mi DNI es 12345678A"},
		{"amount es", "son 1.250,50 euros al mes", "son 1.250,50 euros al mes"},
		{"amount en", "that's $1,299.99 a year, or 129 a month", "that's $1,299.99 a year, or 129 a month"},
		{"date", "el 12/05/2024 y el 3 de marzo de 2025", "el 12/05/2024 y el 3 de marzo de 2025"},
		{"reference", "su incidencia es INC-4432", "su incidencia es INC-4432"},
		{"time", "a las 10:30 o a las 18:45", "a las 10:30 o a las 18:45"},
		{"cvv without card", "the security code is 123", "the security code is 123"},
		{"number near card without code", "my card expires in 2027 and costs 150", "my card expires in 2027 and costs 150"},
		{"ten digit reference", "pedido 4155552671", "pedido 4155552671"},
		{"oh alone", "oh, four", "oh, four"},
		{"spoken words", "one of the two options", "one of the two options"},
		{"iban invalid", "ES91 2100 0418 4502 0005 1333", "ES91 2100 0418 4502 0005 1333"},
		{"at without domain", "I'm at home now", "I'm at home now"},
		{"short numbers", "tengo 3 hijos de 5, 8 y 12 años", "tengo 3 hijos de 5, 8 y 12 años"},
		// Found in the evaluation set's conversations.
		{"date then number", "Oliver Tran, 03/08/2019, 0412 555 018", "Oliver Tran, 03/08/2019, 0412 555 018"},
		{"reference then date", "HP-7730291, 14/02/1985", "HP-7730291, 14/02/1985"},
		{"policy number", "La póliza es la 88-4471203", "La póliza es la 88-4471203"},
		{"folio with year", "el folio ACL-2026-558109", "el folio ACL-2026-558109"},
		{"claim with year", "nro de reclamo: 2026-118734", "nro de reclamo: 2026-118734"},
		{"health number", "2233 44556 1, 5 June 1990", "2233 44556 1, 5 June 1990"},
		{"web address", "sign up at taskly.io/business-trial", "sign up at taskly.io/business-trial"},
		{"phone mexico", "55 1234 5678, a nombre de Luis", "[PHONE], a nombre de Luis"},
		{"email with number", "sí es pablo punto arias ochenta y dos arroba gmail punto com", "sí es [EMAIL]"},
		{"email country", "it's sam dot reid at xtra dot co dot nz and", "it's [EMAIL] and"},
		{"email country es", "mantenimiento arroba lossamanes punto com punto ve", "[EMAIL]"},
	})
}

// TestNumbersSaidInGroups covers numbers read aloud in tens, teens and (in
// Spanish) hundreds, as people read cards, phones and accounts, and what
// such words say in a call that is not data.
func TestNumbersSaidInGroups(t *testing.T) {
	t.Parallel()
	requireRedacted(t, []detection{
		// Cards (4555 0000 1234 5675).
		{"card tens es", "es la cuarenta y cinco cincuenta y cinco cero cero cero cero doce treinta y cuatro cincuenta y seis setenta y cinco vale",
			"es la [CARD] vale"},
		{"card tens en", "it's forty five fifty-five oh oh oh oh twelve thirty four fifty six seventy five ok", "it's [CARD] ok"},
		{"card hundreds es", "cuatrocientos cincuenta y cinco, quinientos, cero cero doce, trescientos cuarenta y cinco, seiscientos setenta y cinco",
			"[CARD]"},
		{"card mixed es", "cuarenta y cinco cincuenta y cinco 0000 1234 cincuenta y seis setenta y cinco", "[CARD]"},
		{"card then code es", "cuarenta y cinco cincuenta y cinco cero cero cero cero doce treinta y cuatro cincuenta y seis setenta y cinco ciento veintitrés",
			"[CARD] [CVV]"},
		{"card then code en", "forty-five fifty-five double oh double oh twelve thirty-four fifty-six seventy-five one twenty-three", "[CARD] [CVV]"},
		// Security codes.
		{"cvv hundreds es", "el código de seguridad de la tarjeta es ciento veintitrés", "el código de seguridad de la tarjeta es [CVV]"},
		{"cvv tens en", "the CVV on my card is four fifty-six", "the CVV on my card is [CVV]"},
		// DNI.
		{"dni tens es", "mi DNI es doce treinta y cuatro cincuenta y seis setenta y ocho zeta", "mi DNI es [DNI]"},
		{"dni tens en", "my DNI is twelve thirty-four fifty-six seventy-eight z", "my DNI is [DNI]"},
		// Phones.
		{"phone tens es", "mi móvil es el seis doce treinta y cuatro cincuenta y seis setenta y ocho", "mi móvil es el [PHONE]"},
		{"phone hundreds es", "seiscientos doce, treinta y cuatro, cincuenta y seis, setenta y ocho", "[PHONE]"},
		{"phone teens es", "seis noventa y nueve dieciséis veintitrés cero ocho", "[PHONE]"},
		{"phone teens es unaccented", "seis noventa y nueve dieciseis veintitres cero ocho", "[PHONE]"},
		{"phone tens en", "four fifteen, five five five, twenty-six seventy-one", "[PHONE]"},
		{"phone teens en", "two one two five five five nineteen ninety nine", "[PHONE]"},
		// Spoken IBANs (ES91 2100 0418 4502 0005 1332, GB82 WEST 1234 5698 7654 32).
		{"iban spoken es", "mi cuenta es e s noventa y uno dos uno cero cero cero cuatro dieciocho cuarenta y cinco cero dos cero cero cero cinco trece treinta y dos gracias",
			"mi cuenta es [IBAN] gracias"},
		{"iban spoken es letter names", "e ese noventa y uno, veintiuno cero cero, cero cuatro dieciocho, cuarenta y cinco cero dos, cero cero cero cinco, trece treinta y dos",
			"[IBAN]"},
		{"iban spoken es capitals", "sí, ES noventa y uno 2100 0418 4502 0005 1332", "sí, [IBAN]"},
		{"iban spoken en", "g b eighty two w e s t twelve thirty four fifty six ninety eight seventy six fifty four thirty two thanks", "[IBAN] thanks"},
		// What must stay.
		{"digit and noun es", "tardará tres días", "tardará tres días"},
		{"digit and noun en", "it takes three days", "it takes three days"},
		{"tens and noun es", "se lo envío en veinte minutos", "se lo envío en veinte minutos"},
		{"tens and noun en", "I'll send it in twenty minutes", "I'll send it in twenty minutes"},
		{"fee es", "la cuota de cuarenta y cinco euros", "la cuota de cuarenta y cinco euros"},
		{"fee en", "the forty-five pound fee", "the forty-five pound fee"},
		{"time es", "a las doce y media o a las nueve y cuarenta y cinco", "a las doce y media o a las nueve y cuarenta y cinco"},
		{"time en", "at twelve thirty or at half past nine", "at twelve thirty or at half past nine"},
		{"lone tens es", "veinte", "veinte"},
		{"lone tens en", "twenty", "twenty"},
		{"age es", "tengo treinta y cuatro años", "tengo treinta y cuatro años"},
		{"age en", "I'm thirty-four", "I'm thirty-four"},
		{"range es", "entre cuarenta y cincuenta euros", "entre cuarenta y cincuenta euros"},
		{"range en", "between forty and fifty pounds", "between forty and fifty pounds"},
		{"price es", "cuesta noventa y nueve con noventa y nueve", "cuesta noventa y nueve con noventa y nueve"},
		{"price en", "it's ninety-nine ninety-nine", "it's ninety-nine ninety-nine"},
		{"year es", "desde dos mil veintiséis", "desde dos mil veintiséis"},
		{"year en", "since nineteen eighty-five", "since nineteen eighty-five"},
		{"counting es", "sesenta, setenta, ochenta, noventa, cien", "sesenta, setenta, ochenta, noventa, cien"},
		{"counting en", "twenty, thirty, forty, fifty, sixty", "twenty, thirty, forty, fifty, sixty"},
		{"iban spoken wrong check es", "e s noventa y tres dos uno cero cero cero cuatro dieciocho cuarenta y cinco cero dos cero cero cero cinco trece treinta y dos",
			"e s noventa y tres dos uno cero cero cero cuatro dieciocho cuarenta y cinco cero dos cero cero cero cinco trece treinta y dos"},
		{"iban spoken wrong check en", "g b eighty three w e s t twelve thirty four fifty six ninety eight seventy six fifty four thirty two",
			"g b eighty three w e s t twelve thirty four fifty six ninety eight seventy six fifty four thirty two"},
	})
}

func TestCardSplitAcrossTurns(t *testing.T) {
	t.Parallel()
	r, err := redact.New(redact.DefaultSettings(""))
	require.NoError(t, err)
	for _, lang := range []struct{ a, b, c string }{
		{"4500 1234", "¿sí?", "5678 9012"},
		{"cuatro cinco cero cero uno dos tres cuatro", "ajá", "cinco seis siete ocho nueve cero uno dos"},
		{"four five oh oh one two three four", "go on", "five six seven eight nine oh one two"},
		{"cuarenta y cinco cero cero doce treinta y cuatro", "ajá", "cincuenta y seis setenta y ocho noventa doce"},
		{"forty-five oh oh twelve thirty-four", "go on", "fifty-six seventy-eight ninety twelve"},
	} {
		out, recs := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{
			{Speaker: transcript.Agent, Text: "¿El número de la tarjeta?"},
			{Speaker: transcript.Customer, Text: lang.a},
			{Speaker: transcript.Agent, Text: lang.b},
			{Speaker: transcript.Customer, Text: lang.c},
		}})
		require.Equal(t, "[CARD]", out.Segments[1].Text)
		require.Equal(t, lang.b, out.Segments[2].Text)
		require.Equal(t, "[CARD]", out.Segments[3].Text)
		require.Len(t, recs, 2)
		require.Equal(t, "card_split", recs[0].Detector)
		require.Equal(t, 3, recs[1].Segment)
		require.NotContains(t, out.Text, "1234")
	}
	// Two numbers of different speakers are not one card.
	out, _ := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{
		{Speaker: transcript.Customer, Text: "4500 1234"},
		{Speaker: transcript.Agent, Text: "5678 9012"},
	}})
	require.Equal(t, "4500 1234", out.Segments[0].Text)
	// An error code and a phone number that happen to pass Luhn together.
	out, recs := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{
		{Speaker: transcript.Customer, Text: "the box just says no signal e two oh one"},
		{Speaker: transcript.Agent, Text: "and the number on the account?"},
		{Speaker: transcript.Customer, Text: "the phone number is five five five two one eight four four three oh"},
	}})
	require.Empty(t, recs, out.Text)
}

func TestSecurityCodeAnswered(t *testing.T) {
	t.Parallel()
	r, err := redact.New(redact.DefaultSettings(""))
	require.NoError(t, err)
	out, recs := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{
		{Speaker: transcript.Customer, Text: "quiero pagar con tarjeta"},
		{Speaker: transcript.Agent, Text: "¿me dice el código de seguridad?"},
		{Speaker: transcript.Customer, Text: "sí, es el 987"},
		{Speaker: transcript.Agent, Text: "gracias, su pedido es el 456"},
	}})
	require.Equal(t, "sí, es el [CVV]", out.Segments[2].Text)
	require.Equal(t, "gracias, su pedido es el 456", out.Segments[3].Text)
	require.Len(t, recs, 1)
	require.Equal(t, redact.Record{Type: "CVV", Segment: 2, Start: 10, End: 15, Detector: "cvv"}, recs[0])
}

func TestOnlyEnabledTypes(t *testing.T) {
	t.Parallel()
	r, err := redact.New(redact.DefaultSettings(""))
	require.NoError(t, err)
	text := "tarjeta 4500 1234 5678 9012, DNI 12345678Z, móvil 612345678"
	out, _ := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{{Speaker: transcript.Customer, Text: text}}})
	require.Equal(t, "tarjeta [CARD], DNI 12345678Z, móvil 612345678", out.Text)
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	r, err := redact.New(redact.RedactionSettings{Patterns: []redact.RedactionPattern{{Name: "ORDER_REF", Regexp: `PED-[0-9]{6}`}}})
	require.NoError(t, err)
	out, recs := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{{Text: "el pedido PED-123456 y PED-12"}}})
	require.Equal(t, "el pedido [ORDER_REF] y PED-12", out.Text)
	require.Equal(t, []redact.Record{{Type: "ORDER_REF", Segment: 0, Start: 10, End: 21, Detector: "pattern"}}, recs)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", redact.MaxPatternLength+1)
	many := make([]redact.RedactionPattern, redact.MaxPatterns+1)
	for i := range many {
		many[i] = redact.RedactionPattern{Name: "P" + strings.Repeat("X", i), Regexp: "x"}
	}
	cases := []struct {
		name  string
		s     redact.RedactionSettings
		field string
	}{
		{"unknown type", redact.RedactionSettings{Types: []string{"card", "passport"}}, "types[1]"},
		{"twice", redact.RedactionSettings{Types: []string{"card", "card"}}, "types[1]"},
		{"bad regexp", redact.RedactionSettings{Patterns: []redact.RedactionPattern{{Name: "REF", Regexp: "PED-[0-9"}}}, "patterns[0].regexp"},
		{"empty match", redact.RedactionSettings{Patterns: []redact.RedactionPattern{{Name: "REF", Regexp: "x*"}}}, "patterns[0].regexp"},
		{"too long", redact.RedactionSettings{Patterns: []redact.RedactionPattern{{Name: "REF", Regexp: long}}}, "patterns[0].regexp"},
		{"bad name", redact.RedactionSettings{Patterns: []redact.RedactionPattern{{Name: "ref", Regexp: "x"}}}, "patterns[0].name"},
		{"built-in name", redact.RedactionSettings{Patterns: []redact.RedactionPattern{{Name: "CARD", Regexp: "x"}}}, "patterns[0].name"},
		{"same name", redact.RedactionSettings{Patterns: []redact.RedactionPattern{{Name: "REF", Regexp: "x"}, {Name: "REF", Regexp: "y"}}}, "patterns[1].name"},
		{"too many", redact.RedactionSettings{Patterns: many}, "patterns"},
	}
	for _, c := range cases {
		problems := c.s.Validate()
		require.NotEmpty(t, problems, c.name)
		require.Equal(t, c.field, problems[0].Field, c.name)
		_, err := redact.New(c.s)
		require.Error(t, err, c.name)
	}
	require.Empty(t, redact.DefaultSettings("").Validate())
	require.Empty(t, all.Validate())
}

func TestAudioSpans(t *testing.T) {
	t.Parallel()
	r, err := redact.New(redact.DefaultSettings(""))
	require.NoError(t, err)
	start, end := 10.0, 20.0
	// 100 characters over 10 s: the card (19 characters from 40) is said
	// from 14 s to 15.9 s.
	text := strings.Repeat("a", 39) + " 4500 1234 5678 9012 " + strings.Repeat("b", 40)
	_, recs := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{{Start: &start, End: &end, Text: text}}})
	require.Len(t, recs, 1)
	require.InDelta(t, 14.0-redact.AudioMargin, *recs[0].AudioStart, 1e-9)
	require.InDelta(t, 15.9+redact.AudioMargin, *recs[0].AudioEnd, 1e-9)
	// Untimed turns (chats) have no audio span.
	_, recs = r.Transcript(transcript.Transcript{Segments: []transcript.Segment{{Text: "4500 1234 5678 9012"}}})
	require.Nil(t, recs[0].AudioStart)
}

func TestTextWithoutSegments(t *testing.T) {
	t.Parallel()
	r, err := redact.New(redact.DefaultSettings(""))
	require.NoError(t, err)
	out, recs := r.Transcript(transcript.Transcript{Text: "card 4500 1234 5678 9012"})
	require.Equal(t, "card [CARD]", out.Text)
	require.Empty(t, out.Segments)
	require.Len(t, recs, 1)
}

// TestHomographs: "once" and "ten" are numbers only in their own language
// when the transcript's is known, so that they do not join the number
// said after them; in a transcript of unknown language both are numbers.
func TestHomographs(t *testing.T) {
	t.Parallel()
	r, err := redact.New(all)
	require.NoError(t, err)
	cases := []struct {
		name, lang, in, want string
	}{
		{"once in english", "en", "I called once, four five five five oh oh oh oh one two three four five six seven five",
			"I called once, [CARD]"},
		{"once in spanish", "es", "mi DNI es once veintitrés cuarenta y cinco sesenta y siete equis", "mi DNI es [DNI]"},
		{"once unknown", "", "mi DNI es once veintitrés cuarenta y cinco sesenta y siete equis", "mi DNI es [DNI]"},
		{"ten in spanish", "es-ES", "ten, cuatro cinco cinco cinco cero cero cero cero uno dos tres cuatro cinco seis siete cinco", "ten, [CARD]"},
		{"ten in english", "en", "two one two, five five five, ten twenty", "[PHONE]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, _ := r.Transcript(transcript.Transcript{Language: c.lang, Segments: []transcript.Segment{{Speaker: transcript.Customer, Text: c.in}}})
			require.Equal(t, c.want, out.Text)
		})
	}
}

// TestSpokenDetectors: what is said in words is recorded as such.
func TestSpokenDetectors(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, detector string }{
		{"cuarenta y cinco cincuenta y cinco cero cero cero cero doce treinta y cuatro cincuenta y seis setenta y cinco", "card_spoken"},
		{"forty five fifty-five oh oh oh oh twelve thirty four fifty six seventy five", "card_spoken"},
		{"e s noventa y uno dos uno cero cero cero cuatro dieciocho cuarenta y cinco cero dos cero cero cero cinco trece treinta y dos", "iban_spoken"},
		{"g b eighty two w e s t twelve thirty four fifty six ninety eight seventy six fifty four thirty two", "iban_spoken"},
		{"ES91 2100 0418 4502 0005 1332", "iban"},
	}
	for _, c := range cases {
		_, recs := one(t, c.in)
		require.Len(t, recs, 1, c.in)
		require.Equal(t, c.detector, recs[0].Detector, c.in)
	}
}

// TestDefaultSettings: what a campaign redacts until told otherwise
// depends on its language; cards and security codes in any.
func TestDefaultSettings(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string][]string{
		"es":    {"card", "cvv", "dni", "iban", "phone"},
		"es-MX": {"card", "cvv", "dni", "iban", "phone"},
		"en":    {"card", "cvv", "phone", "email"},
		"en_GB": {"card", "cvv", "phone", "email"},
		"fr":    {"card", "cvv"},
		"":      {"card", "cvv"},
	} {
		s := redact.DefaultSettings(lang)
		require.Equal(t, want, s.Types, lang)
		require.Empty(t, s.Validate(), lang)
	}
	r, err := redact.New(redact.DefaultSettings("es"))
	require.NoError(t, err)
	out, _ := r.Transcript(transcript.Transcript{Language: "es", Segments: []transcript.Segment{{Text: "DNI 12345678Z, móvil 612 345 678, juan@gmail.com"}}})
	require.Equal(t, "DNI [DNI], móvil [PHONE], juan@gmail.com", out.Text)
}
