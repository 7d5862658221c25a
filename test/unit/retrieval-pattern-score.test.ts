import { describe, expect, it } from 'vitest';
import type { ContextFacts } from '../../src/learning/facts.ts';
import { PATTERN_RELEVANCE, patternRelevance, type RankedPattern, scopeFit } from '../../src/retrieval/pattern-score.ts';

const DJANGO = { domain: 'django/django', language: 'python', framework: null, tags: [] };
const pattern = (overrides: Partial<RankedPattern> = {}): RankedPattern => ({
  kind: 'file_change',
  scope: 'django/django',
  cue: 'queryset',
  language: 'python',
  lift: 0.25,
  effectiveness: 0.25,
  feedbackCredit: 0,
  ...overrides,
});
const query = (terms: string[], context: ContextFacts = DJANGO) => ({ terms: new Set(terms), context });

describe('patternRelevance', () => {
  it('scores a mentioned cue in the same domain at full relevance, weighted by strength', () => {
    const score = patternRelevance(query(['queryset']), pattern());
    expect(score).toMatchObject({ relevance: 1, strength: 0.5, lift: 0.25 });
    expect(score?.total).toBeCloseTo(0.75);
  });
  it('serves nothing for a task of another project (the floor)', () => {
    const java = { domain: 'apache/commons-lang', language: 'java', framework: null, tags: [] };
    expect(patternRelevance(query(['queryset'], java), pattern())).toBeNull();
    expect(patternRelevance(query([], java), pattern({ kind: 'tool_outcome', cue: 'pytest' }))).toBeNull();
  });
  it('needs the cue for task patterns, the domain for tool and error patterns', () => {
    expect(patternRelevance(query(['other']), pattern())).toBeNull();
    expect(patternRelevance(query([]), pattern({ kind: 'tool_outcome', cue: 'pytest' }))?.relevance).toBe(0.5);
    const languageOnly = { domain: null, language: 'Python', framework: null, tags: [] };
    expect(patternRelevance(query([], languageOnly), pattern({ kind: 'error_outcome', cue: 'importerror' }))).toBeNull();
    expect(patternRelevance(query(['queryset'], languageOnly), pattern())?.relevance).toBe(0.75);
  });
  it('lets a text-only task match by cue alone, at the floor', () => {
    const none = { domain: null, language: null, framework: null, tags: [] };
    expect(patternRelevance(query(['queryset'], none), pattern())?.relevance).toBe(PATTERN_RELEVANCE.floor);
  });
  it('adds the feedback credit and ranks warnings by |lift|', () => {
    const credited = patternRelevance(query(['queryset']), pattern({ feedbackCredit: 1 }));
    const warning = patternRelevance(query(['queryset']), pattern({ kind: 'task_outcome', lift: -0.5 }));
    expect(credited?.total).toBeCloseTo(0.85);
    expect(warning?.strength).toBe(1);
  });
});

describe('scopeFit', () => {
  it('matches the scope by domain, else (no domain given) by language, stored or in the scope name', () => {
    expect(scopeFit(DJANGO, { scope: 'django/django', language: null })).toBe(1);
    expect(scopeFit(DJANGO, { scope: 'sympy/sympy', language: 'python' })).toBeNull(); // another repository
    expect(scopeFit({ ...DJANGO, domain: null }, { scope: 'sympy/sympy', language: 'python' })).toBe(0.5);
    expect(scopeFit({ ...DJANGO, domain: null }, { scope: 'language:python', language: null })).toBe(0.5);
    expect(scopeFit({ ...DJANGO, domain: null, language: 'java' }, { scope: 'sympy/sympy', language: 'python' })).toBeNull();
  });
});

describe('procedure relevance', () => {
  const procedure = (share: number) => pattern({ kind: 'procedure', cue: 'python tests/runtests.py', lift: null, effectiveness: share });

  it('serves a procedure to any task of its domain, its strength the share of runs it worked in', () => {
    expect(patternRelevance(query([]), procedure(0.76))).toMatchObject({ relevance: 1, strength: 0.76 });
    expect(patternRelevance(query([]), procedure(0.9))?.total).toBeGreaterThan(patternRelevance(query([]), procedure(0.4))?.total ?? 1);
  });

  it('never serves a procedure to another domain or to a task that names only a language', () => {
    expect(patternRelevance(query([], { ...DJANGO, domain: 'sympy/sympy' }), procedure(0.9))).toBeNull();
    expect(patternRelevance(query([], { ...DJANGO, domain: null }), procedure(0.9))).toBeNull();
  });
});
