// Where a new episode goes: its work item (a monotonic number, a loop that has not stopped) and its
// lease (usable, with a hold on what the lease has left unreserved). Checks only; the caller writes.

import { InputLimitError, LeaseError } from '../core/errors.ts';
import { sameId } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { WriteContext } from '../core/write-context.ts';
import { Params } from '../db/sql.ts';
import { type EpisodeCaps, planEpisodeHold } from '../leases/accounting.ts';
import { checkLoopOpen } from '../leases/loop.ts';
import { type LeaseRow, lockLease, readLease } from '../leases/row.ts';
import { BUDGET_KEY, checkLeaseUsable, type LeaseUsage, nextEpisodeNumber, remainingLeaseBudget } from '../leases/rules.ts';
import { leaseReserved } from '../leases/tree.ts';
import { lockWorkItem } from '../leases/work-items.ts';
import type { LeaseResource } from '../stops/resources.ts';
import type { StartEpisodeInput } from './limits.ts';

export interface Placement {
  workItemId: string | null;
  leaseId: string | null;
  episodeNumber: number | null;
  /** The episode's caps: its own, lowered to its hold for what the lease limits. */
  budget: EpisodeCaps;
  leaseHold: LeaseUsage | null;
}

function exhaustedError(row: LeaseRow, resource: LeaseResource, reserved: LeaseUsage): LeaseError {
  const key = BUDGET_KEY[resource];
  const { budget, consumed } = row.lease;
  const message = `lease ${row.id} has no ${key} left unreserved (${budget[key]} granted, ${consumed[key]} consumed, ${reserved[key]} reserved)`;
  return new LeaseError(row.id, 'exhausted', message, [{ field: `budget.${key}`, limit: `${budget[key]} granted`, actual: '0', message }]);
}

/** The lease must be usable, on the episode's work item, and have something unreserved of each resource it limits. */
async function holdOnLease(ctx: WriteContext, leaseId: string, workItemId: string | null, own: EpisodeCaps) {
  const row = await lockLease(ctx.client, ctx.tenantId, leaseId);
  const unusable = checkLeaseUsable(row.lease, ctx.now.getTime());
  if (unusable.length) throw new LeaseError(row.id, must(unusable[0]).rule, must(unusable[0]).message);
  if (workItemId && !sameId(workItemId, row.workItemId))
    throw new LeaseError(row.id, 'wrong_work_item', `lease ${row.id} was issued for work item ${row.workItemId}, not ${workItemId}`);
  const reserved = await leaseReserved(ctx.client, ctx.tenantId, row.id, ctx.now);
  const plan = planEpisodeHold(remainingLeaseBudget(row.lease, reserved), own);
  if (!plan.ok) throw exhaustedError(row, plan.resource, reserved);
  return plan;
}

export async function placeEpisode(ctx: WriteContext, input: StartEpisodeInput & { episodeNumber?: number | null }): Promise<Placement> {
  const { client, tenantId, now } = ctx;
  const own: EpisodeCaps = {
    maxTokens: input.budget.maxTokens ?? null,
    maxWallMs: input.budget.maxWallMs ?? null,
    maxToolCalls: input.budget.maxToolCalls ?? null,
  };
  // The lease implies its work item; that row is locked before the lease (work-items.ts lock order).
  const workItemId = input.leaseId ? (await readLease(client, tenantId, input.leaseId)).workItemId : (input.workItemId ?? null);
  if (!workItemId) return { workItemId: null, leaseId: null, episodeNumber: null, budget: own, leaseHold: null };
  const item = await lockWorkItem(client, tenantId, workItemId);
  const held = input.leaseId ? await holdOnLease(ctx, input.leaseId, input.workItemId ?? null, own) : null;
  await checkLoopOpen(client, item);
  const next = nextEpisodeNumber(item.lastEpisodeNumber, input.episodeNumber);
  if (!next.ok)
    throw new InputLimitError([{ field: 'input.episodeNumber', limit: `> ${next.lastIssued}`, actual: String(next.requested), message: next.message }]);
  const p = new Params();
  await client.query(
    `UPDATE work_items SET last_episode_number = ${p.add(next.episodeNumber)}, updated_at = ${p.add(now)} WHERE id = ${p.add(workItemId)}`,
    p.values,
  );
  return { workItemId, leaseId: input.leaseId ?? null, episodeNumber: next.episodeNumber, budget: held?.caps ?? own, leaseHold: held?.hold ?? null };
}
