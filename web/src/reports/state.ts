// The reports' rules, as pure functions so they are tested on their own:
// the report's filters in the URL, the task list behind a figure, and how
// weeks and durations read.
import { dayOf, taskListLink } from '../tasks/state';

/** ReportFilters are the Reports page's filters, kept in its URL and sent to the API. */
export interface ReportFilters {
  /** from and to: days (YYYY-MM-DD) in the browser's zone; to is not included, as on the dashboard. */
  from: string;
  to: string;
  campaign: string;
  operator: string;
  /** sort and order: how the agents are sorted (GET /stats/trends). */
  sort: 'latest' | 'change' | 'agent';
  order: 'asc' | 'desc';
}

export const defaultReportFilters: ReportFilters = { from: '', to: '', campaign: '', operator: '', sort: 'latest', order: 'desc' };

/** reportFiltersOf reads the filters from the page's query string. */
export function reportFiltersOf(q: URLSearchParams): ReportFilters {
  const sort = q.get('sort');
  return {
    from: q.get('from') ?? '',
    to: q.get('to') ?? '',
    campaign: q.get('campaign') ?? '',
    operator: q.get('operator') ?? '',
    sort: sort === 'change' || sort === 'agent' ? sort : 'latest',
    order: q.get('order') === 'asc' ? 'asc' : 'desc',
  };
}

/** reportQueryOf is the page's query string for f, defaults left out. */
export function reportQueryOf(f: ReportFilters): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of ['from', 'to', 'campaign', 'operator'] as const) if (f[k].trim()) q.set(k, f[k].trim());
  if (f.sort !== defaultReportFilters.sort) q.set('sort', f.sort);
  if (f.order !== defaultReportFilters.order) q.set('order', f.order);
  return q;
}

/** Span is a stretch of time as the API gives it: a week of a report, or its whole period. */
export interface Span {
  from: string;
  to: string;
}

/**
 * tasksLink is the task list behind a figure of span: its days (in the
 * browser's zone, both included: the day before the span's end), the
 * report's campaign and agent, narrowed by narrow (an agent, a failed
 * criterion).
 */
export function tasksLink(span: Span, f: ReportFilters, narrow: Record<string, string> = {}): string {
  return taskListLink(dayOf(new Date(span.from)), dayOf(new Date(Date.parse(span.to) - 1)), f, narrow);
}

/** weekLabel is a week (its Monday, YYYY-MM-DD) as a short date in locale: "7 Sept", "7 sept". */
export function weekLabel(week: string, locale: string): string {
  const [y, m, d] = week.split('-').map(Number);
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short' }).format(new Date(y, m - 1, d));
}

/** duration is a number of seconds in its largest unit and the next, in locale: "2 days 3 hr", "45 min", "12 sec". */
export function duration(seconds: number, locale: string): string {
  const units = [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ] as const;
  const fmt = (n: number, unit: string) => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short' }).format(n);
  let left = Math.max(0, Math.round(seconds));
  const i = units.findIndex(([, size]) => left >= size);
  if (i < 0) return fmt(0, 'second');
  const [unit, size] = units[i];
  const parts = [fmt(Math.floor(left / size), unit)];
  left %= size;
  if (i + 1 < units.length && left >= units[i + 1][1]) parts.push(fmt(Math.floor(left / units[i + 1][1]), units[i + 1][0]));
  return parts.join(' ');
}

/** signed is a change of score with its sign ("+2.5", "−3.0"), "—" without one. */
export function signed(change: number | null | undefined, locale: string): string {
  if (change === null || change === undefined) return '—';
  const s = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: 'exceptZero' });
  return s.format(change);
}
