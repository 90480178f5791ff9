// What the calibration screens compute from the API's answers: the
// session's answers by item, the form's answers to submit, and the history
// of agreement (closed sessions, oldest first).
import type { components } from '../openapi';
import type { Answer, CalibrationAnswer, CalibrationDetail, CalibrationItem, CalibrationSession } from '../types';

/** withLists is a session as the API sends it with its lists never null, and no results while it is open. */
export function withLists(d: components['schemas']['CalibrationDetail']): CalibrationDetail {
  const r = d.results;
  return {
    ...d,
    tasks: d.tasks ?? [],
    items: d.items ?? [],
    analysts: d.analysts ?? [],
    answers: d.answers ?? [],
    results: r
      ? {
          ...r,
          analysts: r.analysts ?? [],
          outliers: r.outliers ?? [],
          criteria: (r.criteria ?? []).map((c) => ({ ...c, analysts: c.analysts ?? [], outliers: c.outliers ?? [] })),
        }
      : null,
  };
}

/** itemKey names an item of a session: its interaction and criterion. */
export function itemKey(x: { task_uuid: string; criterion_id: string }): string {
  return `${x.task_uuid}/${x.criterion_id}`;
}

/** Draft is the scoring form: each item's answer and comment, by itemKey. */
export type Draft = Record<string, { answer?: Answer; comment: string }>;

/** missing counts the items of the draft still without an answer. */
export function missing(items: CalibrationItem[], draft: Draft): number {
  return items.filter((it) => !draft[itemKey(it)]?.answer).length;
}

/** submission is the body of POST /calibration-sessions/{id}/submission for a complete draft. */
export function submission(items: CalibrationItem[], draft: Draft) {
  return {
    answers: items.map((it) => {
      const d = draft[itemKey(it)];
      return {
        task_uuid: it.task_uuid,
        criterion_id: it.criterion_id,
        answer: d?.answer as Answer,
        comment: d?.comment.trim() || undefined,
      };
    }),
  };
}

/** byItem groups a closed session's answers by item, then analyst. */
export function byItem(answers: CalibrationAnswer[]): Record<string, Record<string, CalibrationAnswer>> {
  const out: Record<string, Record<string, CalibrationAnswer>> = {};
  for (const a of answers) (out[itemKey(a)] ??= {})[a.analyst_id ?? ''] = a;
  return out;
}

/** history is the closed sessions, oldest first: the points of the agreement chart. */
export function history(sessions: CalibrationSession[]): CalibrationSession[] {
  return sessions
    .filter((s) => s.status === 'closed')
    .sort((a, b) => (a.closed_at ?? a.created_at).localeCompare(b.closed_at ?? b.created_at));
}
