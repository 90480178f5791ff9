package calibration

// Alpha is Krippendorff's alpha for nominal data: the agreement among
// coders beyond what chance would give, 1 for perfect agreement, 0 for
// agreement at chance, below 0 for systematic disagreement. units holds,
// for each unit judged (an interaction's criterion), the values the coders
// gave it; a coder who gave none is simply absent (missing values). Units
// with fewer than two values cannot be paired and do not count.
//
// It follows Krippendorff, "Computing Krippendorff's Alpha-Reliability"
// (2011): with the coincidences o_ck of values within units (each unit's
// pairs weighted 1/(m_u−1)), n_c = Σ_k o_ck and n = Σ_c n_c, for nominal
// data
//
//	α = 1 − (n − 1) · (n − Σ_c o_cc) / (n² − Σ_c n_c²)
//
// ok is false when alpha is undefined: no unit has two values, or every
// value is the same (no variation, so chance agreement is perfect too).
func Alpha(units [][]string) (alpha float64, ok bool) {
	var n, agree float64
	totals := map[string]float64{}
	for _, values := range units {
		m := len(values)
		if m < 2 {
			continue
		}
		counts := map[string]float64{}
		for _, v := range values {
			counts[v]++
		}
		for v, c := range counts {
			agree += c * (c - 1) / float64(m-1)
			totals[v] += c
		}
		n += float64(m)
	}
	expected := n * n
	for _, c := range totals {
		expected -= c * c
	}
	if n < 2 || expected == 0 {
		return 0, false
	}
	return 1 - (n-1)*(n-agree)/expected, true
}
