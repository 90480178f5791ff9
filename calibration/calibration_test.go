package calibration

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/scoring"
)

// reliability turns rows of coders' values (one row per coder, "" for a
// missing value) into units: the columns.
func reliability(rows ...[]string) [][]string {
	units := make([][]string, len(rows[0]))
	for _, row := range rows {
		for u, v := range row {
			if v != "" {
				units[u] = append(units[u], v)
			}
		}
	}
	return units
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// The worked examples of Krippendorff, "Computing Krippendorff's
// Alpha-Reliability" (2011), with their published values.
func TestAlphaKrippendorffsExamples(t *testing.T) {
	t.Parallel()
	// Section A: two observers, binary data, no missing values: α = 0.095.
	binary := reliability(
		[]string{"0", "1", "0", "0", "0", "0", "0", "0", "1", "0"},
		[]string{"1", "1", "1", "0", "0", "1", "0", "0", "0", "0"},
	)
	alpha, ok := Alpha(binary)
	require.True(t, ok)
	require.Equal(t, 0.095, round3(alpha))

	// Section C: four observers, five values, twelve units, missing
	// values (unit 12 has one value only and is not pairable); nominal
	// α = 0.743.
	missing := reliability(
		[]string{"1", "2", "3", "3", "2", "1", "4", "1", "2", "", "", ""},
		[]string{"1", "2", "3", "3", "2", "2", "4", "1", "2", "5", "", "3"},
		[]string{"", "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", ""},
		[]string{"1", "2", "3", "3", "2", "4", "4", "1", "2", "5", "1", ""},
	)
	alpha, ok = Alpha(missing)
	require.True(t, ok)
	require.Equal(t, 0.743, round3(alpha))
}

func TestAlphaEdges(t *testing.T) {
	t.Parallel()
	_, ok := Alpha(nil)
	require.False(t, ok, "no units")
	_, ok = Alpha([][]string{{"a"}, {"b"}})
	require.False(t, ok, "no unit with two values")
	_, ok = Alpha([][]string{{"a", "a"}, {"a", "a", "a"}})
	require.False(t, ok, "no variation: undefined")
	alpha, ok := Alpha([][]string{{"a", "a"}, {"b", "b"}})
	require.True(t, ok)
	require.Equal(t, 1.0, alpha, "perfect agreement")
	alpha, ok = Alpha([][]string{{"a", "b"}, {"b", "a"}})
	require.True(t, ok)
	require.Less(t, alpha, 0.0, "systematic disagreement")
}

func TestCompute(t *testing.T) {
	t.Parallel()
	analysts := []string{"ana", "ben", "cris"}
	units := []Unit{
		{TaskUUID: "t1", CriterionID: "greeting", Automatic: Complies,
			Answers: map[string]string{"ana": Complies, "ben": Complies, "cris": DoesNotComply}},
		{TaskUUID: "t2", CriterionID: "greeting", Automatic: DoesNotComply,
			Answers: map[string]string{"ana": DoesNotComply, "ben": DoesNotComply, "cris": DoesNotComply}},
		{TaskUUID: "t1", CriterionID: "closing", Automatic: Complies,
			Answers: map[string]string{"ana": Complies, "ben": NotApplicable, "cris": DoesNotComply}},
		{TaskUUID: "t2", CriterionID: "closing",
			Answers: map[string]string{"ana": Complies, "ben": Complies}},
	}
	res := Compute(units, []string{"greeting", "empathy", "closing"}, analysts)
	require.Len(t, res.Criteria, 2, "criteria without units are left out")

	g := res.Criteria[0]
	require.Equal(t, "greeting", g.CriterionID)
	require.Equal(t, 2, g.Units)
	require.Equal(t, 6, g.Answers)
	require.InDelta(t, 4.0/6, *g.PercentAgreement, 1e-9, "t1: 1 pair of 3 agrees, t2: 3 of 3")
	require.InDelta(t, 5.0/6, *g.AutomaticAgreement, 1e-9)
	want, _ := Alpha([][]string{{Complies, Complies, DoesNotComply}, {DoesNotComply, DoesNotComply, DoesNotComply}})
	require.InDelta(t, want, *g.Alpha, 1e-12)
	require.Equal(t, []string{"cris"}, g.Outliers)
	require.Equal(t, "cris", g.Analysts[0].AnalystID)
	require.Equal(t, 1, g.Analysts[0].Differs)
	require.Equal(t, 2, g.Analysts[0].Judged)

	c := res.Criteria[1]
	require.Equal(t, 5, c.Answers)
	require.InDelta(t, 1.0/4, *c.PercentAgreement, 1e-9, "t1: no pair of 3 agrees, t2: 1 of 1")
	require.InDelta(t, 1.0/3, *c.AutomaticAgreement, 1e-9, "only t1 has an automatic verdict; not applicable is not complies")
	require.Empty(t, c.Outliers, "t1 has no majority and t2's agrees")

	require.Equal(t, 4, res.Overall.Units)
	require.Equal(t, 11, res.Overall.Answers)
	require.Equal(t, []string{"cris"}, res.Outliers)

	// An automatic verdict not applicable agrees with the answers that say so.
	na := Compute([]Unit{{TaskUUID: "t1", CriterionID: "verification", Automatic: Of(true, true),
		Answers: map[string]string{"ana": NotApplicable, "ben": NotApplicable, "cris": Complies}}}, []string{"verification"}, analysts)
	require.InDelta(t, 2.0/3, *na.Overall.AutomaticAgreement, 1e-9)

	empty := Compute(nil, []string{"greeting"}, analysts)
	require.Nil(t, empty.Overall.Alpha)
	require.Nil(t, empty.Overall.PercentAgreement)
	require.Empty(t, empty.Outliers)
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	for answer, want := range map[string]scoring.Verdict{
		Complies:      {CriterionID: "c", Complies: true, Explanation: "why"},
		DoesNotComply: {CriterionID: "c", Explanation: "why"},
		NotApplicable: {CriterionID: "c", Complies: true, NotApplicable: true, Explanation: "why"},
	} {
		v := Verdict("c", answer, "why")
		require.Equal(t, want, v, answer)
		require.Equal(t, answer, Of(v.Complies, v.NotApplicable), "Of reads back the answer a verdict says")
	}
}
