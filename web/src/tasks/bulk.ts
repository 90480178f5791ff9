// Bulk actions on the task list (POST /bulk-actions): what is selected,
// the request that runs an action on it, and the action's progress as its
// events move it on. Pure functions, so the rules are tested on their own.
import type { Query } from '../api';
import type { components } from '../openapi';

type Schemas = components['schemas'];

/** BulkAction is a bulk action as GET /bulk-actions/{id} shows it. */
export type BulkAction = Schemas['BulkActionView'];
export type BulkActionName = BulkAction['action'];
export type BulkStatus = BulkAction['status'];
/** BulkProgress is what a bulk_action.updated event carries: the action without its parameters and tasks. */
export type BulkProgress = Omit<BulkAction, 'assignee_id' | 'notes' | 'task_uuids' | 'filter' | 'job_id' | 'results_deleted_at'>;
/** BulkActionSummary is a bulk action as GET /bulk-actions lists it: without its tasks. */
export type BulkActionSummary = Schemas['BulkActionSummary'];
export type BulkActionList = Schemas['BulkActionList'];
export type BulkRequest = Schemas['BulkActionRequest'];
export type BulkItemList = Schemas['BulkItemList'];
export type BulkItem = Schemas['BulkItem'];

/** bulkActions are the actions, in the order the menu lists them. */
export const bulkActions = ['reaudit', 'retry', 'assign', 'unassign', 'validate'] as const satisfies readonly BulkActionName[];

/** bulkStatuses are the statuses of an action, in the order the filter lists them. */
export const bulkStatuses = ['queued', 'running', 'done', 'failed', 'cancelled'] as const satisfies readonly BulkStatus[];

/** forLeads reports whether action hands out or takes back analysts' work: supervisors and above only. */
export const forLeads = (action: BulkActionName) => action === 'assign' || action === 'unassign';

/** irreversible reports whether action cannot be undone: the API wants it confirmed. */
export const irreversible = (action: BulkActionName) => action === 'reaudit' || action === 'validate';

/** finished reports whether an action in status has ended. */
export const finished = (status: BulkStatus) => status === 'done' || status === 'failed' || status === 'cancelled';

/** Selection is what an action runs on: the rows ticked, or (all) every task the list's filters select. */
export interface Selection {
  ids: ReadonlySet<string>;
  all: boolean;
}

export const noSelection: Selection = { ids: new Set(), all: false };

/** toggle ticks or unticks one row. */
export function toggle(s: Selection, uuid: string): Selection {
  const ids = new Set(s.ids);
  if (!ids.delete(uuid)) ids.add(uuid);
  return { ids, all: false };
}

/** toggleShown ticks every row shown, or unticks them when all are ticked already. */
export function toggleShown(s: Selection, shown: string[]): Selection {
  const ids = new Set(s.ids);
  if (shown.every((u) => ids.has(u))) shown.forEach((u) => ids.delete(u));
  else shown.forEach((u) => ids.add(u));
  return { ids, all: false };
}

/** Choice is the action picked in the menu and what it takes. */
export interface Choice {
  action: BulkActionName;
  assignee: string;
  notes: string;
}

/** filterString is the list's filters (as GET /tasks takes them, empty ones left out) as a query string. */
export function filterString(filters: Query): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  return q.toString();
}

/** requestOf is the body of POST /bulk-actions that runs choice on s; filter is the list's filters. */
export function requestOf(choice: Choice, s: Selection, filter: Query): BulkRequest {
  const body: BulkRequest = { action: choice.action };
  if (s.all) body.filter = filterString(filter);
  else body.task_uuids = [...s.ids];
  if (choice.action === 'assign') body.assignee = choice.assignee.trim();
  if (choice.action === 'validate') body.notes = choice.notes;
  if (irreversible(choice.action)) body.confirm = true;
  return body;
}

/**
 * advance is action a after an event carrying progress p: p when it is
 * a's, no older, and does not take an ended action back (events of one
 * action may be read after a later answer of the API).
 */
export function advance<A extends BulkProgress>(a: A, p: BulkProgress): A {
  if (p.id !== a.id || Date.parse(p.updated_at) < Date.parse(a.updated_at)) return a;
  if (finished(a.status) && !finished(p.status)) return a;
  return { ...a, ...p };
}

/** share is how far action a has got, from 0 to 1; null while a filter's tasks are being counted. */
export function share(a: BulkProgress): number | null {
  if (a.matched === null) return null;
  return a.matched === 0 ? 1 : Math.min(1, a.done / a.matched);
}

/** advanceAll is the listed actions after an event carrying progress p: the one it is about moved on. */
export function advanceAll<A extends BulkProgress>(list: A[], p: BulkProgress): A[] {
  return list.some((a) => a.id === p.id) ? list.map((a) => advance(a, p)) : list;
}

/** ListFilters are the filters of the list of bulk actions, as its URL holds them. */
export interface ListFilters {
  status: BulkStatus | '';
  action: BulkActionName | '';
  requested_by: string;
}

/** listFiltersOf reads the list's filters from its URL query; unknown values are left out. */
export function listFiltersOf(q: URLSearchParams): ListFilters {
  const status = q.get('status') ?? '';
  const action = q.get('action') ?? '';
  return {
    status: (bulkStatuses as readonly string[]).includes(status) ? (status as BulkStatus) : '',
    action: (bulkActions as readonly string[]).includes(action) ? (action as BulkActionName) : '',
    requested_by: q.get('requested_by')?.trim() ?? '',
  };
}

/** listQueryOf is the URL query of filters f, empty ones left out. */
export function listQueryOf(f: ListFilters): URLSearchParams {
  return new URLSearchParams(filterString({ status: f.status, action: f.action, requested_by: f.requested_by.trim() }));
}
