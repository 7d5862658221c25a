/**
 * Why an episode (or a loop of episodes under a lease) stopped: completed, budget_exhausted,
 * max_episodes, blocked, escalated or error, plus 'cancelled' and 'failed', which our lifecycle needs.
 */

import type { ExhaustedResource } from './resources.ts';

export type StopReason =
  | { kind: 'completed' }
  | { kind: 'budget_exhausted'; resource: ExhaustedResource }
  | { kind: 'max_episodes' }
  | { kind: 'blocked'; reason: string }
  | { kind: 'escalated'; reason: string }
  | { kind: 'error'; message: string; recoverable: boolean }
  | { kind: 'cancelled'; reason?: string }
  | { kind: 'failed'; reason: string };

export type StopReasonKind = StopReason['kind'];

export interface StopConditionInput {
  budgetExhausted: ExhaustedResource | null;
  /** The agent's (holon's) own stop decision for this episode, if any. */
  holonStop: StopReason | null;
  episodesExecuted: number;
  /** null is unlimited. */
  maxEpisodes: number | null;
}

/** CTR-EP05: only completion is success. */
export function isSuccessful(reason: StopReason): boolean {
  return reason.kind === 'completed';
}

/** CTR-EP06: work could resume with more resources or once unblocked. */
export function canContinue(reason: StopReason): boolean {
  return reason.kind === 'budget_exhausted' || reason.kind === 'max_episodes' || reason.kind === 'blocked';
}

/** INV-EP04 priority: budget exhaustion > the holon's own stop > max episodes; null = continue. */
export function evaluateStopCondition(input: StopConditionInput): StopReason | null {
  if (input.budgetExhausted !== null) return { kind: 'budget_exhausted', resource: input.budgetExhausted };
  if (input.holonStop !== null) return input.holonStop;
  if (input.maxEpisodes !== null && input.episodesExecuted >= input.maxEpisodes) return { kind: 'max_episodes' };
  return null;
}
