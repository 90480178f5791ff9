import { describe, expect, it } from 'vitest';
import { filtersOf, queryOf } from './state';
import { hrefOf, sameQuery } from './views';

describe('saved views', () => {
  it('knows a view by its parameters, whatever their order', () => {
    // The API stores the list's order; the dashboard's address has its own.
    const stored = 'status=audited&operator=ana&q=a+b&sort=score&order=asc';
    const shown = queryOf(filtersOf(new URLSearchParams(stored))).toString();
    expect(shown).not.toBe(stored);
    expect(sameQuery(stored, shown)).toBe(true);
    expect(sameQuery('', '')).toBe(true);
    expect(sameQuery('kind=chat', '')).toBe(false);
    expect(sameQuery('kind=chat', 'kind=call')).toBe(false);
    expect(sameQuery('kind=chat&q=x', 'kind=chat')).toBe(false);
  });

  it('opens the task list with the query of the view', () => {
    expect(hrefOf({ query: 'status=failed&sort=file_name' })).toBe('/app/tasks?status=failed&sort=file_name');
    expect(hrefOf({ query: '' })).toBe('/app/tasks');
  });
});
