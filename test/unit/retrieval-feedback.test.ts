// The query-relative feedback rule (src/retrieval/feedback.ts) and the choice of query terms it is
// relative to (bm25.ts): pure functions, no database.
import { describe, expect, it } from 'vitest';
import { BM25, chooseQueryTerms, fieldPostings, type TermStat, topTerms, weightedTerms } from '../../src/retrieval/bm25.ts';
import { EPISODE_FEEDBACK, type FeedbackUse, groundedTarget, queryFeedback, resemblance } from '../../src/retrieval/feedback.ts';

const use = (terms: Record<string, number>, target = 1): FeedbackUse => ({ terms: Object.keys(terms), weights: Object.values(terms), target });
const q = (...terms: string[]) => new Set(terms);

describe('resemblance', () => {
  it('is the idf-weighted share of the earlier query terms the new query holds', () => {
    const u = use({ modelchoicefield: 6, iterator: 3, the: 1 });
    expect(resemblance(q('modelchoicefield', 'iterator', 'the', 'extra'), u)).toBe(1);
    expect(resemblance(q('modelchoicefield'), u)).toBeCloseTo(0.6, 12);
    expect(resemblance(q('the', 'iterator'), u)).toBeCloseTo(0.4, 12);
    expect(resemblance(q('unrelated'), u)).toBe(0);
  });

  it('is 0 for a use without terms or weights (receipts recorded before terms were kept)', () => {
    expect(resemblance(q('a'), { terms: [], weights: [] })).toBe(0);
    expect(resemblance(q('a'), { terms: ['a'], weights: [0] })).toBe(0);
    expect(resemblance(q('a'), { terms: ['a'], weights: [-2] })).toBe(0);
  });
});

describe('queryFeedback', () => {
  it('gives the same query asked again 1 − 0.7^n after n helpful uses', () => {
    const u = use({ ingress: 4, controller: 2 });
    for (const n of [1, 2, 3]) {
      const f = queryFeedback(
        q('ingress', 'controller'),
        Array.from({ length: n }, () => u),
      );
      expect(f.credit).toBeCloseTo(1 - (1 - EPISODE_FEEDBACK.RATE) ** n, 12);
      expect(f.uses).toBe(n);
      expect(f.resemblance).toBe(1);
    }
  });

  it('gives nothing to a query that does not resemble the one the episode served', () => {
    // The per-episode credit promoted a helpful run for every later query (hubs on real runs).
    const uses = [use({ ingress: 4, controller: 2 }), use({ ingress: 4, controller: 2 })];
    const f = queryFeedback(q('changelog', 'tidy', 'controller'), uses);
    expect(f).toEqual({ credit: 0, uses: 0, resemblance: 1 / 3 });
  });

  it('scales the step by the resemblance at or above the threshold', () => {
    const u = use({ a: 1, b: 1 });
    const half = queryFeedback(q('a'), [u]);
    expect(half.credit).toBeCloseTo(EPISODE_FEEDBACK.RATE * 0.5, 12);
    expect(half.uses).toBe(1);
    const below = queryFeedback(q('a'), [use({ a: 1, b: 1, c: 1 })]);
    expect(1 / 3).toBeLessThan(EPISODE_FEEDBACK.MIN_RESEMBLANCE);
    expect(below.credit).toBe(0);
  });

  it('debits on failure and averages the uses oldest first, within [-1, 1]', () => {
    const u = { ingress: 1 };
    expect(queryFeedback(q('ingress'), [use(u, -1)]).credit).toBeCloseTo(-EPISODE_FEEDBACK.RATE, 12);
    const mixed = queryFeedback(q('ingress'), [use(u, 1), use(u, -1)]);
    expect(mixed.credit).toBeCloseTo(0.3 + 0.3 * (-1 - 0.3), 12);
    const many = queryFeedback(
      q('ingress'),
      Array.from({ length: 200 }, () => use(u, 5)),
    );
    expect(many.credit).toBeLessThanOrEqual(1);
    expect(many.credit).toBeGreaterThan(0.99);
  });

  it('is 0 with no uses', () => {
    expect(queryFeedback(q('x'), [])).toEqual({ credit: 0, uses: 0, resemblance: 0 });
  });
});

describe('chooseQueryTerms', () => {
  const stat = (field: number, term: string, df: number, documents = 100): TermStat => ({ field, term, df, documents });

  it('keeps the QUERY_TERMS rarest by their smaller share over the fields, plus the repeated ones, in every field', () => {
    const stats: TermStat[] = [];
    for (let i = 0; i < BM25.QUERY_TERMS + 10; i++) stats.push(stat(0, `t${String(i).padStart(3, '0')}`, i + 1));
    stats.push(stat(1, 't000', 90), stat(0, 'common', 99), stat(1, 'common', 98));
    const chosen = chooseQueryTerms(stats, ['common', 'absent']);
    const terms = new Set(chosen.map((t) => t.term));
    expect(terms.size).toBe(BM25.QUERY_TERMS + 1);
    expect(terms.has('t000')).toBe(true);
    expect(terms.has(`t${String(BM25.QUERY_TERMS).padStart(3, '0')}`)).toBe(false);
    expect(terms.has('common')).toBe(true);
    expect(terms.has('absent')).toBe(false);
    // Each field that holds a chosen term scores it: idf × the field weight.
    const t000 = chosen.filter((t) => t.term === 't000').sort((a, b) => a.field - b.field);
    expect(t000.map((t) => t.field)).toEqual([0, 1]);
    expect(t000[0]?.weight).toBeCloseTo(BM25.idf(100, 1), 12);
    expect(t000[1]?.weight).toBeCloseTo(BM25.idf(100, 90) * BM25.WORK_WEIGHT, 12);
  });

  it('gives the receipt each term once with its largest idf', () => {
    const chosen = chooseQueryTerms([stat(0, 'b', 50), stat(1, 'b', 2), stat(0, 'a', 10)], []);
    expect(weightedTerms(chosen)).toEqual({ terms: ['a', 'b'], weights: [BM25.idf(100, 10), BM25.idf(100, 2)] });
  });
});

describe('groundedTarget', () => {
  it('credits, for a success with artifacts, only a served episode that changed one of its files', () => {
    expect(groundedTarget(1, ['django/forms/models.py'], ['./django/forms/models.py', 'docs/x.txt'])).toBe(1);
    expect(groundedTarget(1, ['django/forms/models.py'], ['django/db/models/query.py'])).toBe(0);
    expect(groundedTarget(1, ['django/forms/models.py'], [])).toBe(0);
    expect(groundedTarget(0.5, ['a.py'], ['b.py'])).toBe(0);
  });

  it('credits every served episode when the run reports no artifacts, and debits every one on failure', () => {
    expect(groundedTarget(1, [], ['b.py'])).toBe(1);
    expect(groundedTarget(1, ['  '], ['b.py'])).toBe(1);
    expect(groundedTarget(-1, ['a.py'], ['b.py'])).toBe(-1);
    expect(groundedTarget(0, ['a.py'], ['a.py'])).toBe(0);
  });
});

describe('topTerms (static index pruning)', () => {
  it('keeps the k terms of largest impact, ties by the longer term, then by term', () => {
    const entries = [
      { term: 'the', impact: 1 },
      { term: 'modelchoicefield', impact: 1 },
      { term: 'iterator', impact: 1.5 },
      { term: 'beta', impact: 1 },
      { term: 'alph', impact: 1 },
    ];
    expect(topTerms(entries, 3).map((t) => t.term)).toEqual(['iterator', 'modelchoicefield', 'alph']);
    expect(topTerms(entries, 10)).toHaveLength(5);
    expect(topTerms(entries, 0)).toEqual([]);
  });
});

describe('fieldPostings (what an ending writes to the index)', () => {
  const doc = (counts: Record<string, number>, field = 1) => ({
    field,
    counts: new Map(Object.entries(counts)),
    length: Object.values(counts).reduce((a, b) => a + b, 0),
  });

  it("weighs each term against the field's fixed reference length, sorted by term", () => {
    const d = doc({ zeta: 2, alpha: 1 });
    const postings = fieldPostings(d);
    expect(postings.map((p) => p.term)).toEqual(['alpha', 'zeta']);
    expect(postings[0]).toEqual({ field: 1, term: 'alpha', impact: BM25.impact(1, 3, BM25.PIVOT_LENGTH[1] ?? 0, 1) });
    expect(fieldPostings(doc({ zeta: 2, alpha: 1 }, 0))[1]).toEqual({ field: 0, term: 'zeta', impact: BM25.impact(2, 3, BM25.PIVOT_LENGTH[0] ?? 0, 0) });
  });

  it('is a function of the document alone: the same document gives the same postings whatever else is indexed', () => {
    const d = doc({ queryset: 3, prefetch: 2, sliced: 1 });
    expect(fieldPostings(d)).toEqual(fieldPostings(doc({ sliced: 1, prefetch: 2, queryset: 3 })));
  });

  it('keeps the INDEXED_TERMS largest impacts; a term said more often outranks one said once', () => {
    const counts = Object.fromEntries(Array.from({ length: BM25.INDEXED_TERMS + 5 }, (_, i) => [`t${String(i).padStart(3, '0')}`, 1]));
    const kept = fieldPostings(doc({ ...counts, zzz: 3 }));
    expect(kept).toHaveLength(BM25.INDEXED_TERMS);
    expect(kept.map((p) => p.term)).toContain('zzz');
    expect(kept.map((p) => p.term)).toEqual([...kept.map((p) => p.term)].sort());
  });
});
