import type { Dashboard } from '../types';

type OperatorAverage = NonNullable<Dashboard['operators']['top']>[number];

/**
 * ranked is the agents at both ends of the dashboard's ranking (the API's
 * bottom, lowest first, and top, highest first), each once, lowest average
 * first: those a QA lead looks at first, then the best.
 */
export function ranked(operators: { top: OperatorAverage[]; bottom: OperatorAverage[] }): OperatorAverage[] {
  const seen = new Set<string>();
  return [...operators.bottom, ...[...operators.top].reverse()].filter((o) => !seen.has(o.operator_id) && seen.add(o.operator_id));
}
