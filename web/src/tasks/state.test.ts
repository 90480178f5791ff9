import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../types';
import { apiFilters, applyTask, arrive, clock, dayStart, defaultFilters, filtersOf, promote, queryOf } from './state';

const task = (uuid: string, over: Partial<TaskSummary> = {}): TaskSummary => ({
  uuid,
  kind: 'chat',
  status: 'transcribed',
  file_name: `${uuid}.json`,
  campaign: 'default',
  language: 'es-MX',
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
    expect(applyTask(list, { ...defaultFilters, file_name: 'CALL' }, task('x', { file_name: 'a-call.wav' })).map((t) => t.uuid)).toEqual([
      'x',
      'a',
      'b',
    ]);
    expect(applyTask(list, { ...defaultFilters, file_name: 'call' }, task('y'))).toBe(list);
  });

  it('keeps the language, every region of it, and waits under the validator filter', () => {
    expect(applyTask([], { ...defaultFilters, language: 'es' }, task('n')).map((t) => t.uuid)).toEqual(['n']);
    expect(applyTask([], { ...defaultFilters, language: 'ES-mx' }, task('n')).map((t) => t.uuid)).toEqual(['n']);
    expect(applyTask([], { ...defaultFilters, language: 'en' }, task('n'))).toEqual([]);
    expect(applyTask([], { ...defaultFilters, language: 'es-AR' }, task('n'))).toEqual([]);
    expect(applyTask([], { ...defaultFilters, validated_by: 'vera' }, task('n'))).toEqual([]);
    expect(applyTask([], { ...defaultFilters, assignee: 'ana' }, task('n', { assignee_id: 'ana' })).map((t) => t.uuid)).toEqual(['n']);
    expect(applyTask([], { ...defaultFilters, assignee: 'ana' }, task('n'))).toEqual([]);
  });

  it("under a search by words: keeps a listed task's snippet, and a new task waits for the next load", () => {
    const f = { ...defaultFilters, q: 'reembolso' };
    const snippet = [{ text: 'el ' }, { text: 'reembolso', match: true }];
    const list = [task('a', { snippet }), task('b')];
    const changed = applyTask(list, f, task('a', { status: 'audited', updated_at: '2026-01-02T00:00:00Z' }));
    expect(changed[0]).toMatchObject({ uuid: 'a', status: 'audited', snippet });
    expect(applyTask(list, f, task('n'))).toBe(list);
  });

  it('keeps the review filter: a task whose last item to review was settled leaves it', () => {
    const f = { ...defaultFilters, needs_review: 'true' as const };
    const list = [task('a', { status: 'audited', review_items: 2 }), task('b', { status: 'audited', review_items: 1 })];
    const settled = task('b', { status: 'audited', review_items: 0, updated_at: '2026-01-02T00:00:00Z' });
    expect(applyTask(list, f, settled).map((t) => t.uuid)).toEqual(['a']);
    expect(applyTask([], { ...defaultFilters, needs_review: 'false' }, settled).map((t) => t.uuid)).toEqual(['b']);
    expect(applyTask([], { ...defaultFilters, needs_review: 'false' }, task('n'))).toEqual([]);
  });

  it('keeps the transcript filter: a call transcribed unreliable joins it, the others leave it', () => {
    const f = { ...defaultFilters, transcript_unreliable: 'true' as const };
    const noisy = task('a', { kind: 'call', transcript_unreliable: 'low_quality', updated_at: '2026-01-02T00:00:00Z' });
    expect(applyTask([], f, noisy).map((t) => t.uuid)).toEqual(['a']);
    expect(applyTask([], f, task('n'))).toEqual([]);
    expect(applyTask([], { ...defaultFilters, transcript_unreliable: 'false' }, noisy)).toEqual([]);
    expect(queryOf(f).get('transcript_unreliable')).toBe('true');
    expect(filtersOf(queryOf(f))).toEqual(f);
    expect(filtersOf(new URLSearchParams('transcript_unreliable=maybe')).transcript_unreliable).toBe('');
  });
});

describe('filters in the URL', () => {
  it('round-trips and leaves defaults out', () => {
    expect(queryOf(defaultFilters).toString()).toBe('');
    const f = {
      ...defaultFilters,
      status: 'audited',
      q: '"tarjeta bloqueada" reembols*',
      file_name: 'x',
      validated_by: 'vera',
      assignee: 'ana',
      language: 'es',
      needs_review: 'true' as const,
      sort: 'score' as const,
      order: 'asc' as const,
    };
    expect(filtersOf(queryOf(f))).toEqual(f);
    expect(queryOf(f).get('needs_review')).toBe('true');
    expect(filtersOf(new URLSearchParams('needs_review=maybe')).needs_review).toBe('');
  });

  it('keeps the agent, result, days and score range', () => {
    const f = {
      ...defaultFilters,
      operator: 'olga',
      passed: 'false' as const,
      from: '2026-11-01',
      to: '2026-11-30',
      min_score: '50',
      max_score: '84.99',
      failed_criterion: 'empathy',
    };
    expect(filtersOf(queryOf(f))).toEqual(f);
    expect(queryOf(f).toString()).toBe(
      'operator=olga&passed=false&from=2026-11-01&to=2026-11-30&min_score=50&max_score=84.99&failed_criterion=empathy',
    );
    const bad = filtersOf(new URLSearchParams('passed=maybe&from=yesterday&to=2026-13'));
    expect([bad.passed, bad.from, bad.to]).toEqual(['', '', '']);
  });
});

describe('the filters the API is asked', () => {
  it('trims every filter and asks whole days in the local zone', () => {
    const f = { ...defaultFilters, operator: ' olga ', queue: 'billing ', from: '2026-11-01', to: '2026-11-30', started_to: '2026-11-02' };
    const q = apiFilters(f);
    expect([q.operator, q.queue, q.status]).toEqual(['olga', 'billing', '']);
    expect([q.from, q.to]).toEqual([dayStart('2026-11-01'), dayStart('2026-12-01')]);
    expect([q.started_from, q.started_to]).toEqual(['', dayStart('2026-11-03')]);
    expect(Object.keys(q)).toEqual(Object.keys(defaultFilters).filter((k) => k !== 'sort' && k !== 'order'));
  });
});

describe('the new filters on live events', () => {
  it('keep the agent, the result, the days (in the local zone, both included) and the score range', () => {
    const audited = (uuid: string, over: Partial<TaskSummary>) => task(uuid, { status: 'audited', ...over });
    const a = audited('a', { operator_id: 'olga', passed: true, score: 90 });
    const b = audited('b', { operator_id: 'pepe', passed: false, score: 40 });
    const keep = (f: Partial<typeof defaultFilters>) =>
      [a, b].filter((t) => applyTask([], { ...defaultFilters, ...f }, t).length === 1).map((t) => t.uuid);
    expect(keep({ operator: 'olga' })).toEqual(['a']);
    expect(keep({ passed: 'false' })).toEqual(['b']);
    expect(keep({ min_score: '50' })).toEqual(['a']);
    expect(keep({ max_score: '40' })).toEqual(['b']);
    expect(keep({ min_score: '41', max_score: '89' })).toEqual([]);
    expect(keep({ passed: 'true' }).concat(keep({}))).toEqual(['a', 'a', 'b']);
    const at = (iso: string) => audited('d', { created_at: iso });
    const local = (y: number, m: number, d: number, h = 0) => new Date(y, m - 1, d, h).toISOString();
    const days = { from: '2026-11-02', to: '2026-11-03' };
    expect(applyTask([], { ...defaultFilters, ...days }, at(local(2026, 11, 2))).length).toBe(1);
    expect(applyTask([], { ...defaultFilters, ...days }, at(local(2026, 11, 3, 23))).length).toBe(1);
    expect(applyTask([], { ...defaultFilters, ...days }, at(local(2026, 11, 4))).length).toBe(0);
    expect(applyTask([], { ...defaultFilters, ...days }, at(local(2026, 11, 1, 23))).length).toBe(0);
    expect(applyTask([], { ...defaultFilters, min_score: '1' }, task('n'))).toEqual([]); // not audited: no score
    // The failed criterion is not in a summary: a listed task changes in place, a new one waits.
    const known = [a];
    const later = { ...a, score: 80, updated_at: '2026-01-02T00:00:00Z' };
    expect(applyTask(known, { ...defaultFilters, failed_criterion: 'empathy' }, later)).toEqual([later]);
    expect(applyTask(known, { ...defaultFilters, failed_criterion: 'empathy' }, b)).toBe(known);
  });
});

describe('new tasks wait above the list', () => {
  it("holds a new task back, changes known ones in place, and lets the reader's own in", () => {
    const shown = { tasks: [task('a'), task('b')], fresh: [] };
    const n = arrive(shown, defaultFilters, task('n'));
    expect(n.tasks.map((t) => t.uuid)).toEqual(['a', 'b']);
    expect(n.fresh.map((t) => t.uuid)).toEqual(['n']);
    const audited = task('n', { status: 'audited', updated_at: '2026-01-02T00:00:00Z' });
    expect(arrive(n, defaultFilters, audited).fresh).toEqual([audited]);
    expect(arrive(n, { ...defaultFilters, status: 'transcribed' }, audited).fresh).toEqual([]);
    const b = task('b', { status: 'audited', updated_at: '2026-01-02T00:00:00Z' });
    expect(arrive(n, defaultFilters, b)).toEqual({ tasks: [task('a'), b], fresh: n.fresh });
    expect(arrive(shown, defaultFilters, task('m'), true)).toEqual({ tasks: [task('m'), task('a'), task('b')], fresh: [] });
    expect(arrive(n, defaultFilters, task('n'), true)).toEqual({ tasks: [task('n'), task('a'), task('b')], fresh: [] });
    expect(promote(n, 'n')).toEqual({ tasks: [task('n'), task('a'), task('b')], fresh: [] });
    expect(promote(n, 'x')).toBe(n);
    expect(arrive(shown, { ...defaultFilters, sort: 'file_name' }, task('z'))).toBe(shown);
  });
});

describe('the review state filter', () => {
  it('is kept in the URL, an unknown state dropped', () => {
    const f = { ...defaultFilters, review_state: 'automatic' as const };
    expect(queryOf(f).toString()).toBe('review_state=automatic');
    expect(filtersOf(queryOf(f))).toEqual(f);
    expect(filtersOf(new URLSearchParams('review_state=done')).review_state).toBe('');
  });

  it('drops a task an analyst reviewed from the automatic ones', () => {
    const f = { ...defaultFilters, review_state: 'automatic' as const };
    const list = [task('a', { status: 'audited', review_state: 'automatic' })];
    const reviewed = task('a', { status: 'audited', review_state: 'reviewed', updated_at: '2026-01-01T00:00:01Z' });
    expect(applyTask(list, f, reviewed)).toEqual([]);
  });
});

describe('clock', () => {
  it('shows minutes and seconds, and hours from an hour on', () => {
    expect(clock(undefined)).toBe('');
    expect(clock(0)).toBe('0:00');
    expect(clock(65.7)).toBe('1:05');
    expect(clock(3599)).toBe('59:59');
    expect(clock(3723.5)).toBe('1:02:03');
    // A chat written with times of day, "[11:15:00] Agente: …", shows them as written (not "675:00").
    expect(clock(11 * 3600 + 15 * 60)).toBe('11:15:00');
  });
});
