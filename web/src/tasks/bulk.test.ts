import { describe, expect, it } from 'vitest';
import {
  advance,
  advanceAll,
  filterString,
  forLeads,
  listFiltersOf,
  listQueryOf,
  noSelection,
  requestOf,
  share,
  toggle,
  toggleShown,
  type BulkAction,
  type BulkProgress,
  type Choice,
} from './bulk';

const action = (over: Partial<BulkAction> = {}): BulkAction => ({
  id: 'b1',
  action: 'reaudit',
  status: 'running',
  requested_by: 'maria',
  matched: 10,
  done: 2,
  succeeded: 2,
  skipped: 0,
  failed: 0,
  created_at: '2026-11-27T10:00:00Z',
  updated_at: '2026-11-27T10:00:01.000001Z',
  ...over,
});

describe('selection', () => {
  it('ticks rows one by one and all those shown', () => {
    let s = toggle(noSelection, 'a');
    s = toggle(s, 'b');
    expect([...s.ids]).toEqual(['a', 'b']);
    expect([...toggle(s, 'a').ids]).toEqual(['b']);
    expect([...toggleShown(s, ['a', 'b', 'c']).ids].sort()).toEqual(['a', 'b', 'c']);
    expect([...toggleShown(toggleShown(s, ['a', 'b', 'c']), ['a', 'b', 'c']).ids]).toEqual([]);
    // Ticking a row leaves "all matching" for the rows ticked.
    expect(toggle({ ids: new Set(), all: true }, 'a')).toEqual({ ids: new Set(['a']), all: false });
  });
});

describe('requestOf', () => {
  const reaudit: Choice = { action: 'reaudit', assignee: '', notes: '' };
  it('sends the rows ticked, or the filters for all matching', () => {
    expect(requestOf(reaudit, toggle(noSelection, 'a'), { status: 'audited' })).toEqual({
      action: 'reaudit',
      task_uuids: ['a'],
      confirm: true,
    });
    expect(requestOf(reaudit, { ids: new Set(), all: true }, { status: 'audited', q: '', campaign: 'default' })).toEqual({
      action: 'reaudit',
      filter: 'status=audited&campaign=default',
      confirm: true,
    });
  });
  it('sends what each action takes, and confirms only what cannot be undone', () => {
    const s = toggle(noSelection, 'a');
    expect(requestOf({ action: 'assign', assignee: ' maria ', notes: 'x' }, s, {})).toEqual({
      action: 'assign',
      task_uuids: ['a'],
      assignee: 'maria',
    });
    expect(requestOf({ action: 'validate', assignee: 'x', notes: 'Bien.' }, s, {})).toEqual({
      action: 'validate',
      task_uuids: ['a'],
      notes: 'Bien.',
      confirm: true,
    });
    expect(requestOf({ action: 'retry', assignee: '', notes: '' }, s, {})).toEqual({ action: 'retry', task_uuids: ['a'] });
    expect(requestOf({ action: 'unassign', assignee: 'maria', notes: '' }, s, {})).toEqual({ action: 'unassign', task_uuids: ['a'] });
  });
  it('leaves handing out and taking back work to supervisors', () => {
    expect(forLeads('assign')).toBe(true);
    expect(forLeads('unassign')).toBe(true);
    expect(forLeads('validate')).toBe(false);
  });
  it('writes the filters as the task list takes them', () => {
    expect(filterString({ status: 'failed', q: 'año 2', operator: undefined })).toBe('status=failed&q=a%C3%B1o+2');
    expect(filterString({})).toBe('');
  });
});

describe('advance', () => {
  const progress = (over: Partial<BulkProgress>): BulkProgress => ({ ...action(), ...over });
  it('moves an action on with its own newer events only', () => {
    const a = action();
    expect(advance(a, progress({ done: 5, updated_at: '2026-11-27T10:00:02Z' })).done).toBe(5);
    expect(advance(a, progress({ id: 'b2', done: 5, updated_at: '2026-11-27T10:00:02Z' }))).toBe(a);
    expect(advance(a, progress({ done: 1, updated_at: '2026-11-27T10:00:00Z' }))).toBe(a);
  });
  it('never takes an ended action back', () => {
    const done = action({ status: 'done', done: 10, updated_at: '2026-11-27T10:00:05Z' });
    expect(advance(done, progress({ status: 'running', done: 9, updated_at: '2026-11-27T10:00:05Z' }))).toBe(done);
  });
  it('says how far it has got', () => {
    expect(share(action())).toBe(0.2);
    expect(share(action({ matched: null }))).toBeNull();
    expect(share(action({ matched: 0, done: 0 }))).toBe(1);
  });
});

describe('the list of bulk actions', () => {
  it('moves on the listed action an event is about, and no other', () => {
    const list = [action(), action({ id: 'b2' })];
    const moved = advanceAll(list, { ...action(), status: 'done', done: 10, updated_at: '2026-11-27T10:00:09Z' });
    expect(moved.map((a) => [a.id, a.status])).toEqual([
      ['b1', 'done'],
      ['b2', 'running'],
    ]);
    expect(advanceAll(list, { ...action({ id: 'b9' }) })).toBe(list);
  });
  it('keeps its filters in the URL, dropping what it does not know', () => {
    const f = listFiltersOf(new URLSearchParams('status=done&action=unassign&requested_by=%20sue%20'));
    expect(f).toEqual({ status: 'done', action: 'unassign', requested_by: 'sue' });
    expect(listQueryOf(f).toString()).toBe('status=done&action=unassign&requested_by=sue');
    expect(listFiltersOf(new URLSearchParams('status=stuck&action=delete'))).toEqual({ status: '', action: '', requested_by: '' });
    expect(listQueryOf({ status: '', action: '', requested_by: ' ' }).toString()).toBe('');
  });
});
