package auditor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

func card(rule string) scoring.Scorecard {
	return scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{{ID: "greeting", Category: "OPENING",
		Question: "Greeting?", Weight: 1, AppliesTo: scoring.Both, Rule: json.RawMessage(rule)}}}
}

func TestRulesCacheFollowsTheRules(t *testing.T) {
	t.Parallel()
	var r auditor.Rules
	a, err := r.Compile(card(`{"any": ["hello"]}`))
	require.NoError(t, err)
	again, err := r.Compile(card(`{"any": ["hello"]}`))
	require.NoError(t, err)
	require.Same(t, a, again, "the same criteria compile once")
	other, err := r.Compile(card(`{"any": ["hi"]}`))
	require.NoError(t, err)
	require.NotSame(t, a, other, "another rule is another engine")

	_, err = r.Audit(context.Background(), card(`{"any": []}`), scoring.Chat, transcript.Transcript{}, "en")
	require.Error(t, err)
	var perm interface{ Permanent() bool }
	require.ErrorAs(t, err, &perm)
	require.True(t, perm.Permanent(), "a bad scorecard cannot succeed on retry")
}

func TestJudgeMarksReview(t *testing.T) {
	t.Parallel()
	chat := transcript.Transcript{Segments: []transcript.Segment{{Speaker: transcript.Agent, Text: "Bye."}}}
	c := card(`{"any": ["hello"], "absence_confidence": 0.7}`)
	res, err := auditor.Judge(context.Background(), &auditor.Rules{}, c, scoring.Chat, chat, "en", 85, 0.8)
	require.NoError(t, err)
	require.Equal(t, scoring.Assessment{Basis: scoring.BasisAbsence, Confidence: 0.7, NeedsReview: true}, res.Items[0].Assessment)
	res, err = auditor.Judge(context.Background(), &auditor.Rules{}, c, scoring.Chat, chat, "en", 85, 0.6)
	require.NoError(t, err)
	require.False(t, res.Items[0].NeedsReview, "above the threshold")
	require.Equal(t, 0.0, res.Score)
}

// TestJudgeInTheInteractionsLanguage: the engine reads, and the items
// carry, the criterion's words in the interaction's language.
func TestJudgeInTheInteractionsLanguage(t *testing.T) {
	t.Parallel()
	chat := transcript.Transcript{Segments: []transcript.Segment{{Speaker: transcript.Agent, Text: "Hello."}}}
	c := card(`{"any": ["hello", "hola"]}`)
	c.Criteria[0].Question = "¿Saludó?"
	c.Criteria[0].Translations = map[string]scoring.Words{"en": {Question: "Did the agent greet?"}}
	for lang, want := range map[string]string{"en-US": "Did the agent greet?", "es": "¿Saludó?"} {
		res, err := auditor.Judge(context.Background(), &auditor.Rules{}, c, scoring.Chat, chat, lang, 85, 0.5)
		require.NoError(t, err)
		require.Equal(t, want, res.Items[0].Question, lang)
	}
}
