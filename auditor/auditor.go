// Package auditor is the automatic audit: the engines that judge a
// transcript against a scorecard (Rules, over package rules' phrase rules;
// package llm's language model; and Hybrid, which lets the rules decide
// what they are sure of and asks the model about the rest) behind one Engine
// interface, used by the audit jobs (package workers), by rule checking at
// publish time (package api) and by the evaluation (package eval).
package auditor

import (
	"bytes"
	"context"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/auditd/auditd/auditor/rules"
	"github.com/auditd/auditd/auditor/tone"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
)

// Engine judges an interaction's transcript against a scorecard: one
// verdict per criterion that applies to kind (scoring.Call or scoring.Chat),
// explained in lang.
type Engine interface {
	// Name identifies the engine in stored audits ("rules", "llm:<model>").
	Name() string
	// Audit returns the verdicts, in scorecard order. An error with a
	// method Permanent() bool that says true cannot succeed on retry; one
	// with a method RetryDelay() time.Duration asks to be retried after it.
	Audit(ctx context.Context, card scoring.Scorecard, kind string, t transcript.Transcript, lang string) ([]scoring.Verdict, error)
}

// Judge audits t with e, marks the verdicts whose confidence is below
// review as needing an analyst's review, and scores them against card and
// the passing score: the automatic audit of one interaction, as the audit
// job and the evaluation run it. The engine reads, and the items carry,
// each criterion's question and guidance in lang (scoring.Scorecard.In).
// Errors are e's, or scoring.Score's when the scorecard or the verdicts
// cannot be scored.
func Judge(ctx context.Context, e Engine, card scoring.Scorecard, kind string, t transcript.Transcript, lang string,
	passingScore, review float64) (scoring.Result, error) {
	card = card.In(lang)
	verdicts, err := e.Audit(ctx, card, kind, t, lang)
	if err != nil {
		return scoring.Result{}, err
	}
	scoring.Review(verdicts, review)
	res, err := scoring.Score(card, kind, verdicts, passingScore)
	if err != nil {
		return scoring.Result{}, Permanent(err)
	}
	return res, nil
}

// Rules is the phrase-rules engine (AUDITOR_ENGINE=rules). Compiling a
// scorecard costs milliseconds, so compiled scorecards are kept, keyed by
// what compiling reads of their criteria (a recomputation may ask for only
// the criteria that lack a verdict). The zero value is ready to use, and
// safe for concurrent use.
type Rules struct {
	// Calibration, when set, is the table confidences are read from instead
	// of the embedded one (rules.Fitted): for measuring a table fitted on
	// part of the evaluation set.
	Calibration *rules.Calibration
	// Models, when set, gives the tone models rules read instead of the
	// embedded ones (rules.NewWithModels): for measuring a model trained on
	// part of the evaluation set.
	Models func(name string) (*tone.Model, bool)

	mu    sync.Mutex
	seed  maphash.Seed
	cache map[uint64]compiled
}

// compiled is a cached engine with the criteria it was compiled from, to
// tell apart scorecards whose keys collide.
type compiled struct {
	criteria []scoring.Criterion
	engine   *rules.Engine
}

// maxCachedEngines bounds the cache; it is emptied when full (scorecards
// change rarely, so this only matters after many publications).
const maxCachedEngines = 256

// Name implements Engine.
func (*Rules) Name() string { return "rules" }

// Audit implements Engine. Its errors are permanent: a scorecard whose
// rules do not compile, or an unknown kind.
func (r *Rules) Audit(_ context.Context, card scoring.Scorecard, kind string, t transcript.Transcript, lang string) ([]scoring.Verdict, error) {
	e, err := r.Compile(card)
	if err != nil {
		return nil, Permanent(err)
	}
	if r.Calibration != nil {
		e = e.Calibrated(r.Calibration)
	}
	v, err := e.Audit(kind, t, lang)
	if err != nil {
		return nil, Permanent(err)
	}
	return v, nil
}

// Compile returns card's compiled rules, from the cache when the same
// criteria were compiled before. Errors are rules.New's.
func (r *Rules) Compile(card scoring.Scorecard) (*rules.Engine, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil {
		r.seed = maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(r.seed)
	for _, c := range card.Criteria {
		for _, s := range []string{c.ID, c.AppliesTo, c.Question, c.Category} {
			h.WriteString(s)
			h.WriteByte(0)
		}
		h.Write(c.Rule)
		h.WriteByte(0)
	}
	key := h.Sum64()
	if hit, ok := r.cache[key]; ok && sameRules(hit.criteria, card.Criteria) {
		return hit.engine, nil
	}
	models := r.Models
	if models == nil {
		models = tone.Builtin
	}
	e, err := rules.NewWithModels(card, models)
	if err != nil {
		return nil, err
	}
	if r.cache == nil || len(r.cache) >= maxCachedEngines {
		r.cache = map[uint64]compiled{}
	}
	r.cache[key] = compiled{criteria: slices.Clone(card.Criteria), engine: e}
	return e, nil
}

// sameRules reports whether a and b compile to the same engine.
func sameRules(a, b []scoring.Criterion) bool {
	return slices.EqualFunc(a, b, func(x, y scoring.Criterion) bool {
		return x.ID == y.ID && x.AppliesTo == y.AppliesTo && x.Question == y.Question && x.Category == y.Category &&
			bytes.Equal(x.Rule, y.Rule)
	})
}

// permanentError marks an error no retry can fix.
type permanentError struct{ error }

func (p permanentError) Unwrap() error { return p.error }

// Permanent implements the Engine error contract.
func (permanentError) Permanent() bool { return true }

// Permanent marks err as one that no retry can fix.
func Permanent(err error) error { return permanentError{err} }
