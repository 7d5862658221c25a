import { describe, expect, it } from 'vitest';
import { PATTERN_RELEVANCE_WEIGHTS, patternFit, patternRelevance, type RankedPattern } from '../../src/retrieval/pattern-score.ts';

const CONTEXT = { domain: 'web', language: 'TS', framework: null, tags: ['API', 'auth'] };

function pattern(overrides: Partial<RankedPattern>): RankedPattern {
  return {
    kind: 'tool_sequence',
    signature: ['a', 'b'],
    effectiveness: 0.5,
    context: { domain: 'web', language: 'TS', framework: null, tags: [] },
    feedbackCredit: 0,
    ...overrides,
  };
}

describe('patternFit', () => {
  it('fits a context pattern fully when the query has its feature, compared case-insensitively', () => {
    expect(patternFit(CONTEXT, pattern({ kind: 'context_pattern', signature: ['tag', 'api', 'curl'] }))).toBe(1);
    expect(patternFit(CONTEXT, pattern({ kind: 'context_pattern', signature: ['language', 'ts', 'tsc'] }))).toBe(1);
  });

  it('does not fit a context pattern whose feature the query lacks', () => {
    expect(patternFit(CONTEXT, pattern({ kind: 'context_pattern', signature: ['tag', 'billing', 'curl'] }))).toBe(0);
    expect(patternFit(CONTEXT, pattern({ kind: 'context_pattern', signature: ['framework', 'react', 'vite'] }))).toBe(0);
  });

  it('fits other kinds by contextMatch against the context they were found in', () => {
    // Query gives domain, language and tags; the pattern matches domain and language: (0.3 + 0.25) / 0.65.
    expect(patternFit(CONTEXT, pattern({}))).toBeCloseTo(0.55 / 0.65, 12);
  });
});

describe('patternRelevance', () => {
  it('weighs effectiveness 0.5, fit 0.4 and feedback 0.1', () => {
    expect(PATTERN_RELEVANCE_WEIGHTS).toEqual({ effectiveness: 0.5, fit: 0.4, feedback: 0.1 });
    const relevance = patternRelevance(CONTEXT, pattern({ kind: 'context_pattern', signature: ['domain', 'web', 'curl'], effectiveness: 0.8, feedbackCredit: -0.5 }));
    expect(relevance).toEqual({ effectiveness: 0.8, fit: 1, feedback: -0.5, total: 0.5 * 0.8 + 0.4 * 1 + 0.1 * -0.5 });
  });

  it('ranks the more effective of two equally fitting patterns first', () => {
    const strong = patternRelevance(CONTEXT, pattern({ effectiveness: 0.9 }));
    const weak = patternRelevance(CONTEXT, pattern({ effectiveness: 0.4 }));
    expect(strong.total).toBeGreaterThan(weak.total);
  });

  it('clamps effectiveness and feedback', () => {
    expect(patternRelevance(CONTEXT, pattern({ effectiveness: 3, feedbackCredit: -4 }))).toMatchObject({ effectiveness: 1, feedback: -1 });
  });
});
