// Why a loop of episodes stopped (the loop outcome) and its predicates. The predicates are the server's own
// (src/stops/stop-reason.ts): an outcome is mapped to its StopReason and asked there.
import { canContinue, isSuccessful, type StopReason } from '../stops/stop-reason.ts';

export type EpisodeLoopOutcome =
  | { kind: 'completed'; episodesExecuted: number; tokensConsumed: number }
  | { kind: 'budget_exhausted'; resource: string; episodesExecuted: number; tokensConsumed: number }
  | { kind: 'max_episodes'; episodesExecuted: number; tokensConsumed: number }
  | { kind: 'blocked'; reason: string; episodesExecuted: number }
  | { kind: 'escalated'; reason: string; episodesExecuted: number }
  | { kind: 'error'; error: string; episodesExecuted: number; recoverable: boolean };

/** The stop condition an outcome stands for. */
function outcomeStopReason(outcome: EpisodeLoopOutcome): StopReason {
  switch (outcome.kind) {
    case 'budget_exhausted':
      return { kind: 'budget_exhausted', resource: outcome.resource as Extract<StopReason, { kind: 'budget_exhausted' }>['resource'] };
    case 'blocked':
    case 'escalated':
      return { kind: outcome.kind, reason: outcome.reason };
    case 'error':
      return { kind: 'error', message: outcome.error, recoverable: outcome.recoverable };
    default:
      return { kind: outcome.kind };
  }
}

/** The outcome a stop condition ends the loop with. */
export function outcomeFromStop(stop: StopReason, episodesExecuted: number, tokensConsumed: number): EpisodeLoopOutcome {
  switch (stop.kind) {
    case 'completed':
    case 'max_episodes':
      return { kind: stop.kind, episodesExecuted, tokensConsumed };
    case 'budget_exhausted':
      return { kind: 'budget_exhausted', resource: stop.resource, episodesExecuted, tokensConsumed };
    case 'blocked':
    case 'escalated':
      return { kind: stop.kind, reason: stop.reason, episodesExecuted };
    case 'error':
      return { kind: 'error', error: stop.message, recoverable: stop.recoverable, episodesExecuted };
    case 'failed':
      return { kind: 'error', error: stop.reason, recoverable: false, episodesExecuted };
    case 'cancelled':
      return { kind: 'error', error: stop.reason ?? 'cancelled', recoverable: false, episodesExecuted };
  }
}

/** CTR-EP05: only Completed. */
export function isLoopSuccessful(outcome: EpisodeLoopOutcome): boolean {
  return isSuccessful(outcomeStopReason(outcome));
}

/** CTR-EP06: BudgetExhausted, MaxEpisodesReached and Blocked. */
export function canLoopContinue(outcome: EpisodeLoopOutcome): boolean {
  return canContinue(outcomeStopReason(outcome));
}
