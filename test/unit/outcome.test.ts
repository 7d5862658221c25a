import { describe, expect, it } from 'vitest';
import type { Budget, Usage } from '../../src/episodes/budget.ts';
import {
  BUDGET_EXCEEDED,
  budgetFailureOutcome,
  CONVERGE_LIST_MAX,
  convergeOutcome,
  describeExhaustion,
  describeStep,
  STEP_DESCRIPTION_MAX_CHARS,
  type StepDigest,
} from '../../src/episodes/outcome.ts';

const budget: Budget = { maxTokens: 1000, maxSteps: 5, maxWallMs: 60_000, maxToolCalls: null };
const usage: Usage = { tokens: 1200, steps: 5, wallMs: 30_000 };

function digest(stepNumber: number, result: StepDigest['result'], tool: string | null = 'shell'): StepDigest {
  return { stepNumber, kind: 'tool_call', tool, action: `action ${stepNumber}`, result };
}

describe('describeStep', () => {
  it('names the number, tool and action', () => {
    expect(describeStep(digest(3, 'success'))).toBe('#3 shell: action 3');
  });

  it('falls back to the kind without a tool, and omits a missing action', () => {
    expect(describeStep({ stepNumber: 7, kind: 'llm_call', result: 'success' })).toBe('#7 llm_call');
  });

  it('truncates long descriptions on code points', () => {
    const text = describeStep({ ...digest(1, 'success'), action: '😀'.repeat(500) });
    expect(Array.from(text)).toHaveLength(STEP_DESCRIPTION_MAX_CHARS);
    expect(text.endsWith('…')).toBe(true);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no lone high surrogate
  });

  it('keeps a description of exactly the maximum length whole', () => {
    const action = 'x'.repeat(STEP_DESCRIPTION_MAX_CHARS - '#1 shell: '.length);
    expect(describeStep({ ...digest(1, 'success'), action })).toBe(`#1 shell: ${action}`);
  });
});

describe('describeExhaustion', () => {
  it.each([
    ['tokens', 'token budget exhausted (used 1200 of 1000 tokens)'],
    ['steps', 'step budget exhausted (used 5 of 5 steps)'],
    ['wall_time', 'wall-time budget exhausted (used 30000 of 60000 ms)'],
  ] as const)('%s', (resource, text) => {
    expect(describeExhaustion({ resource, budget, usage })).toBe(text);
  });

  it('names tool calls, and a limit that is not set', () => {
    const counted = { ...usage, toolCalls: 3 };
    expect(describeExhaustion({ resource: 'tool_calls', budget: { ...budget, maxToolCalls: 3 }, usage: counted })).toBe(
      'tool-call budget exhausted (used 3 of 3 tool calls)',
    );
    expect(describeExhaustion({ resource: 'tool_calls', budget, usage: counted })).toBe('tool-call budget exhausted (used 3 of unlimited tool calls)');
    expect(describeExhaustion({ resource: 'steps', budget: { ...budget, maxSteps: null }, usage })).toBe('step budget exhausted (used 5 of unlimited steps)');
  });
});

describe('convergeOutcome', () => {
  it('builds a partial outcome naming the resource, with successes and failures', () => {
    const steps = [digest(1, 'success'), digest(2, 'error'), digest(3, null), digest(4, 'timeout'), digest(5, 'success')];
    expect(convergeOutcome({ resource: 'tokens', budget, usage, steps })).toEqual({
      kind: 'partial',
      verdict: 'Ran out of budget: token budget exhausted (used 1200 of 1000 tokens) after 5 steps; 2 succeeded, 2 failed.',
      completed: ['#1 shell: action 1', '#5 shell: action 5'],
      failed: ['#2 shell: action 2', '#4 shell: action 4'],
    });
  });

  it('bounds each list to the most recent steps while the verdict keeps the totals', () => {
    const steps = Array.from({ length: 50 }, (_, i) => digest(i + 1, i % 2 === 0 ? 'success' : 'error'));
    const outcome = convergeOutcome({ resource: 'steps', budget, usage, steps });
    if (outcome.kind !== 'partial') throw new Error('expected partial');
    expect(outcome.completed).toHaveLength(CONVERGE_LIST_MAX);
    expect(outcome.failed).toHaveLength(CONVERGE_LIST_MAX);
    expect(outcome.completed.at(-1)).toBe('#49 shell: action 49');
    expect(outcome.failed[0]).toBe('#12 shell: action 12');
    expect(outcome.verdict).toContain('after 50 steps; 25 succeeded, 25 failed.');
  });

  it('handles an episode with no steps', () => {
    expect(convergeOutcome({ resource: 'steps', budget, usage, steps: [] })).toMatchObject({ completed: [], failed: [] });
  });
});

describe('budgetFailureOutcome', () => {
  it('fails with budget_exceeded and explains which budget', () => {
    expect(budgetFailureOutcome({ resource: 'wall_time', budget, usage: { ...usage, wallMs: 61_000 } })).toEqual({
      kind: 'failure',
      reason: BUDGET_EXCEEDED,
      details: 'wall-time budget exhausted (used 61000 of 60000 ms).',
    });
    expect(BUDGET_EXCEEDED).toBe('budget_exceeded');
  });
});
