import { describe, expect, it } from 'vitest';
import type { CalibrationItem, CalibrationSession } from '../types';
import { byItem, history, itemKey, missing, submission, type Draft } from './state';

const item = (task: string, criterion: string) =>
  ({ task_uuid: task, criterion_id: criterion, category: 'SKILLS', question: `${criterion}?`, critical: false }) as CalibrationItem;

describe('calibration state', () => {
  const items = [item('t1', 'greeting'), item('t1', 'closing'), item('t2', 'greeting')];

  it('counts the items without an answer and builds the submission', () => {
    const draft: Draft = { [itemKey(items[0])]: { answer: 'complies', comment: '  fine ' }, [itemKey(items[1])]: { comment: 'x' } };
    expect(missing(items, draft)).toBe(2);
    draft[itemKey(items[1])].answer = 'not_applicable';
    draft[itemKey(items[2])] = { answer: 'does_not_comply', comment: '' };
    expect(missing(items, draft)).toBe(0);
    expect(submission(items, draft).answers).toEqual([
      { task_uuid: 't1', criterion_id: 'greeting', answer: 'complies', comment: 'fine' },
      { task_uuid: 't1', criterion_id: 'closing', answer: 'not_applicable', comment: 'x' },
      { task_uuid: 't2', criterion_id: 'greeting', answer: 'does_not_comply', comment: undefined },
    ]);
  });

  it('groups answers by item and analyst', () => {
    const got = byItem([
      { task_uuid: 't1', criterion_id: 'greeting', analyst_id: 'ana', answer: 'complies' },
      { task_uuid: 't1', criterion_id: 'greeting', analyst_id: 'ben', answer: 'does_not_comply' },
    ]);
    expect(Object.keys(got['t1/greeting'])).toEqual(['ana', 'ben']);
  });

  it('keeps the closed sessions, oldest first, for the history', () => {
    const s = (name: string, status: 'open' | 'closed', closed?: string) =>
      ({ name, status, created_at: '2026-11-01T00:00:00Z', closed_at: closed }) as CalibrationSession;
    const got = history([s('c', 'closed', '2026-11-20T00:00:00Z'), s('open', 'open'), s('a', 'closed', '2026-11-02T00:00:00Z')]);
    expect(got.map((x) => x.name)).toEqual(['a', 'c']);
  });
});
