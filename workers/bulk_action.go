package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/bulk"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/revision"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/validation"
)

// defaultBulkBatch is how many tasks a bulk action's job handles in one
// transaction (Deps.BulkBatch).
const defaultBulkBatch = 100

// bulkSlice is how long one run of a bulk action's job works before it
// snoozes and lets the next run go on: a run never lasts long enough for
// River to take it for stuck and start it twice, and other jobs get their
// turn between slices.
const bulkSlice = time.Minute

// errBulkEnded stops a run whose bulk action ended meanwhile (cancelled).
var errBulkEnded = errors.New("the bulk action has ended")

// BulkActionWorker carries out bulk actions (POST /bulk-actions): a page
// of tasks at a time, in one transaction that records each task's result
// and the action's progress together.
type BulkActionWorker struct {
	river.WorkerDefaults[jobs.BulkActionArgs]
	pool *pgxpool.Pool
	// audit is the audit job's worker: a re-audit judges a task through
	// the same engine path.
	audit   *AuditWorker
	backoff Backoff
	batch   int
	// to and bcc receive every validation's e-mail (VALIDATION_TO,
	// VALIDATION_BCC), as they do POST /validate-audit's.
	to, bcc []string
	log     *slog.Logger
}

// Timeout implements river.Worker: a run stops taking pages after
// bulkSlice; the rest bounds the page it is in (a re-audit judges one task
// more at most once the slice is over).
func (w *BulkActionWorker) Timeout(*river.Job[jobs.BulkActionArgs]) time.Duration {
	return bulkSlice + auditTimeout(w.audit.auditor) + time.Minute
}

// Work implements river.Worker. It walks the action's tasks after the
// position the last committed page left (explicit ones in uuid order, a
// filter's newest first, among the tasks created before the action was
// asked for), asks package bulk whether the requester may act on each and
// whether the action applies to it, acts, and records the result in the
// page's transaction with the action's counts and position. A task with
// a result is never acted on again, so a run that starts over after a
// crash, or two runs at once, do nothing twice. A cancelled action stops
// at the next page. Progress is published about once a second; the end
// is published and the requester notified.
func (w *BulkActionWorker) Work(ctx context.Context, job *river.Job[jobs.BulkActionArgs]) error {
	a, err := db.BulkActionGet(ctx, w.pool, job.Args.BulkID)
	if errcode.Is(err, errcode.NotFound) {
		return river.JobCancel(fmt.Errorf("bulk action %s no longer exists", job.Args.BulkID))
	}
	if err != nil {
		return err
	}
	if a.Finished() {
		return nil
	}
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		return w.backoff.settle(ctx, w.pool, job.JobRow, err, func() error { return w.fail(ctx, a, describe(err, job.ID)) })
	}
	if a.Status == db.BulkQueued {
		if a, err = w.start(ctx, a); err != nil {
			return fail(err)
		}
		if a.Finished() {
			return nil
		}
	}
	deadline := time.Now().Add(bulkSlice)
	for {
		tasks, end, err := w.page(ctx, a)
		if err != nil {
			return fail(err)
		}
		if len(tasks) == 0 {
			return w.finish(ctx, a)
		}
		a, err = w.run(ctx, client, a, tasks, end, deadline)
		if errors.Is(err, errBulkEnded) {
			return nil
		}
		if err != nil {
			return fail(err)
		}
		if time.Now().After(deadline) {
			return river.JobSnooze(0)
		}
	}
}

// start marks a running and, for a filter, counts its tasks.
func (w *BulkActionWorker) start(ctx context.Context, a db.BulkAction) (db.BulkAction, error) {
	var matched *int64
	if a.Filter != nil {
		n, err := db.TaskCountAll(ctx, w.pool, selection(a))
		if err != nil {
			return a, err
		}
		matched = &n
	}
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		locked, err := db.BulkActionLock(ctx, tx, a.ID)
		if err != nil || locked.Status != db.BulkQueued {
			a = locked // cancelled meanwhile
			return err
		}
		a, err = db.BulkActionStart(ctx, tx, a.ID, matched)
		return err
	})
	return a, err
}

// selection is the filter of a's tasks, bounded to those created before a
// was asked for: tasks uploaded while it runs are not part of it.
func selection(a db.BulkAction) db.TaskFilter {
	f := *a.Filter
	if f.To.IsZero() || f.To.After(a.CreatedAt) {
		f.To = a.CreatedAt
	}
	return f
}

// page returns the next page of a's tasks after its position, and the
// position after the whole page.
func (w *BulkActionWorker) page(ctx context.Context, a db.BulkAction) ([]db.Task, db.TaskCursor, error) {
	if a.Filter == nil {
		ids := slices.Sorted(slices.Values(a.TaskUUIDs))
		from := 0
		if a.After != nil {
			from, _ = slices.BinarySearch(ids, a.After.UUID)
			if from < len(ids) && ids[from] == a.After.UUID {
				from++
			}
		}
		// A task that no longer exists is passed over: there is nothing
		// left to act on, nor to record a result for.
		for ; from < len(ids); from += w.batch {
			next := ids[from:min(from+w.batch, len(ids))]
			tasks, err := db.TasksGet(ctx, w.pool, next)
			if err != nil || len(tasks) > 0 {
				return tasks, db.TaskCursor{UUID: next[len(next)-1]}, err
			}
		}
		return nil, db.TaskCursor{}, nil
	}
	tasks, err := db.TaskList(ctx, w.pool, selection(a), db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true,
		After: a.After, Limit: w.batch})
	if err != nil || len(tasks) == 0 {
		return nil, db.TaskCursor{}, err
	}
	return tasks, tasks[len(tasks)-1].Cursor(db.TaskSortCreatedAt), nil
}

// judgement is the engine's re-audit of a task, made before the page's
// transaction: its result, or why there is none.
type judgement struct {
	// judged is set when the engine judged the task.
	judged bool
	result scoring.Result
	// skip says why the task cannot be re-audited (no transcript).
	skip db.BulkReason
	// err is the engine's permanent error.
	err error
}

// run acts on tasks, the next page of a (end: the position after it), and
// records their results and a's progress in one transaction; it returns a
// as it then is. A re-audit's engine judges the tasks first, outside the
// transaction, and stops at the first task past deadline: the page then
// ends with the last task judged. It returns errBulkEnded when a has ended
// meanwhile.
func (w *BulkActionWorker) run(ctx context.Context, client *river.Client[pgx.Tx], a db.BulkAction, tasks []db.Task,
	end db.TaskCursor, deadline time.Time) (db.BulkAction, error) {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.UUID
	}
	recorded, err := db.BulkItemsRecorded(ctx, w.pool, a.ID, ids)
	if err != nil {
		return a, err
	}
	requester, err := db.UserGet(ctx, w.pool, a.RequestedBy)
	if err != nil {
		return a, err
	}
	judged := map[string]judgement{}
	if a.Action == bulk.Reaudit {
		for i, task := range tasks {
			if recorded[task.UUID] || bulk.Forbidden(requester, a.Action, task).Code != "" || bulk.Skip(a.Action, a.Params, task).Code != "" {
				continue
			}
			if i > 0 && time.Now().After(deadline) {
				tasks, end = tasks[:i], db.TaskCursor{Value: tasks[i-1].Cursor(db.TaskSortCreatedAt).Value, UUID: tasks[i-1].UUID}
				break
			}
			result, err := w.audit.audit(ctx, task)
			switch {
			case err == nil:
				judged[task.UUID] = judgement{judged: true, result: result}
			case errors.Is(err, errNoTranscript):
				judged[task.UUID] = judgement{skip: db.BulkReason{Code: bulk.NoTranscript}}
			case ErrPermanent(err):
				judged[task.UUID] = judgement{err: err}
			default:
				return a, err // the engine is unavailable: the page again, later
			}
		}
	}
	ids = ids[:len(tasks)] // the page may end early
	deps := validation.Deps{Deps: db.Deps{Pool: w.pool, River: client}, Log: w.log, To: w.to, Bcc: w.bcc}
	err = pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		locked, err := db.BulkActionLock(ctx, tx, a.ID)
		if err != nil {
			return err
		}
		if locked.Finished() {
			return errBulkEnded
		}
		// Asked again under the action's lock, which every page takes:
		// another run's page may have committed since.
		if recorded, err = db.BulkItemsRecorded(ctx, tx, a.ID, ids); err != nil {
			return err
		}
		var counts db.BulkCounts
		var out revision.Outbox
		// Tasks are locked in uuid order, as recompute_audits locks them:
		// two jobs acting on the same tasks wait for each other instead of
		// deadlocking.
		for _, id := range slices.Sorted(slices.Values(ids)) {
			if recorded[id] {
				continue
			}
			outcome, err := w.one(ctx, tx, deps, a, requester, id, judged[id], &out)
			if err != nil {
				return err
			}
			counts.Add(outcome)
		}
		if a, err = db.BulkActionProgress(ctx, tx, a.ID, counts, end); err != nil {
			return err
		}
		return out.Flush(ctx, tx)
	})
	return a, err
}

// one acts on task uuid, locked, and records the result; it returns the
// outcome. What the business refuses (a conflict, nobody to e-mail) is
// the task's failure, its reason the refusal, and whatever the attempt
// wrote is undone (a savepoint); anything else fails the page.
func (w *BulkActionWorker) one(ctx context.Context, tx pgx.Tx, deps validation.Deps, a db.BulkAction, requester db.User,
	uuid string, j judgement, out *revision.Outbox) (string, error) {
	var mine revision.Outbox
	var outcome string
	var why db.BulkReason
	var task db.Task
	err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) (err error) {
		if task, err = db.TaskLock(ctx, sp, uuid); err != nil {
			return err
		}
		outcome, why, err = w.act(ctx, sp, deps, a, requester, task, j, &mine)
		return err
	})
	switch code := errcode.Of(err); {
	case err == nil:
		out.Add(mine)
	case code == errcode.Internal || code == errcode.Unavailable:
		return "", err
	case errors.Is(err, validation.ErrNoRecipients):
		outcome, why = db.BulkItemFailed, db.BulkReason{Code: bulk.NoRecipients, Params: db.BulkReasonParams{Campaign: task.CampaignName}}
	default:
		e, _ := errors.AsType[*errcode.Error](err)
		outcome, why = db.BulkItemFailed, db.BulkReason{Code: bulk.Refused, Params: db.BulkReasonParams{Error: e.Message}}
	}
	if _, err := db.BulkItemInsert(ctx, tx, a.ID, uuid, outcome, why, bulk.Message(why)); err != nil {
		return "", err
	}
	return outcome, nil
}

// act does a's action to task, unless its requester may not or it does
// not apply; it returns the outcome and the reason to tell about it.
func (w *BulkActionWorker) act(ctx context.Context, tx pgx.Tx, deps validation.Deps, a db.BulkAction, requester db.User,
	task db.Task, j judgement, out *revision.Outbox) (string, db.BulkReason, error) {
	if why := bulk.Forbidden(requester, a.Action, task); why.Code != "" {
		return db.BulkItemFailed, why, nil
	}
	if why := bulk.Skip(a.Action, a.Params, task); why.Code != "" {
		return db.BulkSkipped, why, nil
	}
	done := func(code string, p db.BulkReasonParams) (string, db.BulkReason, error) {
		return db.BulkSucceeded, db.BulkReason{Code: code, Params: p}, nil
	}
	switch a.Action {
	case bulk.Reaudit:
		switch {
		case j.skip.Code != "":
			return db.BulkSkipped, j.skip, nil
		case j.err != nil:
			return db.BulkItemFailed, db.BulkReason{Code: bulk.AuditFailed, Params: db.BulkReasonParams{Error: describe(j.err, 0)}}, nil
		case !j.judged:
			// Not audited when the page was judged; audited since.
			return db.BulkSkipped, db.BulkReason{Code: bulk.AuditedMeanwhile}, nil
		}
		current, err := db.AuditCurrent(ctx, tx, task.UUID)
		if err != nil {
			return "", db.BulkReason{}, err
		}
		rev, _, err := revision.Append(ctx, tx, task, current, db.AuditRevision{Result: j.result, Source: db.AuditByEngine,
			Engine: w.audit.auditor.Name()}, out)
		if err != nil {
			return "", db.BulkReason{}, err
		}
		return done(bulk.Reaudited, db.BulkReasonParams{Revision: rev.Revision, Score: &j.result.Score, Passed: &j.result.Passed,
			PassingScore: &j.result.PassingScore, ScorecardVersion: j.result.ScorecardVersion, Pending: j.result.Pending})
	case bulk.Retry:
		changed, err := lifecycle.RetryTask(ctx, tx, deps.River, task)
		if err != nil {
			return "", db.BulkReason{}, err
		}
		return done(bulk.Retried, db.BulkReasonParams{Status: changed.Status})
	case bulk.Assign:
		if _, err := db.TaskAssign(ctx, tx, task.UUID, a.Params.AssigneeID, nil); err != nil {
			return "", db.BulkReason{}, err
		}
		return done(bulk.Assigned, db.BulkReasonParams{AssigneeID: a.Params.AssigneeID})
	case bulk.Unassign:
		if _, err := db.TaskUnassign(ctx, tx, task.UUID); err != nil {
			return "", db.BulkReason{}, err
		}
		return done(bulk.Unassigned, db.BulkReasonParams{AssigneeID: task.AssigneeID})
	case bulk.Validate:
		to, err := validation.Recipients(ctx, deps, task, requester.Email)
		if err != nil {
			return "", db.BulkReason{}, err
		}
		isCall := task.Kind == db.TaskCall
		val, err := validation.Apply(ctx, tx, deps, task, db.NewValidation{TaskUUID: task.UUID, Notes: a.Params.Notes,
			ValidatorID: requester.ID, ValidatorName: validation.ValidatorName(requester), IsCall: isCall,
			SentTo: to.To, Bcc: to.Bcc, RequestHash: validation.RequestHash(task.UUID, a.Params.Notes, isCall, nil)})
		if err != nil {
			return "", db.BulkReason{}, err
		}
		return done(bulk.Validated, db.BulkReasonParams{Recipients: val.SentTo})
	}
	return "", db.BulkReason{}, fmt.Errorf("bulk action %s: unknown action %q", a.ID, a.Action)
}

// finish ends a, done, and tells its requester; nothing when it was
// cancelled meanwhile.
func (w *BulkActionWorker) finish(ctx context.Context, a db.BulkAction) error {
	return w.end(ctx, a.ID, db.BulkDone, "")
}

// fail ends a, failed for reason, and tells its requester. The job may
// have run out of time, so this gets a little time of its own.
func (w *BulkActionWorker) fail(ctx context.Context, a db.BulkAction, reason string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return w.end(ctx, a.ID, db.BulkFailed, reason)
}

func (w *BulkActionWorker) end(ctx context.Context, id, status, reason string) error {
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if _, err := db.BulkActionLock(ctx, tx, id); err != nil {
			return err
		}
		ended, err := db.BulkActionFinish(ctx, tx, id, status, reason)
		if errcode.Is(err, errcode.Conflict) {
			return nil // cancelled meanwhile: the cancellation told the requester
		}
		if err != nil {
			return err
		}
		if _, err = db.NotificationCreate(ctx, tx, bulk.Notice(ended)); err != nil {
			return err
		}
		if n, ok := bulk.AssigneeNotice(ended); ok {
			_, err = db.NotificationCreate(ctx, tx, n)
		}
		return err
	})
}
