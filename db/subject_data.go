package db

import (
	"context"
	"encoding/json"

	"github.com/auditd/auditd/visibility"
)

// agentHidden is the agent's view (visibility) of a task t of campaign c:
// an export of a person's data is made for them, so it shows their tasks'
// audits as they would see them.
var agentHidden = visibility.AgentHiddenWhere("t", "NOT c.operator_sees_automatic")

// SubjectSections are the parts of what the service holds about a user
// (a right of access request), in the order a data export writes them,
// each a query of JSON objects over the user id ($1).
var SubjectSections = []struct {
	Name  string
	Query string
}{
	{"profile", `SELECT jsonb_build_object('id', id, 'username', username, 'email', email, 'name', name, 'roles', roles,
		'active', active, 'locale', locale, 'created_at', created_at, 'last_seen_at', last_seen_at, 'synced_at', synced_at)
		FROM users WHERE id = $1`},
	{"tasks_as_agent", `SELECT jsonb_build_object('uuid', t.uuid, 'kind', t.kind, 'status', t.status, 'file_name', t.file_name,
		'campaign', c.name, 'language', t.language, 'direction', t.direction, 'started_at', t.started_at,
		'call_id', t.call_id, 'queue', t.queue, 'customer_ref', t.customer_ref, 'created_at', t.created_at, 'duration_seconds', t.duration_seconds,
		'score', CASE WHEN NOT ` + agentHidden + ` THEN t.score END,
		'passed', CASE WHEN NOT ` + agentHidden + ` THEN t.passed END, 'audit_hidden', ` + agentHidden + `,
		'recording_kept', t.blob_key IS NOT NULL,
		'recording_deleted_at', t.recording_deleted_at, 'transcript_deleted_at', t.transcript_deleted_at,
		'audit_deleted_at', t.audit_deleted_at, 'transcript', tr.text,
		'audit', CASE WHEN NOT ` + agentHidden + ` THEN r.result END)
		FROM tasks t JOIN campaigns c ON c.id = t.campaign_id
		LEFT JOIN transcripts tr ON tr.task_uuid = t.uuid
		LEFT JOIN audit_revisions r ON r.task_uuid = t.uuid AND r.revision = t.audit_revision
		WHERE t.operator_id = $1 ORDER BY t.created_at, t.uuid`},
	{"audit_revisions_authored", `SELECT jsonb_build_object('task_uuid', task_uuid, 'revision', revision, 'source', source,
		'author_name', author_name, 'score', score, 'passed', passed, 'diff', diff, 'created_at', created_at)
		FROM audit_revisions WHERE author_id = $1 ORDER BY created_at, task_uuid, revision`},
	{"validations", `SELECT jsonb_build_object('task_uuid', task_uuid, 'validator_name', validator_name, 'notes', notes,
		'type', type, 'sent_to', sent_to, 'bcc', bcc, 'validated_at', validated_at, 'email_status', email_status)
		FROM validations WHERE validator_id = $1 ORDER BY validated_at, task_uuid`},
	{"notifications", `SELECT jsonb_build_object('id', id, 'text', text, 'variant', variant, 'link', link,
		'task_uuid', task_uuid, 'created_at', created_at)
		FROM notifications WHERE user_id = $1 ORDER BY created_at, id`},
	{"saved_views", `SELECT jsonb_build_object('id', id, 'name', name, 'query', query, 'created_at', created_at,
		'updated_at', updated_at) FROM saved_views WHERE user_id = $1 ORDER BY created_at, id`},
	{"access_records_by_user", `SELECT jsonb_build_object('at', at, 'kind', kind, 'task_uuid', task_uuid, 'detail', detail,
		'client_ip', client_ip, 'user_agent', user_agent) FROM access_records WHERE user_id = $1 ORDER BY id`},
	{"access_records_about_user", `SELECT jsonb_build_object('at', a.at, 'user_id', a.user_id, 'kind', a.kind,
		'task_uuid', a.task_uuid) FROM access_records a LEFT JOIN tasks t ON t.uuid = a.task_uuid
		WHERE t.operator_id = $1 OR a.kind = 'subject_export' AND a.detail->>'user_id' = $1 ORDER BY a.id`},
	// Disputes of their tasks as agent (only they may open one), and those
	// they resolved.
	{"disputes", `SELECT jsonb_build_object('id', id, 'task_uuid', task_uuid, 'agent_id', agent_id,
		'validator_id', validator_id, 'audit_revision', audit_revision, 'status', status, 'items', items,
		'opened_at', opened_at, 'resolved_by', resolved_by, 'resolver_name', resolver_name, 'resolved_at', resolved_at)
		FROM disputes WHERE agent_id = $1 OR resolved_by = $1 ORDER BY opened_at, id`},
	{"acknowledgements", `SELECT jsonb_build_object('task_uuid', task_uuid, 'audit_revision', audit_revision,
		'acknowledged_at', acknowledged_at) FROM acknowledgements WHERE agent_id = $1 ORDER BY acknowledged_at, task_uuid`},
	{"calibration_answers", `SELECT jsonb_build_object('session_id', a.session_id, 'session_name', s.name,
		'task_uuid', a.task_uuid, 'criterion_id', a.criterion_id, 'question', i.question, 'answer', a.answer,
		'comment', a.comment, 'submitted_at', sa.submitted_at)
		FROM calibration_answers a JOIN calibration_sessions s ON s.id = a.session_id
		JOIN calibration_items i USING (session_id, task_uuid, criterion_id)
		JOIN calibration_session_analysts sa ON sa.session_id = a.session_id AND sa.user_id = a.analyst_id
		WHERE a.analyst_id = $1 ORDER BY s.created_at, a.session_id, a.task_uuid, i.position`},
	// The coaching items that coach them (as the agent), each with its
	// links and its whole thread, and every comment they wrote on any item
	// (a coach's on other agents' items too, without those items).
	{"coaching", `SELECT jsonb_build_object('id', ci.id, 'campaign', c.name, 'coach_id', ci.coach_id,
		'coach_name', ci.coach_name, 'title', ci.title, 'focus', ci.focus, 'criteria', ci.criteria,
		'dispute_id', ci.dispute_id, 'status', ci.status, 'due_at', ci.due_at, 'opened_at', ci.opened_at,
		'acknowledged_at', ci.acknowledged_at, 'closed_at', ci.closed_at, 'closed_by', ci.closed_by,
		'links', COALESCE((SELECT jsonb_agg(jsonb_build_object('task_uuid', l.task_uuid, 'quote', l.quote) ORDER BY l.position)
			FROM coaching_links l WHERE l.coaching_id = ci.id), '[]'),
		'comments', COALESCE((SELECT jsonb_agg(jsonb_build_object('author_id', m.author_id, 'author_name', m.author_name,
			'body', m.body, 'created_at', m.created_at) ORDER BY m.id) FROM coaching_comments m WHERE m.coaching_id = ci.id), '[]'))
		FROM coaching_items ci JOIN campaigns c ON c.id = ci.campaign_id WHERE ci.agent_id = $1 ORDER BY ci.opened_at, ci.id`},
	{"coaching_comments", `SELECT jsonb_build_object('coaching_id', coaching_id, 'body', body, 'created_at', created_at)
		FROM coaching_comments WHERE author_id = $1 ORDER BY id`},
}

// SubjectEach calls fn with each JSON object query (one of
// SubjectSections') yields for user userID.
func SubjectEach(ctx context.Context, q DBTX, query, userID string, fn func(json.RawMessage) error) error {
	rows, err := q.Query(ctx, query, userID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var raw json.RawMessage
		if err := rows.Scan(&raw); err != nil {
			return err
		}
		if err := fn(raw); err != nil {
			return err
		}
	}
	return rows.Err()
}
