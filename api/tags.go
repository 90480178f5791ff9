package api

import "github.com/danielgtaylor/huma/v2"

// tags are the OpenAPI document's groups of operations, in the order the
// API reference shows them (otherwise the order of the first path of
// each): the work of a QA team first, administration last. Every tag an
// operation carries is listed (TestOpenAPIDescribesEveryOperation).
var tags = []*huma.Tag{
	{Name: "tasks", Description: "Upload calls and chats, list and search them, follow their pipeline, read transcripts and recordings."},
	{Name: "audits", Description: "Audit revisions: the automatic audit, analysts' corrections and the recomputed score."},
	{Name: "QA workflow", Description: "Assignment, sampling, review queues and validation with its e-mail."},
	{Name: "calibration", Description: "Calibration sessions: analysts audit the same tasks blind and compare."},
	{Name: "disputes", Description: "Agents dispute an audit; a supervisor resolves it."},
	{Name: "coaching", Description: "Supervisors coach agents on what their evaluations found; agents acknowledge and comment."},
	{Name: "bulk actions", Description: "Act on a selection or a whole filter at once, with a result per task."},
	{Name: "views", Description: "Saved views of the task list, per user."},
	{Name: "stats", Description: "The dashboard's figures, trends per agent and criterion, analyst productivity."},
	{Name: "notifications", Description: "Live events (SSE) and each user's notifications."},
	{Name: "campaigns", Description: "Campaigns and their versioned scorecards."},
	{Name: "users", Description: "Who is signed in, the users and their roles."},
	{Name: "privacy", Description: "Retention, legal holds, the access record and erasures."},
	{Name: "webhooks", Description: "Other systems told of audits, validations, disputes and calibrations: signed deliveries and their log."},
	{Name: "ingest", Description: "Recordings taken from buckets and directories as they arrive, with their sidecar metadata, and what became of each."},
	{Name: "admin", Description: "Jobs and the service's administration."},
	{Name: "operations", Description: "Health and readiness for load balancers and orchestrators."},
	{Name: "dashboard", Description: "What the dashboard needs to start."},
}
