import { describe, expect, it } from 'vitest';
import {
  type Budget,
  budgetLimit,
  exhaustedResource,
  planStepAdmission,
  resolveExhaustionPolicy,
  statusAfterBudgetStop,
  type Usage,
  usageOf,
} from '../../src/episodes/budget.ts';
import { BUDGET_RESOURCES } from '../../src/stops/resources.ts';

const UNLIMITED: Budget = { maxTokens: null, maxSteps: null, maxWallMs: null, maxToolCalls: null };
const FRESH: Usage = { tokens: 0, steps: 0, wallMs: 0 };

describe('budgetLimit and usageOf', () => {
  it('map each resource to its own field', () => {
    const budget: Budget = { maxTokens: 1, maxSteps: 2, maxWallMs: 3, maxToolCalls: 4 };
    const usage: Usage = { tokens: 10, steps: 20, wallMs: 30, toolCalls: 40 };
    expect(BUDGET_RESOURCES).toEqual(['wall_time', 'tokens', 'tool_calls', 'steps']);
    expect(BUDGET_RESOURCES.map((r) => budgetLimit(budget, r))).toEqual([3, 1, 4, 2]);
    expect(BUDGET_RESOURCES.map((r) => usageOf(usage, r))).toEqual([30, 10, 40, 20]);
  });
});

describe('exhaustedResource', () => {
  it('is null when everything is unlimited', () => {
    expect(exhaustedResource(UNLIMITED, { tokens: 1e9, steps: 1e6, wallMs: 1e9 })).toBeNull();
  });

  it.each([
    ['tokens', { ...UNLIMITED, maxTokens: 100 }, { ...FRESH, tokens: 99 }, { ...FRESH, tokens: 100 }],
    ['steps', { ...UNLIMITED, maxSteps: 3 }, { ...FRESH, steps: 2 }, { ...FRESH, steps: 3 }],
    ['wall_time', { ...UNLIMITED, maxWallMs: 5000 }, { ...FRESH, wallMs: 4999 }, { ...FRESH, wallMs: 5000 }],
    ['tool_calls', { ...UNLIMITED, maxToolCalls: 2 }, { ...FRESH, toolCalls: 1 }, { ...FRESH, toolCalls: 2 }],
  ] as const)('%s: one below the limit is fine, at the limit is exhausted', (resource, budget, below, at) => {
    expect(exhaustedResource(budget, below)).toBeNull();
    expect(exhaustedResource(budget, at)).toBe(resource);
    const over = { tokens: at.tokens + 1, steps: at.steps + 1, wallMs: at.wallMs + 1, toolCalls: (at.toolCalls ?? 0) + 1 };
    expect(exhaustedResource(budget, over)).toBe(resource);
  });

  it('reports wall_time before tokens before tool_calls before steps when several are exhausted', () => {
    const budget: Budget = { maxTokens: 10, maxSteps: 10, maxWallMs: 10, maxToolCalls: 10 };
    expect(exhaustedResource(budget, { tokens: 10, steps: 10, wallMs: 10, toolCalls: 10 })).toBe('wall_time');
    expect(exhaustedResource(budget, { tokens: 10, steps: 10, wallMs: 9, toolCalls: 10 })).toBe('tokens');
    expect(exhaustedResource(budget, { tokens: 9, steps: 10, wallMs: 9, toolCalls: 10 })).toBe('tool_calls');
    expect(exhaustedResource(budget, { tokens: 9, steps: 10, wallMs: 9, toolCalls: 9 })).toBe('steps');
  });

  it('does not judge a tool-call cap against usage that does not count tool calls', () => {
    const budget: Budget = { ...UNLIMITED, maxToolCalls: 1 };
    expect(exhaustedResource(budget, { tokens: 0, steps: 50, wallMs: 0 })).toBeNull();
    expect(exhaustedResource(budget, { tokens: 0, steps: 50, wallMs: 0, toolCalls: 1 })).toBe('tool_calls');
    // A cap of 0 (a lease with no tool calls left) is not judged either: uncounted is not 0 calls.
    const none: Budget = { ...UNLIMITED, maxToolCalls: 0 };
    expect(exhaustedResource(none, { tokens: 0, steps: 50, wallMs: 0 })).toBeNull();
    expect(exhaustedResource(none, { tokens: 0, steps: 50, wallMs: 0, toolCalls: 0 })).toBe('tool_calls');
  });
});

describe('planStepAdmission', () => {
  it('admits a whole batch that stays under every limit', () => {
    const budget: Budget = { maxTokens: 100, maxSteps: 10, maxWallMs: 60_000, maxToolCalls: null };
    expect(planStepAdmission(budget, { tokens: 10, steps: 2, wallMs: 500 }, [5, 5, 5], 1000)).toEqual({
      admitted: 3,
      exhausted: null,
      usageAfter: { tokens: 25, steps: 5, wallMs: 1000 },
    });
  });

  it('admits the step that crosses the token budget and refuses the rest', () => {
    const budget: Budget = { ...UNLIMITED, maxTokens: 100 };
    expect(planStepAdmission(budget, { tokens: 80, steps: 4, wallMs: 0 }, [10, 30, 5, 5], 0)).toEqual({
      admitted: 2,
      exhausted: 'tokens',
      usageAfter: { tokens: 120, steps: 6, wallMs: 0 },
    });
  });

  it('stops on the step that lands exactly on the token budget', () => {
    const budget: Budget = { ...UNLIMITED, maxTokens: 100 };
    const plan = planStepAdmission(budget, FRESH, [60, 40, 1], 0);
    expect(plan.admitted).toBe(2);
    expect(plan.exhausted).toBe('tokens');
    expect(plan.usageAfter.tokens).toBe(100);
  });

  it('maxSteps N admits exactly N steps', () => {
    const budget: Budget = { ...UNLIMITED, maxSteps: 3 };
    expect(planStepAdmission(budget, FRESH, [0, 0, 0, 0, 0], 0)).toMatchObject({ admitted: 3, exhausted: 'steps' });
    expect(planStepAdmission(budget, { ...FRESH, steps: 2 }, [0, 0], 0)).toMatchObject({ admitted: 1, exhausted: 'steps' });
  });

  it('reports exhaustion when the last step of the batch reaches the limit', () => {
    const budget: Budget = { ...UNLIMITED, maxSteps: 2 };
    expect(planStepAdmission(budget, FRESH, [1, 1], 0)).toMatchObject({ admitted: 2, exhausted: 'steps' });
  });

  it('admits nothing when wall time ran out before the batch arrived', () => {
    const budget: Budget = { ...UNLIMITED, maxWallMs: 1000 };
    expect(planStepAdmission(budget, FRESH, [1, 1], 1000)).toEqual({
      admitted: 0,
      exhausted: 'wall_time',
      usageAfter: { tokens: 0, steps: 0, wallMs: 1000 },
    });
    expect(planStepAdmission(budget, FRESH, [1, 1], 999)).toMatchObject({ admitted: 2, exhausted: null });
  });

  it('admits nothing when an earlier batch already exhausted the budget', () => {
    const budget: Budget = { ...UNLIMITED, maxTokens: 50 };
    expect(planStepAdmission(budget, { tokens: 55, steps: 3, wallMs: 0 }, [1], 10)).toMatchObject({
      admitted: 0,
      exhausted: 'tokens',
      usageAfter: { tokens: 55, steps: 3 },
    });
  });

  it('admits an empty batch trivially', () => {
    expect(planStepAdmission({ ...UNLIMITED, maxSteps: 1 }, FRESH, [], 5)).toEqual({
      admitted: 0,
      exhausted: null,
      usageAfter: { tokens: 0, steps: 0, wallMs: 5 },
    });
  });

  it('when tokens and steps run out on the same step, reports tokens', () => {
    const budget: Budget = { maxTokens: 10, maxSteps: 2, maxWallMs: null, maxToolCalls: null };
    expect(planStepAdmission(budget, FRESH, [5, 5, 5], 0)).toMatchObject({ admitted: 2, exhausted: 'tokens' });
  });

  it('does not mutate the usage it was given', () => {
    const before: Usage = { tokens: 1, steps: 1, wallMs: 1 };
    planStepAdmission(UNLIMITED, before, [10, 10], 50);
    expect(before).toEqual({ tokens: 1, steps: 1, wallMs: 1 });
  });
});

describe('resolveExhaustionPolicy', () => {
  it('keeps the episode policy for tokens and steps', () => {
    expect(resolveExhaustionPolicy('converge', 'tokens')).toBe('converge');
    expect(resolveExhaustionPolicy('converge', 'steps')).toBe('converge');
    expect(resolveExhaustionPolicy('fail', 'tokens')).toBe('fail');
    expect(resolveExhaustionPolicy('fail', 'steps')).toBe('fail');
  });

  it('always fails on wall time, whatever the exhaustion policy', () => {
    expect(resolveExhaustionPolicy('converge', 'wall_time')).toBe('fail');
    expect(resolveExhaustionPolicy('fail', 'wall_time')).toBe('fail');
  });
});

describe('statusAfterBudgetStop', () => {
  it('completes a converging episode on tokens or steps and fails it on wall time', () => {
    expect(statusAfterBudgetStop('converge', 'tokens')).toBe('completed');
    expect(statusAfterBudgetStop('converge', 'steps')).toBe('completed');
    expect(statusAfterBudgetStop('converge', 'wall_time')).toBe('failed');
  });

  it('fails an episode whose policy is fail, whatever ran out', () => {
    for (const resource of BUDGET_RESOURCES) expect(statusAfterBudgetStop('fail', resource)).toBe('failed');
  });
});
