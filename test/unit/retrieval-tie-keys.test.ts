// The ranking reads tie keys only for the candidates tiedIds names (store.ts): a sort by total,
// then key, cut to the best `top`, must come out the same as with every candidate's key known.
import { describe, expect, it } from 'vitest';
import { tiedIds } from '../../src/retrieval/store.ts';

interface Candidate {
  id: string;
  total: number;
  key: string;
}

/** Seeded, so a failure names its case. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const cutBy = (candidates: readonly Candidate[], keyOf: (c: Candidate) => string, top: number) =>
  [...candidates]
    .sort((a, b) => b.total - a.total || keyOf(a).localeCompare(keyOf(b)) || a.id.localeCompare(b.id))
    .slice(0, top)
    .map((c) => c.id);

describe('tiedIds: the candidates whose tie keys a cut by total can compare', () => {
  it('gives the cut every key would give, over random totals with many ties', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const candidates = Array.from({ length: 1 + Math.floor(next() * 40) }, (_, i) => ({
        id: `e${String(i).padStart(3, '0')}`,
        total: Math.floor(next() * 8) / 4,
        key: `k${Math.floor(next() * 1000)}`,
      }));
      const top = 1 + Math.floor(next() * 12);
      const known = new Set(tiedIds(candidates, top));
      const some = (c: Candidate) => (known.has(c.id) ? c.key : '');
      expect(cutBy(candidates, some, top), `seed ${seed}`).toEqual(cutBy(candidates, (c) => c.key, top));
    }
  });

  it('names none when no total is shared, only the tied ones at or above the cut, and all when a total is NaN', () => {
    const at = (total: number, id: string) => ({ id, total });
    expect(tiedIds([at(3, 'a'), at(2, 'b'), at(1, 'c')], 2)).toEqual([]);
    expect(tiedIds([at(3, 'a'), at(2, 'b'), at(2, 'c'), at(1, 'd'), at(1, 'e')], 2)).toEqual(['b', 'c']);
    expect(tiedIds([at(3, 'a'), at(Number.NaN, 'b'), at(1, 'c')], 1)).toEqual(['a', 'b', 'c']);
  });
});
