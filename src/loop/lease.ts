// What the loop needs to know about its lease, read through the API (the server applies the lease
// rules of src/leases/rules.ts and accounting.ts).
import type { EpisodicClient } from '../client/client.ts';
import { EpisodicError } from '../client/errors.ts';
import type { LeaseBudget, LeaseCharge } from '../client/types.ts';
import { must } from '../core/must.ts';
import { LEASE_RESOURCES, type LeaseResource } from '../stops/resources.ts';

const BUDGET_FIELD: Record<LeaseResource, keyof LeaseBudget> = { episodes: 'episodes', tool_calls: 'toolCalls', tokens: 'tokens', wall_time: 'wallMs' };

export async function leaseRemaining(client: EpisodicClient, leaseId: string): Promise<{ workItemId: string; remaining: LeaseBudget }> {
  const lease = await client.lease(leaseId);
  if (lease.__typename !== 'Lease') throw new EpisodicError('input', `lease ${leaseId} was not found`, { result: lease as never });
  // The server's remaining is what is left unreserved: other live episodes' holds are not ours to plan with.
  return { workItemId: lease.workItem.id, remaining: lease.remaining };
}

/** The first resource (seed order) the lease has none left unreserved of. */
export function exhaustedResource(remaining: LeaseBudget): LeaseResource {
  return LEASE_RESOURCES.find((r) => remaining[BUDGET_FIELD[r]] !== null && must(remaining[BUDGET_FIELD[r]]) <= 0) ?? 'episodes';
}

export function remainingFromCharge(charge: LeaseCharge): LeaseBudget {
  return { episodes: charge.remainingEpisodes, toolCalls: charge.remainingToolCalls, tokens: charge.remainingTokens, wallMs: charge.remainingWallMs };
}

/** The episode number a restarted loop should ask for: one past the last the work item issued. */
export async function nextEpisodeNumber(client: EpisodicClient, workItemId: string): Promise<number> {
  const item = await client.workItem(workItemId);
  if (item.__typename !== 'WorkItem') throw new EpisodicError('input', `work item ${workItemId} was not found`, { result: item as never });
  return item.lastEpisodeNumber + 1;
}
