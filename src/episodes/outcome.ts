/**
 * Episode outcomes (success, partial, failure) and the outcomes the server writes itself when a budget
 * runs out (converge into a "ran out of budget" summary, or fail with budget_exceeded).
 */
import type { BudgetResource } from '../stops/resources.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { type Budget, budgetLimit, type Usage, usageOf } from './budget.ts';

export type Outcome =
  | { kind: 'success'; verdict: string; artifacts: string[] }
  | { kind: 'partial'; verdict: string; completed: string[]; failed: string[]; artifacts?: string[] }
  | { kind: 'failure'; reason: string; details?: string; artifacts?: string[] }
  /** Nothing said whether the task was solved (telemetry without episodic.outcome, e.g.): neither success nor failure. */
  | { kind: 'unknown'; verdict: string; artifacts?: string[] };

/** Just what a summary needs to know about one journaled step. */
export interface StepDigest {
  stepNumber: number;
  kind: string;
  tool?: string | null;
  action?: string | null;
  /** null: the step has no result (an observation, a checkpoint) and is listed nowhere. */
  result: 'success' | 'error' | 'timeout' | null;
}

export interface ExhaustionSummaryInput {
  resource: BudgetResource;
  budget: Budget;
  usage: Usage;
  /** In step order. */
  steps: readonly StepDigest[];
}

/** Keeps a converge outcome small however long the episode was; the verdict carries the totals. */
export const CONVERGE_LIST_MAX = 20;
export const STEP_DESCRIPTION_MAX_CHARS = 200;

/** The error class of an episode failed by its budget. */
export const BUDGET_EXCEEDED = 'budget_exceeded';

const RESOURCE_LABEL: Record<BudgetResource, { name: string; unit: string }> = {
  wall_time: { name: 'wall-time', unit: 'ms' },
  tokens: { name: 'token', unit: 'tokens' },
  tool_calls: { name: 'tool-call', unit: 'tool calls' },
  steps: { name: 'step', unit: 'steps' },
};

/** Partial outcome for the 'converge' policy: what succeeded and what failed before the budget ran out. */
export function convergeOutcome(input: ExhaustionSummaryInput): Outcome {
  const completed = input.steps.filter((step) => step.result === 'success');
  const failed = input.steps.filter((step) => step.result === 'error' || step.result === 'timeout');
  return {
    kind: 'partial',
    verdict: `Ran out of budget: ${describeExhaustion(input)} after ${input.steps.length} steps; ` + `${completed.length} succeeded, ${failed.length} failed.`,
    completed: mostRecentDescriptions(completed),
    failed: mostRecentDescriptions(failed),
  };
}

/** Failure outcome for the 'fail' policy (and for wall time, which never converges). */
export function budgetFailureOutcome(input: Omit<ExhaustionSummaryInput, 'steps'>): Outcome {
  return { kind: 'failure', reason: BUDGET_EXCEEDED, details: `${describeExhaustion(input)}.` };
}

/** e.g. "token budget exhausted (used 1200 of 1000 tokens)". */
export function describeExhaustion(input: Omit<ExhaustionSummaryInput, 'steps'>): string {
  const { name, unit } = RESOURCE_LABEL[input.resource];
  const limit = budgetLimit(input.budget, input.resource) ?? 'unlimited';
  return `${name} budget exhausted (used ${usageOf(input.usage, input.resource)} of ${limit} ${unit})`;
}

/** e.g. "#3 shell: run tests"; falls back to the step kind when there is no tool. */
export function describeStep(step: StepDigest): string {
  const subject = step.tool ?? step.kind;
  const text = step.action ? `#${step.stepNumber} ${subject}: ${step.action}` : `#${step.stepNumber} ${subject}`;
  return truncateChars(text, STEP_DESCRIPTION_MAX_CHARS);
}

// The latest steps are kept: they are the closest to where the budget ran out.
function mostRecentDescriptions(steps: readonly StepDigest[]): string[] {
  return steps.slice(-CONVERGE_LIST_MAX).map(describeStep);
}

// Cuts on code points so a surrogate pair is never split.
function truncateChars(text: string, maxChars: number): string {
  const chars = Array.from(text);
  return chars.length <= maxChars ? text : `${chars.slice(0, maxChars - 1).join('')}…`;
}

/** The holon's stop a completion reports (src/stops/loop-stop.ts): SUCCESS reached the goal, PARTIAL goes on. */
export function holonStopForOutcome(outcome: Outcome): StopReason | null {
  if (outcome.kind === 'success') return { kind: 'completed' };
  if (outcome.kind === 'failure') return { kind: 'failed', reason: outcome.reason };
  return null;
}
