package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
)

// Defaults of the recompute_audits job's tuning (Deps).
const (
	defaultRecomputeBatch       = 100
	defaultRecomputeNotifyEvery = 1000
)

// recomputeSlice is how long one run of recompute_audits works before it
// snoozes and lets the next run continue: a run never lasts long enough
// for River to take it for stuck (RescueStuckJobsAfter) and start it twice.
const recomputeSlice = 2 * time.Minute

// maxListedFailures bounds the failures a recomputation keeps in its output.
const maxListedFailures = 20

// RecomputeProgress is the output of a recompute_audits job (River job
// metadata, "output"): how far it has got. Each batch updates it in the
// transaction that stores the batch's revisions, so a run that is killed
// resumes after the last batch that committed.
type RecomputeProgress struct {
	// After is the uuid of the last task looked at (tasks go in uuid order).
	After string `json:"after,omitempty"`
	// Total is how many audits needed recomputing when the job started.
	Total int `json:"total"`
	// Rescored audits got a new revision.
	Rescored int `json:"rescored"`
	// Skipped audits changed meanwhile: validated, or already scored
	// against this version (an analyst's edit).
	Skipped int `json:"skipped"`
	// Failed audits could not be scored; Failures names the first ones.
	Failed   int                `json:"failed"`
	Failures []RecomputeFailure `json:"failures,omitempty"`
	// Superseded is the newer version that made this job stop early, if any.
	Superseded int  `json:"superseded,omitempty"`
	Done       bool `json:"done"`
}

// RecomputeFailure is an audit a recomputation could not score.
type RecomputeFailure struct {
	TaskUUID string `json:"task_uuid"`
	Error    string `json:"error"`
}

func (p *RecomputeProgress) fail(task string, err error) {
	p.Failed++
	if len(p.Failures) < maxListedFailures {
		p.Failures = append(p.Failures, RecomputeFailure{TaskUUID: task, Error: err.Error()})
	}
}

func (p RecomputeProgress) handled() int { return p.Rescored + p.Skipped + p.Failed }

// RecomputeAuditsWorker re-scores a campaign's audits against a newly
// published scorecard version.
type RecomputeAuditsWorker struct {
	river.WorkerDefaults[jobs.RecomputeAuditsArgs]
	pool        *pgxpool.Pool
	auditor     auditor.Engine
	review      float64
	backoff     Backoff
	batch       int
	notifyEvery int
}

// Timeout implements river.Worker: a run stops taking batches after
// recomputeSlice; the rest bounds the batch it is in.
func (w *RecomputeAuditsWorker) Timeout(*river.Job[jobs.RecomputeAuditsArgs]) time.Duration {
	return recomputeSlice + auditTimeout(w.auditor)
}

// Work implements river.Worker. Every audited task of the campaign whose
// current revision was scored against an older version gets one new
// revision (source recompute, by the system) against the job's version:
// the previous verdicts are kept by criterion id and the auditor judges
// only the criteria that have none. It works in batches of tasks in uuid
// order, each one transaction with its progress; a task already at the
// version is skipped, so a run that starts again (after a crash, or two
// runs at once) never recomputes an audit twice. A newer version stops it:
// that version's own job recomputes everything. The publisher is told of
// the progress every notifyEvery audits and at the end.
func (w *RecomputeAuditsWorker) Work(ctx context.Context, job *river.Job[jobs.RecomputeAuditsArgs]) error {
	var p RecomputeProgress
	if out := job.Output(); len(out) > 0 {
		if err := json.Unmarshal(out, &p); err != nil {
			return river.JobCancel(fmt.Errorf("the job's progress cannot be read: %w", err))
		}
	}
	if p.Done {
		return nil
	}
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return err
	}
	args := job.Args
	campaign, err := db.CampaignGet(ctx, w.pool, args.CampaignID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("campaign %s no longer exists", args.CampaignID))
	}
	if err != nil {
		return err
	}
	if p.After == "" && p.handled() == 0 {
		if p.Total, err = db.AuditsToRecomputeCount(ctx, w.pool, campaign.ID, args.ScorecardVersion); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(recomputeSlice)
	for {
		card, err := db.ScorecardCurrent(ctx, w.pool, campaign.ID)
		if err != nil {
			return err
		}
		if card.Version != args.ScorecardVersion {
			if card.Version < args.ScorecardVersion {
				return fmt.Errorf("scorecard version %d of campaign %s is not visible yet", args.ScorecardVersion, campaign.Name)
			}
			p.Superseded = card.Version
		}
		var uuids []string
		if p.Superseded == 0 {
			if uuids, err = db.AuditsToRecompute(ctx, w.pool, campaign.ID, args.ScorecardVersion, p.After, w.batch); err != nil {
				return err
			}
		}
		if len(uuids) == 0 {
			p.Done = true
			return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
				if _, err := client.JobUpdateTx(ctx, tx, job.ID, &river.JobUpdateParams{Output: p}); err != nil {
					return err
				}
				return w.notifyDone(ctx, tx, job.Args, campaign, p)
			})
		}
		if err := w.batchOf(ctx, client, job, campaign, card, uuids, &p); err != nil {
			return w.backoff.retryLater(ctx, w.pool, job.JobRow, err)
		}
		if time.Now().After(deadline) {
			return river.JobSnooze(0)
		}
	}
}

// batchOf recomputes the audits of uuids and records the progress p, in
// one transaction; p changes only if it commits.
func (w *RecomputeAuditsWorker) batchOf(ctx context.Context, client *river.Client[pgx.Tx], job *river.Job[jobs.RecomputeAuditsArgs],
	campaign db.Campaign, card db.Scorecard, uuids []string, p *RecomputeProgress) error {
	next := *p
	next.Failures = append([]RecomputeFailure(nil), p.Failures...)
	// The engine runs outside the transaction, for the criteria the
	// current revisions lack; an engine that cannot judge a task fails
	// that task, one that is unavailable fails the batch (retried).
	engine := make(map[string]map[string]scoring.Verdict, len(uuids))
	failed := map[string]bool{}
	for _, id := range uuids {
		task, err := db.TaskGetByUUID(ctx, w.pool, id)
		if err != nil {
			return err
		}
		current, err := db.AuditCurrent(ctx, w.pool, id)
		if err != nil {
			return err
		}
		_, missing := scoring.Merge(card.Scorecard, task.Kind, current.Result.Verdicts())
		v, err := engineVerdicts(ctx, w.pool, w.auditor, w.review, task, campaign, card, missing)
		if ErrPermanent(err) {
			next.fail(id, err)
			failed[id] = true
			continue
		}
		if err != nil {
			return err
		}
		engine[id] = v
	}
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		var out revision.Outbox
		for _, id := range uuids {
			if failed[id] {
				continue
			}
			task, err := db.TaskLock(ctx, tx, id)
			if err != nil {
				return err
			}
			current, err := db.AuditCurrent(ctx, tx, id)
			if err != nil {
				return err
			}
			if task.Status != pipeline.Audited || current.Result.ScorecardVersion >= card.Version {
				next.Skipped++
				continue
			}
			verdicts, missing := scoring.Merge(card.Scorecard, task.Kind, current.Result.Verdicts(), engine[id])
			if len(missing) > 0 {
				return revision.ErrChangedMeanwhile
			}
			result, err := scoring.Score(card.Scorecard.In(taskLanguage(task, campaign)), task.Kind, verdicts, campaign.PassingScore)
			if err != nil {
				next.fail(id, err)
				continue
			}
			if _, _, err := revision.Append(ctx, tx, task, current, db.AuditRevision{Result: result, Source: db.AuditByRecompute}, &out); err != nil {
				return err
			}
			next.Rescored++
		}
		next.After = uuids[len(uuids)-1]
		if _, err := client.JobUpdateTx(ctx, tx, job.ID, &river.JobUpdateParams{Output: next}); err != nil {
			return err
		}
		if err := out.Flush(ctx, tx); err != nil {
			return err
		}
		if w.notifyEvery > 0 && next.handled()/w.notifyEvery > p.handled()/w.notifyEvery {
			return w.notify(ctx, tx, job.Args, "info", l10n.T(
				"Recomputing the audits of campaign %s against scorecard version %d: %d of %d done.",
				campaign.Name, job.Args.ScorecardVersion, next.handled(), max(next.Total, next.handled())))
		}
		return nil
	})
	if err != nil {
		return err
	}
	*p = next
	return nil
}

// notifyDone tells the publisher how the recomputation ended; nothing when
// there was nothing to recompute.
func (w *RecomputeAuditsWorker) notifyDone(ctx context.Context, tx pgx.Tx, args jobs.RecomputeAuditsArgs, campaign db.Campaign, p RecomputeProgress) error {
	if p.handled() == 0 && p.Superseded == 0 {
		return nil
	}
	text := l10n.T("The audits of campaign %s were recomputed against scorecard version %d: %d re-scored",
		campaign.Name, args.ScorecardVersion, p.Rescored)
	if p.Skipped > 0 {
		text = text.And(", %d changed meanwhile", p.Skipped)
	}
	variant := "success"
	if p.Failed > 0 {
		variant = "warning"
		text = text.And(", %d could not be scored (the job's output lists them)", p.Failed)
	}
	text = text.And(".")
	if p.Superseded != 0 {
		text = text.And(" Version %d was published meanwhile: its own recomputation does the rest.", p.Superseded)
	}
	return w.notify(ctx, tx, args, variant, text)
}

// notify tells the publisher, if the job has one.
func (w *RecomputeAuditsWorker) notify(ctx context.Context, tx pgx.Tx, args jobs.RecomputeAuditsArgs, variant string, text l10n.Text) error {
	if args.RequestedBy == "" {
		return nil
	}
	_, err := db.NotificationCreate(ctx, tx, db.NotificationNew{UserID: args.RequestedBy, Text: text, Variant: variant})
	return err
}
