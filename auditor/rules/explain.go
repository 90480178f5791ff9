package rules

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// listed is how many phrases an explanation names before "and N more".
const listed = 5

// scope is what a rule looked at, for explanations: its speaker, and the
// windows that applied to this transcript (seconds for a timed call, turns
// otherwise; zero when unbounded).
type scope struct {
	speaker               string
	first, last           float64
	firstTurns, lastTurns int
	// firstOwn and lastOwn count the speaker's own turns.
	firstOwn, lastOwn int
	// afterCustomer: only after the customer's Nth turn.
	afterCustomer int
}

// wording writes explanations in one language. Each method returns whole
// sentences.
type wording interface {
	// said: a phrase was said in scope.
	said(c citation) string
	// missing: none of phrases was said in scope; outside, if not nil, is
	// where one was said out of it.
	missing(phrases []string, s scope, outside *citation) string
	// forbidden: a phrase of "none" was said (c is the first of times).
	forbidden(c citation, times int) string
	// clean: no phrase of "none" was said.
	clean(s scope) string
	// late: c, which any or all look for, was said only after b, a phrase
	// of "before".
	late(b, c citation) string
	// opposite: c, a phrase of "against", was said.
	opposite(c citation) string
	// negated: a phrase was said in scope, but negated.
	negated(c citation) string
	// pressed: after what met the criterion, the other party said c,
	// which puts it in doubt.
	pressed(c citation) string
	// settled: nothing the rule looks for was said, but the other party's
	// last turns said c, as when the interaction ends settled, which
	// suggests the verdict complies.
	settled(c citation) string
	// restated: c is a sentence that restates what the other party had
	// just said.
	restated(c citation) string
	// notApplicable: none of phrases, which make the criterion apply, was
	// said.
	notApplicable(phrases []string) string
	// hint: nothing decisive was said, but c suggests the verdict complies.
	hint(c citation, complies bool) string
	// cues: nothing decisive was said, but the cues cs, said in one turn,
	// together suggest the verdict complies.
	cues(cs []citation, complies bool) string
	// unprompted: nothing decisive was said, but c was said when the
	// other party had said nothing like it before, which suggests
	// the verdict complies.
	unprompted(c citation, complies bool) string
	// tone: no phrase of none was said, but a tone model scores c, a
	// whole turn whose quote is its most telling sentence, score; telling
	// are its most telling pairs of words. complies:
	// the score is below the rule's fails_at, so the verdict stands for
	// an analyst to review.
	tone(c citation, score float64, telling []string, complies bool) string
	// shows: no phrase of any was said, but a tone model scores c (as
	// tone) as meeting the criterion. complies: the score reaches the
	// rule's meets_at; else the absence is in doubt, for an analyst to
	// review.
	shows(c citation, score float64, telling []string, complies bool) string
	// measured: a figure of what a call's channels tell (the limit of
	// key), got, where the longest stretch of it was when at is not nil,
	// against limit; share: a share, else seconds.
	measured(key string, got, limit float64, at *transcript.Span, within, share bool) string
	// unanalysed: the call's channels have no figures.
	unanalysed() string
	// mono: the call's channels cannot tell the sides apart.
	mono() string
	// review: the figure of key cannot be measured.
	review(key string) string
}

// toneQuoted is how much of a turn a tone explanation quotes.
const toneQuoted = 200

// excerpt shortens a turn's text to toneQuoted bytes, on a word boundary.
func excerpt(s string) string {
	if len(s) <= toneQuoted {
		return s
	}
	cut := strings.LastIndexByte(s[:toneQuoted], ' ')
	if cut <= 0 {
		cut = toneQuoted
	}
	return s[:cut] + "…"
}

// wordingFor picks the wording for a BCP 47 language tag: Spanish for "es"
// and its regional variants, English otherwise.
func wordingFor(lang string) wording {
	if scoring.IsSpanish(lang) {
		return spanish{}
	}
	return english{}
}

// clock formats seconds as mm:ss (minutes keep counting past 59).
func clock(seconds float64) string {
	s := int(seconds)
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// inLanguage keeps, of phrases, a rule's lexicon of both languages, those
// that look Spanish when spanish is set and the others otherwise, so that
// an explanation quotes only what could have been said in the
// transcript's language; all of them when none does (a rule of one
// language). It only chooses what is shown; nothing is judged by it.
func inLanguage(phrases []string, spanish bool) []string {
	var out []string
	for _, p := range phrases {
		if looksSpanish(p) == spanish {
			out = append(out, p)
		}
	}
	if out == nil {
		return phrases
	}
	return out
}

// spanishWords are words only Spanish uses among the lexicon's phrases.
var spanishWords = set("de la el que su mi le lo por para con una un del los las ya muy es en se al dni nie usted " +
	"hola holi buenas buenos buen gracias hasta luego pronto vemos chao chau saludo saludos abrazo tenga tengas pase " +
	"pases siga sigas vayas feliz soy llamo habla atiende algo alguna alguna otra cosa ayudar ayudo puedo puedes " +
	"necesita necesitas nada sea adios buena tarde noche noches dia dias queda quedo abrimos confirmad confirmado " +
	"confirmada resuelto tramit listo hecho nombre completo titular quien seguridad motivos documento identidad " +
	"pregunta preguntas numero numeros digitos fecha nacimiento han cobrado cobraron cobran rechazaron quiero tengo " +
	"llega veo reviso consulto miro busco cambiar cancelar aqui ahi aca te tu terminacion terminada terminado " +
	"aprende apurate ayuda bien bobo boludo bueno caballero carajo che ciencia cinco clarito claro clic " +
	"clientes como comprendo comprensible cualquier cuando cuatro cubre culpa da dale demora despacito " +
	"dicen dicho diga digas disculpas disponible elegiste elige elija encima enhorabuena entiendo " +
	"entra entre esa escriben ese eso esperando estar explicado falta felicidades felicitaciones fuera " +
	"gente grandes grite haberlo hace haga hagas hago haya haz hombre horario idiota igual imagino " +
	"importa incluye increible ingeniero insista interrumpa jaja jajaja jajajaja jeje joder lamentamos " +
	"lamento leer letras ley llaman mal menos menuda miente mierda mijo mil mira mirar mire mis mucha " +
	"nena ni ninguna normas nos nosotros novedad novedades nuestro obviamente ocupada oiga otros oye " +
	"parto pedimos pensado persona pido poner porque prisa procede puedan pues pulsa pulse punto puta " +
	"puto reglas repetir sabe sabes saldo salen seguro selecciona sentido ser si siempre significa sin " +
	"sola solas solita solito solitos solo solos supuestamente suya suyo tampoco tanto tarda tardan tela " +
	"tengamos terminamos tiene tienes toca todos tono tonta toque tres tuya tuyo vale valen vamos varias " +
	"vaya veces ver vive vos voy y " +
	"jiji jejeje idiotas gilipollas subnormal payaso payasa callar googlee guglee tarado tarada torpe " +
	"boba pendejo pendeja boluda pelotudo pelotuda huevona giles menso mensa zopenco cretino cretina " +
	"cabrona hostia chingada verga espabile espabila calmate dramatice dramatices meo apurale dibujitos " +
	"entonces correcto cierto verdad uno dos seis siete ocho nueve diez evidentemente simplemente aparentemente mija mamita papito guapa guapo alucinante debido " +
	"uy tranquilo tranquila barrio bienvenido bienvenida bienvenidos contratiempo onda noticia panorama eres unico unica " +
	"quiere quieres quereis quieren busca buscas buscan interesa desea deseas perfecto perfecta genial excelente joya " +
	"chevere bacano barbaro buenisimo grax era seria mas fantastico fantastica lujo todo")

// looksSpanish reports whether phrase has a Spanish letter or word.
func looksSpanish(phrase string) bool {
	if strings.ContainsAny(phrase, "áéíóúñüÁÉÍÓÚÑ¿¡") {
		return true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(phrase), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if spanishWords[w] {
			return true
		}
	}
	return false
}

// quoteList quotes up to listed phrases with open and close, each as
// shown (its first alternatives).
func quoteList(phrases []string, open, close, more string) string {
	shown := phrases[:min(len(phrases), listed)]
	q := make([]string, len(shown))
	for i, p := range shown {
		q[i] = open + shown1(p) + close
	}
	out := strings.Join(q, ", ")
	if n := len(phrases) - len(shown); n > 0 {
		out += fmt.Sprintf(more, n)
	}
	return out
}

type english struct{}

func (w english) tone(c citation, score float64, telling []string, complies bool) string {
	where, why := w.scored(c, score, telling)
	if complies {
		return fmt.Sprintf("No forbidden phrase was said, but %s might read as disrespectful (%s): \"%s\"; an analyst should judge.",
			where, why, excerpt(c.quote))
	}
	return fmt.Sprintf("%s reads as disrespectful (%s): \"%s\"; an analyst should confirm.", capitalise(where), why, excerpt(c.quote))
}

func (w english) shows(c citation, score float64, telling []string, complies bool) string {
	where, why := w.scored(c, score, telling)
	if complies {
		return fmt.Sprintf("The tone model reads %s as meeting it (%s): \"%s\"; an analyst should confirm.", where, why,
			excerpt(c.quote))
	}
	return fmt.Sprintf("The tone model reads %s as possibly meeting it (%s): \"%s\"; an analyst should judge.", where, why,
		excerpt(c.quote))
}

// scored says where c was said and why a tone model scores it so: the
// score, and its most telling pairs of words.
func (english) scored(c citation, score float64, telling []string) (where, why string) {
	who := "the agent's"
	switch c.speaker {
	case transcript.Customer:
		who = "the customer's"
	case transcript.Unknown:
		who = "the"
	}
	where = who + " turn " + strconv.Itoa(c.turn)
	if c.timed {
		where = who + " words at " + clock(c.at)
	}
	why = strconv.FormatFloat(score, 'f', 2, 64)
	if len(telling) > 0 {
		why += `, mostly "` + strings.Join(telling, `", "`) + `"`
	}
	return where, why
}

func (english) clause(c citation) string {
	words := `"` + c.quote + `"`
	if c.loose {
		words += ` (taken as "` + c.phrase + `")`
	}
	where := "in turn " + strconv.Itoa(c.turn)
	if c.timed {
		where = "at " + clock(c.at)
	}
	switch c.speaker {
	case transcript.Agent:
		return "the agent said " + words + " " + where
	case transcript.Customer:
		return "the customer said " + words + " " + where
	default:
		return words + " was said " + where
	}
}

func (english) window(s scope) string {
	var parts []string
	if s.first > 0 {
		parts = append(parts, "within the first "+strconv.FormatFloat(s.first, 'f', -1, 64)+" s")
	}
	if s.last > 0 {
		parts = append(parts, "in the last "+strconv.FormatFloat(s.last, 'f', -1, 64)+" s")
	}
	turns := func(which string, n int) string {
		if n == 1 {
			return "in the " + which + " turn"
		}
		return fmt.Sprintf("in the %s %d turns", which, n)
	}
	if s.firstTurns > 0 {
		parts = append(parts, turns("first", s.firstTurns))
	}
	if s.lastTurns > 0 {
		parts = append(parts, turns("last", s.lastTurns))
	}
	own := func(which string, n int) string {
		if n == 1 {
			return "in their " + which + " turn"
		}
		return fmt.Sprintf("in their %s %d turns", which, n)
	}
	if s.firstOwn > 0 {
		parts = append(parts, own("first", s.firstOwn))
	}
	if s.lastOwn > 0 {
		parts = append(parts, own("last", s.lastOwn))
	}
	if n := s.afterCustomer; n == 1 {
		parts = append(parts, "after the customer's first turn")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("after the customer's first %d turns", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " and ")
}

func (english) subject(speaker string) string {
	switch speaker {
	case transcript.Agent:
		return "The agent did not say"
	case transcript.Customer:
		return "The customer did not say"
	default:
		return "Nobody said"
	}
}

// other names the party opposite speaker.
func (english) other(speaker string) string {
	if speaker == transcript.Customer {
		return "the agent"
	}
	return "the customer"
}

func (w english) said(c citation) string {
	return capitalise(w.clause(c)) + "."
}

func (w english) missing(phrases []string, s scope, outside *citation) string {
	phrases = inLanguage(phrases, false)
	what := `"` + phrases[0] + `"`
	if len(phrases) > 1 {
		what = "any of " + quoteList(phrases, `"`, `"`, " (and %d more)")
	}
	out := w.subject(s.speaker) + " " + what + w.window(s) + "."
	if outside != nil {
		out += " Outside that scope, " + w.clause(*outside) + "."
	}
	return out
}

func (w english) forbidden(c citation, times int) string {
	out := "Forbidden phrase: " + w.clause(c)
	if times > 1 {
		out += fmt.Sprintf(" (%d forbidden phrases said in all)", times)
	}
	return out + "."
}

func (w english) late(b, c citation) string {
	return capitalise(w.clause(b)) + " before that: " + w.clause(c) + ", too late to count."
}

func (w english) opposite(c citation) string {
	return capitalise(w.clause(c)) + ", which says otherwise, and nothing in that turn makes up for it."
}

func (w english) clean(s scope) string {
	switch s.speaker {
	case transcript.Agent:
		return "The agent said no forbidden phrase" + w.window(s) + "."
	case transcript.Customer:
		return "The customer said no forbidden phrase" + w.window(s) + "."
	default:
		return "No forbidden phrase was said" + w.window(s) + "."
	}
}

func (w english) negated(c citation) string {
	return capitalise(w.clause(c)) + ", but negated, so it does not count."
}

func (w english) pressed(c citation) string {
	return "Then " + w.clause(c) + ", which puts it in doubt; an analyst may read it otherwise."
}

func (w english) settled(c citation) string {
	return w.suggests("at the end "+w.clause(c), true)
}

func (w english) restated(c citation) string {
	return capitalise(w.clause(c)) + ", restating what " + w.other(c.speaker) + " had just said."
}

func (english) notApplicable(phrases []string) string {
	return "It does not apply, so it is met: nothing was said of " + quoteList(inLanguage(phrases, false), `"`, `"`, " (and %d more)") + "."
}

func (w english) hint(c citation, complies bool) string { return w.suggests(w.clause(c), complies) }

// suggests is a hint's sentence, said what was said.
func (english) suggests(said string, complies bool) string {
	if complies {
		return "Nothing decisive was said, but " + said + ", which suggests it is met; an analyst should confirm."
	}
	return "Possibly not met: " + said + "; an analyst should confirm."
}

func (w english) cues(cs []citation, complies bool) string {
	said := joinClauses(cs, w.clause, " and ")
	if complies {
		return "Nothing decisive was said, but " + said + ", which together suggest it is met; an analyst should confirm."
	}
	return "Possibly not met: " + said + ", which together suggest it; an analyst should confirm."
}

func (w english) unprompted(c citation, complies bool) string {
	other := "the agent"
	if c.speaker == transcript.Agent {
		other = "the customer"
	}
	return w.suggests(w.clause(c)+", though "+other+" had said nothing like it before", complies)
}

// joinClauses says every citation of cs with clause, joined by and.
func joinClauses(cs []citation, clause func(citation) string, and string) string {
	said := make([]string, len(cs))
	for i, c := range cs {
		said[i] = clause(c)
	}
	return strings.Join(said, and)
}

type spanish struct{}

func (w spanish) tone(c citation, score float64, telling []string, complies bool) string {
	where, why := w.scored(c, score, telling)
	if complies {
		return fmt.Sprintf("No se dijo ninguna frase prohibida, pero %s podría sonar irrespetuoso (%s): «%s»; conviene que lo valore un analista.",
			where, why, excerpt(c.quote))
	}
	return fmt.Sprintf("%s suena irrespetuoso (%s): «%s»; conviene que lo confirme un analista.", capitalise(where), why,
		excerpt(c.quote))
}

func (w spanish) shows(c citation, score float64, telling []string, complies bool) string {
	where, why := w.scored(c, score, telling)
	if complies {
		return fmt.Sprintf("Según el modelo de tono, %s lo cumple (%s): «%s»; conviene que lo confirme un analista.",
			where, why, excerpt(c.quote))
	}
	return fmt.Sprintf("Según el modelo de tono, %s podría cumplirlo (%s): «%s»; conviene que lo valore un analista.",
		where, why, excerpt(c.quote))
}

// scored says where c was said and why a tone model scores it so: the
// score, and its most telling pairs of words.
func (spanish) scored(c citation, score float64, telling []string) (where, why string) {
	where = "el turno " + strconv.Itoa(c.turn)
	if c.timed {
		where = "lo dicho en " + clock(c.at)
	}
	switch c.speaker {
	case transcript.Agent:
		where += " del agente"
	case transcript.Customer:
		where += " del cliente"
	}
	why = strings.Replace(strconv.FormatFloat(score, 'f', 2, 64), ".", ",", 1)
	if len(telling) > 0 {
		why += "; sobre todo «" + strings.Join(telling, "», «") + "»"
	}
	return where, why
}

func (spanish) clause(c citation) string {
	words := "«" + c.quote + "»"
	if c.loose {
		words += " (entendido como «" + c.phrase + "»)"
	}
	where := "en el turno " + strconv.Itoa(c.turn)
	if c.timed {
		where = "en " + clock(c.at)
	}
	switch c.speaker {
	case transcript.Agent:
		return "el agente dijo " + words + " " + where
	case transcript.Customer:
		return "el cliente dijo " + words + " " + where
	default:
		return "se dijo " + words + " " + where
	}
}

func (spanish) window(s scope) string {
	seconds := func(v float64) string {
		return strings.Replace(strconv.FormatFloat(v, 'f', -1, 64), ".", ",", 1) + " s"
	}
	var parts []string
	if s.first > 0 {
		parts = append(parts, "en los primeros "+seconds(s.first))
	}
	if s.last > 0 {
		parts = append(parts, "en los últimos "+seconds(s.last))
	}
	if n := s.firstTurns; n == 1 {
		parts = append(parts, "en el primer turno")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("en los primeros %d turnos", n))
	}
	if n := s.lastTurns; n == 1 {
		parts = append(parts, "en el último turno")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("en los últimos %d turnos", n))
	}
	if n := s.firstOwn; n == 1 {
		parts = append(parts, "en su primera intervención")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("en sus primeras %d intervenciones", n))
	}
	if n := s.lastOwn; n == 1 {
		parts = append(parts, "en su última intervención")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("en sus últimas %d intervenciones", n))
	}
	if n := s.afterCustomer; n == 1 {
		parts = append(parts, "tras la primera intervención del cliente")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("tras las primeras %d intervenciones del cliente", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " y ")
}

func (spanish) subject(speaker string) string {
	switch speaker {
	case transcript.Agent:
		return "El agente no dijo"
	case transcript.Customer:
		return "El cliente no dijo"
	default:
		return "Nadie dijo"
	}
}

// other names the party opposite speaker.
func (spanish) other(speaker string) string {
	if speaker == transcript.Customer {
		return "el agente"
	}
	return "el cliente"
}

func (w spanish) said(c citation) string {
	return capitalise(w.clause(c)) + "."
}

func (w spanish) missing(phrases []string, s scope, outside *citation) string {
	phrases = inLanguage(phrases, true)
	var out string
	if len(phrases) == 1 {
		out = w.subject(s.speaker) + " «" + phrases[0] + "»" + w.window(s) + "."
	} else {
		out = w.subject(s.speaker) + " ninguna de estas frases" + w.window(s) + ": " +
			quoteList(phrases, "«", "»", " (y %d más)") + "."
	}
	if outside != nil {
		out += " Fuera de ese ámbito, " + w.clause(*outside) + "."
	}
	return out
}

func (w spanish) forbidden(c citation, times int) string {
	out := "Frase prohibida: " + w.clause(c)
	if times > 1 {
		out += fmt.Sprintf(" (%d frases prohibidas en total)", times)
	}
	return out + "."
}

func (w spanish) late(b, c citation) string {
	return capitalise(w.clause(b)) + " antes de eso: " + w.clause(c) + ", demasiado tarde para contar."
}

func (w spanish) opposite(c citation) string {
	return capitalise(w.clause(c)) + ", que dice lo contrario, y nada en esa intervención lo compensa."
}

func (w spanish) clean(s scope) string {
	switch s.speaker {
	case transcript.Agent:
		return "El agente no dijo ninguna frase prohibida" + w.window(s) + "."
	case transcript.Customer:
		return "El cliente no dijo ninguna frase prohibida" + w.window(s) + "."
	default:
		return "Nadie dijo ninguna frase prohibida" + w.window(s) + "."
	}
}

func (w spanish) negated(c citation) string {
	return capitalise(w.clause(c)) + ", pero en negativo, así que no cuenta."
}

func (w spanish) pressed(c citation) string {
	return "Después " + w.clause(c) + ", lo que lo pone en duda; un analista puede verlo de otro modo."
}

func (w spanish) settled(c citation) string {
	return w.suggests("al final "+w.clause(c), true)
}

func (w spanish) restated(c citation) string {
	return capitalise(w.clause(c)) + ", con lo que reformula lo que " + w.other(c.speaker) + " acababa de decir."
}

func (spanish) notApplicable(phrases []string) string {
	return "No aplica, así que se cumple: no se habló de " + quoteList(inLanguage(phrases, true), "«", "»", " (y %d más)") + "."
}

func (w spanish) hint(c citation, complies bool) string { return w.suggests(w.clause(c), complies) }

// suggests is a hint's sentence, said what was said.
func (spanish) suggests(said string, complies bool) string {
	if complies {
		return "No se dijo nada concluyente, pero " + said + ", lo que indica que se cumple; conviene que lo confirme un analista."
	}
	return "Posible incumplimiento: " + said + "; conviene que lo confirme un analista."
}

func (w spanish) cues(cs []citation, complies bool) string {
	said := joinClauses(cs, w.clause, " y ")
	if complies {
		return "No se dijo nada concluyente, pero " + said + ", lo que en conjunto indica que se cumple; conviene que lo confirme un analista."
	}
	return "Posible incumplimiento: " + said + ", lo que en conjunto lo sugiere; conviene que lo confirme un analista."
}

func (w spanish) unprompted(c citation, complies bool) string {
	other := "el agente"
	if c.speaker == transcript.Agent {
		other = "el cliente"
	}
	return w.suggests(w.clause(c)+" sin que "+other+" hubiera dicho nada parecido antes", complies)
}

// shown1 is how an explanation shows a phrase: alternatives by their first
// ("le|te atiende {name}" is "le atiende {name}"), exact marks dropped, and
// proximity as an ellipsis ("refund* NEAR/5 {amount}" is "refund* … {amount}").
func shown1(p string) string {
	words := strings.Fields(p)
	for i, w := range words {
		if strings.HasPrefix(w, opNear) || strings.HasPrefix(w, opBefore) {
			words[i] = "…"
			continue
		}
		first, _, _ := strings.Cut(w, "|")
		words[i] = strings.TrimPrefix(first, "=")
	}
	return strings.Join(words, " ")
}
