import { describe, expect, it } from 'vitest';
import { defaultReportFilters, duration, reportFiltersOf, reportQueryOf, signed, tasksLink, weekLabel } from './state';

describe('report filters', () => {
  it('read back what they write, defaults left out', () => {
    const f = { ...defaultReportFilters, from: '2026-09-07', campaign: 'ventas', sort: 'change' as const, order: 'asc' as const };
    expect(reportQueryOf(f).toString()).toBe('from=2026-09-07&campaign=ventas&sort=change&order=asc');
    expect(reportFiltersOf(reportQueryOf(f))).toEqual(f);
    expect(reportQueryOf(defaultReportFilters).toString()).toBe('');
  });

  it('take an unknown sort or order as the default', () => {
    expect(reportFiltersOf(new URLSearchParams('sort=best&order=up'))).toEqual(defaultReportFilters);
  });
});

describe('tasksLink', () => {
  // The days are the browser's: the week from its local midnights.
  const local = (d: number, h = 0, m = 0) => new Date(2026, 10, d, h, m).toISOString();
  const week = { from: local(2), to: local(9) };

  it("is the week's days, both ends included, with the report's campaign", () => {
    const f = { ...defaultReportFilters, campaign: 'ventas' };
    expect(tasksLink(week, f, { operator: 'ana' })).toBe('/app/tasks?from=2026-11-02&to=2026-11-08&campaign=ventas&operator=ana');
  });

  it('keeps a week cut by the period to its days', () => {
    expect(tasksLink({ from: local(2), to: local(4, 10, 30) }, defaultReportFilters, { failed_criterion: 'empathy' })).toBe(
      '/app/tasks?from=2026-11-02&to=2026-11-04&failed_criterion=empathy',
    );
  });
});

describe('formats', () => {
  it('name a week by its Monday', () => {
    expect(weekLabel('2026-11-02', 'en-GB')).toBe('2 Nov');
    expect(weekLabel('2026-11-02', 'es')).toBe('2 nov');
  });

  it('say a duration in its two largest units', () => {
    expect(duration(12, 'en')).toBe('12 sec');
    expect(duration(7200, 'en')).toBe('2 hr');
    expect(duration(3 * 86400 + 5 * 3600 + 59, 'en')).toBe('3 days 5 hr');
    expect(duration(86400 + 30, 'en')).toBe('1 day');
    expect(duration(0.4, 'en')).toBe('0 sec');
    expect(duration(3660, 'es')).toBe('1 h 1 min');
  });

  it('sign a change', () => {
    expect(signed(2.54, 'en')).toBe('+2.5');
    expect(signed(-30, 'es')).toBe('-30,0');
    expect(signed(0, 'en')).toBe('0.0');
    expect(signed(null, 'en')).toBe('—');
  });
});
