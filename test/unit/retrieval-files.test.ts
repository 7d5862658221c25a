// relevantFiles' pure ranking (src/retrieval/files.ts): votes of similar runs by similarity, outcome
// and how many files a run changed; the words of a path the task mentions; support and evidence.
import { describe, expect, it } from 'vitest';
import { FILE_RULES, normalisePaths, pathMatches, pathTerms, type RankedRun, rankFiles } from '../../src/retrieval/files.ts';

const run = (id: string, similarity: number, outcome: RankedRun['outcome'], files: string[]): RankedRun => ({ id, similarity, outcome, files });

describe('rankFiles', () => {
  it('counts support and evidence in ranking order, and weighs a vote by similarity and outcome', () => {
    const ranked = rankFiles(
      'totals are wrong',
      [
        run('a', 1, 'success', ['shop/pricing.py']),
        run('b', 0.5, 'failure', ['shop/pricing.py', 'shop/session.py']),
        run('c', 0.5, 'success', ['shop/cart.py']),
      ],
      10,
    );
    expect(ranked.map((f) => f.path)).toEqual(['shop/pricing.py', 'shop/cart.py', 'shop/session.py']);
    expect(ranked[0]).toMatchObject({ runs: 2, resolved: 1, failed: 1, evidence: ['a', 'b'] });
    // pricing: 1 + 0.5 × 0.6 / √2; cart: 0.5; session: 0.5 × 0.6 / √2; scores relative to the best vote.
    const best = 1 + (0.5 * FILE_RULES.failedWeight) / Math.SQRT2;
    expect(ranked[0]?.score).toBeCloseTo(1, 10);
    expect(ranked[1]?.score).toBeCloseTo(0.5 / best, 10);
    expect(ranked[2]?.score).toBeCloseTo((0.5 * FILE_RULES.failedWeight) / Math.SQRT2 / best, 10);
  });

  it('lets only the best votingRuns vote: a file only a later run changed has no score and is not answered', () => {
    const runs = Array.from({ length: FILE_RULES.votingRuns + 1 }, (_, i) => run(`r${String(i).padStart(2, '0')}`, 1, 'success', [`f${i}.py`]));
    const ranked = rankFiles('nothing in common', runs, 50);
    const last = ranked.find((f) => f.path === `f${FILE_RULES.votingRuns}.py`);
    expect(last).toBeUndefined();
    expect(ranked).toHaveLength(FILE_RULES.votingRuns);
  });

  it('adds the path match: a file the task names outranks one with the same votes', () => {
    const ranked = rankFiles('rounding is off in shop.money.round_half', [run('a', 1, 'success', ['shop/export.py', 'shop/money.py'])], 10);
    expect(ranked.map((f) => f.path)).toEqual(['shop/money.py', 'shop/export.py']);
    expect(ranked[0]?.score).toBeCloseTo(1 + FILE_RULES.pathWeight, 10);
  });

  it('answers nothing without runs, and at most limit files', () => {
    expect(rankFiles('anything', [], 10)).toEqual([]);
    expect(rankFiles('x', [run('a', 1, 'success', ['a.py', 'b.py', 'c.py'])], 2)).toHaveLength(2);
  });
});

describe('path words', () => {
  it('splits folders, file name and snake_case parts, without extension or __init__', () => {
    expect(pathTerms('sphinx/ext/autodoc/__init__.py')).toEqual(['sphinx', 'ext', 'autodoc']);
    expect(pathTerms('django/db/models/fields/related_descriptors.py')).toEqual([
      'django',
      'db',
      'models',
      'fields',
      'related_descriptors',
      'related',
      'descriptors',
    ]);
  });

  it('weighs a word by its idf over the candidate files: a folder every path shares counts for nothing much', () => {
    const paths = ['proj/forms/widgets.py', 'proj/forms/fields.py', 'proj/db/query.py'];
    const scores = pathMatches('proj widgets render wrong', paths);
    expect(scores.get('proj/forms/widgets.py')).toBeGreaterThan(scores.get('proj/forms/fields.py') ?? 0);
    expect(scores.get('proj/forms/fields.py')).toBeLessThan(0.5);
  });

  it('normalises artifact paths and drops what is not a path', () => {
    expect(normalisePaths(['a/x/y.py', './z.py', 'b/x/y.py', 'notes', 'two words.py', ''])).toEqual(['x/y.py', 'z.py']);
  });
});
