package lifecycle_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/lifecycle"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/scoring"
)

// TestTable holds the shape of a task's life: every status is reached,
// validated is final, failed leads only to a retry, and every status but
// those two can fail.
func TestTable(t *testing.T) {
	t.Parallel()
	statuses := []pipeline.Status{pipeline.Queued, pipeline.Transcribing, pipeline.Transcribed, pipeline.Auditing,
		pipeline.Audited, pipeline.Validated, pipeline.Failed}
	reached := map[pipeline.Status]bool{pipeline.Queued: true, pipeline.Transcribed: true} // where calls and chats start
	failable := map[pipeline.Status]bool{}
	for _, s := range lifecycle.Steps() {
		require.NotEmpty(t, s.Name())
		require.Contains(t, statuses, s.To(), s.Name())
		require.NotEmpty(t, s.From(), s.Name())
		reached[s.To()] = true
		for _, from := range s.From() {
			require.Contains(t, statuses, from, s.Name())
			require.NotEqual(t, pipeline.Validated, from, "%s: validated is final", s.Name())
			if from == pipeline.Failed {
				require.True(t, strings.HasPrefix(s.Name(), "retry"), "%s: a failed task is only retried", s.Name())
			}
			if s.To() == pipeline.Failed {
				failable[from] = true
			}
		}
	}
	for _, st := range statuses {
		require.True(t, reached[st], "%s is reached", st)
	}
	for _, st := range []pipeline.Status{pipeline.Queued, pipeline.Transcribing, pipeline.Transcribed, pipeline.Auditing} {
		require.True(t, failable[st], "a task %s can fail", st)
	}
}

func TestRetry(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind           string
		failedFrom, to pipeline.Status
	}{
		{db.TaskCall, pipeline.Queued, pipeline.Queued},
		{db.TaskCall, pipeline.Transcribing, pipeline.Queued},
		{db.TaskCall, "", pipeline.Queued},
		{db.TaskCall, pipeline.Auditing, pipeline.Transcribed},
		{db.TaskCall, pipeline.Transcribed, pipeline.Transcribed},
		{db.TaskChat, pipeline.Auditing, pipeline.Transcribed},
		{db.TaskChat, "", pipeline.Transcribed},
	} {
		require.Equal(t, tt.to, lifecycle.Retry(tt.kind, tt.failedFrom).To(), "%s failed from %q", tt.kind, tt.failedFrom)
	}
}

// TestMove takes a chat through its life, and refuses a step that does
// not start where the task is, and a step made outside the table.
func TestMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, c := dbtest.ForTasks(t)
	sum := sha256.Sum256([]byte(t.Name()))
	id := uuid.NewString()
	_, _, err := db.TaskInsert(ctx, pool, db.NewTask{UUID: id, Kind: db.TaskChat, Status: pipeline.Transcribed,
		FileName: "chat.txt", ContentType: "text/plain", SizeBytes: 1, SHA256: hex.EncodeToString(sum[:]),
		BlobKey: "uploads/test/" + id, CampaignID: c.ID, OperatorID: "op-1", Language: "es", UploadedBy: "qa"})
	require.NoError(t, err)

	_, err = lifecycle.Move(ctx, pool, id, lifecycle.Validate, lifecycle.With{})
	require.ErrorIs(t, err, db.ErrTaskStatus, "a transcribed task is not validated")
	_, err = lifecycle.Move(ctx, pool, id, lifecycle.Step{}, lifecycle.With{})
	require.ErrorContains(t, err, "not a step of the table")
	_, err = lifecycle.Move(ctx, pool, uuid.NewString(), lifecycle.Audit, lifecycle.With{})
	require.Equal(t, errcode.NotFound, errcode.Of(err))

	task, err := lifecycle.Move(ctx, pool, id, lifecycle.Audit, lifecycle.With{Attempt: 1})
	require.NoError(t, err)
	require.Equal(t, pipeline.Auditing, task.Status)
	task, err = lifecycle.Move(ctx, pool, id, lifecycle.FailAudit, lifecycle.With{Error: "engine down", Attempt: 1})
	require.NoError(t, err)
	require.Equal(t, "engine down", task.Error)
	task, err = lifecycle.Move(ctx, pool, id, lifecycle.Retry(task.Kind, pipeline.Auditing), lifecycle.With{})
	require.NoError(t, err)
	require.Equal(t, pipeline.Transcribed, task.Status)
	require.Empty(t, task.Error)
	for _, s := range []lifecycle.Step{lifecycle.Audit, lifecycle.Audited, lifecycle.Validate} {
		task, err = lifecycle.Move(ctx, pool, id, s, lifecycle.With{})
		require.NoError(t, err, s.Name())
	}
	require.Equal(t, pipeline.Validated, task.Status)

	history, err := db.TaskHistory(ctx, pool, id)
	require.NoError(t, err)
	var path []pipeline.Status
	for _, h := range history {
		path = append(path, h.To)
	}
	require.Equal(t, []pipeline.Status{pipeline.Transcribed, pipeline.Auditing, pipeline.Failed, pipeline.Transcribed,
		pipeline.Auditing, pipeline.Audited, pipeline.Validated}, path)
	updates := countEvents(t, pool, db.EventTaskUpdated)
	require.Equal(t, 6, updates, "one task.updated event per step")
}

// TestFinish stores the automatic audit and moves the task to audited in
// one write: through auditing when it was transcribed, from auditing when
// a slow engine's audit showed it; never from elsewhere.
func TestFinish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, c := dbtest.ForTasks(t)
	insert := func(status pipeline.Status) string {
		id := uuid.NewString()
		sum := sha256.Sum256([]byte(id))
		_, _, err := db.TaskInsert(ctx, pool, db.NewTask{UUID: id, Kind: db.TaskChat, Status: status,
			FileName: "chat.txt", ContentType: "text/plain", SizeBytes: 1, SHA256: hex.EncodeToString(sum[:]),
			BlobKey: "uploads/test/" + id, CampaignID: c.ID, OperatorID: "op-1", Language: "es", UploadedBy: "qa"})
		require.NoError(t, err)
		return id
	}
	finish := func(id string) (db.Task, error) {
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx) //nolint:errcheck
		task, err := lifecycle.Finish(ctx, tx, db.AuditRevision{TaskUUID: id, Source: db.AuditByEngine, Engine: "rules",
			Result: scoring.Result{ScorecardVersion: 1, Score: 90, Passed: true, Items: []scoring.Item{{CriterionID: "greeting", Complies: true}}}},
			lifecycle.With{Attempt: 2})
		if err == nil {
			require.NoError(t, tx.Commit(ctx))
		}
		return task, err
	}
	path := func(id string) []string {
		history, err := db.TaskHistory(ctx, pool, id)
		require.NoError(t, err)
		var to []string
		for _, h := range history {
			to = append(to, string(h.From+">"+h.To))
		}
		return to
	}

	quick := insert(pipeline.Transcribed)
	task, err := finish(quick)
	require.NoError(t, err)
	require.Equal(t, pipeline.Audited, task.Status)
	require.Equal(t, 2, task.Attempts)
	require.Equal(t, 1, *task.AuditRevision)
	require.Equal(t, []string{">transcribed", "transcribed>auditing", "auditing>audited"}, path(quick))

	slow := insert(pipeline.Transcribed)
	_, err = lifecycle.Move(ctx, pool, slow, lifecycle.Audit, lifecycle.With{Attempt: 1})
	require.NoError(t, err)
	task, err = finish(slow)
	require.NoError(t, err)
	require.Equal(t, pipeline.Audited, task.Status)
	require.Equal(t, []string{">transcribed", "transcribed>auditing", "auditing>audited"}, path(slow))

	_, err = finish(quick)
	require.ErrorIs(t, err, db.ErrTaskStatus, "an audited task is not finished again")
	revisions, err := db.AuditRevisionList(ctx, pool, quick)
	require.NoError(t, err)
	require.Len(t, revisions, 1, "and gets no second revision")

	updates := countEvents(t, pool, db.EventTaskUpdated)
	// One task.updated event per write, the finishes' twice: the automatic
	// audit is hidden from the agent, who gets the task without it.
	require.Equal(t, 5, updates, "two finishes, twice each, and the slow one's Audit")
}

// countEvents counts the events of type typ written so far.
func countEvents(t *testing.T, pool db.DBTX, typ string) int {
	t.Helper()
	events, err := db.EventsAfter(context.Background(), pool, 0, 100)
	require.NoError(t, err)
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// TestOnlyLifecycleChangesStatus holds the rule of the package: outside
// lifecycle (and db, which runs the query), no code changes a task's
// status itself.
func TestOnlyLifecycleChangesStatus(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..")
	var offenders []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if slices.Contains([]string{"node_modules", ".git", "web"}, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if strings.HasSuffix(dir, "/lifecycle") || strings.HasSuffix(dir, "/db") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "TaskTransition" || sel.Sel.Name == "AuditAppendAndMove") {
				offenders = append(offenders, path)
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, offenders, "status changes outside lifecycle.Move and lifecycle.Finish")
}
