package scoring

// Verdicts returns the verdicts of r's items, by criterion id: what a later
// revision keeps for the criteria it does not judge anew.
func (r Result) Verdicts() map[string]Verdict {
	out := make(map[string]Verdict, len(r.Items))
	for _, it := range r.Items {
		out[it.CriterionID] = Verdict{CriterionID: it.CriterionID, Complies: it.Complies, NotApplicable: it.NotApplicable,
			Explanation: it.Explanation, Evidence: it.Evidence, Assessment: it.Assessment}
	}
	return out
}

// Merge gathers one verdict for every criterion of card that applies to
// kind, in scorecard order, taking each from the first of sources (maps by
// criterion id) that has one: an analyst's edit before the previous
// revision, the previous revision before the engine. Verdicts for criteria
// the card does not have, or that do not apply, are left out. The ids of
// applicable criteria no source judges are returned in missing, in
// scorecard order; verdicts is then incomplete and Score refuses it.
func Merge(card Scorecard, kind string, sources ...map[string]Verdict) (verdicts []Verdict, missing []string) {
	for _, c := range card.Applicable(kind) {
		found := false
		for _, src := range sources {
			if v, ok := src[c.ID]; ok {
				v.CriterionID = c.ID
				verdicts = append(verdicts, v)
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, c.ID)
		}
	}
	return verdicts, missing
}

// Subset returns card with only the criteria whose ids are listed, in
// card's order: what an engine is asked to judge when only those lack a
// verdict.
func (s Scorecard) Subset(ids []string) Scorecard {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	out := Scorecard{Version: s.Version}
	for _, c := range s.Criteria {
		if want[c.ID] {
			out.Criteria = append(out.Criteria, c)
		}
	}
	return out
}
