package api

import (
	"time"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/pipeline"
)

// The task lists' wire types: a task's summary, its transcription's retry
// state and a search's snippet, as the API shows db's.

// TaskSummary is what lists show of a task. Its events carry the same, as
// db stores them (db.TaskSummary): TestTaskPayloadsStable holds the two
// alike.
type TaskSummary struct {
	UUID        string          `json:"uuid" format:"uuid"`
	Kind        string          `json:"kind" enum:"call,chat"`
	Status      pipeline.Status `json:"status" enum:"queued,transcribing,transcribed,auditing,audited,validated,failed"`
	FileName    string          `json:"file_name"`
	Campaign    string          `json:"campaign" doc:"The campaign's name"`
	OperatorID  string          `json:"operator_id,omitempty" doc:"The audited agent's user id"`
	Language    string          `json:"language" doc:"The interaction's language (BCP 47)"`
	CallID      string          `json:"call_id,omitempty" doc:"The platform's id of the call or chat"`
	Queue       string          `json:"queue,omitempty" doc:"The platform's queue or skill"`
	Direction   string          `json:"direction,omitempty" enum:"inbound,outbound"`
	StartedAt   *time.Time      `json:"started_at,omitempty" doc:"When the interaction started, as its upload said"`
	Error       string          `json:"error,omitempty" doc:"Why the task failed, or why a queued call waits"`
	Score       *float64        `json:"score,omitempty" doc:"The current audit's score (0..100), once audited; absent while verdicts are pending (see score_min, score_max)"`
	Passed      *bool           `json:"passed,omitempty" doc:"Whether the current audit reaches the campaign's passing score; absent while verdicts are pending"`
	ScoreMin    *float64        `json:"score_min,omitempty" doc:"While verdicts are pending (pending): the lowest score the audit can still take; score and passed are absent then (the task is pending review, neither passed nor failed)"`
	ScoreMax    *float64        `json:"score_max,omitempty" doc:"While verdicts are pending: the highest score the audit can still take"`
	Pending     []string        `json:"pending,omitempty" doc:"The criteria (ids) whose verdicts await an analyst's confirmation; absent when none does. Never shown to agents"`
	ReviewItems *int            `json:"review_items,omitempty" minimum:"0" doc:"How many items of the current audit need an analyst's review (automatic verdicts below AUDIT_REVIEW_CONFIDENCE), once audited"`
	AssigneeID  string          `json:"assignee_id,omitempty" doc:"The user id of the analyst the task is assigned to"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	ReviewState string          `json:"review_state,omitempty" enum:"automatic,reviewed,validated" doc:"automatic until an analyst reviews the audit, then reviewed, then validated; absent before any audit"`
	AssignedAt  *time.Time      `json:"assigned_at,omitempty" doc:"When the task was assigned to assignee_id"`
	DueAt       *time.Time      `json:"due_at,omitempty" doc:"By when the assignee should review it"`
	// TranscriptUnreliable is db.Task.TranscriptUnreliable.
	TranscriptUnreliable string `json:"transcript_unreliable,omitempty" enum:"low_quality,too_fast" doc:"Why the call's transcript is unreliable, when it is: low_quality (the speech engine was unsure of its words: transcript.quality.score under the floor) or too_fast (more words a second than anyone says); every automatic verdict of its audit then needs review"`
	// Retry is db.Task.Retry, left out below quality.
	Retry *TaskRetry `json:"retry,omitempty" doc:"While a call's transcription is retried: the attempts so far, why the last did not finish and when the next is due. Shown to quality and above, never to agents"`
	// Snippet is where a search's words were found, in a list searched by
	// words (q).
	Snippet []SnippetPart `json:"snippet,omitempty" doc:"In a list searched by words (q): the passages of the transcript, the audit's explanations or the validation's notes where they were found, the words found marked; absent when only the file name has them"`
}

// TaskRetry is a call's transcription between its attempts (db.TaskRetry).
type TaskRetry struct {
	Attempt     int       `json:"attempt" minimum:"1" doc:"The attempts made so far (1 is the first); a server that asked to wait (busy) used none up"`
	MaxAttempts int       `json:"max_attempts" minimum:"1" doc:"The attempts the transcription gets before the task fails"`
	Reason      string    `json:"reason" enum:"busy,server_error,unreachable,timeout,bad_answer,internal" doc:"Why the last attempt did not finish: busy (the speech server asked to wait: 429, Retry-After), server_error (it answered 5xx), unreachable (no connection), timeout (no answer in time), bad_answer (an answer that is not a transcript), internal (ours: see the worker logs)"`
	Error       string    `json:"error" doc:"What went wrong, in English, for a person"`
	NextAt      time.Time `json:"next_attempt_at" doc:"When the next attempt is due; past while it runs"`
}

// SnippetPart is a piece of a search result's snippet (db.SnippetPart).
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty" doc:"This piece is a word the search found"`
}

// taskSummaryOf is s as the API shows it, without a snippet.
func taskSummaryOf(s db.TaskSummary) TaskSummary {
	return TaskSummary{
		UUID: s.UUID, Kind: s.Kind, Status: s.Status, FileName: s.FileName, Campaign: s.Campaign,
		OperatorID: s.OperatorID, Language: s.Language, CallID: s.CallID, Queue: s.Queue, Direction: s.Direction,
		StartedAt: s.StartedAt, Error: s.Error, Score: s.Score, Passed: s.Passed, ScoreMin: s.ScoreMin, ScoreMax: s.ScoreMax,
		Pending: s.Pending, ReviewItems: s.ReviewItems, AssigneeID: s.AssigneeID, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		ReviewState: s.ReviewState, AssignedAt: s.AssignedAt, DueAt: s.DueAt, TranscriptUnreliable: s.TranscriptUnreliable,
		Retry: taskRetryOf(s.Retry),
	}
}

// taskRetryOf is r as the API shows it; nil for none.
func taskRetryOf(r *db.TaskRetry) *TaskRetry {
	if r == nil {
		return nil
	}
	w := TaskRetry(*r)
	return &w
}

// snippetOf is parts as the API shows them; nil for none.
func snippetOf(parts []db.SnippetPart) []SnippetPart {
	if parts == nil {
		return nil
	}
	out := make([]SnippetPart, len(parts))
	for i, p := range parts {
		out[i] = SnippetPart(p)
	}
	return out
}
