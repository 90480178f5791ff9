import { describe, expect, it } from 'vitest';
import { fill } from './message';

describe('fill', () => {
  it('fills placeholders and leaves unknown ones as written', () => {
    expect(fill('{n} of {max}', { n: 3, max: 10 }, 'en')).toBe('3 of 10');
    expect(fill('{n} of {max}', { n: 3 }, 'en')).toBe('3 of {max}');
  });

  const calls = 'Over {calls, plural, one {# call} other {# calls}} ({stereo} stereo)';
  it('takes the form of the count in English', () => {
    expect(fill(calls, { calls: 1, stereo: 0 }, 'en')).toBe('Over 1 call (0 stereo)');
    expect(fill(calls, { calls: 0, stereo: 0 }, 'en')).toBe('Over 0 calls (0 stereo)');
    expect(fill(calls, { calls: 2, stereo: 1 }, 'en')).toBe('Over 2 calls (1 stereo)');
  });

  it('takes the form of the count in Spanish, other for many', () => {
    const es = 'Sobre {calls, plural, one {# llamada} other {# llamadas}}';
    expect(fill(es, { calls: 1 }, 'es')).toBe('Sobre 1 llamada');
    expect(fill(es, { calls: 21 }, 'es')).toBe('Sobre 21 llamadas');
    expect(fill(es, { calls: 1000000 }, 'es')).toBe('Sobre 1000000 llamadas');
  });

  it('prefers an exact count and fills the placeholders of a form', () => {
    const m = '{n, plural, =0 {none of {total}} one {# of {total}} other {# of {total}}}';
    expect(fill(m, { n: 0, total: 5 }, 'en')).toBe('none of 5');
    expect(fill(m, { n: 1, total: 5 }, 'en')).toBe('1 of 5');
    expect(fill(m, { n: 4, total: 5 }, 'en')).toBe('4 of 5');
  });

  it('shows a count given as formatted text, in the other form when it is not a number', () => {
    const m = '{n, plural, one {# second} other {# seconds}}';
    expect(fill(m, { n: '1,5' }, 'es')).toBe('1,5 seconds');
    expect(fill(m, { n: '1' }, 'en')).toBe('1 second');
  });

  it('leaves a plural whose count is missing as written', () => {
    expect(fill('{n, plural, one {# call} other {# calls}}', {}, 'en')).toBe('{n, plural, one {# call} other {# calls}}');
  });
});
