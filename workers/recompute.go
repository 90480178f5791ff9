package workers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
)

// engineVerdicts runs the auditor on task for the criteria of card listed
// in missing (those no revision or edit judges: after a scorecard change,
// the criteria the previous revision does not have) and returns its
// verdicts by criterion id, those whose confidence is below review, or
// that an unreliable transcript cannot carry (distrust), marked as needing
// an analyst's review, as the automatic audit marks its own;
// nil when nothing is missing, so the common case runs no engine at all.
// The verdicts kept from earlier revisions keep the marks they were given.
func engineVerdicts(ctx context.Context, pool *pgxpool.Pool, engine auditor.Engine, review float64, task db.Task, campaign db.Campaign,
	card db.Scorecard, missing []string) (map[string]scoring.Verdict, error) {
	if len(missing) == 0 {
		return nil, nil
	}
	tr, err := db.TranscriptGet(ctx, pool, task.UUID)
	if errcode.Is(err, errcode.NotFound) {
		return nil, permanent(fmt.Errorf("the task has no transcript to judge %s", strings.Join(missing, ", ")))
	}
	if err != nil {
		return nil, err
	}
	sub := card
	sub.Scorecard = card.Subset(missing)
	verdicts, err := engine.Audit(ctx, sub.Scorecard, task.Kind, tr, auditLanguage(tr, task, campaign))
	if err != nil {
		return nil, engineError(ctx, err)
	}
	scoring.Review(verdicts, review)
	distrust(verdicts, tr.Quality)
	out := make(map[string]scoring.Verdict, len(verdicts))
	for _, v := range verdicts {
		out[v.CriterionID] = v
	}
	return out, nil
}

// RecomputeAuditWorker applies analysts' edits (recorded by POST
// /compute-audit-results): each becomes a revision scored against the
// campaign's current scorecard.
type RecomputeAuditWorker struct {
	river.WorkerDefaults[jobs.RecomputeAuditArgs]
	pool    *pgxpool.Pool
	auditor auditor.Engine
	cards   *scorecards
	review  float64
	backoff Backoff
}

// Timeout implements river.Worker.
func (w *RecomputeAuditWorker) Timeout(*river.Job[jobs.RecomputeAuditArgs]) time.Duration {
	return auditTimeout(w.auditor)
}

// Work implements river.Worker: revision.Apply applies the job's edit
// (and the task's pending edits made before it), the auditor judging what
// no revision judges; a job whose edit is resolved already does nothing.
// An edit that fails for good, or on the last attempt, is recorded as
// failed and its author told.
func (w *RecomputeAuditWorker) Work(ctx context.Context, job *river.Job[jobs.RecomputeAuditArgs]) error {
	edit, err := db.AuditEditGet(ctx, w.pool, job.Args.EditID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("edit %d no longer exists", job.Args.EditID))
	}
	if err != nil {
		return err
	}
	if edit.Status != db.EditPending {
		return nil
	}
	d := revision.Deps{Deps: db.Deps{Pool: w.pool}, Current: w.cards.current, Language: taskLanguage,
		Judge: func(ctx context.Context, task db.Task, campaign db.Campaign, card db.Scorecard, missing []string) (map[string]scoring.Verdict, error) {
			return engineVerdicts(ctx, w.pool, w.auditor, w.review, task, campaign, card, missing)
		}}
	if err := revision.Apply(ctx, d, edit); err != nil {
		return w.backoff.settle(ctx, w.pool, job.JobRow, err, func() error {
			return revision.Fail(context.WithoutCancel(ctx), w.pool, edit, truncate(err.Error(), 1000))
		})
	}
	return nil
}
