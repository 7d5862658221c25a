import { describe, expect, it } from 'vitest';
import { mergePattern, type PatternObservation, type PatternStats } from '../../src/learning/patterns.ts';
import { contradictedBy, withoutObservations } from '../../src/learning/supersede.ts';
import { allWordsQuery, anyWordQuery, queryWords } from '../../src/retrieval/words.ts';

const s = (success: boolean, episodeReward = 0.5): PatternObservation => ({ success, episodeReward });
const fold = (observations: PatternObservation[]): PatternStats => observations.reduce<PatternStats>((stats, o) => mergePattern(stats, o), null as unknown as PatternStats);

describe('withoutObservations', () => {
  it('undoes merging the latest observations', () => {
    const history = [s(true, 0.9), s(true, 0.2), s(false, 0.4), s(true, 0.7), s(false, 0.1)];
    const all = fold(history);
    const undone = withoutObservations(all, history.slice(2));
    const expected = fold(history.slice(0, 2));
    expect(undone.occurrences).toBe(expected.occurrences);
    expect(undone.successes).toBe(expected.successes);
    expect(undone.meanReward).toBeCloseTo(expected.meanReward, 12);
    expect(undone.effectiveness).toBeCloseTo(expected.effectiveness, 12);
    expect(withoutObservations(all, history)).toMatchObject({ occurrences: 0, effectiveness: 0 });
  });
});

describe('contradictedBy', () => {
  it('is contradicted when the new observation drops the rate below 0.6', () => {
    const before = fold([s(true), s(true), s(false)]);
    expect(contradictedBy(before, [s(true), s(true), s(false)], s(false))).toBe(true);
    expect(contradictedBy(before, [s(true), s(true), s(false)], s(true))).toBe(false);
  });

  it('is contradicted when the last five observations, the new one included, mostly failed', () => {
    const history = [...Array(7).fill(s(true)), s(false), s(false)];
    const before = fold(history);
    expect(contradictedBy(before, history.slice(-4), s(false))).toBe(true); // window s s f f f
    expect(contradictedBy(fold(history.slice(0, 8)), history.slice(4, 8), s(false))).toBe(false); // window s s s f f
  });

  it('never contradicts a pattern that had not met the bar', () => {
    expect(contradictedBy(fold([s(true)]), [s(true)], s(false))).toBe(false);
  });
});

describe('query words', () => {
  it('splits any script into lower-cased words, long ones first, at most 16', () => {
    expect(queryWords('Fix the Flaky test, fix it!')).toEqual({ all: ['flaky', 'test', 'fix', 'the', 'it'], long: ['flaky', 'test'] });
    expect(queryWords('Größe ändern – Исправить базу').all).toEqual(['größe', 'ändern', 'исправить', 'базу']);
    expect(queryWords('データベースの移行').all).toEqual(['データベースの移行']);
    expect(queryWords(Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ')).all).toHaveLength(16);
    expect(queryWords("it's O'Brien's \\ 'quote'").all).toEqual(['brien', 'quote', 'it', 's', 'o']);
  });

  it('builds quoted tsquery text', () => {
    expect(anyWordQuery(['a', 'b'])).toBe("'a' | 'b'");
    expect(allWordsQuery(['a', 'b'])).toBe("'a' & 'b'");
    expect(anyWordQuery([])).toBeNull();
  });
});
