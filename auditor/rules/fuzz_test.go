package rules_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// fuzzTranscript makes a transcript of text: one segment a line, agent and
// customer in turn, two seconds apart, so windows in seconds and in turns
// both apply. Transcripts are UTF-8 (ParseChat refuses anything else,
// recognisers' JSON is decoded), so invalid bytes are replaced first.
func fuzzTranscript(text string) transcript.Transcript {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var segs []transcript.Segment
	for i, line := range strings.Split(text, "\n") {
		speaker := transcript.Agent
		if i%2 == 1 {
			speaker = transcript.Customer
		}
		segs = append(segs, timed(speaker, float64(2*i), float64(2*i+1), line))
	}
	return segments(segs...)
}

// requireVerdicts holds an audit's verdicts to the contract scoring needs:
// one per applicable criterion, in order, each explained.
func requireVerdicts(t *testing.T, card scoring.Scorecard, kind string, vs []scoring.Verdict) {
	t.Helper()
	applicable := card.Applicable(kind)
	require.Len(t, vs, len(applicable))
	for i, v := range vs {
		require.Equal(t, applicable[i].ID, v.CriterionID)
		require.NotEmpty(t, v.Explanation)
		require.True(t, utf8.ValidString(v.Explanation) && utf8.ValidString(v.Evidence))
	}
	_, err := scoring.Score(card, kind, vs, 80)
	if !errors.Is(err, scoring.ErrNoApplicableCriteria) && !errors.Is(err, scoring.ErrAllNotApplicable) {
		require.NoError(t, err)
	}
}

// FuzzRule parses arbitrary rules: CheckRule and New agree on which are
// valid, and a valid rule audits any text in both languages without error.
func FuzzRule(f *testing.F) {
	for _, seed := range []struct{ rule, text string }{
		{`{"any":["buenos días","good morning"]}`, "Buenos días\nhola"},
		{`{"all":["gracias",["dni","date of birth"]],"speaker":"agent"}`, "gracias por su dni\nok"},
		{`{"none":["no es mi problema"],"exact":true}`, "eso no es mi problema"},
		{`{"any":["hola"],"within_first":30,"within_first_turns":3}`, "hola"},
		{`{"any":["adios"],"within_last":60,"within_last_turns":4,"speaker":"customer"}`, "a\nadiós"},
		{`{"any":[]}`, ""}, {`{"bogus":1}`, "x"}, {`[]`, ""}, {`null`, ""}, {`{"any":["¿?"]}`, "¿?"},
		{`{"any":["a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g"]}`, "a b c"},
		{`{"any":["refund* NEAR/5 {amount}","ref {ref} BEFORE/3 {timeframe}"],"speaker":"agent"}`, "refund of 49,99 € ref INC-4432 in 48 hours"},
		{`{"any":["le|te atiende {name}","{agent_name}"],"within_first_own_turns":2,"speaker":"agent"}`, "Agente Ana: Hola, le atiende Ana"},
		{`{"none":["=idiota"],"hints":["como le dije"],"applies_if":["mi cuenta"],"after_customer_turns":1}`, "no, como le dije el 15/03"},
		{`{"any":["x NEAR/0 y"]}`, "x y"}, {`{"any":["{nope}"]}`, "x"},
	} {
		f.Add(seed.rule, seed.text)
	}
	f.Fuzz(func(t *testing.T, rule, text string) {
		problems := rules.CheckRule(json.RawMessage(rule))
		card := scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{criterion("c", rule)}}
		e, err := rules.New(card)
		if len(problems) > 0 {
			var invalid *scoring.ValidationError
			require.ErrorAs(t, err, &invalid)
			return
		}
		require.NoError(t, err)
		tr := fuzzTranscript(text)
		for _, kind := range []string{scoring.Call, scoring.Chat} {
			for _, lang := range []string{"es", "en"} {
				vs, err := e.Audit(kind, tr, lang)
				require.NoError(t, err)
				requireVerdicts(t, card, kind, vs)
			}
		}
	})
}

// FuzzAudit audits arbitrary text against the default scorecard: the
// verdicts always score.
func FuzzAudit(f *testing.F) {
	for _, seed := range []string{
		"Agente: Buenos dias, gracias por contactar con Telecable.\nCliente: hola",
		"Eso no es mi problema\nAdios", "", "\n\n\n", "¿Algo más?", "a\x00b", "\xff",
		strings.Repeat("gracias ", 200),
	} {
		f.Add(seed)
	}
	card, err := scoring.DefaultScorecard("es")
	require.NoError(f, err)
	e, err := rules.New(card)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, text string) {
		tr := fuzzTranscript(text)
		for _, kind := range []string{scoring.Call, scoring.Chat} {
			vs, err := e.Audit(kind, tr, "es")
			require.NoError(t, err)
			requireVerdicts(t, card, kind, vs)
		}
		if chat, _, err := transcript.ParseChat([]byte(text)); err == nil {
			vs, err := e.Audit(scoring.Chat, chat, "en")
			require.NoError(t, err)
			requireVerdicts(t, card, scoring.Chat, vs)
		}
	})
}
