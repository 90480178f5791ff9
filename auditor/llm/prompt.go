package llm

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// wording is the prompt in one language.
type wording struct {
	systemCall, systemChat                   string
	criteria, transcript                     string
	id, category, question, critical, guides string
	yes, no                                  string
	agent, customer, unknown                 string
	// omitted says how many turns a truncation left out (%d).
	omitted string
	// retryHead starts the follow-up to an invalid answer.
	retryHead, retryTail string
}

var spanish = wording{
	systemCall: "Eres analista de calidad de un centro de contacto y auditas una llamada entre un agente y un cliente.",
	systemChat: "Eres analista de calidad de un centro de contacto y auditas una conversación de chat entre un agente y un cliente.",
	criteria: "Para cada criterio de la ficha de evaluación decide si el agente cumple (complies), explica por qué en una o dos frases " +
		"en español (explanation) y cita como evidencia (evidence) un fragmento literal de la transcripción, copiado palabra por " +
		"palabra de un solo turno, que respalde tu decisión; deja evidence vacío solo si la decisión se basa en que algo no se dijo. " +
		"Responde solo con un objeto JSON con una entrada por id de criterio.\n\nCriterios:",
	transcript: "Transcripción (una línea por turno: [tiempo o número de turno] hablante: texto):",
	id:         "id", category: "categoría", question: "pregunta", critical: "crítico", guides: "pautas",
	yes: "sí", no: "no",
	agent: "Agente", customer: "Cliente", unknown: "Desconocido",
	omitted:   "[… %d turnos omitidos para ajustarse al contexto; juzga con lo que se muestra …]",
	retryHead: "Tu respuesta no es válida:",
	retryTail: "Responde de nuevo con el objeto JSON completo: una entrada por cada criterio, con complies, explanation y evidence.",
}

var english = wording{
	systemCall: "You are a quality analyst at a contact centre, auditing a call between an agent and a customer.",
	systemChat: "You are a quality analyst at a contact centre, auditing a chat conversation between an agent and a customer.",
	criteria: "For each criterion of the scorecard decide whether the agent complies (complies), explain why in one or two " +
		"sentences in English (explanation), and quote as evidence (evidence) a passage of the transcript, copied word for word " +
		"from one turn, that supports your decision; leave evidence empty only when the decision rests on something not being said. " +
		"Answer only with a JSON object with one entry per criterion id.\n\nCriteria:",
	transcript: "Transcript (one line per turn: [time or turn number] speaker: text):",
	id:         "id", category: "category", question: "question", critical: "critical", guides: "guidance",
	yes: "yes", no: "no",
	agent: "Agent", customer: "Customer", unknown: "Unknown",
	omitted:   "[… %d turns left out to fit the context; judge from what is shown …]",
	retryHead: "Your answer is not valid:",
	retryTail: "Answer again with the complete JSON object: one entry per criterion, with complies, explanation and evidence.",
}

// wordingFor chooses Spanish for a Spanish lang ("es", "es-MX", "es_AR"),
// English otherwise, like the rules engine's explanations.
func wordingFor(lang string) wording {
	if scoring.IsSpanish(lang) {
		return spanish
	}
	return english
}

func (w wording) system(kind string) string {
	if kind == scoring.Call {
		return w.systemCall
	}
	return w.systemChat
}

func (w wording) retry(problems []string) string {
	return w.retryHead + "\n- " + strings.Join(problems, "\n- ") + "\n" + w.retryTail
}

// userPrompt is the criteria and the transcript in at most budget
// characters, the transcript truncated to fit (see the package
// documentation). It returns an error when the criteria alone leave no
// room for a transcript.
func userPrompt(w wording, criteria []scoring.Criterion, t transcript.Transcript, budget int) (string, error) {
	var b strings.Builder
	b.WriteString(w.criteria)
	for _, c := range criteria {
		crit := w.no
		if c.Critical {
			crit = w.yes
		}
		fmt.Fprintf(&b, "\n\n- %s: %s\n  %s: %s\n  %s: %s\n  %s: %s", w.id, c.ID, w.category, c.Category, w.question, c.Question, w.critical, crit)
		if g := strings.TrimSpace(c.Guidance); g != "" {
			fmt.Fprintf(&b, "\n  %s: %s", w.guides, g)
		}
	}
	b.WriteString("\n\n")
	b.WriteString(w.transcript)
	b.WriteString("\n")
	room := budget - utf8.RuneCountInString(b.String())
	// The smallest useful transcript: the omission marker and a few turns.
	if room < 1000 {
		return "", fmt.Errorf("llm: the scorecard's %d criteria leave no room for a transcript in LLM_CONTEXT_CHARS=%d characters; raise it",
			len(criteria), budget)
	}
	b.WriteString(strings.Join(fit(w, turns(w, t), room), "\n"))
	return b.String(), nil
}

// turns renders the transcript one turn a line: "[01:07] Agente (Marta): …"
// in a call with times, "[3] Cliente: …" otherwise.
func turns(w wording, t transcript.Transcript) []string {
	segs := t.Segments
	if len(segs) == 0 && strings.TrimSpace(t.Text) != "" {
		segs = []transcript.Segment{{Speaker: transcript.Unknown, Text: t.Text}}
	}
	lines := make([]string, 0, len(segs))
	for i, s := range segs {
		where := fmt.Sprintf("[%d]", i+1)
		if s.Start != nil {
			sec := int(*s.Start)
			where = fmt.Sprintf("[%02d:%02d]", sec/60, sec%60)
		}
		who := w.unknown
		switch s.Speaker {
		case transcript.Agent:
			who = w.agent
		case transcript.Customer:
			who = w.customer
		}
		if s.Name != "" && !strings.EqualFold(s.Name, who) {
			who += " (" + s.Name + ")"
		}
		lines = append(lines, where+" "+who+": "+strings.Join(strings.Fields(s.Text), " "))
	}
	return lines
}

// fit keeps lines within room characters (newlines included): all of them
// when they fit, else the first ones (about 60% of the room) and the last
// ones around a marker saying how many were left out. A line longer than a
// quarter of the room keeps its start and its end.
func fit(w wording, lines []string, room int) []string {
	size := func(s string) int { return utf8.RuneCountInString(s) + 1 }
	total := 0
	for _, l := range lines {
		total += size(l)
	}
	if total <= room {
		return lines
	}
	long := room / 4
	capped := make([]string, len(lines))
	for i, l := range lines {
		if r := []rune(l); len(r) > long {
			l = string(r[:long/2]) + " … " + string(r[len(r)-long/2+3:])
		}
		capped[i] = l
	}
	marker := size(fmt.Sprintf(w.omitted, len(lines)))
	headRoom := (room - marker) * 6 / 10
	tailRoom := room - marker - headRoom
	var head []string
	used := 0
	for _, l := range capped {
		if used+size(l) > headRoom {
			break
		}
		head = append(head, l)
		used += size(l)
	}
	var tail []string
	used = 0
	for i := len(capped) - 1; i >= len(head); i-- {
		if used+size(capped[i]) > tailRoom {
			break
		}
		tail = append(tail, capped[i])
		used += size(capped[i])
	}
	slices.Reverse(tail)
	if omitted := len(lines) - len(head) - len(tail); omitted > 0 {
		head = append(head, fmt.Sprintf(w.omitted, omitted))
	}
	return append(head, tail...)
}
