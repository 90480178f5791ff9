// The API's resources as the dashboard uses them (see /openapi.json).

/** Role is a rank: a higher role may do everything a lower one may. */
export const roles = ['none', 'operator', 'quality', 'supervisor', 'admin'] as const;
export type Role = (typeof roles)[number];

/** atLeast reports whether role has at least the rank of need. */
export function atLeast(role: Role, need: Role): boolean {
  return roles.indexOf(role) >= roles.indexOf(need);
}

/** ClientConfig is GET /client-config: how the dashboard signs users in. */
export interface ClientConfig {
  auth_dev: boolean;
  issuer: string;
  client_id: string;
  audience: string;
  scopes: string;
}

/** Profile is GET /users/me: the user as GET /users shows them, with their unread count. */
export interface Profile extends UserInfo {
  unread_notifications: number;
}

export type Variant = 'success' | 'info' | 'warning' | 'error';

/** Notification is one notification as the signed-in user sees it. */
export interface Notification {
  id: string;
  user_id: string | null;
  is_global: boolean;
  text: string;
  variant: Variant;
  link?: string;
  task_uuid?: string;
  read: boolean;
  read_at?: string;
  created_at: string;
}

/** NotificationPage is GET /notifications. */
export interface NotificationPage {
  items: Notification[];
  total: number;
  unread: number;
  skip: number;
  limit: number;
}

export const jobStates = ['available', 'cancelled', 'completed', 'discarded', 'pending', 'retryable', 'running', 'scheduled'] as const;
export type JobState = (typeof jobStates)[number];

/** Job is a background job (GET /admin/jobs). */
export interface Job {
  id: number;
  kind: string;
  state: JobState;
  queue: string;
  attempt: number;
  max_attempts: number;
  priority: number;
  args: unknown;
  tags: string[];
  errors: { attempt: number; at: string; error: string }[];
  created_at: string;
  scheduled_at: string;
  attempted_at?: string;
  finalized_at?: string;
}

export interface JobPage {
  items: Job[];
  next?: string;
}

/** CanaryResult is POST /admin/canary. */
export interface CanaryResult {
  job_id: number;
  state: string;
  latency_ms: number;
}

export const taskStatuses = ['queued', 'transcribing', 'transcribed', 'auditing', 'audited', 'validated', 'failed'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

/** TaskSummary is a task as GET /tasks and the task events show it. */
export interface TaskSummary {
  uuid: string;
  kind: 'call' | 'chat';
  status: TaskStatus;
  file_name: string;
  campaign: string;
  operator_id?: string;
  error?: string;
  score?: number;
  passed?: boolean;
  /** review_items counts the current audit's items that need an analyst's review; absent before the audit. */
  review_items?: number;
  created_at: string;
  updated_at: string;
}

/** TaskPage is GET /tasks. */
export interface TaskPage {
  tasks: TaskSummary[];
  total: number;
  next?: string;
  skip: number;
  limit: number;
}

/** UploadedTask is one task of POST /tasks/upload's answer. */
export interface UploadedTask {
  uuid: string;
  file_name: string;
  kind: 'call' | 'chat';
  status: TaskStatus;
  duplicate: boolean;
}

/** Campaign is one of GET /campaigns. */
export interface Campaign {
  id: string;
  name: string;
  passing_score: number;
  supervisor_emails: string[];
  language: string;
  agent_channel: string;
  scorecard_version: number;
  created_at: string;
  updated_at: string;
}

/** Segment is one turn of a transcript; a call's have times in seconds. */
export interface Segment {
  start?: number;
  end?: number;
  speaker: 'agent' | 'customer' | 'unknown';
  name?: string;
  text: string;
}

/** Basis is how the engine reached a verdict. */
export type Basis = 'evidence' | 'absence' | 'conflict';

/** AuditItem is one criterion's verdict in an audit; an analyst's has no basis, confidence or needs_review. */
export interface AuditItem {
  criterion_id: string;
  category: string;
  question: string;
  weight: number;
  critical: boolean;
  complies: boolean;
  explanation: string;
  evidence?: string;
  basis?: Basis;
  confidence?: number;
  needs_review?: boolean;
}

/** AuditResult is a scored audit: its score breakdown and items. */
export interface AuditResult {
  score: number;
  passed: boolean;
  passing_score: number;
  scorecard_version: number;
  failed_critical: string[] | null;
  items: AuditItem[];
}

/** AuditSource is what wrote an audit revision. */
export type AuditSource = 'engine' | 'analyst' | 'recompute';

/** Audit is the current revision of a task's audit. */
export interface Audit extends AuditResult {
  revision: number;
  source: AuditSource;
  engine?: string;
  updated_by?: string;
  updated_by_name?: string;
  updated_at: string;
}

/** AuditRevisionInfo is one entry of a task's revision list. */
export interface AuditRevisionInfo {
  revision: number;
  source: AuditSource;
  engine?: string;
  author_id?: string;
  author_name?: string;
  scorecard_version: number;
  score_before?: number;
  score: number;
  passed: boolean;
  created_at: string;
}

/** TaskDetail is GET /tasks/{uuid}. */
export interface TaskDetail extends Omit<TaskSummary, 'score' | 'passed'> {
  language: string;
  duration_seconds?: number;
  audio_url?: string;
  transcript: { text: string; segments: Segment[]; engine: string } | null;
  audit: Audit | null;
  revisions: AuditRevisionInfo[];
  validation: unknown;
}

/** ComputedAudit is POST /compute-audit-results' 200. */
export interface ComputedAudit extends AuditResult {
  task_uuid: string;
  revision: number;
}

/** ValidationResult is POST /validate-audit's 200. */
export interface ValidationResult {
  type: string;
  task_uuid: string;
  sent_to: string[];
  bcc: string[];
  validated_at: string;
  email_status: 'sent' | 'pending' | 'failed';
}

/** Dashboard is GET /stats/dashboard. */
export interface Dashboard {
  from: string;
  to: string;
  tz: string;
  by_status: Record<string, number>;
  tasks: number;
  audited: number;
  passed: number;
  approval_rate: number | null;
  validated: number;
  audio_minutes: number;
  average_score: number | null;
  score_distribution: { from: number; to: number; count: number }[];
  per_day: { day: string; tasks: number; audited: number; passed: number }[];
  criteria_failed: { criterion_id: string; question: string; failed: number; judged: number; rate: number }[];
  automatic: { verdicts: number; confident: number; share: number | null };
  operators: {
    top: { operator_id: string; audited: number; average_score: number }[];
    bottom: { operator_id: string; audited: number; average_score: number }[];
  };
}

/** UserInfo is one user of GET /users. */
export interface UserInfo {
  id: string;
  username: string;
  email: string;
  name: string;
  roles: string[];
  role: Role;
  active: boolean;
  created_at: string;
  updated_at: string;
  last_seen_at?: string;
  synced_at?: string;
}

/** Scorecard is a version of a campaign's scorecard; its criteria are edited as JSON. */
export interface Scorecard {
  campaign_id: string;
  version: number;
  criteria: unknown[];
  published_by: string;
  published_at: string;
  recompute_job_id?: number;
}
