package scoring_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/scoring"
)

func validCriterion(id, question string) scoring.Criterion {
	return scoring.Criterion{
		ID: id, Category: "OPENING", Question: question, Weight: 10, AppliesTo: scoring.Both,
		Rule: json.RawMessage(`{"any": ["buenos días", "good morning"], "speaker": "agent", "within_first": 30}`),
	}
}

func problems(t *testing.T, card scoring.Scorecard) []scoring.Problem {
	t.Helper()
	err := scoring.Validate(card, rules.CheckRule)
	var ve *scoring.ValidationError
	require.ErrorAs(t, err, &ve)
	return ve.Problems
}

func TestValidate(t *testing.T) {
	t.Parallel()

	t.Run("valid", func(t *testing.T) {
		t.Parallel()
		card := scoring.Scorecard{Criteria: []scoring.Criterion{
			validCriterion("greeting", "Did the agent greet?"),
			validCriterion("farewell", "Did the agent say goodbye?"),
		}}
		require.NoError(t, scoring.Validate(card, rules.CheckRule))
	})

	t.Run("ids too long together to audit", func(t *testing.T) {
		t.Parallel()
		var card scoring.Scorecard
		for i := range 140 { // 140 ids of 4 to 8 bytes: 8 bytes each with their length
			card.Criteria = append(card.Criteria, validCriterion(fmt.Sprintf("c%03d", i), fmt.Sprintf("Question %d?", i)))
		}
		require.Equal(t, []scoring.Problem{{Index: -1, Field: "criteria",
			Message: "the 140 criteria's ids take 1120 bytes together, more than the 1100 an audit can keep for statistics: use shorter ids or fewer criteria"}},
			problems(t, card))
		card.Criteria = card.Criteria[:137]
		require.NoError(t, scoring.Validate(card, rules.CheckRule))
	})

	t.Run("no criteria", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, []scoring.Problem{
			{Index: -1, Field: "criteria", Message: "a scorecard needs at least one criterion"},
		}, problems(t, scoring.Scorecard{Version: 4}))
	})

	tests := []struct {
		name   string
		change func(c *scoring.Criterion)
		want   []scoring.Problem // for criterion 1, id "b" unless changed
	}{
		{
			name:   "duplicate question, ignoring case and spacing",
			change: func(c *scoring.Criterion) { c.Question = "  did the AGENT   greet? " },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "question", Message: `"  did the AGENT   greet? " is already the question of criterion 0`}},
		},
		{
			name:   "duplicate id, ignoring case",
			change: func(c *scoring.Criterion) { c.ID = "A" },
			want:   []scoring.Problem{{Index: 1, ID: "A", Field: "id", Message: `"A" is already the id of criterion 0`}},
		},
		{
			name:   "empty id",
			change: func(c *scoring.Criterion) { c.ID = " " },
			want:   []scoring.Problem{{Index: 1, ID: " ", Field: "id", Message: "is required"}},
		},
		{
			name:   "id with surrounding spaces",
			change: func(c *scoring.Criterion) { c.ID = "b " },
			want:   []scoring.Problem{{Index: 1, ID: "b ", Field: "id", Message: "must not start or end with spaces"}},
		},
		{
			name:   "empty question",
			change: func(c *scoring.Criterion) { c.Question = "\t" },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "question", Message: "is required"}},
		},
		{
			name:   "empty category",
			change: func(c *scoring.Criterion) { c.Category = "" },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "category", Message: "is required"}},
		},
		{
			name:   "zero weight",
			change: func(c *scoring.Criterion) { c.Weight = 0 },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "weight", Message: "must be a number greater than 0, not 0"}},
		},
		{
			name:   "negative weight",
			change: func(c *scoring.Criterion) { c.Weight = -5 },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "weight", Message: "must be a number greater than 0, not -5"}},
		},
		{
			name:   "weight not a number",
			change: func(c *scoring.Criterion) { c.Weight = math.NaN() },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "weight", Message: "must be a number greater than 0, not NaN"}},
		},
		{
			name:   "infinite weight",
			change: func(c *scoring.Criterion) { c.Weight = math.Inf(1) },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "weight", Message: "must be a number greater than 0, not +Inf"}},
		},
		{
			name:   "bad applies_to",
			change: func(c *scoring.Criterion) { c.AppliesTo = "email" },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "applies_to", Message: `must be "call", "chat" or "both", not "email"`}},
		},
		{
			name:   "missing applies_to",
			change: func(c *scoring.Criterion) { c.AppliesTo = "" },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "applies_to", Message: `must be "call", "chat" or "both", not ""`}},
		},
		{
			name:   "missing rule",
			change: func(c *scoring.Criterion) { c.Rule = nil },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "rule", Message: "is required"}},
		},
		{
			name:   "null rule",
			change: func(c *scoring.Criterion) { c.Rule = json.RawMessage(" null ") },
			want:   []scoring.Problem{{Index: 1, ID: "b", Field: "rule", Message: "is required"}},
		},
		{
			name:   "rule not an object",
			change: func(c *scoring.Criterion) { c.Rule = json.RawMessage(`["hola"]`) },
			want: []scoring.Problem{{Index: 1, ID: "b", Field: "rule",
				Message: `must be a JSON object such as {"any": ["good morning"], "speaker": "agent"}`}},
		},
		{
			name:   "rule with nothing to look for",
			change: func(c *scoring.Criterion) { c.Rule = json.RawMessage(`{"speaker": "agent"}`) },
			want: []scoring.Problem{{Index: 1, ID: "b", Field: "rule",
				Message: `needs at least one of "any", "all" or "none" to say what to look for`}},
		},
		{
			name:   "rule with an unknown key",
			change: func(c *scoring.Criterion) { c.Rule = json.RawMessage(`{"any": ["hola"], "within": 30}`) },
			want: []scoring.Problem{{Index: 1, ID: "b", Field: "rule.within",
				Message: "unknown key; a rule has any, all, none, hints, applies_if, applies_if_speaker, applies_if_own, speaker, exact, negation, within_first, within_last, within_first_turns, within_last_turns, within_first_own_turns, within_last_own_turns, after_customer_turns, absence_confidence, not_applicable_confidence, hint_confidence, cues, cues_together, replies, reply_cues, unprompted, before, against, unless, pressed, restates, settled, tone, channels"}},
		},
		{
			name: "rule with empty phrases",
			change: func(c *scoring.Criterion) {
				c.Rule = json.RawMessage(`{"any": [], "all": ["hola", "", ["¿?", 3]], "none": ["  "]}`)
			},
			want: []scoring.Problem{
				{Index: 1, ID: "b", Field: "rule.all[1]", Message: `"" has no words to look for`},
				{Index: 1, ID: "b", Field: "rule.all[2][0]", Message: `"¿?" has no words to look for`},
				{Index: 1, ID: "b", Field: "rule.all[2][1]", Message: "must be a phrase (a string)"},
				{Index: 1, ID: "b", Field: "rule.any", Message: "must list at least one phrase"},
				{Index: 1, ID: "b", Field: "rule.none[0]", Message: `"  " has no words to look for`},
			},
		},
		{
			name: "rule with bad windows and speaker",
			change: func(c *scoring.Criterion) {
				c.Rule = json.RawMessage(`{"any": ["hola"], "within_first": -30, "within_last": 0, "within_first_turns": 1.5,
					"within_last_turns": -2, "speaker": "supervisor", "exact": "yes"}`)
			},
			want: []scoring.Problem{
				{Index: 1, ID: "b", Field: "rule.exact", Message: "must be true or false"},
				{Index: 1, ID: "b", Field: "rule.speaker", Message: `must be "agent", "customer" or "any"`},
				{Index: 1, ID: "b", Field: "rule.within_first", Message: "must be a number of seconds greater than 0"},
				{Index: 1, ID: "b", Field: "rule.within_first_turns", Message: "must be a whole number of turns greater than 0"},
				{Index: 1, ID: "b", Field: "rule.within_last", Message: "must be a number of seconds greater than 0"},
				{Index: 1, ID: "b", Field: "rule.within_last_turns", Message: "must be a whole number of turns greater than 0"},
			},
		},
		{
			name: "rule lists of the wrong type",
			change: func(c *scoring.Criterion) {
				c.Rule = json.RawMessage(`{"any": "hola", "all": {"a": 1}, "none": [["adiós"]]}`)
			},
			want: []scoring.Problem{
				{Index: 1, ID: "b", Field: "rule.all", Message: "must be a list whose items are a phrase or a list of alternative phrases"},
				{Index: 1, ID: "b", Field: "rule.any", Message: "must be a list of phrases"},
				{Index: 1, ID: "b", Field: "rule.none[0]", Message: "must be a phrase (a string)"},
			},
		},
		{
			name: "texts too long",
			change: func(c *scoring.Criterion) {
				c.ID, c.Category = strings.Repeat("x", 65), strings.Repeat("ñ", 101)
				c.Question, c.Guidance = strings.Repeat("¿", 501), strings.Repeat("g", 4001)
			},
			want: []scoring.Problem{
				{Index: 1, ID: strings.Repeat("x", 65), Field: "id", Message: "must be at most 64 characters (it has 65)"},
				{Index: 1, ID: strings.Repeat("x", 65), Field: "category", Message: "must be at most 100 characters (it has 101)"},
				{Index: 1, ID: strings.Repeat("x", 65), Field: "question", Message: "must be at most 500 characters (it has 501)"},
				{Index: 1, ID: strings.Repeat("x", 65), Field: "guidance", Message: "must be at most 4000 characters (it has 4001)"},
			},
		},
		{
			name: "translations: unknown tag, same language twice, missing and repeated questions, too long",
			change: func(c *scoring.Criterion) {
				c.Translations = map[string]scoring.Words{
					"xx-nope": {Question: "¿Se despidió?"},
					"ES":      {Question: "  ", Guidance: "g"},
					"es":      {Question: "¿Se despidió?"},
					"en":      {Question: "did the agent GREET?", Guidance: strings.Repeat("g", 4001)},
					"fr":      {Question: "Did the agent say goodbye?"}, // its own question again: the same criterion
				}
			},
			want: []scoring.Problem{
				{Index: 1, ID: "b", Field: "translations.ES.question", Message: "is required"},
				{Index: 1, ID: "b", Field: "translations.en.guidance", Message: "must be at most 4000 characters (it has 4001)"},
				{Index: 1, ID: "b", Field: "translations.en.question", Message: `"did the agent GREET?" is already the question of criterion 0`},
				{Index: 1, ID: "b", Field: "translations.es", Message: "is the same language as translations.ES"},
				{Index: 1, ID: "b", Field: "translations.xx-nope", Message: `"xx-nope" is not a known language tag (BCP 47, such as "en" or "es-MX")`},
			},
		},
		{
			name: "phrase too long",
			change: func(c *scoring.Criterion) {
				c.Rule = json.RawMessage(`{"any": ["a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f"]}`)
			},
			want: []scoring.Problem{{Index: 1, ID: "b", Field: "rule.any[0]", Message: `"a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f" has 32 words in a row; a phrase has at most 31`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := validCriterion("b", "Did the agent say goodbye?")
			tt.change(&b)
			card := scoring.Scorecard{Criteria: []scoring.Criterion{validCriterion("a", "Did the agent greet?"), b}}
			require.Equal(t, tt.want, problems(t, card))
		})
	}

	t.Run("every problem at once, named for an API's details", func(t *testing.T) {
		t.Parallel()
		card := scoring.Scorecard{Criteria: []scoring.Criterion{
			validCriterion("greeting", "Did the agent greet?"),
			{ID: "greeting", Category: "", Question: "did the agent greet?", Weight: 0, AppliesTo: "calls",
				Rule: json.RawMessage(`{"any": ["hola"], "within_first": -1}`)},
			{ID: "", Category: "CLOSING", Question: "Bye?", Weight: 1, AppliesTo: scoring.Chat,
				Rule: json.RawMessage(`{"nada": true}`)},
		}}
		err := scoring.Validate(card, rules.CheckRule)
		var ve *scoring.ValidationError
		require.ErrorAs(t, err, &ve)
		require.Equal(t, []scoring.Problem{
			{Index: 1, ID: "greeting", Field: "id", Message: `"greeting" is already the id of criterion 0`},
			{Index: 1, ID: "greeting", Field: "category", Message: "is required"},
			{Index: 1, ID: "greeting", Field: "question", Message: `"did the agent greet?" is already the question of criterion 0`},
			{Index: 1, ID: "greeting", Field: "weight", Message: "must be a number greater than 0, not 0"},
			{Index: 1, ID: "greeting", Field: "applies_to", Message: `must be "call", "chat" or "both", not "calls"`},
			{Index: 1, ID: "greeting", Field: "rule.within_first", Message: "must be a number of seconds greater than 0"},
			{Index: 2, Field: "id", Message: "is required"},
			{Index: 2, Field: "rule.nada", Message: "unknown key; a rule has any, all, none, hints, applies_if, applies_if_speaker, applies_if_own, speaker, exact, negation, within_first, within_last, within_first_turns, within_last_turns, within_first_own_turns, within_last_own_turns, after_customer_turns, absence_confidence, not_applicable_confidence, hint_confidence, cues, cues_together, replies, reply_cues, unprompted, before, against, unless, pressed, restates, settled, tone, channels"},
			{Index: 2, Field: "rule", Message: `needs at least one of "any", "all" or "none" to say what to look for`},
		}, ve.Problems)
		require.Contains(t, err.Error(), `scorecard is not valid: criterion 1 (greeting): id: "greeting" is already the id of criterion 0; `)
		require.Contains(t, err.Error(), `; criterion 2: id: is required; `)

		// The error is Invalid, each problem located in a request's criteria.
		require.True(t, errcode.Is(err, errcode.Invalid))
		located, _ := errors.AsType[*errcode.Error](err)
		require.Equal(t, "the scorecard has 9 problem(s); nothing was published", located.Message)
		require.Equal(t, errcode.Problem{Location: "body.criteria[2].id", Message: "criterion 2: id: is required"}, located.Problems[6])

		// The problems serialise as an API's details.
		b, err := json.Marshal(ve.Problems[6])
		require.NoError(t, err)
		require.JSONEq(t, `{"index": 2, "field": "id", "message": "is required"}`, string(b))
	})
}
