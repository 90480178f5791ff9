package db

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/visibility"
)

// ExportRow is one task as an export writes it: the task, the criteria its
// current audit judged and found not met, and, when asked for, that
// audit's items (none before it is audited).
type ExportRow struct {
	UUID, Kind, Status, FileName, Campaign, OperatorID, Language string
	CreatedAt                                                    time.Time
	AuditedAt                                                    *time.Time
	Score                                                        *float64
	Passed                                                       *bool
	// ReviewItems and AuditRevision are 0 before any audit, nil when the
	// audit is hidden from the viewer.
	ReviewItems, AuditRevision *int
	Judged, Failed             []string
	Items                      []scoring.Item
	// ReviewState is the task's (Task.ReviewState).
	ReviewState string
	// Channels holds the figures of what a call's channels tell; nil for
	// a chat and a call not analysed.
	Channels *ExportChannels
	// Call is what the platform said of the interaction.
	Call ExportCall
}

// ExportCall is what the platform said of an interaction, as an export
// writes it: the personal data (caller, called, customer reference,
// metadata) only to a viewer who sees it (TaskExport's parties).
type ExportCall struct {
	CallID, Queue, Direction, Caller, Called, CustomerRef string
	StartedAt                                             *time.Time
	// Metadata is the JSON object, nil for none.
	Metadata []byte
}

// ExportChannels are the figures of transcript.Channels an export has a
// column for; the per-side ones, the overtalk and the holds are nil on a
// mono call.
type ExportChannels struct {
	Stereo                                                bool
	SilenceShare, LongestSilenceSeconds                   float64
	DeadAir                                               int
	AgentTalkSeconds, CustomerTalkSeconds, AgentTalkRatio *float64
	OvertalkSeconds                                       *float64
	Overtalk, Holds                                       *int
}

// withoutAudit is e without what its viewer is not shown of a hidden
// audit (visibility.Viewer.AuditHidden), the audit's verdicts included.
func (e ExportRow) withoutAudit() ExportRow {
	e.Score, e.Passed, e.ReviewItems, e.AuditRevision, e.Judged, e.Failed, e.Items = nil, nil, nil, nil, nil, nil, nil
	return e
}

// exportBatch is how many tasks an export reads at a time: what it holds in
// memory, whatever the number of tasks.
const exportBatch = 500

// ExportCriteria returns the ids of the criteria of every scorecard version
// of the campaigns f selects (all campaigns when f names none), in the
// order they first appear in them: the columns of an export with a column
// per criterion.
func ExportCriteria(ctx context.Context, q DBTX, f TaskFilter) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT e.c->>'id' FROM scorecards s
		JOIN campaigns c ON c.id = s.campaign_id, jsonb_array_elements(s.criteria) WITH ORDINALITY e(c, i)
		WHERE $1 = '' OR c.name = $1
		GROUP BY 1 ORDER BY min(e.i), 1`, f.Campaign)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// TaskExport calls fn with every task f selects in v's view (with the
// parties' personal data when parties is set), newest first, with its
// current audit's items when items is set, reading exportBatch tasks at a time by their
// position in that order: memory does not grow with the number of tasks,
// and tasks added meanwhile do not shift what is read. A task whose audit
// is hidden from v comes without it (no score, result, review items,
// revision or verdicts), and verdicts v is not shown (VerdictsHidden)
// without them. It stops at fn's first error and returns it.
func TaskExport(ctx context.Context, q DBTX, v visibility.Viewer, f TaskFilter, items, parties bool, fn func(ExportRow) error) error {
	f.Viewer = v
	// The items are read from the audit's revision only when asked for.
	itemsColumn, itemsJoin := "NULL::jsonb", ""
	if items {
		itemsColumn = "r.result->'items'"
		itemsJoin = " LEFT JOIN audit_revisions r ON r.task_uuid = t.uuid AND r.revision = t.audit_revision"
	}
	page := TaskPage{Sort: TaskSortCreatedAt, Desc: true}
	sort, dir, cmp, err := page.order()
	if err != nil {
		return err
	}
	for {
		var args []any
		where := f.where(&args) + page.after(sort, cmp, &args)
		rows, err := q.Query(ctx, `SELECT t.uuid, t.kind, t.status, t.file_name, c.name, COALESCE(t.operator_id, ''),
				t.language, t.created_at, t.audited_at, t.score::float8, t.passed, COALESCE(t.review_items, 0),
				COALESCE(t.audit_revision, 0),
				CASE WHEN `+v.VerdictsHiddenSQL("t")+` THEN '{}' ELSE COALESCE(t.judged_criteria, '{}') END,
				CASE WHEN `+v.VerdictsHiddenSQL("t")+` THEN '{}' ELSE COALESCE(t.failed_criteria, '{}') END,
				CASE WHEN `+reviewStateConds[ReviewValidated]+` THEN 'validated' WHEN `+reviewStateConds[ReviewReviewed]+
			` THEN 'reviewed' WHEN `+reviewStateConds[ReviewAutomatic]+` THEN 'automatic' ELSE '' END,
				`+v.AuditHiddenSQL("t")+`, `+itemsColumn+`, ch.figures IS NOT NULL, COALESCE((ch.figures->>'stereo')::bool, false),
				COALESCE((ch.figures->>'silence_share')::float8, 0), COALESCE((ch.figures->>'longest_silence_seconds')::float8, 0),
				COALESCE(jsonb_array_length(ch.figures->'dead_air'), 0), (ch.figures->>'agent_talk_seconds')::float8,
				(ch.figures->>'customer_talk_seconds')::float8, (ch.figures->>'agent_talk_ratio')::float8,
				(ch.figures->>'overtalk_seconds')::float8,
				CASE WHEN (ch.figures->>'stereo')::bool THEN COALESCE(jsonb_array_length(ch.figures->'overtalk'), 0) END,
				CASE WHEN (ch.figures->>'stereo')::bool THEN COALESCE(jsonb_array_length(ch.figures->'holds'), 0) END,
				COALESCE(t.call_id, ''), COALESCE(t.queue, ''), COALESCE(t.direction, ''), t.started_at,
				CASE WHEN $`+strconv.Itoa(len(args)+1)+` THEN COALESCE(t.caller, '') ELSE '' END,
				CASE WHEN $`+strconv.Itoa(len(args)+1)+` THEN COALESCE(t.called, '') ELSE '' END,
				CASE WHEN $`+strconv.Itoa(len(args)+1)+` THEN COALESCE(t.customer_ref, '') ELSE '' END,
				CASE WHEN $`+strconv.Itoa(len(args)+1)+` THEN t.metadata END
			FROM tasks t JOIN campaigns c ON c.id = t.campaign_id`+itemsJoin+`
			LEFT JOIN call_channels ch ON ch.task_uuid = t.uuid
			WHERE `+where+` ORDER BY `+sort.key+` `+dir+`, t.uuid `+dir+` LIMIT `+strconv.Itoa(exportBatch), append(args, parties)...)
		if err != nil {
			return err
		}
		batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ExportRow, error) {
			var e ExportRow
			var items []byte
			var hidden, analysed bool
			var ch ExportChannels
			err := row.Scan(&e.UUID, &e.Kind, &e.Status, &e.FileName, &e.Campaign, &e.OperatorID, &e.Language,
				&e.CreatedAt, &e.AuditedAt, &e.Score, &e.Passed, &e.ReviewItems, &e.AuditRevision, &e.Judged, &e.Failed, &e.ReviewState, &hidden, &items,
				&analysed, &ch.Stereo, &ch.SilenceShare, &ch.LongestSilenceSeconds, &ch.DeadAir, &ch.AgentTalkSeconds,
				&ch.CustomerTalkSeconds, &ch.AgentTalkRatio, &ch.OvertalkSeconds, &ch.Overtalk, &ch.Holds,
				&e.Call.CallID, &e.Call.Queue, &e.Call.Direction, &e.Call.StartedAt, &e.Call.Caller, &e.Call.Called,
				&e.Call.CustomerRef, &e.Call.Metadata)
			if analysed {
				e.Channels = &ch
			}
			if err == nil && items != nil {
				err = json.Unmarshal(items, &e.Items)
			}
			if hidden {
				e = e.withoutAudit()
			}
			return e, err
		})
		if err != nil {
			return err
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(batch) < exportBatch {
			return nil
		}
		last := batch[len(batch)-1]
		page.After = &TaskCursor{Value: last.CreatedAt.Format(time.RFC3339Nano), UUID: last.UUID}
	}
}
