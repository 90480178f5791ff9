import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../types';
import { applyTask, defaultFilters, filtersOf, queryOf } from './state';

const task = (uuid: string, over: Partial<TaskSummary> = {}): TaskSummary => ({
  uuid,
  kind: 'chat',
  status: 'transcribed',
  file_name: `${uuid}.json`,
  campaign: 'default',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...over,
});

describe('applyTask', () => {
  it('replaces a known task in place', () => {
    const list = [task('a'), task('b')];
    const b = task('b', { status: 'audited', score: 90, passed: true, updated_at: '2026-01-01T00:00:01Z' });
    expect(applyTask(list, defaultFilters, b)).toEqual([task('a'), b]);
  });

  it('ignores an event older than what is shown', () => {
    const list = [task('a', { status: 'audited', updated_at: '2026-01-01T00:00:02Z' })];
    expect(applyTask(list, defaultFilters, task('a', { status: 'auditing', updated_at: '2026-01-01T00:00:01Z' }))).toBe(list);
  });

  it('adds a new task on top of a newest-first list', () => {
    expect(applyTask([task('a')], defaultFilters, task('n')).map((t) => t.uuid)).toEqual(['n', 'a']);
  });

  it('does not add a new task to another order', () => {
    const f = { ...defaultFilters, sort: 'file_name' as const };
    expect(applyTask([task('a')], f, task('n')).map((t) => t.uuid)).toEqual(['a']);
  });

  it('keeps the filters: drops a task that leaves them, skips one outside them', () => {
    const f = { ...defaultFilters, status: 'transcribed' };
    const list = [task('a'), task('b')];
    expect(applyTask(list, f, task('a', { status: 'audited', updated_at: '2026-01-02T00:00:00Z' })).map((t) => t.uuid)).toEqual(['b']);
    expect(applyTask(list, { ...defaultFilters, q: 'CALL' }, task('x', { file_name: 'a-call.wav' })).map((t) => t.uuid)).toEqual([
      'x',
      'a',
      'b',
    ]);
    expect(applyTask(list, { ...defaultFilters, q: 'call' }, task('y'))).toBe(list);
  });

  it('keeps the review filter: a task whose last item to review was settled leaves it', () => {
    const f = { ...defaultFilters, needs_review: 'true' as const };
    const list = [task('a', { status: 'audited', review_items: 2 }), task('b', { status: 'audited', review_items: 1 })];
    const settled = task('b', { status: 'audited', review_items: 0, updated_at: '2026-01-02T00:00:00Z' });
    expect(applyTask(list, f, settled).map((t) => t.uuid)).toEqual(['a']);
    expect(applyTask([], { ...defaultFilters, needs_review: 'false' }, settled).map((t) => t.uuid)).toEqual(['b']);
    expect(applyTask([], { ...defaultFilters, needs_review: 'false' }, task('n'))).toEqual([]);
  });
});

describe('filters in the URL', () => {
  it('round-trips and leaves defaults out', () => {
    expect(queryOf(defaultFilters).toString()).toBe('');
    const f = {
      ...defaultFilters,
      status: 'audited',
      q: 'x',
      needs_review: 'true' as const,
      sort: 'score' as const,
      order: 'asc' as const,
    };
    expect(filtersOf(queryOf(f))).toEqual(f);
    expect(queryOf(f).get('needs_review')).toBe('true');
    expect(filtersOf(new URLSearchParams('needs_review=maybe')).needs_review).toBe('');
  });
});
