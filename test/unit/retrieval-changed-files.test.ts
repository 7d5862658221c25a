import { describe, expect, it } from 'vitest';
import { changedFileSignals, fileStem, queryMentions } from '../../src/retrieval/changed-files.ts';
import { features, fieldMaxima } from '../../src/retrieval/ranker.ts';
import { traceTerms } from '../../src/retrieval/terms.ts';

const step = (parameters: string, output: string) => ({ tool: 'bash', action: null, parameters, errorClass: null, errorMessage: null, output });

describe('changed-file signals', () => {
  const query = queryMentions('QuerySet.bulk_create() ignores db_default in django/db/models/query.py; the widgets look fine');

  it('says whether the task names a module or a file a candidate changed', () => {
    const [byModule, byStem, neither] = changedFileSignals(query, [
      { files: ['django/db/models/query.py'], total: 0.2, key: 'k' },
      { files: ['django/forms/widgets.py'], total: 0.2, key: 'k' },
      { files: ['docs/releases/5.0.txt'], total: 0.2, key: 'k' },
    ]);
    expect(byModule).toMatchObject({ namesChangedModule: 1, namesChangedFile: 1 });
    expect(byStem).toMatchObject({ namesChangedModule: 0, namesChangedFile: 1 });
    expect(neither).toMatchObject({ namesChangedModule: 0, namesChangedFile: 0 });
    expect(fileStem('sphinx/ext/autodoc/__init__.py')).toBe('__init__');
  });

  it('votes with the best candidates for the files they share, never a candidate for itself', () => {
    const signals = changedFileSignals(query, [
      { files: ['a/models.py'], total: 1, key: 'a' },
      { files: ['a/models.py', 'a/fields.py'], total: 0.5, key: 'b' },
      { files: ['b/other.py'], total: 0.9, key: 'c' },
    ]);
    // The first is voted for by the second (0.5 / 1 / sqrt 2), the second by the first (1 / 1 / 1), the third by none.
    expect(signals[0]?.fileVote).toBeCloseTo(0.5 / Math.SQRT2, 10);
    expect(signals[1]?.fileVote).toBeCloseTo(1, 10);
    expect(signals[2]?.fileVote).toBe(0);
  });

  it('gives the same values whatever order the candidates come in (equal totals broken by their key)', () => {
    const candidates = Array.from({ length: 14 }, (_, i) => ({ files: [`m/f${i % 4}.py`, `m/g${i % 3}.py`], total: 1 / (1 + (i % 5)), key: `run ${i}` }));
    const forward = changedFileSignals(query, candidates);
    const backward = changedFileSignals(query, [...candidates].reverse()).reverse();
    expect(backward).toEqual(forward);
  });

  it('become features of the learned ranker beside the trace field relative to the best candidate', () => {
    const base = { task: 1, work: 0, change: 0, sameDomain: 0, contextMatch: 0, trigram: 0, namesChangedModule: 1, namesChangedFile: 0, fileVote: 0.3 };
    const raw = [
      { ...base, trace: 4 },
      { ...base, trace: 1 },
    ];
    const x = features(raw[1] as (typeof raw)[number], fieldMaxima(raw));
    expect(x).toMatchObject({ traceRelative: 0.25, namesChangedModule: 1, namesChangedFile: 0, fileVote: 0.3 });
  });
});

describe('trace terms', () => {
  it('read the task, the commands, what they printed and the change, without stop words', () => {
    const counts = traceTerms({
      description: 'The admin is slow',
      steps: [step('{"command":"cat django/contrib/admin/options.py"}', 'class ModelAdmin(BaseModelAdmin):\n    def get_queryset(self, request):')],
      diff: 'diff --git a/x/options.py b/x/options.py\n+    prefetch_related_objects()',
    });
    for (const term of ['admin', 'slow', 'cat', 'options', 'modeladmin', 'get_queryset', 'prefetch_related_objects']) expect(counts.has(term), term).toBe(true);
    expect(counts.has('is')).toBe(false);
    expect(counts.has('the')).toBe(false);
  });
});
