/**
 * Lease reservations, like a card hold (pure; the SQL is in tree.ts, charge.ts and store.ts).
 *
 * - An episode started under a lease holds, for each resource the lease limits, the smaller of its
 *   own budget and what the lease has unreserved; that hold becomes the episode's budget, so the
 *   server's per-episode enforcement stops it there. One episode holds one `episodes` unit.
 * - A child lease holds its whole budget on its parent from the moment it is issued. What the
 *   child consumes is charged on the child and on every ancestor, and leaves the child's hold at
 *   the same time, so nothing is counted twice: on its parent a child weighs
 *   consumed(child) + max(budget(child) - consumed(child), what is still held under the child).
 * - A revoked or expired child keeps holding only what its live episodes (and their descendants)
 *   still hold: the unspent rest returns to the parent at once (for expiry, at the expiry instant,
 *   because reservations are computed from the rows, never stored).
 * - When an episode ends, its hold is released and what it used is charged (charge.ts).
 */

import { canonicalId } from '../core/ids.ts';
import { must } from '../core/must.ts';
import { LEASE_RESOURCES, type LeaseResource } from '../stops/resources.ts';
import { BUDGET_KEY, checkLeaseUsable, type Lease, type LeaseBudget, type LeaseUsage, NO_USAGE, remainingLeaseBudget } from './rules.ts';

export interface LeaseNode {
  id: string;
  parentId: string | null;
  lease: Lease;
  /** Sum of the holds of this lease's own live (running or blocked) episodes. */
  held: LeaseUsage;
}

function combine(a: LeaseUsage, b: LeaseUsage, op: (x: number, y: number) => number): LeaseUsage {
  return { episodes: op(a.episodes, b.episodes), toolCalls: op(a.toolCalls, b.toolCalls), tokens: op(a.tokens, b.tokens), wallMs: op(a.wallMs, b.wallMs) };
}

function childrenIndex(nodes: readonly LeaseNode[]): Map<string, LeaseNode[]> {
  const index = new Map<string, LeaseNode[]>();
  for (const node of nodes) {
    if (node.parentId === null) continue;
    index.set(node.parentId, [...(index.get(node.parentId) ?? []), node]);
  }
  return index;
}

function findNode(nodes: readonly LeaseNode[], id: string): LeaseNode {
  // The tree's ids are PostgreSQL's text of a uuid (lower case); the id asked for may be in any case.
  const wanted = canonicalId(id);
  const node = nodes.find((n) => n.id === wanted);
  if (!node) throw new RangeError(`lease ${id} is not in the tree`);
  return node;
}

function reservedUnder(node: LeaseNode, children: Map<string, LeaseNode[]>, nowMs: number): LeaseUsage {
  return (children.get(node.id) ?? []).reduce((sum, child) => addUsage(sum, weightOnParent(child, children, nowMs)), node.held);
}

/** What a child keeps reserved on its parent (its consumption is on the parent already). */
function weightOnParent(child: LeaseNode, children: Map<string, LeaseNode[]>, nowMs: number): LeaseUsage {
  const below = reservedUnder(child, children, nowMs);
  if (checkLeaseUsable(child.lease, nowMs).length) return below;
  const unspent = (key: keyof LeaseUsage) => {
    const granted = child.lease.budget[key];
    return granted === null ? 0 : Math.max(0, granted - child.lease.consumed[key]);
  };
  // max: a child overdrawn by a crossing step still cannot free what its live episodes hold.
  return combine(below, { episodes: unspent('episodes'), toolCalls: unspent('toolCalls'), tokens: unspent('tokens'), wallMs: unspent('wallMs') }, Math.max);
}

/** Reserved amounts of lease `id` (as numbers, also for unlimited resources), from its subtree. */
export function reservedAmounts(nodes: readonly LeaseNode[], id: string, nowMs: number): LeaseUsage {
  return reservedUnder(findNode(nodes, id), childrenIndex(nodes), nowMs);
}

/** What lease `id` holds on its parent (nothing meaningful for a top-level lease). */
export function shareOnParent(nodes: readonly LeaseNode[], id: string, nowMs: number): LeaseUsage {
  return weightOnParent(findNode(nodes, id), childrenIndex(nodes), nowMs);
}

/** Reserved per resource as the API shows it: null where the lease is unlimited. */
function reservedBudget(lease: Pick<Lease, 'budget'>, reserved: LeaseUsage): LeaseBudget {
  const show = (key: keyof LeaseBudget) => (lease.budget[key] === null ? null : reserved[key]);
  return { episodes: show('episodes'), toolCalls: show('toolCalls'), tokens: show('tokens'), wallMs: show('wallMs') };
}

export interface LeaseStanding {
  consumed: LeaseUsage;
  reserved: LeaseBudget;
  remaining: LeaseBudget;
}

/** consumed, reserved and remaining of lease `id` at `nowMs`. */
export function leaseStanding(nodes: readonly LeaseNode[], id: string, nowMs: number): LeaseStanding {
  const { lease } = findNode(nodes, id);
  const reserved = reservedAmounts(nodes, id, nowMs);
  return { consumed: lease.consumed, reserved: reservedBudget(lease, reserved), remaining: remainingLeaseBudget(lease, reserved) };
}

/** The amounts a new child reserves on its parent: its budget, for each resource the parent limits. */
export function childReservation(parentBudget: LeaseBudget, childBudget: LeaseBudget): LeaseUsage {
  const take = (key: keyof LeaseBudget) => (parentBudget[key] === null ? 0 : (childBudget[key] ?? 0));
  return { episodes: take('episodes'), toolCalls: take('toolCalls'), tokens: take('tokens'), wallMs: take('wallMs') };
}

/** An episode's own limits on the lease resources it can cap (episodes are counted, not capped). */
export interface EpisodeCaps {
  maxToolCalls: number | null;
  maxTokens: number | null;
  maxWallMs: number | null;
}

export type EpisodeHold = { ok: true; hold: LeaseUsage; caps: EpisodeCaps } | { ok: false; resource: LeaseResource };

const CAP_KEY = { toolCalls: 'maxToolCalls', tokens: 'maxTokens', wallMs: 'maxWallMs' } as const;

/**
 * What an episode starting under a lease holds and the budget it runs with. A resource the lease
 * limits and has nothing unreserved of refuses the start (first in LEASE_RESOURCES order).
 * @param remaining the lease's unreserved remaining (remainingLeaseBudget with its reservations)
 */
export function planEpisodeHold(remaining: LeaseBudget, own: EpisodeCaps): EpisodeHold {
  const empty = LEASE_RESOURCES.find((r) => remaining[BUDGET_KEY[r]] !== null && must(remaining[BUDGET_KEY[r]]) <= 0);
  if (empty) return { ok: false, resource: empty };
  const hold: LeaseUsage = { ...NO_USAGE, episodes: remaining.episodes === null ? 0 : 1 };
  const caps: EpisodeCaps = { ...own };
  for (const key of ['toolCalls', 'tokens', 'wallMs'] as const) {
    const left = remaining[key];
    if (left === null) continue; // the lease does not limit it: the episode's own cap stands, nothing held
    const mine = own[CAP_KEY[key]];
    hold[key] = mine === null ? left : Math.min(mine, left);
    caps[CAP_KEY[key]] = hold[key];
  }
  return { ok: true, hold, caps };
}

/**
 * What an ended episode is charged. Wall time counts up to the episode's deadline: the server
 * admits nothing for the episode after it and stops it there, so the lag before the deadline job
 * runs is not the holder's spending (and a hold can never be overdrawn by it).
 */
export function episodeCharge(used: { toolCalls: number; tokens: number; elapsedMs: number }, maxWallMs: number | null): LeaseUsage {
  const wallMs = Math.max(0, maxWallMs === null ? used.elapsedMs : Math.min(used.elapsedMs, maxWallMs));
  return { episodes: 1, toolCalls: used.toolCalls, tokens: Math.round(used.tokens), wallMs: Math.round(wallMs) };
}

/** The part of a hold an episode did not use, given back when it ends. */
export function releasedHold(hold: LeaseUsage, charged: LeaseUsage): LeaseUsage {
  return combine(hold, charged, (h, c) => Math.max(0, h - c));
}

export const addUsage = (a: LeaseUsage, b: LeaseUsage) => combine(a, b, (x, y) => x + y);
export const subtractUsage = (a: LeaseUsage, b: LeaseUsage) => combine(a, b, (x, y) => x - y);
