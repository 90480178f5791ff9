package auditor

import (
	"context"
	"strings"
	"time"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Hybrid is AUDITOR_ENGINE=hybrid: the rules decide what they are sure of,
// and only the criteria whose rules verdict is below the review threshold
// go to the model, as a scorecard of those criteria alone (fewer tokens,
// the same schema-validated answer with evidence). A transcript the rules
// are sure of costs no request at all.
type Hybrid struct {
	rules Rules
	model Engine
	// review is the confidence below which a rules verdict is asked anew.
	review float64
}

// NewHybrid returns the hybrid of the rules and model (the llm engine),
// asking the model about rules verdicts whose confidence is below review
// (AUDIT_REVIEW_CONFIDENCE).
func NewHybrid(model Engine, review float64) *Hybrid {
	return &Hybrid{model: model, review: review}
}

// Name implements Engine: "hybrid:" and the model, as the llm engine names
// it without its "llm:".
func (h *Hybrid) Name() string { return "hybrid:" + strings.TrimPrefix(h.model.Name(), "llm:") }

// MaxDuration is the model's: a hybrid audit takes at most one of its
// audits (the rules take milliseconds).
func (h *Hybrid) MaxDuration() time.Duration {
	if bounded, ok := h.model.(interface{ MaxDuration() time.Duration }); ok {
		return bounded.MaxDuration()
	}
	return 0
}

// Audit implements Engine. Errors are the rules' (permanent) or the
// model's, which keep their meaning (retry later, or give up).
func (h *Hybrid) Audit(ctx context.Context, card scoring.Scorecard, kind string, t transcript.Transcript, lang string) ([]scoring.Verdict, error) {
	verdicts, err := h.rules.Audit(ctx, card, kind, t, lang)
	if err != nil {
		return nil, err
	}
	var unsure []string
	at := map[string]int{}
	for i, v := range verdicts {
		if v.Confidence < h.review {
			unsure = append(unsure, v.CriterionID)
			at[v.CriterionID] = i
		}
	}
	if len(unsure) == 0 {
		return verdicts, nil
	}
	asked, err := h.model.Audit(ctx, card.Subset(unsure), kind, t, lang)
	if err != nil {
		return nil, err
	}
	for _, v := range asked {
		if i, ok := at[v.CriterionID]; ok {
			verdicts[i] = v
		}
	}
	return verdicts, nil
}
