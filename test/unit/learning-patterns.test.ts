import { describe, expect, it } from 'vitest';
import { errorNames, type StepFacts } from '../../src/learning/facts.ts';
import {
  changedFiles,
  nextStatus,
  observeEpisode,
  PATTERN_RULES,
  patternStrength,
  patternSummary,
  scopeOf,
  type TaskEpisode,
} from '../../src/learning/patterns.ts';
import { taskTerms } from '../../src/learning/task-terms.ts';

const step = (stepNumber: number, tool: string, resultKind: StepFacts['resultKind'], errorClass: string | null = null): StepFacts => ({
  stepNumber,
  kind: 'tool_call',
  tool,
  resultKind,
  latencyMs: 1,
  tokens: 1,
  errorClass,
});

function episode(overrides: Partial<TaskEpisode> = {}): TaskEpisode {
  return {
    description: 'QuerySet.union() drops ordering in django.db.models when combined with values_list()',
    agent: 'Mini',
    context: { domain: 'Django/Django', language: 'python', framework: null, tags: ['orm', 'bug'] },
    outcome: { kind: 'success', verdict: 'resolved', artifacts: ['django/db/models/query.py', 'a/tests/queries/test_qs.py'] },
    steps: [step(1, 'grep', 'success'), step(2, 'python', 'error', 'ImportError'), step(3, 'python', 'success')],
    reward: 0.7,
    ...overrides,
  };
}

describe('taskTerms', () => {
  it('puts code-shaped terms first, keeps dotted names and their segments, and drops stop words', () => {
    const terms = taskTerms('The QuerySet.union() call fails in django.db.models; the union is wrong when the union has values_list');
    expect(terms.slice(0, 7)).toEqual(['queryset.union', 'queryset', 'union', 'django.db.models', 'django', 'models', 'values_list']);
    expect(terms).toContain('values_list');
    expect(terms).not.toContain('the');
    expect(terms).not.toContain('fails');
  });
  it('is bounded', () => {
    const text = Array.from({ length: 100 }, (_, i) => `identifier_${i}`).join(' ');
    expect(taskTerms(text)).toHaveLength(16);
    expect(taskTerms(text, 400)).toHaveLength(100);
  });
});

describe('observeEpisode', () => {
  it('yields one pattern per fact in one scope (the domain), not one per context field', () => {
    const obs = observeEpisode(episode());
    expect(obs.scope).toBe('django/django');
    expect(obs.stratum).toBe('mini');
    expect(new Set(obs.candidates.map((c) => c.signature[0]))).toEqual(new Set(['django/django']));
    expect(obs.candidates.map((c) => c.key)).toEqual([...new Set(obs.candidates.map((c) => c.key))]);
    const terms = taskTerms(episode().description);
    expect(obs.candidates.filter((c) => c.kind === 'task_outcome')).toHaveLength(terms.length);
    expect(obs.candidates.filter((c) => c.kind === 'file_change')).toHaveLength(terms.length * 2);
    expect(obs.candidates.filter((c) => c.kind === 'tool_outcome').map((c) => c.cue)).toEqual(['grep', 'python']);
    expect(obs.candidates.filter((c) => c.kind === 'error_outcome').map((c) => c.cue)).toEqual(['importerror']);
    expect(obs.fileTargets).toEqual(['file:django/db/models/query.py', 'file:tests/queries/test_qs.py']);
  });
  it('falls back to the language, then to *, for the scope', () => {
    expect(scopeOf({ domain: null, language: 'Java' })).toBe('language:java');
    expect(scopeOf({ domain: ' ', language: null })).toBe('*');
  });
  it('reads changed files from the artifacts of any outcome kind, capped', () => {
    expect(changedFiles({ kind: 'failure', reason: 'x', artifacts: ['./a.py', 'b/c/d.py', 'notes'] } as never)).toEqual(['a.py', 'c/d.py']);
    const many = observeEpisode(episode({ outcome: { kind: 'success', verdict: 'ok', artifacts: ['a.py', 'b.py', 'c.py', 'd.py'] } }));
    expect(many.fileTargets).toHaveLength(PATTERN_RULES.filesPerEpisode);
  });
});

describe('error-fix patterns', () => {
  it('pairs each error name a failed step showed with each changed file, cued by the error', () => {
    expect(errorNames('Traceback (most recent call last):\n  ...\nTypeError: unhashable; raise ValidationError')).toEqual(['TypeError', 'ValidationError']);
    expect(errorNames(null)).toEqual([]);
    const failed: StepFacts = { ...step(2, 'python', 'error', 'exit_1'), errorNames: ['TypeError'] };
    const shown: StepFacts = { ...step(3, 'python', 'success'), errorNames: ['KeyError'] };
    const obs = observeEpisode(episode({ steps: [step(1, 'grep', 'success'), failed, shown] }));
    const fixes = obs.candidates.filter((c) => c.kind === 'error_fix');
    expect(fixes.map((c) => c.signature)).toEqual([
      ['django/django', 'typeerror', 'django/db/models/query.py'],
      ['django/django', 'typeerror', 'tests/queries/test_qs.py'],
    ]);
    expect(fixes.every((c) => c.cue === 'typeerror' && c.target.startsWith('file:'))).toBe(true);
    // The error's own outcome pattern is the error-fix pattern's support.
    expect(obs.candidates.filter((c) => c.kind === 'error_outcome').map((c) => c.cue)).toEqual(['exit_1', 'typeerror']);
  });
  it('is judged as a file pattern: three co-occurrences, positive lift, an informative error', () => {
    expect(patternStrength('error_fix', [{ support: 4, hits: 2, episodes: 100, baseHits: 2 }]).failure).toBe('too_few_occurrences');
    expect(patternStrength('error_fix', [{ support: 4, hits: 3, episodes: 100, baseHits: 3 }]).failure).toBeNull();
    expect(patternStrength('error_fix', [{ support: 30, hits: 30, episodes: 100, baseHits: 30 }]).failure).toBe('uninformative_cue');
    expect(patternStrength('error_fix', [{ support: 10, hits: 3, episodes: 100, baseHits: 60 }]).failure).toBe('low_lift');
    expect(
      patternSummary({
        kind: 'error_fix',
        scope: 'acme/api',
        cue: 'keyerror',
        target: 'file:api/cache.py',
        occurrences: 4,
        successes: 3,
        baselineRate: 0.05,
        lift: 0.5,
      }),
    ).toBe('In acme/api, runs that hit keyerror changed api/cache.py in 3 of 4 (comparable runs without it: 5%; lift +0.50).');
  });
});

describe('patternStrength', () => {
  it('is lift over comparable episodes without the antecedent, not the raw success rate', () => {
    // 8 of 10 with the term succeed; 80 of 100 without it do: a high rate, no lift.
    const same = patternStrength('task_outcome', [{ support: 10, hits: 8, episodes: 110, baseHits: 88 }]);
    expect(same.rate).toBeCloseTo(0.8);
    expect(same.baselineRate).toBeCloseTo(0.8);
    expect(same.lift).toBeCloseTo(0);
    expect(same.failure).toBe('low_lift');
    // 10 of 10 against 50 of 100: shrunk (10 + 2 × 0.5) / 12 − 0.5.
    const lifted = patternStrength('task_outcome', [{ support: 10, hits: 10, episodes: 110, baseHits: 60 }]);
    expect(lifted.lift).toBeCloseTo(11 / 12 - 0.5);
    expect(lifted.failure).toBeNull();
  });
  it('compares within each harness stratum, so a stronger harness does not lift its own tools', () => {
    // Harness A succeeds 90% with or without the tool, harness B 30%; the tool is used mostly by A.
    const strata = [
      { support: 40, hits: 36, episodes: 50, baseHits: 45 },
      { support: 5, hits: 1.5, episodes: 50, baseHits: 15 },
    ];
    const strength = patternStrength(
      'tool_outcome',
      strata.map((s) => ({ ...s, hits: Math.round(s.hits) })),
    );
    expect(Math.abs(strength.lift ?? 1)).toBeLessThan(0.05);
    const pooledRate = (36 + 2) / 45;
    const pooledWithout = (45 - 36 + 15 - 2) / 55;
    expect(pooledRate - pooledWithout).toBeGreaterThan(0.4);
  });
  it('needs support, comparable episodes and, for files, three co-occurrences', () => {
    expect(patternStrength('task_outcome', [{ support: 4, hits: 4, episodes: 100, baseHits: 10 }]).failure).toBe('too_few_occurrences');
    expect(patternStrength('tool_outcome', [{ support: 10, hits: 10, episodes: 12, baseHits: 10 }]).failure).toBe('no_comparable_episodes');
    expect(patternStrength('file_change', [{ support: 5, hits: 2, episodes: 100, baseHits: 2 }]).failure).toBe('too_few_occurrences');
    expect(patternStrength('file_change', [{ support: 3, hits: 3, episodes: 100, baseHits: 3 }]).failure).toBeNull();
  });
  it('refuses a cue term most tasks of the scope mention (the idf floor), for files and task outcomes only', () => {
    const common = { support: 21, hits: 21, episodes: 100, baseHits: 21 };
    expect(patternStrength('file_change', [common]).failure).toBe('uninformative_cue');
    expect(patternStrength('task_outcome', [{ ...common, baseHits: 50 }]).failure).toBe('uninformative_cue');
    expect(patternStrength('file_change', [{ ...common, support: 20, hits: 20, baseHits: 20 }]).failure).toBeNull();
    // A tool every run uses is not a word of the task: its outcome lift is judged as before.
    expect(patternStrength('tool_outcome', [{ support: 90, hits: 90, episodes: 100, baseHits: 92 }]).failure).not.toBe('uninformative_cue');
  });
  it('needs a larger lift from a small sample (lift over its standard error at least 2)', () => {
    // Always succeeding against 75% without it: 5 runs are not enough, 60 are.
    const small = patternStrength('task_outcome', [{ support: 5, hits: 5, episodes: 105, baseHits: 80 }]);
    expect(small.lift).toBeGreaterThan(PATTERN_RULES.minLift.task_outcome);
    expect(small.z).toBeLessThan(PATTERN_RULES.minZ);
    expect(small.failure).toBe('low_lift');
    const large = patternStrength('task_outcome', [{ support: 60, hits: 60, episodes: 400, baseHits: 315 }]);
    expect(large.z).toBeGreaterThan(PATTERN_RULES.minZ);
    expect(large.failure).toBeNull();
  });
  it('serves negative outcome lift as a warning but never a negative file prediction', () => {
    expect(patternStrength('error_outcome', [{ support: 10, hits: 2, episodes: 100, baseHits: 70 }]).failure).toBeNull();
    expect(patternStrength('file_change', [{ support: 10, hits: 3, episodes: 100, baseHits: 60 }]).failure).toBe('low_lift');
  });
});

describe('nextStatus', () => {
  it('is active exactly when the bar is met; having met it once makes a miss superseded', () => {
    expect(nextStatus('candidate', true)).toBe('active');
    expect(nextStatus('candidate', false)).toBe('candidate');
    expect(nextStatus('active', false)).toBe('superseded');
    expect(nextStatus('superseded', true)).toBe('active');
  });
});

describe('patternSummary', () => {
  it('states the fact with its counts and the comparison', () => {
    const text = patternSummary({
      kind: 'file_change',
      scope: 'django/django',
      cue: 'queryset',
      target: 'file:django/db/models/query.py',
      occurrences: 9,
      successes: 5,
      baselineRate: 0.06,
      lift: 0.41,
    });
    expect(text).toBe(
      'In django/django, tasks mentioning "queryset" changed django/db/models/query.py in 5 of 9 runs (comparable runs without it: 6%; lift +0.41).',
    );
  });
});

describe('procedure patterns', () => {
  const ran = (stepNumber: number, command: string, resultKind: StepFacts['resultKind']): StepFacts => ({ ...step(stepNumber, 'bash', resultKind), command });

  it('observes each procedure a run ran, worked when a step running it succeeded, leaving out the scripts it wrote', () => {
    const steps = [
      ran(1, 'python -m pytest tests/queries', 'error'),
      ran(2, "cat <<'EOF' > reproduce.py\nprint(1)\nEOF", 'success'),
      ran(3, 'python reproduce.py', 'success'),
      ran(4, 'cd /testbed && python tests/runtests.py queries -v 2', 'error'),
      ran(5, './tests/runtests.py queries', 'success'),
    ];
    const procedures = observeEpisode(episode({ steps })).candidates.filter((c) => c.kind === 'procedure');
    expect(procedures.map((c) => [c.cue, c.worked])).toEqual([
      ['python -m pytest', false],
      ['python tests/runtests.py', true],
    ]);
    expect(procedures[1]?.signature).toEqual(['django/django', 'python tests/runtests.py']);
  });

  it('is kept when it worked in enough of the scope runs and in most runs that tried it; its strength is that share', () => {
    const kept = patternStrength('procedure', [{ support: 80, hits: 76, episodes: 100, baseHits: 40 }]);
    expect(kept).toMatchObject({ failure: null, lift: null, effectiveness: 0.76, rate: 0.95 });
    expect(patternStrength('procedure', [{ support: 20, hits: 20, episodes: 100, baseHits: 40 }]).failure).toBe('too_few_occurrences');
    expect(patternStrength('procedure', [{ support: 60, hits: 2, episodes: 6, baseHits: 3 }]).failure).toBe('too_few_occurrences');
    expect(patternStrength('procedure', [{ support: 90, hits: 40, episodes: 100, baseHits: 40 }]).failure).toBe('low_lift');
  });

  it('says what its counts are', () => {
    const summary = patternSummary({
      kind: 'procedure',
      scope: 'sympy/sympy',
      cue: 'bin/test',
      target: '',
      occurrences: 60,
      successes: 56,
      baselineRate: 0,
      lift: null,
      effectiveness: 0.75,
    });
    expect(summary).toBe('In sympy/sympy, `bin/test` worked in 56 of the 60 runs that ran it: 75% of the runs in sympy/sympy.');
  });
});
