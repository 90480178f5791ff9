// The tasks list as the dashboard holds it: a page of GET /tasks kept
// current by the task events. Pure functions, so the rules are tested on
// their own.
import type { TaskSummary } from '../types';

/** TaskFilters are the list's filters and order, as GET /tasks takes them. */
export interface TaskFilters {
  status: string;
  kind: string;
  campaign: string;
  /** q: words to find in what was said, the audit's explanations, the validation's notes or the file name. */
  q: string;
  /** file_name: text the file name contains. */
  file_name: string;
  /** needs_review: 'true' keeps audits with items to review, 'false' those with none, '' any task. */
  needs_review: '' | 'true' | 'false';
  /** transcript_unreliable: 'true' keeps calls whose transcript is unreliable, 'false' the other tasks, '' any task. */
  transcript_unreliable: '' | 'true' | 'false';
  /** operator: the agent's user id or username. */
  operator: string;
  /** passed: 'true' keeps audits that passed, 'false' those that did not, '' any task. */
  passed: '' | 'true' | 'false';
  /** from and to: days (YYYY-MM-DD) in the user's time zone, both included. */
  from: string;
  to: string;
  /** min_score and max_score: score bounds, as typed. */
  min_score: string;
  max_score: string;
  /** failed_criterion: a criterion id the audit found not met. */
  failed_criterion: string;
  /** validated_by: the validator's user id or username. */
  validated_by: string;
  /** assignee: the analyst's user id or username the tasks are assigned to. */
  assignee: string;
  /** language: a BCP 47 tag; es is every Spanish. */
  language: string;
  /** review_state: automatic, reviewed or validated audits; '' any task. */
  review_state: '' | 'automatic' | 'reviewed' | 'validated';
  /** direction: inbound or outbound interactions; '' any. */
  direction: '' | 'inbound' | 'outbound';
  /** queue: the platform's queue or skill. */
  queue: string;
  /** call_id: the platform's id of the call or chat. */
  call_id: string;
  /** caller and called: phone numbers, however written (quality and above). */
  caller: string;
  called: string;
  /** started_from and started_to: days (YYYY-MM-DD) the interaction started, in the user's time zone, both included. */
  started_from: string;
  started_to: string;
  /** metadata: key=value of the call's custom fields (quality and above). */
  metadata: string;
  /** The bounds of what the call's channels tell, as typed: ratios and shares 0..1, seconds, counts. */
  min_agent_talk_ratio: string;
  max_agent_talk_ratio: string;
  min_silence_share: string;
  max_silence_share: string;
  min_longest_silence: string;
  min_dead_air: string;
  min_overtalk: string;
  min_holds: string;
  sort: 'created_at' | 'file_name' | 'score';
  order: 'asc' | 'desc';
}

export const defaultFilters: TaskFilters = {
  status: '',
  kind: '',
  campaign: '',
  q: '',
  file_name: '',
  needs_review: '',
  transcript_unreliable: '',
  operator: '',
  passed: '',
  from: '',
  to: '',
  min_score: '',
  max_score: '',
  failed_criterion: '',
  validated_by: '',
  assignee: '',
  language: '',
  review_state: '',
  direction: '',
  queue: '',
  call_id: '',
  caller: '',
  called: '',
  started_from: '',
  started_to: '',
  metadata: '',
  min_agent_talk_ratio: '',
  max_agent_talk_ratio: '',
  min_silence_share: '',
  max_silence_share: '',
  min_longest_silence: '',
  min_dead_air: '',
  min_overtalk: '',
  min_holds: '',
  sort: 'created_at',
  order: 'desc',
};

/** filtersOf reads the filters from a page's query string; a value a filter cannot take is left out. */
export function filtersOf(q: URLSearchParams): TaskFilters {
  const f: Record<FilterKey, string> = { ...defaultFilters };
  for (const k of filterKeys) {
    const v = q.get(k) ?? '';
    f[k] = readers[k]?.(v) ?? v;
  }
  const sort = q.get('sort');
  return {
    ...(f as Pick<TaskFilters, FilterKey>),
    sort: sort === 'file_name' || sort === 'score' ? sort : 'created_at',
    order: q.get('order') === 'asc' ? 'asc' : 'desc',
  };
}

const yesNo = (v: string) => (v === 'true' || v === 'false' ? v : '');
const day = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? v : '');

/** readers check the filters that take a few values or a shape; the others are taken as written. */
const readers: Partial<Record<FilterKey, (v: string) => string>> = {
  needs_review: yesNo,
  transcript_unreliable: yesNo,
  passed: yesNo,
  from: day,
  to: day,
  started_from: day,
  started_to: day,
  review_state: (v) => reviewStates.find((x) => x === v) ?? '',
  direction: (v) => directions.find((x) => x === v) ?? '',
};

/**
 * apiFilters are the filters f as GET /tasks takes them: trimmed, and days as times, from the first day's midnight in
 * the user's zone to the midnight after the last.
 */
export function apiFilters(f: TaskFilters): Record<FilterKey, string> {
  const out = Object.fromEntries(filterKeys.map((k) => [k, f[k].trim()])) as Record<FilterKey, string>;
  out.from = f.from && dayStart(f.from);
  out.to = f.to && dayStart(f.to, 1);
  out.started_from = f.started_from && dayStart(f.started_from);
  out.started_to = f.started_to && dayStart(f.started_to, 1);
  return out;
}

/** filterKeys are the filters kept in the URL, by their name there (and the API's). */
const filterKeys = [
  'status',
  'kind',
  'campaign',
  'q',
  'file_name',
  'needs_review',
  'transcript_unreliable',
  'operator',
  'passed',
  'from',
  'to',
  'min_score',
  'max_score',
  'failed_criterion',
  'validated_by',
  'assignee',
  'language',
  'review_state',
  'direction',
  'queue',
  'call_id',
  'caller',
  'called',
  'started_from',
  'started_to',
  'metadata',
  'min_agent_talk_ratio',
  'max_agent_talk_ratio',
  'min_silence_share',
  'max_silence_share',
  'min_longest_silence',
  'min_dead_air',
  'min_overtalk',
  'min_holds',
] as const;

/** FilterKey is the name of a filter, in the URL and the API. */
type FilterKey = (typeof filterKeys)[number];

/**
 * unseenFilters are the filters a summary cannot be checked against: when the call started, its numbers and custom
 * fields, what its channels tell.
 */
export const unseenFilters = [
  'started_from',
  'started_to',
  'caller',
  'called',
  'metadata',
  'min_agent_talk_ratio',
  'max_agent_talk_ratio',
  'min_silence_share',
  'max_silence_share',
  'min_longest_silence',
  'min_dead_air',
  'min_overtalk',
  'min_holds',
] as const;

/** directions are the directions of an interaction the list filters by. */
export const directions = ['inbound', 'outbound'] as const;

/** reviewStates are the review states the list filters by. */
export const reviewStates = ['automatic', 'reviewed', 'validated'] as const;

/** dayOf is the calendar day of d in the browser's zone, as YYYY-MM-DD. */
export function dayOf(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** dayStart is local midnight of day (YYYY-MM-DD) plus days, as the API takes a time. */
export function dayStart(day: string, days = 0): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d + days).toISOString();
}

/**
 * taskListLink is the task list of the days from to to (YYYY-MM-DD, both included) in the campaign and agent of scope,
 * narrowed by narrow (an agent, a failed criterion…): where a chart or a report's figure leads.
 */
export function taskListLink(
  from: string,
  to: string,
  scope: { campaign: string; operator: string },
  narrow: Record<string, string> = {},
): string {
  const q = new URLSearchParams({ from, to });
  if (scope.campaign.trim()) q.set('campaign', scope.campaign.trim());
  if (scope.operator.trim()) q.set('operator', scope.operator.trim());
  for (const [k, v] of Object.entries(narrow)) q.set(k, v);
  return `/app/tasks?${q}`;
}

/** queryOf is the page's query string for f, defaults left out. */
export function queryOf(f: TaskFilters): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of filterKeys) if (f[k].trim()) q.set(k, f[k].trim());
  if (f.sort !== defaultFilters.sort) q.set('sort', f.sort);
  if (f.order !== defaultFilters.order) q.set('order', f.order);
  return q;
}

/**
 * matches reports whether task t passes the filters f (as the API would filter it), but for the words searched, the
 * failed criterion and the validator, which a summary does not show.
 */
export function matches(f: TaskFilters, t: TaskSummary): boolean {
  if (f.status && t.status !== f.status) return false;
  if (f.kind && t.kind !== f.kind) return false;
  if (f.campaign.trim() && t.campaign !== f.campaign.trim()) return false;
  if (f.file_name.trim() && !t.file_name.toLowerCase().includes(f.file_name.trim().toLowerCase())) return false;
  if (f.needs_review && (t.review_items === undefined || t.review_items > 0 !== (f.needs_review === 'true'))) return false;
  if (f.transcript_unreliable && !!t.transcript_unreliable !== (f.transcript_unreliable === 'true')) return false;
  if (f.operator.trim() && t.operator_id !== f.operator.trim()) return false;
  if (f.assignee.trim() && t.assignee_id !== f.assignee.trim()) return false;
  const lang = f.language.trim().toLowerCase();
  if (lang && t.language.toLowerCase() !== lang && !t.language.toLowerCase().startsWith(lang + '-')) return false;
  if (f.review_state && t.review_state !== f.review_state) return false;
  if (f.direction && t.direction !== f.direction) return false;
  if (f.queue.trim() && t.queue !== f.queue.trim()) return false;
  if (f.call_id.trim() && t.call_id !== f.call_id.trim()) return false;
  if (f.passed && (t.passed === undefined || t.passed !== (f.passed === 'true'))) return false;
  const created = Date.parse(t.created_at);
  if (f.from && created < Date.parse(dayStart(f.from))) return false;
  if (f.to && created >= Date.parse(dayStart(f.to, 1))) return false;
  const min = f.min_score.trim() ? Number(f.min_score) : undefined;
  const max = f.max_score.trim() ? Number(f.max_score) : undefined;
  if ((min !== undefined || max !== undefined) && t.score === undefined) return false;
  if (min !== undefined && (t.score as number) < min) return false;
  if (max !== undefined && (t.score as number) > max) return false;
  return true;
}

/**
 * applyTask returns the list after an event carrying task t. A known task
 * is replaced in place (or dropped when it no longer matches the filters);
 * a new one is added at the top only when the list is newest first, where
 * a new task belongs; in any other order it would land mid-list, so it
 * waits for the next load.
 */
export function applyTask(list: TaskSummary[], f: TaskFilters, t: TaskSummary): TaskSummary[] {
  const i = list.findIndex((x) => x.uuid === t.uuid);
  if (i >= 0) {
    if (list[i].updated_at > t.updated_at) return list;
    if (!matches(f, t)) return list.filter((x) => x.uuid !== t.uuid);
    // An event's summary has no snippet: the one the search gave stays.
    return list.map((x) => (x.uuid === t.uuid ? { ...t, snippet: t.snippet ?? x.snippet } : x));
  }
  // A summary does not say which criteria failed, what was said, who
  // validated nor the call's facts: under those filters a task not
  // listed yet waits for the next load.
  if (
    !matches(f, t) ||
    f.failed_criterion.trim() ||
    f.q.trim() ||
    f.validated_by.trim() ||
    unseenFilters.some((k) => f[k].trim()) ||
    f.sort !== 'created_at' ||
    f.order !== 'desc'
  ) {
    return list;
  }
  return [t, ...list];
}

/** Shown is the list as the reader sees it, and the new tasks held back above it. */
export interface Shown {
  tasks: TaskSummary[];
  /** fresh: tasks that arrived since the list was read, newest first, not shown until asked for. */
  fresh: TaskSummary[];
}

/**
 * arrive returns what is shown after an event carrying task t: a task in
 * the list changes in place (applyTask); a new one that belongs at the top
 * waits in fresh, so that the rows the reader is looking at stay where
 * they are, unless it is one of theirs (mine: uploaded from this page), and
 * a waiting one is updated or dropped there.
 */
export function arrive(s: Shown, f: TaskFilters, t: TaskSummary, mine = false): Shown {
  if (mine || s.tasks.some((x) => x.uuid === t.uuid)) {
    const tasks = applyTask(s.tasks, f, t);
    return tasks === s.tasks ? s : { tasks, fresh: s.fresh.filter((x) => x.uuid !== t.uuid) };
  }
  const fresh = applyTask(s.fresh, f, t);
  return fresh === s.fresh ? s : { ...s, fresh };
}

/** promote moves the task uuid, once the reader's own upload, from fresh to the top of the list. */
export function promote(s: Shown, uuid: string): Shown {
  const t = s.fresh.find((x) => x.uuid === uuid);
  return t ? { tasks: [t, ...s.tasks], fresh: s.fresh.filter((x) => x !== t) } : s;
}

/**
 * clock shows seconds as m:ss, or h:mm:ss from an hour on: a chat written
 * with times of day ("[11:15:00] Agente: …") shows them as written, and a
 * long call its hours.
 */
export function clock(s: number | undefined): string {
  if (s === undefined) return '';
  const two = (n: number) => String(Math.floor(n)).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}
