import { describe, expect, it } from 'vitest';
import { ranked } from './ranking';

const agent = (operator_id: string, average_score: number) => ({ operator_id, average_score, audited: 1 });

describe('ranked', () => {
  it('lists the lowest first, then the highest, each once', () => {
    const all = [90, 80, 70, 60, 50, 40, 30].map((s, i) => agent(`a${i}`, s));
    // Seven agents: the API's top five (highest first) and bottom five (lowest first) overlap.
    const got = ranked({ top: all.slice(0, 5), bottom: all.slice(2).reverse() });
    expect(got.map((o) => o.average_score)).toEqual([30, 40, 50, 60, 70, 80, 90]);
  });
  it('keeps the gap between the ends when there are many agents', () => {
    const all = Array.from({ length: 12 }, (_, i) => agent(`a${i}`, 100 - i));
    const got = ranked({ top: all.slice(0, 5), bottom: all.slice(7).reverse() });
    expect(got.map((o) => o.average_score)).toEqual([89, 90, 91, 92, 93, 96, 97, 98, 99, 100]);
  });
  it('shows a single agent once', () => {
    const one = agent('solo', 75);
    expect(ranked({ top: [one], bottom: [one] })).toEqual([one]);
  });
});
