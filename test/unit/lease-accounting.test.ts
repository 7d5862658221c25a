import { describe, expect, it } from 'vitest';
import {
  childReservation,
  episodeCharge,
  type LeaseNode,
  leaseStanding,
  planEpisodeHold,
  releasedHold,
  reservedAmounts,
  shareOnParent,
} from '../../src/leases/accounting.ts';
import { type Lease, type LeaseBudget, type LeaseUsage, NO_USAGE } from '../../src/leases/rules.ts';

const NOW = Date.UTC(2026, 0, 1);
const usage = (episodes: number, toolCalls: number, tokens: number, wallMs: number): LeaseUsage => ({ episodes, toolCalls, tokens, wallMs });
const budget = (episodes: number | null, toolCalls: number | null, tokens: number | null, wallMs: number | null): LeaseBudget => ({
  episodes,
  toolCalls,
  tokens,
  wallMs,
});

function node(
  id: string,
  parentId: string | null,
  granted: LeaseBudget,
  consumed: LeaseUsage = NO_USAGE,
  held: LeaseUsage = NO_USAGE,
  extra: Partial<Lease> = {},
): LeaseNode {
  return { id, parentId, held, lease: { budget: granted, consumed, scope: ['*'], expiresAtMs: NOW + 60_000, revoked: false, ...extra } };
}

describe('reservedAmounts', () => {
  it('sums the holds of the lease’s own live episodes', () => {
    const tree = [node('p', null, budget(10, null, 1000, null), usage(2, 0, 100, 0), usage(3, 0, 450, 0))];
    expect(reservedAmounts(tree, 'p', NOW)).toEqual(usage(3, 0, 450, 0));
    expect(leaseStanding(tree, 'p', NOW)).toEqual({
      consumed: usage(2, 0, 100, 0),
      reserved: budget(3, null, 450, null),
      remaining: budget(5, null, 450, null),
    });
  });

  it('counts a usable child at what it may still spend: its budget minus what it consumed', () => {
    const tree = [
      node('p', null, budget(10, null, 1000, null), usage(1, 0, 40, 0)),
      node('c', 'p', budget(4, null, 400, null), usage(1, 0, 40, 0), usage(1, 0, 100, 0)),
    ];
    expect(reservedAmounts(tree, 'p', NOW)).toEqual(usage(3, 0, 360, 0));
    // consumed (40, the child's) + reserved (360) + remaining = 1000: the child weighs exactly its budget.
    expect(leaseStanding(tree, 'p', NOW).remaining).toEqual(budget(6, null, 600, null));
  });

  it('goes down the tree: a grandchild is inside its parent’s share, not counted again', () => {
    const tree = [
      node('p', null, budget(null, null, 1000, null)),
      node('c', 'p', budget(null, null, 500, null), usage(0, 0, 80, 0)),
      node('g', 'c', budget(null, null, 200, null), usage(0, 0, 80, 0), usage(1, 0, 120, 0)),
    ];
    expect(reservedAmounts(tree, 'g', NOW).tokens).toBe(120);
    expect(reservedAmounts(tree, 'c', NOW).tokens).toBe(120);
    expect(reservedAmounts(tree, 'p', NOW).tokens).toBe(420);
  });

  it('counts a revoked or expired child only at what its live episodes still hold', () => {
    const child = (extra: Partial<Lease>) => [
      node('p', null, budget(5, null, 1000, null)),
      node('c', 'p', budget(3, null, 600, null), usage(0, 0, 50, 0), usage(1, 0, 200, 0), extra),
    ];
    expect(reservedAmounts(child({}), 'p', NOW)).toEqual(usage(3, 0, 550, 0));
    expect(reservedAmounts(child({ revoked: true }), 'p', NOW)).toEqual(usage(1, 0, 200, 0));
    expect(reservedAmounts(child({ expiresAtMs: NOW }), 'p', NOW)).toEqual(usage(1, 0, 200, 0));
    expect(reservedAmounts(child({ expiresAtMs: NOW + 1 }), 'p', NOW)).toEqual(usage(3, 0, 550, 0));
  });

  it('never lets an overdrawn child free what its live episodes still hold', () => {
    const tree = [node('p', null, budget(null, null, 1000, null)), node('c', 'p', budget(null, null, 100, null), usage(0, 0, 130, 0), usage(1, 0, 50, 0))];
    expect(shareOnParent(tree, 'c', NOW).tokens).toBe(50);
  });

  it('throws for a lease outside the tree', () => {
    expect(() => reservedAmounts([], 'x', NOW)).toThrow(RangeError);
  });
});

describe('childReservation', () => {
  it('reserves the child’s budget for what the parent limits, nothing for what it does not', () => {
    expect(childReservation(budget(5, null, 1000, null), budget(2, 30, 400, 60_000))).toEqual(usage(2, 0, 400, 0));
  });
});

describe('planEpisodeHold', () => {
  const none = { maxToolCalls: null, maxTokens: null, maxWallMs: null };

  it('holds the smaller of the episode’s own cap and the unreserved remaining, and caps the episode there', () => {
    expect(planEpisodeHold(budget(3, 10, 500, 60_000), { maxToolCalls: 4, maxTokens: 800, maxWallMs: null })).toEqual({
      ok: true,
      hold: usage(1, 4, 500, 60_000),
      caps: { maxToolCalls: 4, maxTokens: 500, maxWallMs: 60_000 },
    });
  });

  it('holds nothing of what the lease does not limit, and leaves the episode’s own cap alone', () => {
    expect(planEpisodeHold(budget(null, null, 500, null), { maxToolCalls: 7, maxTokens: null, maxWallMs: 1000 })).toEqual({
      ok: true,
      hold: usage(0, 0, 500, 0),
      caps: { maxToolCalls: 7, maxTokens: 500, maxWallMs: 1000 },
    });
  });

  it('refuses when a limited resource has nothing unreserved, naming the first in seed order', () => {
    expect(planEpisodeHold(budget(2, 0, 0, 100), none)).toEqual({ ok: false, resource: 'tool_calls' });
    expect(planEpisodeHold(budget(0, 0, 0, 0), none)).toEqual({ ok: false, resource: 'episodes' });
    expect(planEpisodeHold(budget(null, null, null, 0), none)).toEqual({ ok: false, resource: 'wall_time' });
  });

  it('holds nothing and caps nothing under an unlimited lease', () => {
    expect(planEpisodeHold(budget(null, null, null, null), none)).toEqual({ ok: true, hold: NO_USAGE, caps: none });
  });
});

describe('episodeCharge and releasedHold', () => {
  it('charges one episode and what it used, wall time up to its deadline', () => {
    expect(episodeCharge({ toolCalls: 3, tokens: 120, elapsedMs: 5_400 }, 5_000)).toEqual(usage(1, 3, 120, 5_000));
    expect(episodeCharge({ toolCalls: 0, tokens: 0, elapsedMs: 4_000 }, 5_000)).toEqual(usage(1, 0, 0, 4_000));
    expect(episodeCharge({ toolCalls: 0, tokens: 0, elapsedMs: 9_000 }, null).wallMs).toBe(9_000);
  });

  it('releases the unused part of the hold, never less than nothing', () => {
    expect(releasedHold(usage(1, 4, 100, 1000), usage(1, 6, 30, 1000))).toEqual(usage(0, 0, 70, 0));
  });
});
