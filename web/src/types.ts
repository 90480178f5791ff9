// The API's resources as the dashboard uses them. Each type is the API's
// own schema, generated from its OpenAPI document at build time
// (scripts/web.sh: `auditd openapi` | openapi-typescript → openapi.d.ts), so
// a change of the API that the dashboard does not follow fails tsc.
import type { components } from './openapi';

type Schemas = components['schemas'];

/** Role is a rank: a higher role may do everything a lower one may. */
export const roles = ['none', 'operator', 'quality', 'supervisor', 'admin'] as const satisfies readonly Schemas['Profile']['role'][];
export type Role = (typeof roles)[number];

/** atLeast reports whether role has at least the rank of need. */
export function atLeast(role: Role, need: Role): boolean {
  return roles.indexOf(role) >= roles.indexOf(need);
}

/** ClientConfig is GET /client-config: how the dashboard signs users in. */
export type ClientConfig = Schemas['ClientConfig'];

/** UserInfo is one user of GET /users. */
export type UserInfo = Schemas['UserInfo'];

/** Profile is GET /users/me: the user as GET /users shows them, with their unread count. */
export type Profile = Schemas['Profile'];

/**
 * Notification is one notification as the signed-in user sees it. Listed or
 * created, it has its text, variant and time; only the event of its
 * deletion leaves them out.
 */
export type Notification = Schemas['NotificationView'] & Required<Pick<Schemas['NotificationView'], 'text' | 'variant' | 'created_at'>>;
export type Variant = Notification['variant'];

/** listed reports whether n is a notification as listed or created: with its text, variant and time. */
export function listed(n: Schemas['NotificationView']): n is Notification {
  return n.text !== undefined && n.variant !== undefined && n.created_at !== undefined;
}

/** NotificationPage is GET /notifications. */
export type NotificationPage = Schemas['NotificationPage'];

/** Job is a background job (GET /admin/jobs). */
export type Job = Schemas['Job'];
export type JobState = Job['state'];
export const jobStates = [
  'available',
  'cancelled',
  'completed',
  'discarded',
  'pending',
  'retryable',
  'running',
  'scheduled',
] as const satisfies readonly JobState[];

export type JobPage = Schemas['JobPage'];

/** RiverUISession is POST /admin/riverui/session: River UI opened in this browser. */
export type RiverUISession = Schemas['RiverUISession'];

/** CanaryResult is POST /admin/canary. */
export type CanaryResult = Schemas['CanaryResult'];

/** TaskSummary is a task as GET /tasks and the task events show it. */
export type TaskSummary = Schemas['TaskSummary'];
export type TaskStatus = TaskSummary['status'];
export const taskStatuses = [
  'queued',
  'transcribing',
  'transcribed',
  'auditing',
  'audited',
  'validated',
  'failed',
] as const satisfies readonly TaskStatus[];

/** TaskPage is GET /tasks. */
export type TaskPage = Schemas['TaskList'];

/** UploadedTask is one task of POST /tasks/upload's answer. */
export type UploadedTask = Schemas['UploadedTask'];

/** Campaign is one of GET /campaigns. */
export type Campaign = Schemas['CampaignView'];

/** Segment is one turn of a transcript; a call's have times in seconds. */
export type Segment = Schemas['Segment'];

/** AuditItem is one criterion's verdict in an audit; an analyst's has no basis, confidence or needs_review. */
export type AuditItem = Schemas['Item'];

/** Basis is how the engine reached a verdict. */
export type Basis = NonNullable<AuditItem['basis']>;

/** Audit is the current revision of a task's audit. */
export type Audit = Schemas['Audit'];

/** AuditResult is a scored audit: its score breakdown and items. */
export type AuditResult = Pick<Audit, 'score' | 'passed' | 'passing_score' | 'scorecard_version' | 'failed_critical' | 'items'>;

/** AuditSource is what wrote an audit revision. */
export type AuditSource = Audit['source'];

/** AuditRevisionInfo is one entry of a task's revision list. */
export type AuditRevisionInfo = Schemas['AuditRevisionInfo'];

/** TaskDetail is GET /tasks/{uuid}. */
export type TaskDetail = Schemas['TaskDetail'];

/** ComputedAudit is POST /compute-audit-results' 200. */
export type ComputedAudit = Schemas['ComputedAudit'];

/** ValidationRecipients is GET /tasks/{uuid}/validation-recipients: who a validation would e-mail. */
export type ValidationRecipients = Schemas['ValidationRecipients'];

/** ValidationResult is POST /validate-audit's 200. */
export type ValidationResult = Schemas['ValidationResult'];

/** Dashboard is GET /stats/dashboard. */
export type Dashboard = Schemas['DashboardStats'];

/** Scorecard is a version of a campaign's scorecard; its criteria are edited in the builder (admin/scorecard.ts). */
export type Scorecard = Schemas['ScorecardView'];

/** Criterion is one criterion of a scorecard, as published. */
export type Criterion = Schemas['Criterion'];

/** ScorecardPreview is what a draft scorecard makes of a transcript (POST /campaigns/{id}/scorecard/preview). */
export type ScorecardPreview = Schemas['ScorecardPreview'];

/** SavedView is one of the user's saved views of the task list (GET /views): its query is the list's, canonical. */
export type SavedView = Schemas['SavedView'];

/** ViewList is GET /views: the user's views by name, and how many they may keep. */
export type ViewList = Schemas['ViewList'];

/** ChannelFigures is what the channels of some calls tell (a dashboard's, a report's week). */
export type ChannelFigures = Schemas['ChannelFigures'];

/** Trends is GET /stats/trends: agents, criteria and what the calls' channels tell, week by week. */
export type Trends = Schemas['TrendsReport'];

/** AnalystsReport is GET /stats/analysts: the analysts' productivity. */
export type AnalystsReport = Schemas['AnalystsReport'];
export type AnalystWork = Schemas['AnalystWork'];

/** SamplingRule is a campaign's rule for picking audited tasks for an analyst's review. */
export type SamplingRule = Schemas['SamplingRule'];

/** SamplingRun is a run of a campaign's sampling rules asked for. */
export type SamplingRun = Schemas['SamplingRun'];

/** ReviewQueue is a page of an analyst's review queue (GET /reviews/mine). */
export type ReviewQueue = Schemas['ReviewQueue'];
export type ReviewItem = Schemas['ReviewItem'];

/** ReviewProgress is each analyst's progress with their assignments (GET /reviews/progress). */
export type ReviewProgress = Schemas['ReviewProgress'];
export type AnalystProgress = Schemas['AnalystProgress'];

/** Dispute is an agent's dispute of criteria of a validated audit (GET /disputes/{id}). */
export type Dispute = Schemas['Dispute'];
export type DisputeItem = Schemas['DisputeItem'];

/** Coaching is a coaching item (GET /coaching). */
export type Coaching = Schemas['Coaching'];

/** CoachingView is GET /coaching/{id}: an item with its comments. */
export type CoachingView = Schemas['CoachingView'];

/** CoachingList is GET /coaching. */
export type CoachingList = Schemas['CoachingList'];

/** CoachingReport is GET /stats/coaching. */
export type CoachingReport = Schemas['CoachingReport'];

/** MyEvaluations is GET /users/me/evaluations: the caller's validated evaluations. */
export type MyEvaluations = Schemas['MyEvaluations'];

/** DisputeList is GET /disputes. */
export type DisputeList = Schemas['DisputeList'];

/** Feedback is a validated task's acknowledgement and disputes (GET /tasks/{uuid}'s feedback). */
export type Feedback = Schemas['Feedback'];

/** CalibrationSession is a calibration session with its counts (GET /calibration-sessions). */
export type CalibrationSession = Schemas['CalibrationSession'];
export type CalibrationSessionPage = Schemas['CalibrationSessionPage'];

/** Lists are the schema's arrays that the API always sends (never null). */
type Lists<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };

/** CalibrationResults are a closed session's agreement figures. */
export type CalibrationCriterion = Lists<Schemas['CriterionAgreement'], 'analysts' | 'outliers'>;
export type CalibrationResults = Omit<Lists<Schemas['Results'], 'analysts' | 'outliers'>, 'criteria'> & {
  criteria: CalibrationCriterion[];
};

/** CalibrationDetail is a session as the user may see it: blind while open (GET /calibration-sessions/{id}). */
export type CalibrationDetail = Omit<Lists<Schemas['CalibrationDetail'], 'tasks' | 'items' | 'analysts' | 'answers'>, 'results'> & {
  results: CalibrationResults | null;
};
export type CalibrationItem = Schemas['CalibrationItem'];
export type CalibrationAnswer = Schemas['CalibrationAnswer'];
export type CalibrationAnalystList = Lists<Schemas['CalibrationAnalystList'], 'items'>;

/** Answer is an analyst's (or the calibrated) answer to a criterion. */
export type Answer = CalibrationAnswer['answer'];
export const answers: Answer[] = ['complies', 'does_not_comply', 'not_applicable'];

/** Webhook is a subscription of another system to events (GET /webhooks). */
export type Webhook = Schemas['Webhook'];

/** WebhookList is GET /webhooks: the subscriptions and what one may choose. */
export type WebhookList = Schemas['WebhookList'];

/** WebhookAttempt is one attempt of a delivery, in a subscription's log. */
export type WebhookAttempt = Schemas['WebhookAttempt'];

/** IngestSource is a bucket prefix or directory polled for recordings (GET /ingest-sources). */
export type IngestSource = Schemas['IngestSource'];

/** IngestSourceList is GET /ingest-sources. */
export type IngestSourceList = Schemas['IngestSourceList'];

/** IngestObjectPage is a page of what became of a source's objects. */
export type IngestObjectPage = Schemas['IngestObjectPage'];

/** WebhookTest is the outcome of POST /webhooks/{id}/test. */
export type WebhookTest = Schemas['WebhookTest'];
