import { describe, expect, it } from 'vitest';
import { fold, matching, nextActive, userOption } from './options';

describe('pickers', () => {
  const people = [
    { value: 'u1', label: 'Raúl García', hint: 'raul' },
    { value: 'u2', label: 'Marta López', hint: 'marta' },
    { value: 'u3', label: 'ana' },
  ];

  it('folds case and accents', () => {
    expect(fold('  RaÚl Ñandú ')).toBe('raul nandu');
  });

  it('finds by every word typed, in the name or the hint, ignoring accents', () => {
    expect(matching(people, 'raul').map((o) => o.value)).toEqual(['u1']);
    expect(matching(people, 'GARCIA raúl').map((o) => o.value)).toEqual(['u1']);
    expect(matching(people, 'marta').map((o) => o.value)).toEqual(['u2']);
    expect(matching(people, 'garcía marta')).toEqual([]);
    expect(matching(people, '').length).toBe(3);
    expect(matching(people, '   ').length).toBe(3);
    expect(matching(people, 'a', 2).length).toBe(2);
  });

  it('moves the active option with the keys, wrapping, and not without options', () => {
    expect(nextActive('ArrowDown', -1, 3)).toBe(0);
    expect(nextActive('ArrowDown', 2, 3)).toBe(0);
    expect(nextActive('ArrowUp', 0, 3)).toBe(2);
    expect(nextActive('ArrowUp', -1, 3)).toBe(2);
    expect(nextActive('Home', 2, 3)).toBe(0);
    expect(nextActive('End', 0, 3)).toBe(2);
    expect(nextActive('Enter', 1, 3)).toBe(1);
    expect(nextActive('ArrowDown', -1, 0)).toBe(-1);
  });

  it('names a user by their name, the username beside it; by the username without a name', () => {
    expect(userOption({ id: 'u1', username: 'raul', name: 'Raúl García' })).toEqual({ value: 'u1', label: 'Raúl García', hint: 'raul' });
    expect(userOption({ id: 'u3', username: 'ana', name: '' })).toEqual({ value: 'u3', label: 'ana' });
    expect(userOption({ id: 'u4', username: 'bo', name: 'bo' })).toEqual({ value: 'u4', label: 'bo' });
  });
});
