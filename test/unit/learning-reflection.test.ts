import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { BUDGET_EXCEEDED } from '../../src/episodes/outcome.ts';
import type { StepFacts } from '../../src/learning/facts.ts';
import { generateReflection, REFLECTION_ITEM_MAX_CHARS, REFLECTION_MAX_ITEMS, type ReflectionInput } from '../../src/learning/reflection.ts';

function step(stepNumber: number, tool: string | null, resultKind: StepFacts['resultKind'], extra: Partial<StepFacts> = {}): StepFacts {
  return { stepNumber, kind: 'tool_call', tool, resultKind, latencyMs: 100, tokens: 10, ...extra };
}

const BASE: ReflectionInput = {
  outcome: { kind: 'success', verdict: 'shipped', artifacts: [] },
  steps: [],
  durationMs: 120_000,
  critique: null,
};

describe('generateReflection without times', () => {
  it('says nothing about speed when the duration is unknown (null)', () => {
    const input = { outcome: { kind: 'success' as const, verdict: 'ok', artifacts: [] }, steps: [step(1, 'git', 'success')], critique: null };
    expect(generateReflection({ ...input, durationMs: 1_000 }).successes.join('\n')).toMatch(/Finished in 1(\.0)? s/);
    expect(generateReflection({ ...input, durationMs: 3_600_000 }).improvements.join('\n')).toMatch(/^Took 3600(\.0)? s/m);
    const unknown = generateReflection({ ...input, durationMs: null });
    expect(JSON.stringify(unknown)).not.toMatch(/Finished in|Took \d/);
  });
});

describe('generateReflection caps', () => {
  it('keeps at most 5 successes, most important first', () => {
    const reflection = generateReflection({
      outcome: { kind: 'success', verdict: 'shipped', artifacts: ['report.md'] },
      steps: [step(1, 'git', 'success'), step(2, 'git', 'success'), step(3, 'npm', 'success')],
      durationMs: 10_000,
      critique: { verdict: 'solid', score: 0.9, virtueScores: [{ name: 'care', score: 0.95 }] },
    });
    // 7 rules apply: outcome, artifacts, reliable tools, success rate, critic, virtues, quick.
    expect(reflection.successes).toHaveLength(REFLECTION_MAX_ITEMS);
    expect(reflection.successes[0]).toBe('Completed the task: shipped');
    expect(reflection.successes[1]).toBe('Produced 1 artifact(s): report.md');
    expect(reflection.successes[2]).toBe('Always succeeded: git (2 runs)');
    expect(reflection.successes[3]).toBe('100% of steps succeeded (3 of 3)');
  });

  it('keeps at most 5 improvements', () => {
    const steps = [...Array.from({ length: 55 }, (_, index) => step(index + 1, 'npm', 'error')), step(56, 'curl', 'timeout', { latencyMs: 90_000 })];
    const reflection = generateReflection({
      outcome: { kind: 'failure', reason: BUDGET_EXCEEDED, details: 'token budget exhausted' },
      steps,
      durationMs: 900_000,
      critique: { verdict: 'poor', score: 0.1, virtueScores: [{ name: 'care', score: 0.2 }] },
      stopReason: { kind: 'budget_exhausted', resource: 'tokens' },
    });
    expect(reflection.improvements).toEqual([
      'Failed: budget_exceeded (token budget exhausted)',
      'Ran out of the tokens budget; plan a shorter path or ask for a larger budget',
      'npm failed 55 times; check its inputs or use another tool',
      'Ended on a failed step: #56 curl (timeout)',
      '1 step(s) timed out',
    ]);
  });

  it('keeps at most 5 insights', () => {
    const steps = [
      step(1, 'a', 'error', { errorClass: 'ENOENT' }),
      step(2, 'b', 'success'),
      step(3, 'c', 'success'),
      step(4, 'd', 'success', { tokens: 20_000 }),
      step(5, 'e', 'error'),
      step(6, 'f', 'error'),
      step(7, 'g', 'error'),
      step(8, 'h', 'error'),
    ];
    const reflection = generateReflection({ ...BASE, steps, critique: { score: null, feedback: 'too many retries', virtueScores: [] } });
    // 6 rules apply: recovery, sequence, low success rate, critic feedback, many tools, tokens.
    expect(reflection.insights).toEqual([
      'When a hit ENOENT, switching to b recovered (step #2)',
      'Effective sequence: b → c → d',
      'Only 38% of steps succeeded; the approach needs rethinking',
      'Critic feedback: too many retries',
      'Needed 8 different tools',
    ]);
  });

  it('cuts each item to the character limit on code points', () => {
    const reflection = generateReflection({ ...BASE, outcome: { kind: 'success', verdict: '😀'.repeat(1000), artifacts: [] } });
    const first = must(reflection.successes[0]);
    expect(Array.from(first)).toHaveLength(REFLECTION_ITEM_MAX_CHARS);
    expect(first.endsWith('…')).toBe(true);
  });
});

describe('generateReflection rules', () => {
  it('says little about an empty failed episode, and does not throw', () => {
    const reflection = generateReflection({ ...BASE, outcome: { kind: 'failure', reason: 'no access' } });
    expect(reflection).toEqual({ successes: [], improvements: ['Failed: no access'], insights: [] });
  });

  it('describes a retry of the same tool as a retry', () => {
    const steps = [step(1, 'curl', 'timeout'), step(2, 'curl', 'success')];
    expect(generateReflection({ ...BASE, steps }).insights[0]).toBe('Retrying curl after timeout worked (step #2)');
  });

  it('flags a step much slower than the average', () => {
    const steps = [step(1, 'a', 'success'), step(2, 'b', 'success'), step(3, 'slow', 'success', { latencyMs: 5000 }), step(4, 'c', 'success')];
    expect(generateReflection({ ...BASE, steps }).improvements).toEqual(['Slowest step #3 slow took 5000 ms, 3.8× the average']);
  });

  it('does not flag a slow step at 3× the average or at 1 s', () => {
    const steps = [step(1, 'a', 'success', { latencyMs: 500 }), step(2, 'b', 'success', { latencyMs: 1000 })];
    expect(generateReflection({ ...BASE, steps }).improvements).toEqual([]);
  });

  it('lists a partial outcome as a success and its unfinished items as an improvement', () => {
    const reflection = generateReflection({ ...BASE, outcome: { kind: 'partial', verdict: 'ran out', completed: ['a', 'b'], failed: ['c'] } });
    expect(reflection.successes).toEqual(['Completed 2 of 3 items: ran out']);
    expect(reflection.improvements).toEqual(['1 item(s) left unfinished, e.g. c']);
  });

  it('names weak virtues lowest first and ignores a critic score in the middle', () => {
    const critique = {
      score: 0.6,
      virtueScores: [
        { name: 'b', score: 0.4 },
        { name: 'a', score: 0.1 },
        { name: 'c', score: 0.5 },
      ],
    };
    expect(generateReflection({ ...BASE, critique }).improvements).toEqual(['Weak virtues: a 0.10, b 0.40']);
  });

  it('does not depend on the order steps arrive in', () => {
    const steps = [step(1, 'a', 'error'), step(2, 'b', 'success'), step(3, 'c', 'success'), step(4, 'd', 'success')];
    expect(generateReflection({ ...BASE, steps: [...steps].reverse() })).toEqual(generateReflection({ ...BASE, steps }));
  });
});
