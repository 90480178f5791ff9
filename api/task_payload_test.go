package api

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/visibility"
)

// The payloads of a task's events, as Postgres stored them (jsonb) when the
// summary was still db's type: what the stream has sent clients since, and
// what the events table holds. A change of the summary's types must leave
// them as they are.
const (
	storedTaskUpdated  = `{"kind": "call", "uuid": "00000000-0000-4000-8000-0000000000a1", "error": "speech server busy", "queue": "billing", "retry": {"error": "the speech server asked to wait", "reason": "busy", "attempt": 2, "max_attempts": 5, "next_attempt_at": "2026-11-20T09:45:00.25Z"}, "score": 72.5, "due_at": "2026-11-22T18:00:00Z", "passed": false, "status": "audited", "call_id": "call-881", "pending": ["greeting", "verification"], "campaign": "retail", "language": "es", "direction": "inbound", "file_name": "call-881.wav", "score_max": 90, "score_min": 40, "created_at": "2026-11-20T09:30:00.123456Z", "started_at": "2026-11-20T09:00:00Z", "updated_at": "2026-11-20T09:40:00.654321Z", "assigned_at": "2026-11-20T10:00:00Z", "assignee_id": "ana", "operator_id": "op-7", "review_items": 3, "review_state": "automatic", "transcript_unreliable": "low_quality"}`
	storedAgentUpdated = `{"kind": "call", "uuid": "00000000-0000-4000-8000-0000000000a1", "error": "speech server busy", "queue": "billing", "due_at": "2026-11-22T18:00:00Z", "status": "audited", "call_id": "call-881", "campaign": "retail", "language": "es", "direction": "inbound", "file_name": "call-881.wav", "created_at": "2026-11-20T09:30:00.123456Z", "started_at": "2026-11-20T09:00:00Z", "updated_at": "2026-11-20T09:40:00.654321Z", "assigned_at": "2026-11-20T10:00:00Z", "assignee_id": "ana", "operator_id": "op-7", "review_state": "automatic", "transcript_unreliable": "low_quality"}`
	storedAuditUpdated = `{"task": {"kind": "call", "uuid": "00000000-0000-4000-8000-0000000000a1", "error": "speech server busy", "queue": "billing", "retry": {"error": "the speech server asked to wait", "reason": "busy", "attempt": 2, "max_attempts": 5, "next_attempt_at": "2026-11-20T09:45:00.25Z"}, "score": 72.5, "due_at": "2026-11-22T18:00:00Z", "passed": false, "status": "audited", "call_id": "call-881", "pending": ["greeting", "verification"], "campaign": "retail", "language": "es", "direction": "inbound", "file_name": "call-881.wav", "score_max": 90, "score_min": 40, "created_at": "2026-11-20T09:30:00.123456Z", "started_at": "2026-11-20T09:00:00Z", "updated_at": "2026-11-20T09:40:00.654321Z", "assigned_at": "2026-11-20T10:00:00Z", "assignee_id": "ana", "operator_id": "op-7", "review_items": 3, "review_state": "automatic", "transcript_unreliable": "low_quality"}, "score": 72.5, "passed": false, "source": "analyst", "pending": ["greeting", "verification"], "revision": 2, "author_id": "ana", "author_name": "Ana", "score_before": 80, "scorecard_version": 4}`
)

// The task as the API showed it to quality and above, and as a blind
// analyst's stream sends its events (re-encoded without the audit), when
// the summary was still db's type. The API shows its agent
// blindAgentUpdated.
const (
	wireTask          = `{"uuid":"00000000-0000-4000-8000-0000000000a1","kind":"call","status":"audited","file_name":"call-881.wav","campaign":"retail","operator_id":"op-7","language":"es","call_id":"call-881","queue":"billing","direction":"inbound","started_at":"2026-11-20T09:00:00Z","error":"speech server busy","score":72.5,"passed":false,"score_min":40,"score_max":90,"pending":["greeting","verification"],"review_items":3,"assignee_id":"ana","created_at":"2026-11-20T09:30:00.123456Z","updated_at":"2026-11-20T09:40:00.654321Z","review_state":"automatic","assigned_at":"2026-11-20T10:00:00Z","due_at":"2026-11-22T18:00:00Z","transcript_unreliable":"low_quality","retry":{"attempt":2,"max_attempts":5,"reason":"busy","error":"the speech server asked to wait","next_attempt_at":"2026-11-20T09:45:00.25Z"}}`
	blindTaskUpdated  = `{"uuid":"00000000-0000-4000-8000-0000000000a1","kind":"call","status":"audited","file_name":"call-881.wav","campaign":"retail","operator_id":"op-7","language":"es","call_id":"call-881","queue":"billing","direction":"inbound","started_at":"2026-11-20T09:00:00Z","error":"speech server busy","assignee_id":"ana","created_at":"2026-11-20T09:30:00.123456Z","updated_at":"2026-11-20T09:40:00.654321Z","review_state":"automatic","assigned_at":"2026-11-20T10:00:00Z","due_at":"2026-11-22T18:00:00Z","transcript_unreliable":"low_quality","retry":{"attempt":2,"max_attempts":5,"reason":"busy","error":"the speech server asked to wait","next_attempt_at":"2026-11-20T09:45:00.25Z"}}`
	blindAgentUpdated = `{"uuid":"00000000-0000-4000-8000-0000000000a1","kind":"call","status":"audited","file_name":"call-881.wav","campaign":"retail","operator_id":"op-7","language":"es","call_id":"call-881","queue":"billing","direction":"inbound","started_at":"2026-11-20T09:00:00Z","error":"speech server busy","assignee_id":"ana","created_at":"2026-11-20T09:30:00.123456Z","updated_at":"2026-11-20T09:40:00.654321Z","review_state":"automatic","assigned_at":"2026-11-20T10:00:00Z","due_at":"2026-11-22T18:00:00Z","transcript_unreliable":"low_quality"}`
)

// plantedTask is a task with every field of its summary set (not a state
// the pipeline reaches: a score beside pending verdicts and a retry), its
// audit hidden from its agent (automatic, in a campaign that hides those).
func plantedTask() db.Task {
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return &v
	}
	score, lowest, highest, items, revision := 72.5, 40.0, 90.0, 3, 2
	passed := false
	return db.Task{
		NewTask: db.NewTask{UUID: "00000000-0000-4000-8000-0000000000a1", Kind: db.TaskCall, Status: pipeline.Audited,
			FileName: "call-881.wav", CampaignID: "00000000-0000-4000-8000-0000000000c1", OperatorID: "op-7",
			Language: "es", Direction: "inbound", StartedAt: at("2026-11-20T09:00:00Z"), CallID: "call-881", Queue: "billing"},
		CampaignName: "retail", Error: "speech server busy", Score: &score, Passed: &passed,
		ScoreMin: &lowest, ScoreMax: &highest, PendingCriteria: []string{"greeting", "verification"},
		ReviewItems: &items, AuditRevision: &revision, AssigneeID: "ana",
		CreatedAt: *at("2026-11-20T09:30:00.123456Z"), UpdatedAt: *at("2026-11-20T09:40:00.654321Z"),
		AssignedAt: at("2026-11-20T10:00:00Z"), DueAt: at("2026-11-22T18:00:00Z"), TranscriptUnreliable: "low_quality",
		Retry: &db.TaskRetry{Attempt: 2, MaxAttempts: 5, Reason: db.RetryBusy, Error: "the speech server asked to wait",
			NextAt: *at("2026-11-20T09:45:00.25Z")},
	}
}

// TestTaskPayloadsStable shows that the payloads of task events written
// now are those written before (byte for byte, as stored and streamed),
// that the stream reads the stored ones as it did, and that the API's
// summary of the task is what its events carry.
func TestTaskPayloadsStable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	task := plantedTask()
	before := 80.0
	rev := db.AuditRevision{TaskUUID: task.UUID, Revision: 2, Source: db.AuditByAnalyst, AuthorID: "ana", AuthorName: "Ana",
		Result: scoring.Result{Score: 72.5, ScorecardVersion: 4, Pending: []string{"greeting", "verification"}}}
	require.NoError(t, db.TaskEventInsert(ctx, pool, db.EventTaskUpdated, task))
	require.NoError(t, db.AuditEventInsert(ctx, pool, task, rev, &before))

	events, err := db.EventsAfter(ctx, pool, 0, 10)
	require.NoError(t, err)
	var stored []string
	for _, e := range events {
		stored = append(stored, string(e.Data))
	}
	require.Equal(t, []string{storedTaskUpdated, storedAgentUpdated, storedAuditUpdated}, stored)

	// The API shows the task as its events carry it: quality and above
	// all of it, its agent without the audit and the retry.
	quality := visibility.Viewer{User: "ana", Role: role.Quality}
	agent := visibility.Agent(task.OperatorID, task.CampaignID, true)
	for i, v := range []visibility.Viewer{quality, agent} {
		var read TaskSummary
		require.NoError(t, json.Unmarshal([]byte(stored[i]), &read))
		require.Equal(t, summaryFor(v, task), read)
		wire, err := json.Marshal(summaryFor(v, task))
		require.NoError(t, err)
		require.JSONEq(t, stored[i], string(wire))
		require.Equal(t, []string{wireTask, blindAgentUpdated}[i], string(wire))
	}

	// A blind analyst's stream sends the task events without the audit and
	// withholds the audit's.
	blind := &blindness{on: true, viewer: visibility.Viewer{User: "ana", Role: role.Quality, Blind: []string{task.UUID}}}
	var sent []string
	for _, e := range events {
		if f := blind.frame(ctx, newFrame(e)); f != nil {
			sent = append(sent, string(f.Data))
		}
	}
	require.Equal(t, []string{blindTaskUpdated, blindAgentUpdated}, sent)
}
