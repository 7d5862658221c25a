// Term extraction and the BM25 arithmetic (pure).
import { describe, expect, it } from 'vitest';
import { BM25 } from '../../src/retrieval/bm25.ts';
import { CHANGE_WEIGHT, documentLength, taskTerms, workTerms } from '../../src/retrieval/terms.ts';

describe('terms', () => {
  it('keeps identifiers whole and adds their snake_case and CamelCase parts', () => {
    const t = taskTerms('ModelChoiceIteratorValue breaks bulk_create in django/forms/models.py');
    expect([...t.keys()]).toEqual(
      expect.arrayContaining([
        'modelchoiceiteratorvalue',
        'model',
        'choice',
        'iterator',
        'value',
        'bulk_create',
        'bulk',
        'create',
        'django',
        'forms',
        'models',
        'py',
      ]),
    );
  });

  it('drops numbers, hex addresses and hashes, and one-letter words', () => {
    const t = taskTerms('object at 0x7fc18dd0ed90 in commit 21d3dea0fcb9, line 1166, a b the facade');
    // "at", "in" and "the" are stop words (stop-words.ts): no field keeps them.
    expect([...t.keys()].sort()).toEqual(['commit', 'facade', 'line', 'object']);
  });

  it('counts term frequencies, and the document length is their sum', () => {
    const t = taskTerms('cache the cache, CACHE, hit');
    expect(t.get('cache')).toBe(3);
    expect(t.has('the')).toBe(false);
    expect(documentLength(t)).toBe(4);
  });

  it('reads what a run did: changed files and symbols (weighted), commands, error classes, tools', () => {
    const diff = [
      'diff --git a/shop/forms/models.py b/shop/forms/models.py',
      '--- a/shop/forms/models.py',
      '+++ b/shop/forms/models.py',
      '@@ -1,3 +1,4 @@ class ModelChoiceIteratorValue:',
      '+    def __hash__(self):',
    ].join('\n');
    const work = workTerms({
      artifacts: [],
      failure: null,
      steps: [
        {
          tool: 'search',
          action: null,
          parameters: JSON.stringify({ command: 'grep -rn iterator_value shop/' }),
          errorClass: null,
          errorMessage: null,
          output: 'shop/forms/models.py:10: x',
        },
        { tool: 'test', action: null, parameters: null, errorClass: 'exit 1', errorMessage: 'Traceback ...\nTypeError: unhashable type', output: null },
        { tool: 'submit', action: null, parameters: null, errorClass: null, errorMessage: null, output: diff },
      ],
    });
    expect(work.get('modelchoiceiteratorvalue')).toBe(CHANGE_WEIGHT);
    expect(work.get('__hash__')).toBe(CHANGE_WEIGHT);
    expect(work.get('iterator_value')).toBe(1);
    expect(work.get('typeerror')).toBe(1);
    expect(work.get('search')).toBe(1);
    expect(work.get('submit')).toBe(1);
    // A plain output is read only for error classes, not for every word it prints.
    expect(work.has('x')).toBe(false);
  });
});

describe('BM25', () => {
  it('saturates term frequency and normalises length', () => {
    expect(BM25.impact(1, 100, 100, 0)).toBeCloseTo(1, 12);
    expect(BM25.impact(10, 100, 100, 0)).toBeLessThan(BM25.k1 + 1);
    expect(BM25.impact(1, 1000, 100, 0)).toBeLessThan(BM25.impact(1, 100, 100, 0));
    // b = 1 on the work field: a document 10 times the average length weighs its term 1/10 as much at tf 1.
    expect(BM25.impact(1, 1000, 100, 1)).toBeCloseTo(2.2 / (1 + 1.2 * 10), 12);
    expect(BM25.impact(0, 100, 100, 0)).toBe(0);
  });

  it('gives rare terms a high idf and common terms a small, never negative one', () => {
    expect(BM25.idf(1000, 1)).toBeGreaterThan(BM25.idf(1000, 100));
    expect(BM25.idf(1000, 1000)).toBeGreaterThan(0);
    expect(BM25.idf(1000, 1000)).toBeLessThan(0.001);
  });
});
