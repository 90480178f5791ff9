package rules_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

func TestToneErrors(t *testing.T) {
	t.Parallel()
	for rule, want := range map[string]string{
		`{"none": ["x"], "speaker": "agent", "tone": "respect"}`:                                               `rule.tone: must be an object such as {"model": "respect", "fails_at": 0.8, "review_at": 0.5}`,
		`{"none": ["x"], "speaker": "agent", "tone": {"fails_at": 0.9}}`:                                       `rule.tone.model: is required: the trained model that scores the turns (empathy, respect)`,
		`{"none": ["x"], "speaker": "agent", "tone": {"model": "politeness", "fails_at": 0.9}}`:                `rule.tone.model: must name a trained model: empathy, respect`,
		`{"none": ["x"], "speaker": "agent", "tone": {"model": "respect"}}`:                                    `rule.tone.fails_at: is required: the score from which a turn fails the criterion, such as 0.8`,
		`{"none": ["x"], "speaker": "agent", "tone": {"model": "respect", "fails_at": 1.5}}`:                   `rule.tone.fails_at: must be a score greater than 0 and at most 1, such as 0.8`,
		`{"none": ["x"], "speaker": "agent", "tone": {"model": "respect", "fails_at": 0}}`:                     `rule.tone.fails_at: must be a score greater than 0 and at most 1, such as 0.8`,
		`{"none": ["x"], "speaker": "agent", "tone": {"model": "respect", "fails_at": 0.6, "review_at": 0.8}}`: `rule.tone.review_at: must not be above fails_at (0.6): from it, a turn is for an analyst to review`,
		`{"none": ["x"], "speaker": "agent", "tone": {"model": "respect", "fails_at": 0.9, "reviews": 0.5}}`:   `rule.tone.reviews: unknown key; tone has model, fails_at, review_at`,
		`{"all": ["x"], "speaker": "agent", "tone": {"model": "empathy", "review_at": 0.5}}`:                   `rule.tone: needs "none" or "any", not both: the model judges the turns when no phrase of it was said`,
		`{"any": ["x"], "none": ["y"], "speaker": "agent", "tone": {"model": "respect", "fails_at": 0.9}}`:     `rule.tone: needs "none" or "any", not both: the model judges the turns when no phrase of it was said`,
		`{"any": ["x"], "speaker": "agent", "tone": "empathy"}`:                                                `rule.tone: must be an object such as {"model": "empathy", "review_at": 0.7, "meets_at": 0.95}`,
		`{"any": ["x"], "speaker": "agent", "tone": {"model": "empathy"}}`:                                     `rule.tone.review_at: is required: the score from which a turn puts the criterion's absence in doubt, such as 0.7`,
		`{"any": ["x"], "speaker": "agent", "tone": {"model": "empathy", "review_at": 0.8, "meets_at": 0.6}}`:  `rule.tone.review_at: must not be above meets_at (0.6): from it, a turn is for an analyst to review`,
		`{"any": ["x"], "speaker": "agent", "tone": {"model": "empathy", "review_at": 0.5, "fails_at": 0.9}}`:  `rule.tone.fails_at: unknown key; tone has model, review_at, meets_at`,
		`{"any": ["x"], "speaker": "agent", "tone": {"model": "empathy", "review_at": 0.5, "meets_at": 2}}`:    `rule.tone.meets_at: must be a score greater than 0 and at most 1, such as 0.8`,
		`{"none": ["x"], "tone": {"model": "respect", "fails_at": 0.9}}`:                                       `rule.speaker: must be "agent" or "customer" when the rule has "tone": the model scores one party's turns`,
	} {
		err := scoring.Validate(scoring.Scorecard{Criteria: []scoring.Criterion{criterion("c", rule)}}, rules.CheckRule)
		var invalid *scoring.ValidationError
		require.ErrorAs(t, err, &invalid, rule)
		require.Equal(t, "scorecard is not valid: criterion 0 (c): "+want, invalid.Error(), rule)
	}
	require.Empty(t, rules.CheckRule([]byte(`{"none": ["x"], "speaker": "agent", "hint_confidence": 0.5,
		"tone": {"model": "respect", "fails_at": 0.9, "review_at": 0.6}}`)))
	require.Empty(t, rules.CheckRule([]byte(`{"none": ["x"], "speaker": "agent", "tone": {"model": "respect", "fails_at": 1}}`)))
	require.Empty(t, rules.CheckRule([]byte(`{"any": ["x"], "speaker": "agent", "tone": {"model": "empathy", "review_at": 0.5}}`)))
}

// toneRule is a respect rule whose lexicon knows none of the rude lines
// below, so only the model can find them.
const toneRule = `{"none": ["=idiota", "=idiot"], "speaker": "agent", "tone": {"model": "respect", "fails_at": 0.8, "review_at": 0.5}}`

func TestToneVerdicts(t *testing.T) {
	t.Parallel()
	rude := segments(
		turn(transcript.Agent, "Hello, this is Sam from support, how can I help?"),
		turn(transcript.Customer, "My router keeps dropping the connection since I set it up."),
		turn(transcript.Agent, "Let me check your line, one moment please."),
		turn(transcript.Customer, "I followed the leaflet but it still drops."),
		turn(transcript.Agent, "If you had read the instructions you wouldn't be in this mess."),
		turn(transcript.Customer, "Excuse me?"),
	)
	v := judge(t, toneRule, scoring.Chat, rude, "en")
	require.False(t, v.Complies)
	require.Equal(t, scoring.BasisConflict, v.Basis)
	require.Equal(t, 0.6, v.Confidence, "hint_confidence: below the review threshold, so an analyst confirms")
	require.Contains(t, v.Explanation, `The agent's turn 5 reads as disrespectful (`)
	require.Contains(t, v.Explanation, `: "If you had read the instructions you wouldn't be in this mess."; an analyst should confirm.`)
	require.Equal(t, "If you had read the instructions you wouldn't be in this mess.", v.Evidence)

	es := segments(
		timed(transcript.Agent, 0, 4, "Buenas tardes, le atiende Rosa, ¿en qué puedo ayudarle?"),
		timed(transcript.Customer, 4, 9, "Me han cobrado dos veces la factura de marzo."),
		timed(transcript.Agent, 9, 15, "Vale, lo miro. Mire, si hubiera prestado atención no tendría este problema."),
	)
	v = judge(t, toneRule, scoring.Call, es, "es")
	require.False(t, v.Complies)
	require.Contains(t, v.Explanation, "Lo dicho en 00:09 del agente suena irrespetuoso (")
	require.Contains(t, v.Explanation, "«Mire, si hubiera prestado atención no tendría este problema.»", "the most telling sentence")

	// The customer's words do not count against the agent.
	v = judge(t, toneRule, scoring.Chat, segments(
		turn(transcript.Agent, "Hello, this is Sam from support, how can I help?"),
		turn(transcript.Customer, "If you had read my emails you wouldn't be in this mess."),
		turn(transcript.Agent, "I'm so sorry, let me fix it for you right now."),
	), "en")
	require.True(t, v.Complies)
	require.Equal(t, absence, v.Assessment)

	// Courtesies that share words with brush-offs stay met.
	for lang, lines := range map[string][]string{
		"en": {"No problem at all, I'll change it right now.", "I'm not going to let this be a problem for you.",
			"Don't worry, we'll have it fixed today."},
		"es": {"No es ningún problema, se lo cambio ahora mismo.", "No se preocupe, lo dejamos resuelto hoy mismo.",
			"Lamento que le dijeran «no es mi problema»; no debió pasar."},
	} {
		var segs []transcript.Segment
		for _, l := range lines {
			segs = append(segs, turn(transcript.Customer, "Vale / okay."), turn(transcript.Agent, l))
		}
		v = judge(t, toneRule, scoring.Chat, segments(segs...), lang)
		require.True(t, v.Complies, lang)
		require.Equal(t, absence, v.Assessment, lang)
	}

	// Between review_at and fails_at: met, but a conflict for review.
	review := `{"none": ["=idiota"], "speaker": "agent", "hint_confidence": 0.5, "tone": {"model": "respect", "fails_at": 1, "review_at": 0.5}}`
	v = judge(t, review, scoring.Chat, rude, "en")
	require.True(t, v.Complies)
	require.Equal(t, scoring.Assessment{Basis: scoring.BasisConflict, Confidence: 0.5}, v.Assessment)
	require.Contains(t, v.Explanation, "No forbidden phrase was said, but the agent's turn 5 might read as disrespectful (")

	// A phrase of none said decides; the model is not asked.
	v = judge(t, toneRule, scoring.Chat, segments(turn(transcript.Agent, "You idiot, if you had read the instructions you wouldn't be in this mess.")), "en")
	require.False(t, v.Complies)
	require.Equal(t, evidence, v.Assessment)
	require.NotContains(t, v.Explanation, "disrespectful")
}

// TestToneMeets judges an "any" criterion whose phrases the agent's
// acknowledgement does not say, so only the empathy model can find it.
func TestToneMeets(t *testing.T) {
	t.Parallel()
	const rule = `{"any": ["=zzyzx"], "speaker": "agent", "hint_confidence": 0.6,
		"tone": {"model": "empathy", "review_at": 0.5, "meets_at": 0.8}}`
	upset := segments(
		turn(transcript.Agent, "Hello, this is Sam from the clinic, how can I help?"),
		turn(transcript.Customer, "My dog swallowed a sock and I'm panicking, the wedding is tomorrow too."),
		turn(transcript.Agent, "Oh no, that sounds really stressful with the wedding so close. Bring him straight in."),
	)
	v := judge(t, rule, scoring.Chat, upset, "en")
	require.True(t, v.Complies, v.Explanation)
	require.Equal(t, scoring.Assessment{Basis: scoring.BasisConflict, Confidence: 0.6}, v.Assessment)
	require.Contains(t, v.Explanation, "The tone model reads the agent's turn 3 as meeting it (")
	require.Contains(t, v.Explanation, `: "Oh no, that sounds really stressful with the wedding so close."; an analyst should confirm.`)
	require.Equal(t, "Oh no, that sounds really stressful with the wedding so close. Bring him straight in.", v.Evidence)

	// Below meets_at, from review_at: not met, but in doubt.
	doubt := `{"any": ["=zzyzx"], "speaker": "agent", "tone": {"model": "empathy", "review_at": 0.5, "meets_at": 1}}`
	v = judge(t, doubt, scoring.Chat, upset, "en")
	require.False(t, v.Complies)
	require.Equal(t, scoring.BasisConflict, v.Basis)
	require.Contains(t, v.Explanation, "The tone model reads the agent's turn 3 as possibly meeting it (")

	es := segments(
		timed(transcript.Agent, 0, 4, "Buenas tardes, le atiende Rosa."),
		timed(transcript.Customer, 4, 9, "Me han perdido la maleta en plena luna de miel."),
		timed(transcript.Agent, 9, 15, "Uf, qué mal trago, lo de perder la maleta en plena luna de miel. Ahora mismo la localizo."),
	)
	v = judge(t, rule, scoring.Call, es, "es")
	require.True(t, v.Complies)
	require.Contains(t, v.Explanation, "Según el modelo de tono, lo dicho en 00:09 del agente lo cumple (")

	// Nothing that reads as empathy: the absence stands.
	v = judge(t, rule, scoring.Chat, segments(
		turn(transcript.Agent, "Hello, this is Sam, how can I help?"),
		turn(transcript.Customer, "When does my order ship?"),
		turn(transcript.Agent, "Your order number is 44812 and it ships tomorrow."),
	), "en")
	require.False(t, v.Complies)
	require.Equal(t, absence, v.Assessment)

	// The customer's words are not the agent's.
	v = judge(t, rule, scoring.Chat, segments(
		turn(transcript.Agent, "Hello, this is Sam, how can I help?"),
		turn(transcript.Customer, "Oh no, that sounds really stressful, I totally get why you'd be upset."),
		turn(transcript.Agent, "The fee is twenty dollars per month."),
	), "en")
	require.False(t, v.Complies)
	require.Equal(t, absence, v.Assessment)

	// A phrase of any said decides; the model is not asked.
	v = judge(t, rule, scoring.Chat, segments(turn(transcript.Agent, "Zzyzx, that sounds really stressful.")), "en")
	require.True(t, v.Complies)
	require.Equal(t, evidence, v.Assessment)
	require.NotContains(t, v.Explanation, "tone model")
}
