package scoring_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

// crit builds a criterion; the rule does not matter to Score.
func crit(id, category string, weight float64, critical bool, appliesTo string) scoring.Criterion {
	return scoring.Criterion{
		ID: id, Category: category, Question: "Question " + id + "?", Weight: weight,
		Critical: critical, AppliesTo: appliesTo, Rule: json.RawMessage(`{"any":["x"]}`),
	}
}

// verdicts gives a verdict for each id: complying when its value is true.
func verdicts(complies map[string]bool) []scoring.Verdict {
	var out []scoring.Verdict
	for id, ok := range complies {
		out = append(out, scoring.Verdict{CriterionID: id, Complies: ok, Explanation: "because " + id})
	}
	return out
}

func TestScore(t *testing.T) {
	t.Parallel()

	// weighted: 3 categories, one call-only criterion, one critical.
	weighted := scoring.Scorecard{Version: 7, Criteria: []scoring.Criterion{
		crit("greet", "OPENING", 10, false, scoring.Both),
		crit("notice", "COMPLIANCE", 10, true, scoring.Call),
		crit("verify", "COMPLIANCE", 15, false, scoring.Both),
		crit("solve", "SKILLS", 25, false, scoring.Both),
		crit("polite", "COMPLIANCE", 10, true, scoring.Chat),
	}}
	// thirds: three equal criteria.
	thirds := scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{
		crit("a", "X", 1, false, scoring.Both),
		crit("b", "X", 1, false, scoring.Both),
		crit("c", "X", 1, false, scoring.Both),
	}}
	pair := func(w1, w2 float64) scoring.Scorecard {
		return scoring.Scorecard{Version: 1, Criteria: []scoring.Criterion{
			crit("a", "X", w1, false, scoring.Both),
			crit("b", "X", w2, false, scoring.Both),
		}}
	}

	tests := []struct {
		name     string
		card     scoring.Scorecard
		kind     string
		complies map[string]bool
		passing  float64

		score          float64
		passed         bool
		earned         float64
		possible       float64
		failedCritical []string
	}{
		{
			name: "call, everything met", card: weighted, kind: scoring.Call, passing: 85,
			complies: map[string]bool{"greet": true, "notice": true, "verify": true, "solve": true},
			score:    100, passed: true, earned: 60, possible: 60, failedCritical: []string{},
		},
		{
			name: "weights: 45 of 60", card: weighted, kind: scoring.Call, passing: 70,
			complies: map[string]bool{"greet": true, "notice": true, "verify": false, "solve": true},
			score:    75, passed: true, earned: 45, possible: 60, failedCritical: []string{},
		},
		{
			name: "chat leaves the call-only criterion out", card: weighted, kind: scoring.Chat, passing: 85,
			complies: map[string]bool{"greet": true, "verify": true, "solve": false, "polite": true},
			score:    58.33, passed: false, earned: 35, possible: 60, failedCritical: []string{},
		},
		{
			name: "critical failure zeroes the score", card: weighted, kind: scoring.Call, passing: 85,
			complies: map[string]bool{"greet": true, "notice": false, "verify": true, "solve": true},
			score:    0, passed: false, earned: 50, possible: 60, failedCritical: []string{"notice"},
		},
		{
			name: "a critical failure fails even a passing score of 0", card: weighted, kind: scoring.Chat, passing: 0,
			complies: map[string]bool{"greet": true, "verify": true, "solve": true, "polite": false},
			score:    0, passed: false, earned: 50, possible: 60, failedCritical: []string{"polite"},
		},
		{
			name: "critical call-only criterion does not apply to a chat", card: weighted, kind: scoring.Chat, passing: 85,
			complies: map[string]bool{"greet": true, "verify": true, "solve": true, "polite": true},
			score:    100, passed: true, earned: 60, possible: 60, failedCritical: []string{},
		},
		{
			name: "exactly the passing score passes", card: pair(85, 15), kind: scoring.Chat, passing: 85,
			complies: map[string]bool{"a": true, "b": false},
			score:    85, passed: true, earned: 85, possible: 100, failedCritical: []string{},
		},
		{
			name: "one hundredth below fails", card: pair(8499, 1501), kind: scoring.Chat, passing: 85,
			complies: map[string]bool{"a": true, "b": false},
			score:    84.99, passed: false, earned: 8499, possible: 10000, failedCritical: []string{},
		},
		{
			name: "a passing score with decimals is met by the same rounded score", card: thirds, kind: scoring.Chat, passing: 66.67,
			complies: map[string]bool{"a": true, "b": true, "c": false},
			score:    66.67, passed: true, earned: 2, possible: 3, failedCritical: []string{},
		},
		{
			name: "2/3 rounds up to 66.67", card: thirds, kind: scoring.Call, passing: 85,
			complies: map[string]bool{"a": true, "b": false, "c": true},
			score:    66.67, passed: false, earned: 2, possible: 3, failedCritical: []string{},
		},
		{
			name: "1/3 rounds down to 33.33", card: thirds, kind: scoring.Call, passing: 85,
			complies: map[string]bool{"a": false, "b": false, "c": true},
			score:    33.33, passed: false, earned: 1, possible: 3, failedCritical: []string{},
		},
		{
			name: "half a hundredth rounds away from zero: 0.125 → 0.13", card: pair(1, 799), kind: scoring.Call, passing: 85,
			complies: map[string]bool{"a": true, "b": false},
			score:    0.13, passed: false, earned: 1, possible: 800, failedCritical: []string{},
		},
		{
			// In float64, 0.7/80*100 is 0.8749999999999999: the exact
			// decimal value is 0.875, which rounds to 0.88.
			name: "half cases are decided on decimal weights, not binary floats", card: pair(0.7, 79.3), kind: scoring.Call, passing: 85,
			complies: map[string]bool{"a": true, "b": false},
			score:    0.88, passed: false, earned: 0.7, possible: 80, failedCritical: []string{},
		},
		{
			name: "0.1 + 0.2 of 0.3 is 100", card: scoring.Scorecard{Criteria: []scoring.Criterion{
				crit("a", "X", 0.1, false, scoring.Both), crit("b", "X", 0.2, false, scoring.Both),
			}}, kind: scoring.Chat, passing: 100,
			complies: map[string]bool{"a": true, "b": true},
			score:    100, passed: true, earned: 0.3, possible: 0.3, failedCritical: []string{},
		},
		{
			name: "nothing met", card: thirds, kind: scoring.Chat, passing: 0,
			complies: map[string]bool{"a": false, "b": false, "c": false},
			score:    0, passed: true, earned: 0, possible: 3, failedCritical: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := scoring.Score(tt.card, tt.kind, verdicts(tt.complies), tt.passing)
			require.NoError(t, err)
			require.Equal(t, tt.score, res.Score)
			require.Equal(t, tt.passed, res.Passed)
			require.Equal(t, tt.earned, res.Earned)
			require.Equal(t, tt.possible, res.Possible)
			require.Equal(t, tt.failedCritical, res.FailedCritical)
			require.Equal(t, tt.passing, res.PassingScore)
			require.Equal(t, tt.card.Version, res.ScorecardVersion)
			// The score prints as the two-decimal value it stands for.
			require.Equal(t, strconv.FormatFloat(tt.score, 'f', -1, 64), fmt.Sprint(res.Score))
		})
	}
}

func TestScoreNaiveFloatWouldRoundDown(t *testing.T) {
	t.Parallel()
	// Guards the half-case test above: it only proves something while the
	// naive computation really differs.
	// Variables, not constants: Go folds constant expressions exactly.
	earned, other := 0.7, 79.3
	naive := math.Round(earned/(earned+other)*100*100) / 100
	require.Equal(t, 0.87, naive)
}

func TestScoreBreakdown(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Version: 3, Criteria: []scoring.Criterion{
		crit("greet", "OPENING", 10, false, scoring.Both),
		crit("notice", "COMPLIANCE", 10, true, scoring.Call),
		crit("empathy", "SKILLS", 15, false, scoring.Both),
		crit("verify", "COMPLIANCE", 20, false, scoring.Both),
		crit("solve", "SKILLS", 30, false, scoring.Both),
		crit("bye", "CLOSING", 10, false, scoring.Call),
	}}
	vs := []scoring.Verdict{
		{CriterionID: "solve", Complies: true, Explanation: "solved", Evidence: "Ya está solucionado."},
		{CriterionID: "greet", Complies: true, Explanation: "greeted"},
		{CriterionID: "empathy", Complies: false, Explanation: "no empathy"},
		{CriterionID: "verify", Complies: false, Explanation: "no verification"},
	}
	res, err := scoring.Score(card, scoring.Chat, vs, 85)
	require.NoError(t, err)
	require.Equal(t, 53.33, res.Score) // 40 of 75
	// Scorecard order; COMPLIANCE has only "verify" for a chat; CLOSING has
	// nothing applicable and is left out.
	require.Equal(t, []scoring.CategoryScore{
		{Category: "OPENING", Earned: 10, Possible: 10, Score: 100},
		{Category: "SKILLS", Earned: 30, Possible: 45, Score: 66.67},
		{Category: "COMPLIANCE", Earned: 0, Possible: 20, Score: 0},
	}, res.Categories)
	require.Equal(t, []scoring.Item{
		{CriterionID: "greet", Category: "OPENING", Question: "Question greet?", Weight: 10, Complies: true, Explanation: "greeted"},
		{CriterionID: "empathy", Category: "SKILLS", Question: "Question empathy?", Weight: 15, Complies: false, Explanation: "no empathy"},
		{CriterionID: "verify", Category: "COMPLIANCE", Question: "Question verify?", Weight: 20, Complies: false, Explanation: "no verification"},
		{CriterionID: "solve", Category: "SKILLS", Question: "Question solve?", Weight: 30, Complies: true, Explanation: "solved", Evidence: "Ya está solucionado."},
	}, res.Items)

	// A critical failure zeroes the score, not the breakdown.
	vs = append(vs, scoring.Verdict{CriterionID: "notice", Complies: false}, scoring.Verdict{CriterionID: "bye", Complies: true})
	res, err = scoring.Score(card, scoring.Call, vs, 85)
	require.NoError(t, err)
	require.Equal(t, 0.0, res.Score)
	require.False(t, res.Passed)
	require.Equal(t, []string{"notice"}, res.FailedCritical)
	require.Equal(t, []scoring.CategoryScore{
		{Category: "OPENING", Earned: 10, Possible: 10, Score: 100},
		{Category: "COMPLIANCE", Earned: 0, Possible: 30, Score: 0},
		{Category: "SKILLS", Earned: 30, Possible: 45, Score: 66.67},
		{Category: "CLOSING", Earned: 10, Possible: 10, Score: 100},
	}, res.Categories)
	require.Equal(t, 50.0, res.Earned)
	require.Equal(t, 95.0, res.Possible)
}

func TestScoreErrors(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Version: 2, Criteria: []scoring.Criterion{
		crit("greet", "OPENING", 10, false, scoring.Both),
		crit("notice", "COMPLIANCE", 10, true, scoring.Call),
		crit("verify", "COMPLIANCE", 15, false, scoring.Both),
		crit("bye", "CLOSING", 10, false, scoring.Both),
	}}
	ok := func(ids ...string) []scoring.Verdict {
		var out []scoring.Verdict
		for _, id := range ids {
			out = append(out, scoring.Verdict{CriterionID: id, Complies: true})
		}
		return out
	}

	t.Run("verdicts that do not match", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name     string
			kind     string
			verdicts []scoring.Verdict
			want     *scoring.VerdictError
			message  string
		}{
			{
				name: "missing", kind: scoring.Call, verdicts: ok("greet", "verify"),
				want:    &scoring.VerdictError{Kind: scoring.Call, Missing: []string{"notice", "bye"}},
				message: "verdicts do not match the scorecard: missing verdicts for: notice, bye",
			},
			{
				name: "unknown", kind: scoring.Chat, verdicts: ok("greet", "verify", "bye", "smile", "wave"),
				want:    &scoring.VerdictError{Kind: scoring.Chat, Unknown: []string{"smile", "wave"}},
				message: "verdicts do not match the scorecard: verdicts for unknown criteria: smile, wave",
			},
			{
				name: "not applicable", kind: scoring.Chat, verdicts: ok("greet", "notice", "verify", "bye"),
				want:    &scoring.VerdictError{Kind: scoring.Chat, NotApplicable: []string{"notice"}},
				message: "verdicts do not match the scorecard: verdicts for criteria that do not apply to a chat: notice",
			},
			{
				name: "duplicate, named once", kind: scoring.Chat, verdicts: ok("greet", "verify", "greet", "bye", "greet"),
				want:    &scoring.VerdictError{Kind: scoring.Chat, Duplicate: []string{"greet"}},
				message: "verdicts do not match the scorecard: more than one verdict for: greet",
			},
			{
				name: "all at once", kind: scoring.Chat, verdicts: ok("notice", "verify", "verify", "ghost"),
				want: &scoring.VerdictError{
					Kind: scoring.Chat, Missing: []string{"greet", "bye"}, Unknown: []string{"ghost"},
					NotApplicable: []string{"notice"}, Duplicate: []string{"verify"},
				},
				message: "verdicts do not match the scorecard: missing verdicts for: greet, bye; " +
					"verdicts for unknown criteria: ghost; verdicts for criteria that do not apply to a chat: notice; " +
					"more than one verdict for: verify",
			},
			{
				name: "none at all", kind: scoring.Call, verdicts: nil,
				want:    &scoring.VerdictError{Kind: scoring.Call, Missing: []string{"greet", "notice", "verify", "bye"}},
				message: "verdicts do not match the scorecard: missing verdicts for: greet, notice, verify, bye",
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				_, err := scoring.Score(card, tt.kind, tt.verdicts, 85)
				var ve *scoring.VerdictError
				require.ErrorAs(t, err, &ve)
				require.Equal(t, tt.want, ve)
				require.EqualError(t, err, tt.message)
			})
		}
	})

	t.Run("empty applicable set", func(t *testing.T) {
		t.Parallel()
		callsOnly := scoring.Scorecard{Criteria: []scoring.Criterion{crit("notice", "COMPLIANCE", 10, true, scoring.Call)}}
		_, err := scoring.Score(callsOnly, scoring.Chat, nil, 85)
		require.ErrorIs(t, err, scoring.ErrNoApplicableCriteria)
		// Even with verdicts: there is nothing to score them against.
		_, err = scoring.Score(callsOnly, scoring.Chat, ok("notice"), 85)
		require.ErrorIs(t, err, scoring.ErrNoApplicableCriteria)
		_, err = scoring.Score(scoring.Scorecard{}, scoring.Call, nil, 85)
		require.ErrorIs(t, err, scoring.ErrNoApplicableCriteria)
	})

	t.Run("bad arguments", func(t *testing.T) {
		t.Parallel()
		all := ok("greet", "notice", "verify", "bye")
		_, err := scoring.Score(card, "email", all, 85)
		require.EqualError(t, err, `unknown interaction kind "email": want "call" or "chat"`)
		_, err = scoring.Score(card, scoring.Both, all, 85)
		require.EqualError(t, err, `unknown interaction kind "both": want "call" or "chat"`)
		for _, p := range []float64{-0.01, 100.01, math.NaN(), math.Inf(1)} {
			_, err = scoring.Score(card, scoring.Call, all, p)
			require.EqualError(t, err, fmt.Sprintf("passing score %v is not between 0 and 100", p))
		}
		bad := scoring.Scorecard{Criteria: []scoring.Criterion{crit("a", "X", 0, false, scoring.Both)}}
		_, err = scoring.Score(bad, scoring.Call, ok("a"), 85)
		require.EqualError(t, err, `criterion "a": weight 0 is not a positive number`)
	})
}

func TestByQuestion(t *testing.T) {
	t.Parallel()
	card := scoring.Scorecard{Criteria: []scoring.Criterion{
		{ID: "greet", Question: "¿El agente saludó al cliente?"},
		{ID: "bye", Question: "Did the agent say goodbye?"},
	}}
	c, ok := card.ByQuestion("  did the AGENT say\tgoodbye? ")
	require.True(t, ok)
	require.Equal(t, "bye", c.ID)
	c, ok = card.ByQuestion("¿EL AGENTE SALUDÓ al cliente?")
	require.True(t, ok)
	require.Equal(t, "greet", c.ID)
	_, ok = card.ByQuestion("Did the agent say good bye?")
	require.False(t, ok)
	_, ok = card.ByQuestion("")
	require.False(t, ok)
}

func TestScoreEveryPathAgrees(t *testing.T) {
	t.Parallel()
	// The order of verdicts does not matter: an analyst's edit may list
	// them differently from the engine.
	card := scoring.Scorecard{Criteria: []scoring.Criterion{
		crit("a", "X", 1.5, false, scoring.Both),
		crit("b", "Y", 2.25, false, scoring.Both),
		crit("c", "X", 3.125, false, scoring.Both),
	}}
	forward := []scoring.Verdict{{CriterionID: "a", Complies: true}, {CriterionID: "b"}, {CriterionID: "c", Complies: true}}
	backward := []scoring.Verdict{forward[2], forward[1], forward[0]}
	r1, err := scoring.Score(card, scoring.Call, forward, 60)
	require.NoError(t, err)
	r2, err := scoring.Score(card, scoring.Call, backward, 60)
	require.NoError(t, err)
	require.Equal(t, r1, r2)
	require.Equal(t, 67.27, r1.Score) // 4.625 / 6.875 = 67.2727…
}

func TestScorePending(t *testing.T) {
	t.Parallel()

	card := scoring.Scorecard{Version: 2, Criteria: []scoring.Criterion{
		crit("greet", "OPENING", 10, false, scoring.Both),
		crit("respect", "COMPLIANCE", 30, true, scoring.Both),
		crit("solve", "SKILLS", 40, false, scoring.Both),
		crit("close", "CLOSING", 20, false, scoring.Both),
	}}
	// pending marks ids as routed to review; the others are decided.
	judge := func(complies map[string]bool, pending ...string) []scoring.Verdict {
		vs := verdicts(complies)
		for i := range vs {
			for _, id := range pending {
				if vs[i].CriterionID == id {
					vs[i].Assessment = scoring.Assessment{Basis: scoring.BasisEvidence, Confidence: 0.55, NeedsReview: true}
				}
			}
		}
		return vs
	}
	all := map[string]bool{"greet": true, "respect": true, "solve": true, "close": true}
	with := func(id string, ok bool) map[string]bool {
		m := map[string]bool{}
		for k, v := range all {
			m[k] = v
		}
		m[id] = ok
		return m
	}
	f := func(v float64) *float64 { return &v }

	tests := []struct {
		name           string
		verdicts       []scoring.Verdict
		score          float64
		passed         bool
		pending        []string
		lo, hi         *float64
		failedCritical []string
	}{
		{name: "decided", verdicts: judge(all), score: 100, passed: true, failedCritical: []string{}},
		{name: "a pending critical not met does not zero the score", verdicts: judge(with("respect", false), "respect"),
			score: 70, pending: []string{"respect"}, lo: f(0), hi: f(100), failedCritical: []string{}},
		{name: "a decided critical not met does", verdicts: judge(with("respect", false)),
			score: 0, failedCritical: []string{"respect"}},
		{name: "a pending item met can still be lost", verdicts: judge(all, "solve"),
			score: 100, pending: []string{"solve"}, lo: f(60), hi: f(100), failedCritical: []string{}},
		{name: "a pending item not met can still be won", verdicts: judge(with("close", false), "close", "greet"),
			score: 80, pending: []string{"greet", "close"}, lo: f(70), hi: f(100), failedCritical: []string{}},
		{name: "a decided critical failure decides the range", verdicts: judge(with("respect", false), "solve"),
			score: 0, pending: []string{"solve"}, lo: f(0), hi: f(0), failedCritical: []string{"respect"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := scoring.Score(card, scoring.Chat, tt.verdicts, 85)
			require.NoError(t, err)
			require.Equal(t, tt.score, res.Score)
			require.Equal(t, tt.passed, res.Passed)
			require.Equal(t, tt.pending, res.Pending)
			require.Equal(t, tt.lo, res.ScoreMin)
			require.Equal(t, tt.hi, res.ScoreMax)
			require.Equal(t, tt.failedCritical, res.FailedCritical)
		})
	}
}

func TestScoreNotApplicable(t *testing.T) {
	t.Parallel()

	card := scoring.Scorecard{Version: 3, Criteria: []scoring.Criterion{
		crit("greet", "OPENING", 10, false, scoring.Both),
		crit("verify", "COMPLIANCE", 30, true, scoring.Both),
		crit("solve", "SKILLS", 40, false, scoring.Both),
		crit("close", "CLOSING", 20, false, scoring.Both),
	}}
	// judge gives the verdicts of complies, those of na not applicable
	// (sent with complies false: Score makes them met) and those of pending
	// routed to review.
	judge := func(complies map[string]bool, na []string, pending ...string) []scoring.Verdict {
		vs := verdicts(complies)
		for i := range vs {
			if slices.Contains(na, vs[i].CriterionID) {
				vs[i].NotApplicable, vs[i].Complies = true, false
			}
			if slices.Contains(pending, vs[i].CriterionID) {
				vs[i].Assessment = scoring.Assessment{Basis: scoring.BasisAbsence, Confidence: 0.7, NeedsReview: true}
			}
		}
		return vs
	}
	all := map[string]bool{"greet": true, "verify": true, "solve": true, "close": false}
	f := func(v float64) *float64 { return &v }

	tests := []struct {
		name       string
		verdicts   []scoring.Verdict
		score      float64
		passed     bool
		possible   float64
		categories []string
		lo, hi     *float64
	}{
		{name: "as a verdict met, 80 of 100", verdicts: judge(all, nil), score: 80, possible: 100,
			categories: []string{"OPENING", "COMPLIANCE", "SKILLS", "CLOSING"}},
		{name: "not applicable leaves the denominator: 50 of 70", verdicts: judge(all, []string{"verify"}), score: 71.43,
			possible: 70, categories: []string{"OPENING", "SKILLS", "CLOSING"}},
		{name: "a failed item made not applicable no longer counts", verdicts: judge(all, []string{"close"}), score: 100,
			passed: true, possible: 80, categories: []string{"OPENING", "COMPLIANCE", "SKILLS"}},
		{name: "a critical criterion not applicable never fails the audit",
			verdicts: judge(map[string]bool{"greet": true, "verify": false, "solve": true, "close": true}, []string{"verify"}),
			score:    100, passed: true, possible: 70, categories: []string{"OPENING", "SKILLS", "CLOSING"}},
		{name: "a pending not applicable verdict: the range spans it met and failed",
			verdicts: judge(all, []string{"verify"}, "verify"), score: 71.43, possible: 70,
			categories: []string{"OPENING", "SKILLS", "CLOSING"}, lo: f(0), hi: f(80)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := scoring.Score(card, scoring.Call, tt.verdicts, 85)
			require.NoError(t, err)
			require.Equal(t, tt.score, res.Score)
			require.Equal(t, tt.passed, res.Passed)
			require.Equal(t, tt.possible, res.Possible)
			require.Empty(t, res.FailedCritical)
			var cats []string
			for _, c := range res.Categories {
				cats = append(cats, c.Category)
			}
			require.Equal(t, tt.categories, cats)
			require.Equal(t, tt.lo, res.ScoreMin)
			require.Equal(t, tt.hi, res.ScoreMax)
			for _, it := range res.Items {
				na := slices.ContainsFunc(tt.verdicts, func(v scoring.Verdict) bool { return v.CriterionID == it.CriterionID && v.NotApplicable })
				require.Equal(t, na, it.NotApplicable, it.CriterionID)
				if it.NotApplicable {
					require.True(t, it.Complies, "a criterion not applicable is met as not applicable")
				}
			}
		})
	}

	t.Run("every verdict not applicable has no score", func(t *testing.T) {
		t.Parallel()
		_, err := scoring.Score(card, scoring.Call, judge(all, []string{"greet", "verify", "solve", "close"}), 85)
		require.ErrorIs(t, err, scoring.ErrAllNotApplicable)
	})
}
