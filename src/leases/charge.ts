// Charging an ended episode to its lease (a lease is charged after each episode): the episode's hold turns into what it
// actually used, the rest is released, and the consumption is added to the lease and to every
// ancestor, so a child's spending reaches its parent. Runs in the ending's transaction, after the
// episode row left the running/blocked states (so the tree no longer counts its hold) and with the
// work item locked (every lease write of a work item serialises on that row).
import type pg from 'pg';
import { must } from '../core/must.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import type { LeasesRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { episodeCharge, releasedHold } from './accounting.ts';
import { lockLease } from './row.ts';
import { chargeLease, checkLeaseUsable, type LeaseCharge, type LeaseUsage, NO_USAGE } from './rules.ts';
import { leaseReserved } from './tree.ts';

export interface EpisodeLeaseCharge extends LeaseCharge {
  leaseId: string;
  /** What the episode held while it ran. */
  hold: LeaseUsage;
  /** What it was charged: its usage, wall time counted up to its deadline. */
  charged: LeaseUsage;
  /** The unused part of the hold, available again. */
  released: LeaseUsage;
  /** Set when the lease can no longer start episodes: the loop cannot go on under it. */
  leaseEnded: 'revoked' | 'expired' | null;
}

/** Ancestors of a lease, nearest first. */
async function ancestorIds(client: pg.PoolClient, tenantId: string, leaseId: string): Promise<string[]> {
  const p = new Params();
  const tenant = p.add(tenantId);
  const rows = await queryRows<Pick<LeasesRow, 'id'>>(
    client,
    `WITH RECURSIVE chain AS (
       SELECT parent_id AS id, 1 AS depth FROM leases WHERE tenant_id = ${tenant} AND id = ${p.add(leaseId)}
       UNION ALL
       SELECT l.parent_id, c.depth + 1 FROM leases l JOIN chain c ON l.id = c.id WHERE l.tenant_id = ${tenant}
     )
     SELECT id FROM chain WHERE id IS NOT NULL ORDER BY depth`,
    p,
  );
  return rows.map((r) => r.id);
}

async function addConsumption(client: pg.PoolClient, ids: string[], charged: LeaseUsage) {
  const p = new Params();
  await client.query(
    `UPDATE leases SET used_episodes = used_episodes + ${p.add(charged.episodes)}, used_tool_calls = used_tool_calls + ${p.add(charged.toolCalls)},
            used_tokens = used_tokens + ${p.add(charged.tokens)}, used_wall_ms = used_wall_ms + ${p.add(charged.wallMs)}
      WHERE id = ANY(${p.add(ids)}::uuid[])`,
    p.values,
  );
}

/** What charging reads of the ended episode (its row, src/episodes/row.ts, has these and more). */
export interface ChargedEpisode {
  id: string;
  tenantId: string;
  leaseId: string | null;
  leaseHold: LeaseUsage | null;
  usedTokens: number;
  usedToolCalls: number;
  startedAt: Date;
  budget: { maxWallMs: number | null };
}

export async function chargeEpisodeToLease(client: pg.PoolClient, ep: ChargedEpisode, now: Date, events: NewLedgerEvent[]): Promise<EpisodeLeaseCharge> {
  const leaseId = must(ep.leaseId);
  const row = await lockLease(client, ep.tenantId, leaseId);
  const hold = ep.leaseHold ?? NO_USAGE;
  const charged = episodeCharge({ toolCalls: ep.usedToolCalls, tokens: ep.usedTokens, elapsedMs: now.getTime() - ep.startedAt.getTime() }, ep.budget.maxWallMs);
  const othersHold = await leaseReserved(client, ep.tenantId, leaseId, now);
  const charge = chargeLease(row.lease, charged, othersHold);
  const ancestors = await ancestorIds(client, ep.tenantId, leaseId);
  await addConsumption(client, [leaseId, ...ancestors], charged);
  const released = releasedHold(hold, charged);
  events.push({
    type: 'lease.charged',
    workItemId: row.workItemId,
    payload: {
      leaseId,
      episodeId: ep.id,
      hold,
      charge: charged,
      released,
      consumed: charge.consumed,
      remaining: charge.remaining,
      ok: charge.ok,
      exhausted: charge.exhausted,
      overdrawn: charge.overdrawn,
      ancestors,
    },
  });
  const ended = checkLeaseUsable(row.lease, now.getTime())[0]?.rule;
  return { ...charge, leaseId, hold, charged, released, leaseEnded: ended === 'revoked' || ended === 'expired' ? ended : null };
}
