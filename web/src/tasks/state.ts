// The tasks list as the dashboard holds it: a page of GET /tasks kept
// current by the task events. Pure functions, so the rules are tested on
// their own.
import type { TaskSummary } from '../types';

/** TaskFilters are the list's filters and order, as GET /tasks takes them. */
export interface TaskFilters {
  status: string;
  kind: string;
  campaign: string;
  q: string;
  /** needs_review: 'true' keeps audits with items to review, 'false' those with none, '' any task. */
  needs_review: '' | 'true' | 'false';
  sort: 'created_at' | 'file_name' | 'score';
  order: 'asc' | 'desc';
}

export const defaultFilters: TaskFilters = {
  status: '',
  kind: '',
  campaign: '',
  q: '',
  needs_review: '',
  sort: 'created_at',
  order: 'desc',
};

/** filtersOf reads the filters from a page's query string. */
export function filtersOf(q: URLSearchParams): TaskFilters {
  const sort = q.get('sort');
  const review = q.get('needs_review');
  return {
    status: q.get('status') ?? '',
    kind: q.get('kind') ?? '',
    campaign: q.get('campaign') ?? '',
    q: q.get('q') ?? '',
    needs_review: review === 'true' || review === 'false' ? review : '',
    sort: sort === 'file_name' || sort === 'score' ? sort : 'created_at',
    order: q.get('order') === 'asc' ? 'asc' : 'desc',
  };
}

/** queryOf is the page's query string for f, defaults left out. */
export function queryOf(f: TaskFilters): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of ['status', 'kind', 'campaign', 'q', 'needs_review'] as const) if (f[k].trim()) q.set(k, f[k].trim());
  if (f.sort !== defaultFilters.sort) q.set('sort', f.sort);
  if (f.order !== defaultFilters.order) q.set('order', f.order);
  return q;
}

/** matches reports whether task t passes the filters f (as the API would filter it). */
export function matches(f: TaskFilters, t: TaskSummary): boolean {
  if (f.status && t.status !== f.status) return false;
  if (f.kind && t.kind !== f.kind) return false;
  if (f.campaign.trim() && t.campaign !== f.campaign.trim()) return false;
  if (f.q.trim() && !t.file_name.toLowerCase().includes(f.q.trim().toLowerCase())) return false;
  if (f.needs_review && (t.review_items === undefined || t.review_items > 0 !== (f.needs_review === 'true'))) return false;
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
    return list.map((x) => (x.uuid === t.uuid ? t : x));
  }
  if (!matches(f, t) || f.sort !== 'created_at' || f.order !== 'desc') return list;
  return [t, ...list];
}
