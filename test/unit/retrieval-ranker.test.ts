import { describe, expect, it } from 'vitest';
import {
  type CandidateEvidence,
  contributions,
  type FeatureVector,
  FIT,
  features,
  fieldMaxima,
  fitRankingModel,
  fittingSteps,
  modelScore,
  RANKER_FEATURES,
  standardisation,
  type TrainingQuery,
  validate,
} from '../../src/retrieval/ranker.ts';
import { crossValidate, uninformativeFiles } from '../../src/retrieval/ranker-training.ts';
import { changeTerms, fileModuleTerms, lastDiff, mentionTerms, moduleComponents } from '../../src/retrieval/terms.ts';

const evidence = (e: Partial<CandidateEvidence>): CandidateEvidence => ({
  task: 0,
  work: 0,
  change: 0,
  trace: 0,
  sameDomain: 0,
  contextMatch: 0,
  trigram: 0,
  namesChangedModule: 0,
  namesChangedFile: 0,
  fileVote: 0,
  ...e,
});

/** Queries whose relevant candidate is the one with the change-field match, whatever its task text. */
function changeDecides(n: number): TrainingQuery[] {
  return Array.from({ length: n }, (_, q) => {
    const raw = [
      evidence({ task: 5 + (q % 3), change: 0 }),
      evidence({ task: 2, change: 3 + (q % 2) }),
      evidence({ task: 4, change: 0.1 }),
      evidence({ task: 1 }),
    ];
    const best = fieldMaxima(raw);
    return { candidates: raw.map((c, i) => ({ x: features(c, best), relevant: i === 1 })) };
  });
}

describe('ranker features', () => {
  it('takes log1p of each field and its share of the best candidate', () => {
    const raw = [evidence({ task: 4, work: 2, change: 1, sameDomain: 1 }), evidence({ task: 2 })];
    const x = features(must(raw[1]), fieldMaxima(raw));
    expect(x.taskText).toBeCloseTo(Math.log1p(2), 12);
    expect(x.taskTextRelative).toBe(0.5);
    expect(x.workRelative).toBe(0);
    expect(x.changeRelative).toBe(0);
    expect(features(must(raw[0]), fieldMaxima(raw)).sameRepository).toBe(1);
  });

  it('standardises to mean 0, scale 1, and a constant feature keeps scale 1', () => {
    const { means, scales } = standardisation([RANKER_FEATURES.map(() => 1), RANKER_FEATURES.map((_, i) => (i === 0 ? 3 : 1))]);
    expect(means[0]).toBe(2);
    expect(scales[0]).toBe(1);
    expect(means[1]).toBe(1);
    expect(scales[1]).toBe(1);
  });
});

describe('fitRankingModel', () => {
  it('learns the feature that decides relevance, keeps weights non-negative, and beats the given order', () => {
    const queries = changeDecides(30);
    const model = must(fitRankingModel(queries));
    const weight = (name: string) => model.weights[model.features.indexOf(name)] ?? 0;
    expect(model.weights.every((w) => w >= 0)).toBe(true);
    expect(weight('change') + weight('changeRelative')).toBeGreaterThan(weight('taskText') + weight('taskTextRelative'));
    const check = validate(queries, model);
    expect(check.fixed).toBe(0.5);
    expect(check.model).toBe(1);
  });

  it('cross-validates: models fitted without a fold beat the given order on it', async () => {
    const check = await crossValidate(changeDecides(30));
    expect(check.fixed).toBe(0.5);
    expect(check.model).toBe(1);
  });

  it('fits one descent iteration per step, so a refit can give the event loop back between them, to the same model', () => {
    const queries = changeDecides(10);
    const steps = fittingSteps(queries);
    let yielded = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yielded++;
    expect(yielded).toBe(FIT.iterations);
    expect(step.value).toEqual(fitRankingModel(queries));
  });

  it('is null without a pair to learn from', () => {
    const x = features(evidence({ task: 1 }), fieldMaxima([evidence({ task: 1 })]));
    expect(fitRankingModel([{ candidates: [{ x, relevant: false }] }])).toBeNull();
  });

  it('sums the contributions to the score', () => {
    const model = must(fitRankingModel(changeDecides(10)));
    const x = changeDecides(1)[0]?.candidates[1]?.x as FeatureVector;
    const parts = contributions(model, x);
    expect(Object.values(parts).reduce((a, b) => a + b, 0)).toBeCloseTo(modelScore(model, x), 12);
  });
});

describe('change-field terms', () => {
  it('maps paths and dotted names to the same module components', () => {
    expect(moduleComponents('django/db/models/query.py')).toEqual(['django', 'db', 'models', 'query']);
    expect(moduleComponents('sphinx/ext/autodoc/__init__.py')).toEqual(['sphinx', 'ext', 'autodoc']);
    expect(fileModuleTerms('src/main/java/org/acme/Billing.java')).toEqual(['acme.billing', 'org.acme.billing', 'java.org.acme.billing']);
  });

  it('meets a changed file through a dotted module, a traceback path or a qualified name', () => {
    const changed = new Set(fileModuleTerms('django/db/models/query.py'));
    const hits = (text: string) => [...mentionTerms(text).keys()].filter((t) => changed.has(t));
    expect(hits('QuerySet.union() in django.db.models.query fails')).toContain('django.db.models.query');
    expect(hits('File "/testbed/django/db/models/query.py", line 12, in union')).toContain('models.query');
    expect(hits('a plain sentence. Nothing dotted here')).toEqual([]);
  });

  it('reads the files, scopes and definitions of the last diff', () => {
    const diff = 'diff --git a/pkg/io.py b/pkg/io.py\n--- a/pkg/io.py\n+++ b/pkg/io.py\n@@ -1,2 +1,3 @@ class Reader:\n+def read_all(self):\n-    pass\n';
    const counts = changeTerms({ artifacts: ['pkg/other.py'], diff });
    expect(counts.get('pkg.io')).toBe(2);
    expect(counts.get('pkg.other')).toBe(2);
    expect(counts.get('reader')).toBe(2);
    expect(counts.get('read_all')).toBe(2);
    expect(counts.get('pass')).toBeUndefined();
    expect(lastDiff(['no', diff, 'done'])).toBe(diff);
    expect(lastDiff(['no'])).toBeNull();
  });
});

function must<T>(value: T | null | undefined): T {
  if (value == null) throw new Error('missing');
  return value;
}

describe("the training labels' files", () => {
  it('leave out a file most runs of a repository change (a build file), and keep the files of the tasks', () => {
    const runs = [
      ...Array.from({ length: 8 }, (_, i) => ({ domain: 'acme/docs', artifacts: ['tox.ini', `docs/part${i}.py`] })),
      { domain: 'acme/docs', artifacts: ['docs/part0.py', 'tox.ini'] },
      { domain: 'acme/docs', artifacts: ['docs/other.py'] },
      // In a large repository the same share of runs is many more runs: a core file changed by 3 of 40 is a label.
      ...Array.from({ length: 40 }, (_, i) => ({ domain: 'acme/web', artifacts: [i < 3 ? 'web/core.py' : `web/view${i}.py`] })),
      // Twice is never too common, in the smallest history too.
      { domain: null, artifacts: ['a.py'] },
      { domain: null, artifacts: ['a.py'] },
    ];
    expect([...uninformativeFiles(runs)].sort()).toEqual(['tox.ini']);
  });
});
