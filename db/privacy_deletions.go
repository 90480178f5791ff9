package db

import (
	"context"
	"fmt"
	"time"
)

// Kinds of content retention and erasure delete from a task.
const (
	ForgetRecording  = "recording"
	ForgetTranscript = "transcript"
	ForgetAudit      = "audit"
)

// ForgetKinds are the kinds in the order they are deleted.
var ForgetKinds = []string{ForgetRecording, ForgetTranscript, ForgetAudit}

// Causes of a deletion.
const (
	CauseRetention = "retention"
	CauseErasure   = "erasure"
)

// Forgotten is what one batch deleted: counts per campaign and kind, and
// the blobs no row refers to any more (to delete once it commits).
type Forgotten struct {
	Counts   map[CampaignKind]int
	BlobKeys []string
}

// CampaignKind is a campaign and a kind of content.
type CampaignKind struct {
	CampaignID string
	Kind       string
}

func (f *Forgotten) add(campaign, kind string, n int) {
	if n == 0 {
		return
	}
	if f.Counts == nil {
		f.Counts = map[CampaignKind]int{}
	}
	f.Counts[CampaignKind{campaign, kind}] += n
}

// Count is how many of kind f deleted, over every campaign.
func (f Forgotten) Count(kind string) int {
	n := 0
	for k, c := range f.Counts {
		if k.Kind == kind {
			n += c
		}
	}
	return n
}

// keptCondition is, per kind, the condition over tasks t that a task
// still holds it.
var keptCondition = map[string]string{
	ForgetRecording:  `t.blob_key IS NOT NULL`,
	ForgetTranscript: `t.transcript_deleted_at IS NULL`,
	ForgetAudit:      `t.audit_deleted_at IS NULL`,
}

// TasksExpired returns up to limit tasks of campaign that still hold kind
// although they were uploaded more than days ago, oldest first, locked for
// the rest of tx; tasks on legal hold and tasks another transaction holds
// locked (taken by the next run) are left out.
func TasksExpired(ctx context.Context, q DBTX, campaign, kind string, days, limit int) ([]string, error) {
	return texts(q.Query(ctx, `
		SELECT t.uuid::text FROM tasks t
		WHERE t.campaign_id = $1 AND t.created_at < now() - make_interval(days => $2) AND `+keptCondition[kind]+`
			AND NOT EXISTS (SELECT 1 FROM legal_holds h WHERE h.task_uuid = t.uuid)
		ORDER BY t.created_at LIMIT $3 FOR UPDATE OF t SKIP LOCKED`, campaign, days, limit))
}

// TasksOfPerson returns up to limit tasks where operatorID is the agent or
// customerRef the customer reference ("" matches nothing) that still hold
// something, not on legal hold, locked for the rest of tx.
func TasksOfPerson(ctx context.Context, q DBTX, operatorID, customerRef string, limit int) ([]string, error) {
	return texts(q.Query(ctx, `
		SELECT t.uuid::text FROM tasks t
		WHERE (t.operator_id = $1 OR t.customer_ref = $2)
			AND (t.blob_key IS NOT NULL OR t.transcript_deleted_at IS NULL OR t.audit_deleted_at IS NULL)
			AND NOT EXISTS (SELECT 1 FROM legal_holds h WHERE h.task_uuid = t.uuid)
		ORDER BY t.uuid LIMIT $3 FOR UPDATE OF t`, nullIfEmpty(operatorID), nullIfEmpty(customerRef), limit))
}

// TasksOfPersonHeld counts the tasks of a person (as TasksOfPerson) on
// legal hold.
func TasksOfPersonHeld(ctx context.Context, q DBTX, operatorID, customerRef string) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT count(*) FROM tasks t JOIN legal_holds h ON h.task_uuid = t.uuid
		WHERE t.operator_id = $1 OR t.customer_ref = $2`, nullIfEmpty(operatorID), nullIfEmpty(customerRef)).Scan(&n)
	return n, err
}

// TasksForget deletes kind from the tasks uuids (locked by the caller's
// transaction) and returns what it deleted:
//   - recording: the uploaded file's reference (blob_key becomes NULL, the
//     key is returned to delete after commit);
//   - transcript: the transcript and the task's search document, a
//     chat's uploaded file, which holds the same words, as do the quotes
//     coaching items took from it (emptied; the links stay), and what the
//     platform said of the call's parties (caller, called, metadata);
//   - audit: every revision and pending edit of the audit (the task keeps
//     its score and pass, which the statistics count), the search document
//     made again without its explanations.
//
// Each marks the task with when it went; a task that had none of kind is
// marked and not counted.
func TasksForget(ctx context.Context, q DBTX, kind string, uuids []string, f *Forgotten) error {
	switch kind {
	case ForgetRecording:
		return forgetFiles(ctx, q, uuids, false, f)
	case ForgetTranscript:
		if err := forgetCounted(ctx, q, ForgetTranscript, f, `
			WITH gone AS (DELETE FROM transcripts WHERE task_uuid = ANY($1::uuid[]) RETURNING task_uuid),
			search AS (DELETE FROM task_search WHERE task_uuid = ANY($1::uuid[])),
			quotes AS (UPDATE coaching_links SET quote = '' WHERE task_uuid = ANY($1::uuid[]) AND quote <> ''),
			t AS (UPDATE tasks SET transcript_deleted_at = now(), caller = NULL, called = NULL, metadata = NULL
				WHERE uuid = ANY($1::uuid[]) AND transcript_deleted_at IS NULL RETURNING uuid, campaign_id)
			SELECT t.campaign_id, count(gone.task_uuid) FROM t LEFT JOIN gone ON gone.task_uuid = t.uuid GROUP BY 1`, uuids); err != nil {
			return err
		}
		return forgetFiles(ctx, q, uuids, true, f)
	case ForgetAudit:
		if err := forgetCounted(ctx, q, ForgetAudit, f, `
			WITH gone AS (DELETE FROM audit_revisions WHERE task_uuid = ANY($1::uuid[]) RETURNING task_uuid),
			edits AS (DELETE FROM audit_edits WHERE task_uuid = ANY($1::uuid[])),
			t AS (UPDATE tasks SET audit_deleted_at = now(), audit_revision = NULL, review_items = NULL,
				judged_criteria = NULL, failed_criteria = NULL
				WHERE uuid = ANY($1::uuid[]) AND audit_deleted_at IS NULL RETURNING uuid, campaign_id)
			SELECT t.campaign_id, count(DISTINCT gone.task_uuid) FROM t LEFT JOIN gone ON gone.task_uuid = t.uuid GROUP BY 1`, uuids); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `UPDATE task_search SET document = task_search_document(task_uuid) WHERE task_uuid = ANY($1::uuid[])`, uuids)
		return err
	}
	return fmt.Errorf("no such kind of content: %q", kind)
}

// forgetCounted runs query over uuids, which answers (campaign, count)
// rows, and adds them to f as kind.
func forgetCounted(ctx context.Context, q DBTX, kind string, f *Forgotten, query string, uuids []string) error {
	rows, err := q.Query(ctx, query, uuids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var campaign string
		var n int
		if err := rows.Scan(&campaign, &n); err != nil {
			return err
		}
		f.add(campaign, kind, n)
	}
	return rows.Err()
}

// forgetFiles drops the references to the uploaded files of uuids (only
// the chats' when chats), adding their keys to f.
func forgetFiles(ctx context.Context, q DBTX, uuids []string, chats bool, f *Forgotten) error {
	rows, err := q.Query(ctx, `
		WITH old AS (SELECT uuid, blob_key, campaign_id FROM tasks
			WHERE uuid = ANY($1::uuid[]) AND blob_key IS NOT NULL AND (NOT $2 OR kind = 'chat'))
		UPDATE tasks t SET blob_key = NULL, recording_deleted_at = now() FROM old WHERE t.uuid = old.uuid
		RETURNING old.campaign_id, old.blob_key`, uuids, chats)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var campaign, key string
		if err := rows.Scan(&campaign, &key); err != nil {
			return err
		}
		f.add(campaign, ForgetRecording, 1)
		f.BlobKeys = append(f.BlobKeys, key)
	}
	return rows.Err()
}

// PrivacyDeletionInsert records f's counts, deleted for cause (erasure
// erasureID, "" for retention).
func PrivacyDeletionInsert(ctx context.Context, q DBTX, cause, erasureID string, f Forgotten) error {
	for k, n := range f.Counts {
		if _, err := q.Exec(ctx, `INSERT INTO privacy_deletions (cause, erasure_id, campaign_id, kind, count)
			VALUES ($1, NULLIF($2, '')::uuid, $3, $4, $5)`, cause, erasureID, k.CampaignID, k.Kind, n); err != nil {
			return err
		}
	}
	return nil
}

// PrivacyDeletion is one batch's count of one kind in one campaign.
type PrivacyDeletion struct {
	ID        int64
	At        time.Time
	Cause     string
	ErasureID string
	Campaign  string
	Kind      string
	Count     int
}

// PrivacyDeletionList returns up to limit deletions of cause ("" for any)
// with an id below before (0 for the newest), newest first.
func PrivacyDeletionList(ctx context.Context, q DBTX, cause string, before int64, limit int) ([]PrivacyDeletion, error) {
	rows, err := q.Query(ctx, `
		SELECT d.id, d.at, d.cause, COALESCE(d.erasure_id::text, ''), c.name, d.kind, d.count
		FROM privacy_deletions d JOIN campaigns c ON c.id = d.campaign_id
		WHERE ($1::text IS NULL OR d.cause = $1) AND ($2::bigint = 0 OR d.id < $2)
		ORDER BY d.id DESC LIMIT $3`, nullIfEmpty(cause), before, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []PrivacyDeletion{}
	for rows.Next() {
		var d PrivacyDeletion
		if err := rows.Scan(&d.ID, &d.At, &d.Cause, &d.ErasureID, &d.Campaign, &d.Kind, &d.Count); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
