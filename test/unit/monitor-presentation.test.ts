// What the monitor and the CLI show people about a retrieval: an absolute match strength (the same
// scale for every query, unlike the relative similarity) and a failed run's last error.
import { describe, expect, it } from 'vitest';
import { describeLastError, LAST_LINE_CHARS, lastLineOf } from '../../src/monitor/last-error.ts';
import { HALF_STRENGTH_BM25, matchStrength, strengthWord } from '../../src/monitor/match-strength.ts';

describe('match strength', () => {
  it('grows with the raw BM25 evidence, whatever the best candidate of the query scored', () => {
    expect(matchStrength({ taskText: 0, work: 0, trigramSimilarity: 0 })).toEqual({ value: 0, word: 'none' });
    expect(matchStrength({ taskText: HALF_STRENGTH_BM25 / 2, work: HALF_STRENGTH_BM25 / 2, trigramSimilarity: 0 }).value).toBe(0.5);
    // The best of weak matches stays weak: 4 of BM25 is weak in any query.
    expect(matchStrength({ taskText: 4, work: 0, trigramSimilarity: 0 })).toMatchObject({ word: 'none' });
    expect(matchStrength({ taskText: 6, work: 0, trigramSimilarity: 0 })).toMatchObject({ word: 'weak' });
    expect(matchStrength({ taskText: 30, work: 0, trigramSimilarity: 0 })).toMatchObject({ word: 'moderate' });
    expect(matchStrength({ taskText: 150, work: 20, trigramSimilarity: 0 })).toMatchObject({ word: 'strong' });
    expect(matchStrength({ taskText: 1e9, work: 0, trigramSimilarity: 0 }).value).toBeLessThan(1);
  });

  it('takes the trigram similarity when it is the stronger evidence (text without spaces, typos)', () => {
    expect(matchStrength({ taskText: 0, work: 0, trigramSimilarity: 0.7 })).toEqual({ value: 0.7, word: 'strong' });
    expect(matchStrength({ taskText: -3, work: 0, trigramSimilarity: 2 }).value).toBe(1);
  });

  it('names each band by its lower bound', () => {
    expect([0.6, 0.599, 0.35, 0.349, 0.1, 0.099].map(strengthWord)).toEqual(['strong', 'moderate', 'moderate', 'weak', 'weak', 'none']);
  });
});

describe("a failed run's last error", () => {
  it('says the step, its tool, the error and the last line of the output', () => {
    const output = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad value\n\n';
    expect(
      describeLastError({ step_number: 7, tool: 'python', result_kind: 'error', result: { message: 'exit code 1', errorClass: 'exit_1', output } }),
    ).toEqual({
      stepNumber: 7,
      tool: 'python',
      kind: 'error',
      message: 'exit_1: exit code 1',
      lastLine: 'ValueError: bad value',
    });
  });

  it('says "timed out" for a timeout without a message, and keeps a long last line short', () => {
    expect(describeLastError({ step_number: 2, tool: null, result_kind: 'timeout', result: null })).toMatchObject({ message: 'timed out', lastLine: null });
    const line = lastLineOf('x'.repeat(500));
    expect(line).toHaveLength(LAST_LINE_CHARS);
    expect(line?.endsWith('…')).toBe(true);
    expect(lastLineOf(42)).toBeNull();
    expect(lastLineOf('\n \n')).toBeNull();
  });
});
