// Package sampling applies a campaign's sampling rules: it picks newly
// audited tasks for an analyst's review and assigns them to the
// campaign's analysts, in round robin or by load, with a due date. Each
// rule decides on a task once (db.SamplingPicksInsert), so running it
// again picks nothing twice.
package sampling

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/l10n"
)

// Batch is how many tasks a rule decides on in one transaction.
const Batch = 500

// ReviewsLink is where the dashboard shows an analyst's queue.
const ReviewsLink = "/reviews"

// Run applies every enabled rule of campaign campaignID ("" for every
// campaign), each Batch tasks per transaction until it has decided on every
// task it may, records each rule's run (last_run_at, last_picked) and
// returns how many tasks were picked.
func Run(ctx context.Context, pool *pgxpool.Pool, campaignID string, now time.Time) (int, error) {
	rules, err := db.SamplingRulesEnabled(ctx, pool, campaignID)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, r := range rules {
		ruleTotal := 0
		for {
			var picked, decided int
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) (err error) {
				picked, decided, err = Apply(ctx, tx, r.ID, now)
				return err
			})
			if err != nil {
				return total, err
			}
			ruleTotal += picked
			if decided < Batch {
				break
			}
		}
		if err := db.SamplingRuleRecordRun(ctx, pool, r.ID, ruleTotal); err != nil {
			return total, err
		}
		total += ruleTotal
	}
	return total, nil
}

// Apply runs rule ruleID once, in tx, over up to Batch tasks it has not
// decided on: it records its decisions, assigns the tasks it picks (each
// with its task.updated event) and notifies each analyst who got some.
// It returns how many tasks it picked and decided on. A disabled rule, or
// a campaign without analysts, decides nothing (its tasks wait).
func Apply(ctx context.Context, tx pgx.Tx, ruleID string, now time.Time) (picked, decided int, err error) {
	r, err := db.SamplingRuleLock(ctx, tx, ruleID)
	if err != nil || !r.Enabled {
		return 0, 0, err
	}
	camp, err := db.CampaignGet(ctx, tx, r.CampaignID)
	if err != nil {
		return 0, 0, err
	}
	analysts, err := db.UsersAnalystPool(ctx, tx, camp.ReviewAnalysts)
	if err != nil || len(analysts) == 0 {
		return 0, 0, err
	}
	cands, err := db.SamplingCandidates(ctx, tx, r, Batch)
	if err != nil || len(cands) == 0 {
		return 0, 0, err
	}
	var counts map[db.SamplingPeriodKey]int
	if r.Kind == db.SamplePerAgent {
		if counts, err = db.SamplingPicked(ctx, tx, r.ID, cands[0].PeriodStart); err != nil {
			return 0, 0, err
		}
	}
	picks := Decide(r, cands, counts)
	share := newAssigner(r, analysts)
	due := now.Add(time.Duration(r.DueDays) * 24 * time.Hour)
	got := map[string]int{}
	for i := range picks {
		if !picks[i].Picked {
			continue
		}
		picks[i].AssigneeID = share.next()
		if _, err := db.TaskAssign(ctx, tx, picks[i].TaskUUID, picks[i].AssigneeID, &due); err != nil {
			return 0, 0, err
		}
		got[picks[i].AssigneeID]++
		picked++
	}
	if err := db.SamplingPicksInsert(ctx, tx, r.ID, picks); err != nil {
		return 0, 0, err
	}
	for _, id := range slices.Sorted(maps.Keys(got)) {
		if _, err := db.NotificationCreate(ctx, tx, Notice(id, camp.Name, got[id], due)); err != nil {
			return 0, 0, err
		}
	}
	return picked, len(picks), db.SamplingRuleAdvance(ctx, tx, r.ID, share.last)
}

// Notice tells analyst id that n tasks of campaign were assigned to them,
// due by due, in their language, linking to their queue.
func Notice(id, campaign string, n int, due time.Time) db.NotificationNew {
	text := l10n.T("%d tasks of campaign %s were assigned to you for review, due by %s.", n, campaign, due.UTC().Format(time.DateOnly))
	if n == 1 {
		text = l10n.T("A task of campaign %s was assigned to you for review, due by %s.", campaign, due.UTC().Format(time.DateOnly))
	}
	return db.NotificationNew{UserID: id, Text: text, Variant: "info", Link: ReviewsLink}
}

// Decide takes rule r's decision on each candidate (in their order, oldest
// audit first). counts are the tasks a per_agent rule picked already per
// agent and period; Decide counts its own picks in them.
func Decide(r db.SamplingRule, cands []db.SamplingCandidate, counts map[db.SamplingPeriodKey]int) []db.SamplingPick {
	picks := make([]db.SamplingPick, len(cands))
	for i, c := range cands {
		picks[i] = db.SamplingPick{SamplingCandidate: c}
	}
	switch r.Kind {
	case db.SamplePerAgent:
		// Within an agent's period, in the order of their draws: a random
		// choice, the same on every run.
		order := make([]int, len(picks))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(picks[a].Draw, picks[b].Draw) })
		for _, i := range order {
			k := db.SamplingPeriodKey{PeriodStart: picks[i].PeriodStart, OperatorID: picks[i].OperatorID}
			if picks[i].OperatorID != "" && counts[k] < *r.PerAgent {
				picks[i].Picked = true
				counts[k]++
			}
		}
	case db.SampleRandomShare:
		for i := range picks {
			picks[i].Picked = picks[i].Draw*100 < *r.Share
		}
	default:
		// failed_critical and needs_review: the candidates are the tasks
		// they take.
		for i := range picks {
			picks[i].Picked = true
		}
	}
	return picks
}

// assigner shares a rule's picks among analysts.
type assigner struct {
	strategy string
	analysts []db.AnalystLoad
	// last is the analyst the last pick went to (round robin goes on after
	// it, the rule's LastAnalyst at first).
	last string
}

func newAssigner(r db.SamplingRule, analysts []db.AnalystLoad) *assigner {
	return &assigner{strategy: r.Strategy, analysts: analysts, last: r.LastAnalyst}
}

// next returns the analyst the next pick goes to: by load, the one with
// the fewest open assignments (the first by id of those); in round robin,
// the first by id after the last one.
func (a *assigner) next() string {
	i := 0
	if a.strategy == db.AssignByLoad {
		for j, an := range a.analysts {
			if an.Open < a.analysts[i].Open {
				i = j
			}
		}
	} else if j := slices.IndexFunc(a.analysts, func(an db.AnalystLoad) bool { return an.ID > a.last }); j >= 0 {
		i = j
	}
	a.analysts[i].Open++
	a.last = a.analysts[i].ID
	return a.last
}
