/**
 * Episode budgets, enforced by the server rather than advised.
 *
 * Semantics:
 * - A limit of null is unlimited. A resource is exhausted once usage >= limit, so
 *   `maxSteps: 3` permits exactly three steps and `maxTokens: 100` stops the episode at 100 tokens.
 * - Steps are admitted one at a time, in order; each adds one step and its tokens. The step that
 *   reaches or crosses a limit is still admitted (its work already happened and the journal must
 *   show it); every step after it is refused with reason 'budget_exhausted', and the caller stops
 *   the episode with budget_exhausted{resource}.
 * - Wall time is the episode's elapsed time when the batch arrives and does not advance within a
 *   batch. A batch arriving when a resource is already exhausted (wall time ran out between
 *   calls, or an earlier step crossed a limit) admits nothing: no step of it crossed the budget.
 * - When several resources are exhausted at once, the one reported is the first of
 *   BUDGET_RESOURCES: wall_time, tokens, tool_calls, steps. Wall time comes first because its
 *   exhaustion is always a hard failure (the converge hook is never offered for
 *   max_wall_ms), so it must not be masked by a resource whose exhaustion may converge.
 * - Tool calls (steps of kind tool_call) have a cap because a lease budgets them: under
 *   a lease that limits tool calls, the episode's cap is what it holds on the lease. A caller that
 *   does not count tool calls leaves usage.toolCalls out, and the cap is then not judged by it.
 */

import { BUDGET_RESOURCES, type BudgetResource } from '../stops/resources.ts';

/** What happens when a budget runs out: fail the episode, or converge it into a partial outcome. */
export type BudgetExhaustedPolicy = 'fail' | 'converge';

export interface Budget {
  maxTokens: number | null;
  maxSteps: number | null;
  maxWallMs: number | null;
  maxToolCalls: number | null;
}

export interface Usage {
  tokens: number;
  steps: number;
  wallMs: number;
  /** Tool-call steps so far; absent when the caller does not count them (then never exhausted). */
  toolCalls?: number;
}

export interface StepAdmission {
  /** Length of the admitted prefix of the batch. */
  admitted: number;
  exhausted: BudgetResource | null;
  /** Usage including only the admitted steps, with wallMs = the batch's elapsed wall time. */
  usageAfter: Usage;
}

export function budgetLimit(budget: Budget, resource: BudgetResource): number | null {
  if (resource === 'wall_time') return budget.maxWallMs;
  if (resource === 'tokens') return budget.maxTokens;
  if (resource === 'tool_calls') return budget.maxToolCalls;
  return budget.maxSteps;
}

export function usageOf(usage: Usage, resource: BudgetResource): number {
  if (resource === 'wall_time') return usage.wallMs;
  if (resource === 'tokens') return usage.tokens;
  if (resource === 'tool_calls') return usage.toolCalls ?? 0;
  return usage.steps;
}

export function exhaustedResource(budget: Budget, usage: Usage): BudgetResource | null {
  for (const resource of BUDGET_RESOURCES) {
    const limit = budgetLimit(budget, resource);
    // Uncounted tool calls cannot be judged: treating them as 0 would be a guess, not a count.
    if (resource === 'tool_calls' && usage.toolCalls === undefined) continue;
    if (limit !== null && usageOf(usage, resource) >= limit) return resource;
  }
  return null;
}

/**
 * Which prefix of a batch of steps fits the budget.
 * @param stepsTokens tokens of each step in batch order (0 when a step reports none)
 * @param nowWallMs the episode's elapsed wall time (ms since it started) when the batch arrived
 */
export function planStepAdmission(budget: Budget, usageBefore: Usage, stepsTokens: readonly number[], nowWallMs: number): StepAdmission {
  let usage: Usage = { ...usageBefore, wallMs: nowWallMs };
  const exhaustedOnArrival = exhaustedResource(budget, usage);
  if (exhaustedOnArrival !== null) return { admitted: 0, exhausted: exhaustedOnArrival, usageAfter: usage };

  for (const [index, tokens] of stepsTokens.entries()) {
    usage = { ...usage, steps: usage.steps + 1, tokens: usage.tokens + tokens };
    const exhausted = exhaustedResource(budget, usage);
    if (exhausted !== null) return { admitted: index + 1, exhausted, usageAfter: usage };
  }
  return { admitted: stepsTokens.length, exhausted: null, usageAfter: usage };
}

/** The episode's policy, except that wall-time exhaustion always fails (no converge past the wall clock). */
export function resolveExhaustionPolicy(policy: BudgetExhaustedPolicy, resource: BudgetResource): BudgetExhaustedPolicy {
  return resource === 'wall_time' ? 'fail' : policy;
}

/** How a budget stop ends the episode: converge completes it (as partial), fail fails it; wall time always fails. */
export function statusAfterBudgetStop(policy: BudgetExhaustedPolicy, resource: BudgetResource): 'completed' | 'failed' {
  return resolveExhaustionPolicy(policy, resource) === 'converge' ? 'completed' : 'failed';
}
