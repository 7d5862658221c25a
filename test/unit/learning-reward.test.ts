import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import type { Outcome } from '../../src/episodes/outcome.ts';
import type { StepFacts } from '../../src/learning/facts.ts';
import {
  baseReward,
  computeReward,
  efficiencyMultiplier,
  learningBonus,
  MAX_REWARD_TOTAL,
  qualityMultiplier,
  type RewardInput,
} from '../../src/learning/reward.ts';

function step(stepNumber: number, tool: string | null, resultKind: StepFacts['resultKind']): StepFacts {
  return { stepNumber, kind: 'tool_call', tool, resultKind, latencyMs: 100, tokens: 10 };
}

const SUCCESS: Outcome = { kind: 'success', verdict: 'done', artifacts: [] };
const FAILURE: Outcome = { kind: 'failure', reason: 'broke' };

// Two minutes and 12 steps: no quick bonus, no tool-variety bonus, nothing else on top.
const PLAIN: RewardInput = {
  outcome: SUCCESS,
  complexity: 'simple',
  steps: [],
  durationMs: 120_000,
  critique: null,
  patternsDiscovered: 0,
  metadata: {},
};

describe('baseReward', () => {
  it.each([
    ['success', SUCCESS, 1],
    ['partial without item lists', { kind: 'partial', verdict: 'half', completed: [], failed: [] } as Outcome, 0.5],
    ['partial 2 of 3', { kind: 'partial', verdict: 'most', completed: ['a', 'b'], failed: ['c'] } as Outcome, 2 / 3],
    ['partial 0 of 2', { kind: 'partial', verdict: 'none', completed: [], failed: ['a', 'b'] } as Outcome, 0],
    ['failure', FAILURE, 0],
  ])('%s', (_name, outcome, expected) => {
    expect(baseReward(outcome)).toBeCloseTo(expected, 12);
  });

  it('orders totals success > partial > failure when everything else is equal', () => {
    const partial: Outcome = { kind: 'partial', verdict: 'half', completed: [], failed: [] };
    const [success, half, failure] = [SUCCESS, partial, FAILURE].map((outcome) => computeReward({ ...PLAIN, outcome }).total);
    expect(success).toBeGreaterThan(must(half));
    expect(half).toBeGreaterThan(must(failure));
    expect(failure).toBe(0);
  });
});

describe('complexity bonus', () => {
  it('is 1.0, 1.1 and 1.2 and raises the total in that order', () => {
    const rewards = (['simple', 'moderate', 'complex'] as const).map((complexity) => computeReward({ ...PLAIN, complexity }));
    expect(rewards.map((reward) => reward.complexityBonus)).toEqual([1.0, 1.1, 1.2]);
    expect(must(rewards[0]).total).toBeLessThan(must(rewards[1]).total);
    expect(must(rewards[1]).total).toBeLessThan(must(rewards[2]).total);
  });
});

describe('efficiencyMultiplier', () => {
  it('is 0.5 + e^-0.5 at the reference duration (60 s) and step count (10)', () => {
    expect(efficiencyMultiplier(60_000, 10)).toBeCloseTo(0.5 + Math.exp(-0.5), 12);
  });

  it('takes duration 0 as the best duration and no steps as the worst step score', () => {
    expect(efficiencyMultiplier(0, 0)).toBeCloseTo(0.5 * 1.5 + 0.5 * 0.5, 12);
  });

  it('takes an unknown duration (null) as its steps at the reference pace (6 s a step): neither a fast run nor a slow one', () => {
    for (const steps of [1, 4, 10, 40, 150]) {
      expect(efficiencyMultiplier(null, steps)).toBeCloseTo(efficiencyMultiplier(steps * 6_000, steps), 12);
      expect(efficiencyMultiplier(null, steps)).toBeLessThan(efficiencyMultiplier(steps * 3_000, steps));
      expect(efficiencyMultiplier(null, steps)).toBeGreaterThan(efficiencyMultiplier(steps * 12_000, steps));
    }
    // Not the 83 s run it used to be: a 40-step run without times is no faster than 40 steps take at that pace.
    expect(efficiencyMultiplier(null, 40)).toBeLessThan(efficiencyMultiplier(83_000, 40));
    expect(efficiencyMultiplier(null, 0)).toBeCloseTo(0.5 * 1 + 0.5 * 0.5, 12);
  });

  it('stays within [0.5, 1.5] at the extremes', () => {
    expect(efficiencyMultiplier(1e12, 1e6)).toBeCloseTo(0.5, 6);
    expect(efficiencyMultiplier(-5, 1)).toBeLessThanOrEqual(1.5);
    expect(efficiencyMultiplier(1, 1)).toBeGreaterThan(efficiencyMultiplier(1, 2));
  });
});

describe('qualityMultiplier', () => {
  it('adds artifact, coverage, no-error, lint, critic and virtue bonuses, capped at 1.5', () => {
    const input: RewardInput = {
      ...PLAIN,
      outcome: { kind: 'success', verdict: 'ok', artifacts: ['Coverage.html', 'a.ts', 'b.ts'] },
      steps: [step(1, 'shell', 'success')],
      metadata: { test_coverage: '85', clippy_warnings: 0 },
      critique: { score: 1, virtueScores: [{ name: 'care', score: 1 }] },
    };
    expect(qualityMultiplier(input)).toBe(1.5);
    // Without the critic: 1 + 0.1 + 0.05 + 0.15 + 0.1 + 0.05.
    expect(qualityMultiplier({ ...input, critique: null })).toBeCloseTo(1.45, 12);
  });

  it('subtracts for a high error rate and a poor critique, floored at 0.5', () => {
    const steps = [step(1, 'a', 'error'), step(2, 'a', 'success')];
    expect(qualityMultiplier({ ...PLAIN, steps })).toBeCloseTo(0.8, 12);
    const critique = { score: 0, virtueScores: [{ name: 'care', score: 0 }] };
    expect(qualityMultiplier({ ...PLAIN, steps, critique })).toBe(0.5);
  });

  it('applies error-rate thresholds as strict inequalities', () => {
    const withErrors = (errors: number, total: number): StepFacts[] =>
      Array.from({ length: total }, (_, index) => step(index + 1, 't', index < errors ? 'error' : 'success'));
    expect(qualityMultiplier({ ...PLAIN, steps: withErrors(1, 10) })).toBeCloseTo(1.0, 12); // exactly 0.1
    expect(qualityMultiplier({ ...PLAIN, steps: withErrors(2, 10) })).toBeCloseTo(0.9, 12);
    expect(qualityMultiplier({ ...PLAIN, steps: withErrors(3, 10) })).toBeCloseTo(0.9, 12); // exactly 0.3
    expect(qualityMultiplier({ ...PLAIN, steps: withErrors(4, 10) })).toBeCloseTo(0.8, 12);
  });

  it('counts coverage only above 60 and 80 percent and only on success', () => {
    expect(qualityMultiplier({ ...PLAIN, metadata: { test_coverage: 80 } })).toBeCloseTo(1.1, 12);
    expect(qualityMultiplier({ ...PLAIN, metadata: { test_coverage: 80.5 } })).toBeCloseTo(1.15, 12);
    expect(qualityMultiplier({ ...PLAIN, metadata: { test_coverage: 60 } })).toBeCloseTo(1.0, 12);
    expect(qualityMultiplier({ ...PLAIN, outcome: FAILURE, metadata: { test_coverage: 99 } })).toBeCloseTo(1.0, 12);
    expect(qualityMultiplier({ ...PLAIN, metadata: { test_coverage: 'lots' } })).toBeCloseTo(1.0, 12);
  });

  it('treats a critic score of 0.5 as neutral and a missing score as absent', () => {
    expect(qualityMultiplier({ ...PLAIN, critique: { score: 0.5, virtueScores: [] } })).toBeCloseTo(1.0, 12);
    expect(qualityMultiplier({ ...PLAIN, critique: { score: null, virtueScores: [{ name: 'v', score: 1 }] } })).toBeCloseTo(1.1, 12);
  });
});

describe('learningBonus', () => {
  it("gives nothing for patterns: whether a run's cue became one depends on the runs before it, not on the run", () => {
    const steps = ['a', 'b', 'c'].map((tool, index) => step(index + 1, tool, 'success'));
    for (const patternsDiscovered of [0, 2, 7]) expect(learningBonus({ ...PLAIN, steps, patternsDiscovered })).toBe(learningBonus({ ...PLAIN, steps }));
    expect(computeReward({ ...PLAIN, steps, patternsDiscovered: 3 })).toEqual(computeReward({ ...PLAIN, steps, patternsDiscovered: 0 }));
  });

  it('rewards an error followed by a success, even across a result-less step', () => {
    const steps = [step(1, 'a', 'error'), { ...step(2, null, null), kind: 'observation' }, step(3, 'a', 'success')];
    expect(learningBonus({ ...PLAIN, steps })).toBeCloseTo(0.15, 12);
  });

  it('gives 0.2 above a 0.9 success rate over 5+ steps, else 0.15 for a perfect 3+', () => {
    const steps = (count: number, errors = 0): StepFacts[] =>
      Array.from({ length: count }, (_, index) => step(index + 1, 't', index < errors ? 'timeout' : 'success'));
    expect(learningBonus({ ...PLAIN, steps: steps(5) })).toBeCloseTo(0.2, 12);
    expect(learningBonus({ ...PLAIN, steps: steps(3) })).toBeCloseTo(0.15, 12);
    expect(learningBonus({ ...PLAIN, steps: steps(2) })).toBe(0);
    // 9 of 10 is not above 0.9; the leading timeout is not recovered either (0.15 for that).
    expect(learningBonus({ ...PLAIN, steps: steps(10, 1) })).toBeCloseTo(0.15, 12);
  });

  it('rewards 3+ and 5+ distinct tools, and a quick short episode', () => {
    const tools = (count: number): StepFacts[] => Array.from({ length: count }, (_, index) => step(index + 1, `t${index}`, null));
    expect(learningBonus({ ...PLAIN, steps: tools(3) })).toBeCloseTo(0.1, 12);
    expect(learningBonus({ ...PLAIN, steps: tools(5) })).toBeCloseTo(0.15, 12);
    expect(learningBonus({ ...PLAIN, steps: tools(1), durationMs: 29_999 })).toBeCloseTo(0.1, 12);
    expect(learningBonus({ ...PLAIN, steps: tools(1), durationMs: 30_000 })).toBe(0);
    expect(learningBonus({ ...PLAIN, steps: tools(1), durationMs: null })).toBe(0);
  });

  it('sums to at most 0.5: five tools, reliable steps and a recovery', () => {
    const tools = ['a', 'b', 'c', 'd', 'e'];
    const steps = Array.from({ length: 11 }, (_, index) => step(index + 1, tools[index % 5] ?? 'a', index === 0 ? 'error' : 'success'));
    expect(learningBonus({ ...PLAIN, steps, durationMs: 1000 })).toBeCloseTo(0.5, 12);
  });
});

describe('computeReward', () => {
  it('matches a hand-computed episode', () => {
    const steps = ['a', 'b', 'c', 'a'].map((tool, index) => step(index + 1, tool, 'success'));
    const reward = computeReward({ ...PLAIN, steps, durationMs: 20_000, patternsDiscovered: 1 });
    const efficiency = 0.5 * (0.5 + Math.exp(-(20 / 60) / 2)) + 0.5 * (0.5 + Math.exp(-(4 / 10) / 2));
    // learning: 3 tools 0.1 + perfect 3+ steps 0.15 + quick 0.1 (the pattern earns nothing).
    const total = 1 * efficiency * 1.0 * 1.1 + 0.35;
    expect(reward.efficiency).toBeCloseTo(efficiency, 12);
    expect(reward.qualityMultiplier).toBeCloseTo(1.1, 12);
    expect(reward.learningBonus).toBeCloseTo(0.35, 12);
    expect(reward.total).toBeCloseTo(total, 12);
    expect(reward.normalized).toBeCloseTo(total / 3.2, 12);
  });

  it('normalises by the formula upper bound 1 × 1.5 × 1.2 × 1.5 + 0.5', () => {
    expect(MAX_REWARD_TOTAL).toBeCloseTo(3.2, 12);
  });

  it('keeps normalized within [0, 1] for extreme inputs', () => {
    const best = computeReward({
      outcome: { kind: 'success', verdict: 'v', artifacts: ['test', 'b', 'c'] },
      complexity: 'complex',
      steps: ['a', 'b', 'c', 'd', 'e'].map((tool, index) => step(index + 1, tool, 'success')),
      durationMs: 0,
      critique: { score: 1, virtueScores: [{ name: 'v', score: 1 }] },
      patternsDiscovered: 1e9,
      metadata: { test_coverage: 100, lint_warnings: 0 },
    });
    expect(best.normalized).toBeGreaterThan(0.8);
    expect(best.normalized).toBeLessThanOrEqual(1);

    const worst = computeReward({
      outcome: FAILURE,
      complexity: 'simple',
      steps: Array.from({ length: 1000 }, (_, index) => step(index + 1, 't', 'error')),
      durationMs: 1e12,
      critique: { score: 0, virtueScores: [{ name: 'v', score: 0 }] },
      patternsDiscovered: 0,
      metadata: {},
    });
    expect(worst.total).toBe(0);
    expect(worst.normalized).toBe(0);

    const outOfRange = computeReward({ ...PLAIN, critique: { score: 40, virtueScores: [{ name: 'v', score: -3 }] } });
    expect(outOfRange.normalized).toBeGreaterThanOrEqual(0);
    expect(outOfRange.normalized).toBeLessThanOrEqual(1);
  });
});
