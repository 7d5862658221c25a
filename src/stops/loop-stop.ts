/**
 * The stop condition of a work item's loop of episodes (it checks after every episode), decided by the
 * server each time an episode of the work item ends, with evaluateStopCondition's priority order
 * (INV-EP04): budget exhaustion > the holon's own stop > max episodes.
 *
 * - Budget exhaustion is the lease's (the seed's context budget comes from the lease): the charge
 *   overdrew it (INV-EP03: the deduction failed), or left a resource spent out while the holon
 *   would go on. A holon that stops on exactly the last unit stopped within budget: its own stop
 *   stands. An episode stopped by its own smaller budget does not stop the loop: the lease has more.
 * - The holon's own stop is how the episode reported its end: completeEpisode SUCCESS means the
 *   goal is reached (completed), FAILURE is failed, failEpisode an error, escalateEpisode
 *   escalated; PARTIAL means "not yet" and the loop goes on. Server stops (budget, deadline) and an
 *   operator's cancelEpisode are not the holon's decision and leave the loop running.
 * - A lease revoked or expired by the episode's end ends the loop with a non-recoverable error (as
 *   the client loop reports it), ranked with the holon's stop: a holon that reached its goal
 *   completed even if its lease expired meanwhile.
 * - Max episodes counts the work item's episodes that have ended.
 * Blocking is not an ending: a blocked episode holds its place and the loop waits with it.
 */

import type { LeaseResource } from './resources.ts';
import { evaluateStopCondition, type StopReason } from './stop-reason.ts';

export interface LoopStopInput {
  holonStop: StopReason | null;
  /** The charge of the episode's lease; null without a lease. */
  leaseCharge: {
    ok: boolean;
    exhausted: LeaseResource | null;
    overdrawn: LeaseResource | null;
    leaseId: string;
    leaseEnded: 'revoked' | 'expired' | null;
  } | null;
  /** Episodes of the work item that have ended, this one included. */
  episodesExecuted: number;
  maxEpisodes: number | null;
}

function budgetExhausted(input: LoopStopInput): LeaseResource | null {
  const charge = input.leaseCharge;
  if (!charge) return null;
  if (!charge.ok) return charge.overdrawn;
  return input.holonStop === null ? charge.exhausted : null;
}

function leaseEndedStop(input: LoopStopInput): StopReason | null {
  const charge = input.leaseCharge;
  if (!charge?.leaseEnded) return null;
  return { kind: 'error', message: `lease ${charge.leaseId} is ${charge.leaseEnded}`, recoverable: false };
}

/** The loop's stop condition after an episode ended; null means the loop may go on. */
export function loopStopCondition(input: LoopStopInput): StopReason | null {
  return evaluateStopCondition({
    budgetExhausted: budgetExhausted(input),
    holonStop: input.holonStop ?? leaseEndedStop(input),
    episodesExecuted: input.episodesExecuted,
    maxEpisodes: input.maxEpisodes,
  });
}

/**
 * Why a new episode of the work item is refused, if it is: the loop has stopped, or its max
 * episodes are all started (running ones included, so concurrent starts cannot exceed it).
 */
export function startRefusal(item: { stopCondition: StopReason | null; maxEpisodes: number | null }, episodesStarted: number): StopReason | null {
  if (item.stopCondition) return item.stopCondition;
  return evaluateStopCondition({ budgetExhausted: null, holonStop: null, episodesExecuted: episodesStarted, maxEpisodes: item.maxEpisodes });
}
