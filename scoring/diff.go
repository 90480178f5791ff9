package scoring

// Item changes, the values of ItemChange.Change.
const (
	// ItemChanged: the criterion is in both results and something of it differs.
	ItemChanged = "changed"
	// ItemAdded: the criterion is new (a newer scorecard added it).
	ItemAdded = "added"
	// ItemRemoved: the criterion is gone (a newer scorecard dropped it).
	ItemRemoved = "removed"
)

// Diff says how one scored audit differs from the one before it: what a
// revision records so that a reader sees what an analyst or a new scorecard
// changed without comparing two documents.
type Diff struct {
	// ScorecardVersion is set when the two were scored against different versions.
	ScorecardVersion *IntChange  `json:"scorecard_version,omitempty"`
	Score            FloatChange `json:"score"`
	Passed           BoolChange  `json:"passed"`
	// Items lists the criteria that changed, in the order of the later
	// result, then the removed ones in the order of the earlier.
	Items []ItemChange `json:"items"`
}

// ItemChange is how one criterion's item changed. For a changed item only
// the fields that differ are set; an added item has To values only, a
// removed one From values only.
type ItemChange struct {
	CriterionID string      `json:"criterion_id"`
	Question    string      `json:"question" doc:"The question as the later result words it (the earlier, for a removed item)"`
	Change      string      `json:"change" enum:"changed,added,removed"`
	Complies    *BoolChange `json:"complies,omitempty"`
	// NotApplicable is set when the item became, or stopped being, not
	// applicable.
	NotApplicable *BoolChange  `json:"not_applicable,omitempty"`
	Explanation   *TextChange  `json:"explanation,omitempty"`
	Evidence      *TextChange  `json:"evidence,omitempty"`
	Weight        *FloatChange `json:"weight,omitempty"`
	Critical      *BoolChange  `json:"critical,omitempty"`
	Category      *TextChange  `json:"category,omitempty"`
	// QuestionChange is set when a newer scorecard reworded the question.
	QuestionChange *TextChange `json:"question_change,omitempty"`
}

// BoolChange is a boolean before and after; a missing side is null.
type BoolChange struct {
	From *bool `json:"from"`
	To   *bool `json:"to"`
}

// TextChange is a text before and after; a missing side is null.
type TextChange struct {
	From *string `json:"from"`
	To   *string `json:"to"`
}

// FloatChange is a number before and after; a missing side is null.
type FloatChange struct {
	From *float64 `json:"from"`
	To   *float64 `json:"to"`
}

// IntChange is an integer before and after.
type IntChange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Compare returns how after differs from before.
func Compare(before, after Result) Diff {
	d := Diff{
		Score:  FloatChange{From: &before.Score, To: &after.Score},
		Passed: BoolChange{From: &before.Passed, To: &after.Passed},
		Items:  []ItemChange{},
	}
	if before.ScorecardVersion != after.ScorecardVersion {
		d.ScorecardVersion = &IntChange{From: before.ScorecardVersion, To: after.ScorecardVersion}
	}
	old := make(map[string]Item, len(before.Items))
	for _, it := range before.Items {
		old[it.CriterionID] = it
	}
	seen := make(map[string]bool, len(after.Items))
	for _, it := range after.Items {
		seen[it.CriterionID] = true
		prev, ok := old[it.CriterionID]
		if !ok {
			d.Items = append(d.Items, ItemChange{CriterionID: it.CriterionID, Question: it.Question, Change: ItemAdded,
				Complies: &BoolChange{To: &it.Complies}, Explanation: &TextChange{To: &it.Explanation},
				Evidence: &TextChange{To: &it.Evidence}, Weight: &FloatChange{To: &it.Weight},
				Critical: &BoolChange{To: &it.Critical}, Category: &TextChange{To: &it.Category}})
			continue
		}
		c := ItemChange{CriterionID: it.CriterionID, Question: it.Question, Change: ItemChanged,
			Complies:       boolChange(prev.Complies, it.Complies),
			NotApplicable:  boolChange(prev.NotApplicable, it.NotApplicable),
			Explanation:    textChange(prev.Explanation, it.Explanation),
			Evidence:       textChange(prev.Evidence, it.Evidence),
			Weight:         floatChange(prev.Weight, it.Weight),
			Critical:       boolChange(prev.Critical, it.Critical),
			Category:       textChange(prev.Category, it.Category),
			QuestionChange: textChange(prev.Question, it.Question),
		}
		if c.Complies != nil || c.NotApplicable != nil || c.Explanation != nil || c.Evidence != nil || c.Weight != nil || c.Critical != nil ||
			c.Category != nil || c.QuestionChange != nil {
			d.Items = append(d.Items, c)
		}
	}
	for _, it := range before.Items {
		if !seen[it.CriterionID] {
			d.Items = append(d.Items, ItemChange{CriterionID: it.CriterionID, Question: it.Question, Change: ItemRemoved,
				Complies: &BoolChange{From: &it.Complies}, Explanation: &TextChange{From: &it.Explanation},
				Evidence: &TextChange{From: &it.Evidence}, Weight: &FloatChange{From: &it.Weight},
				Critical: &BoolChange{From: &it.Critical}, Category: &TextChange{From: &it.Category}})
		}
	}
	return d
}

func boolChange(from, to bool) *BoolChange {
	if from == to {
		return nil
	}
	return &BoolChange{From: &from, To: &to}
}

func textChange(from, to string) *TextChange {
	if from == to {
		return nil
	}
	return &TextChange{From: &from, To: &to}
}

func floatChange(from, to float64) *FloatChange {
	if from == to {
		return nil
	}
	return &FloatChange{From: &from, To: &to}
}
