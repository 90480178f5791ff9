// Saved views of the task list, as pure functions, so the rules are tested
// on their own.
import type { SavedView } from '../types';

const basePath = '/app/tasks';

/** sameQuery reports whether two query strings of the task list hold the same parameters, in any order. */
export function sameQuery(a: string, b: string): boolean {
  const sorted = (q: string) => [...new URLSearchParams(q)].map(([k, v]) => `${k}=${v}`).sort();
  const x = sorted(a);
  const y = sorted(b);
  return x.length === y.length && x.every((p, i) => p === y[i]);
}

/** hrefOf is where a view shows its tasks: the task list with its query. */
export const hrefOf = (v: Pick<SavedView, 'query'>) => (v.query ? `${basePath}?${v.query}` : basePath);
