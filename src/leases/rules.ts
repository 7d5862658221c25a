/**
 * Lease rules: a lease grants a holder a scope, an expiry and a budget, charged after
 * each episode. A child lease may only narrow its parent; numbers of episodes under a work item
 * are monotonic and 1-indexed (INV-EP01, INV-EP02).
 *
 * Accounting, per resource (src/leases/accounting.ts computes `reserved`):
 * - consumed: what ended episodes used, charged on the episode's lease and on every ancestor;
 * - reserved: promised but not spent yet: holds of the lease's live episodes, and what each child
 *   lease may still spend;
 * - remaining: budget - consumed - reserved, clamped at 0: what a new episode or child can take.
 * A lease that is not overdrawn satisfies budget = consumed + reserved + remaining.
 */

import { LEASE_RESOURCES, type LeaseResource } from '../stops/resources.ts';

/** Granted amounts; null is unlimited. */
export interface LeaseBudget {
  episodes: number | null;
  toolCalls: number | null;
  tokens: number | null;
  wallMs: number | null;
}

export interface LeaseUsage {
  episodes: number;
  toolCalls: number;
  tokens: number;
  wallMs: number;
}

export interface Lease {
  budget: LeaseBudget;
  consumed: LeaseUsage;
  /** Allowed scope entries; ['*'] (any entry '*') is unlimited. */
  scope: readonly string[];
  /** Epoch ms; null never expires. */
  expiresAtMs: number | null;
  revoked: boolean;
}

export interface ChildLeaseRequest {
  budget: LeaseBudget;
  scope: readonly string[];
  expiresAtMs: number | null;
}

export type LeaseRule = 'revoked' | 'expired' | 'budget_exceeds_parent' | 'expiry_after_parent' | 'scope_not_subset';

/** `field` is relative to the lease input (e.g. 'budget.tokens', 'scope.2'); callers prefix it. */
export interface LeaseViolation {
  rule: LeaseRule;
  field: string;
  message: string;
}

export interface LeaseCharge {
  /** False when the charge overdrew some resource: the deduction failed (INV-EP03). */
  ok: boolean;
  /** Consumption including this charge, overdraft included: the work happened either way. */
  consumed: LeaseUsage;
  /** Unreserved remaining after the charge, clamped at 0; null for unlimited resources. */
  remaining: LeaseBudget;
  /** First resource (LEASE_RESOURCES order) spent out (consumed >= budget): it will not come back. */
  exhausted: LeaseResource | null;
  /** First resource whose consumption and the other holds no longer fit the budget; null when ok. */
  overdrawn: LeaseResource | null;
}

export type EpisodeNumberResult = { ok: true; episodeNumber: number } | { ok: false; lastIssued: number; requested: number; message: string };

export const BUDGET_KEY: Record<LeaseResource, keyof LeaseBudget> = {
  episodes: 'episodes',
  tool_calls: 'toolCalls',
  tokens: 'tokens',
  wall_time: 'wallMs',
};

const UNLIMITED_SCOPE = '*';

export const NO_USAGE: LeaseUsage = { episodes: 0, toolCalls: 0, tokens: 0, wallMs: 0 };

/** What a new episode or child can take: budget - consumed - reserved, clamped at 0; null is unlimited. */
export function remainingLeaseBudget(lease: Pick<Lease, 'budget' | 'consumed'>, reserved: LeaseUsage = NO_USAGE): LeaseBudget {
  const left = (key: keyof LeaseBudget): number | null => {
    const granted = lease.budget[key];
    return granted === null ? null : Math.max(0, granted - lease.consumed[key] - reserved[key]);
  };
  return { episodes: left('episodes'), toolCalls: left('toolCalls'), tokens: left('tokens'), wallMs: left('wallMs') };
}

export function isLeaseExpired(lease: Pick<Lease, 'expiresAtMs'>, nowMs: number): boolean {
  return lease.expiresAtMs !== null && nowMs >= lease.expiresAtMs;
}

/** Violations that make a lease unusable for charging or for issuing children. */
export function checkLeaseUsable(lease: Lease, nowMs: number, field = 'lease'): LeaseViolation[] {
  const violations: LeaseViolation[] = [];
  if (lease.revoked) violations.push({ rule: 'revoked', field, message: `The ${field} is revoked` });
  if (isLeaseExpired(lease, nowMs)) violations.push({ rule: 'expired', field, message: `The ${field} has expired` });
  return violations;
}

/**
 * Everything a child lease would widen relative to its parent, at time `nowMs`. The child's budget
 * must fit what the parent has left unreserved (`parentReserved`: its live episodes' holds and its
 * other children), since issuing the child reserves that budget on the parent.
 */
export function checkChildLease(parent: Lease, child: ChildLeaseRequest, nowMs: number, parentReserved: LeaseUsage = NO_USAGE): LeaseViolation[] {
  return [
    ...checkLeaseUsable(parent, nowMs, 'parent lease'),
    ...budgetViolations(remainingLeaseBudget(parent, parentReserved), child.budget),
    ...expiryViolations(parent.expiresAtMs, child.expiresAtMs),
    ...scopeViolations(parent.scope, child.scope),
  ];
}

function budgetViolations(parentRemaining: LeaseBudget, childBudget: LeaseBudget): LeaseViolation[] {
  const violations: LeaseViolation[] = [];
  for (const resource of LEASE_RESOURCES) {
    const key = BUDGET_KEY[resource];
    const available = parentRemaining[key];
    const requested = childBudget[key];
    if (available === null || (requested !== null && requested <= available)) continue;
    const asked = requested === null ? 'unlimited' : String(requested);
    violations.push({
      rule: 'budget_exceeds_parent',
      field: `budget.${key}`,
      message: `Child ${key} budget ${asked} exceeds the parent's remaining ${available}`,
    });
  }
  return violations;
}

function expiryViolations(parentExpiry: number | null, childExpiry: number | null): LeaseViolation[] {
  if (parentExpiry === null || (childExpiry !== null && childExpiry <= parentExpiry)) return [];
  const asked = childExpiry === null ? 'never' : formatInstant(childExpiry);
  return [
    {
      rule: 'expiry_after_parent',
      field: 'expiresAt',
      message: `Child expiry ${asked} is after the parent's ${formatInstant(parentExpiry)}`,
    },
  ];
}

/** ISO time when representable; the raw number otherwise (a client may send any number). */
function formatInstant(epochMs: number): string {
  const MAX_DATE_MS = 8.64e15;
  return Number.isFinite(epochMs) && Math.abs(epochMs) <= MAX_DATE_MS ? new Date(epochMs).toISOString() : String(epochMs);
}

function scopeViolations(parentScope: readonly string[], childScope: readonly string[]): LeaseViolation[] {
  if (parentScope.includes(UNLIMITED_SCOPE)) return [];
  const allowed = new Set(parentScope);
  return childScope.flatMap((entry, index) =>
    allowed.has(entry)
      ? []
      : [
          {
            rule: 'scope_not_subset' as const,
            field: `scope.${index}`,
            message: `Scope '${entry}' is not in the parent's scope`,
          },
        ],
  );
}

/**
 * Deducts what one episode consumed (INV-EP03: a deduction that overdraws means budget exhausted).
 * `reservedByOthers` is what the lease still holds for other live episodes and children (this
 * episode's own hold is released by the charge): the charge fits when consumption plus those holds
 * stays within the budget.
 */
export function chargeLease(lease: Pick<Lease, 'budget' | 'consumed'>, charge: LeaseUsage, reservedByOthers: LeaseUsage = NO_USAGE): LeaseCharge {
  assertValidCharge(charge);
  const consumed: LeaseUsage = {
    episodes: lease.consumed.episodes + charge.episodes,
    toolCalls: lease.consumed.toolCalls + charge.toolCalls,
    tokens: lease.consumed.tokens + charge.tokens,
    wallMs: lease.consumed.wallMs + charge.wallMs,
  };
  // Balances before clamping: negative means overdrawn (with holds) or spent past the budget.
  const balance = (resource: LeaseResource, held: LeaseUsage): number | null => {
    const key = BUDGET_KEY[resource];
    const granted = lease.budget[key];
    return granted === null ? null : granted - consumed[key] - held[key];
  };
  const spentOut = (resource: LeaseResource) => (balance(resource, NO_USAGE) ?? 1) <= 0;
  const overdrawn = LEASE_RESOURCES.find((r) => (balance(r, reservedByOthers) ?? 0) < 0) ?? null;
  return {
    ok: overdrawn === null,
    consumed,
    remaining: remainingLeaseBudget({ budget: lease.budget, consumed }, reservedByOthers),
    exhausted: LEASE_RESOURCES.find(spentOut) ?? null,
    overdrawn,
  };
}

function assertValidCharge(charge: LeaseUsage): void {
  for (const [key, amount] of Object.entries(charge)) {
    if (Number.isFinite(amount) && amount >= 0) continue;
    throw new RangeError(`Lease charge ${key} must be a finite number >= 0, got ${amount}`);
  }
}

/** The highest episode number a work item can issue (the column is a 32-bit integer). */
export const MAX_EPISODE_NUMBER = 2_147_483_647;

/**
 * The number for the next episode of a work item (INV-EP01/02).
 * Without `requested`, it is lastIssued + 1. A requested number (a restarted controller's
 * initial episode number) is clamped from 0 to 1 and must be greater than lastIssued; gaps are
 * allowed because monotonic does not mean contiguous. A number that would repeat or go back is
 * refused as a result (not thrown), so the API can answer with a typed error.
 * @param lastIssued highest number issued so far for the work item; 0 when none
 */
export function nextEpisodeNumber(lastIssued: number, requested?: number | null): EpisodeNumberResult {
  if (!Number.isSafeInteger(lastIssued) || lastIssued < 0) {
    throw new RangeError(`lastIssued must be an integer >= 0, got ${lastIssued}`);
  }
  if (requested === undefined || requested === null) {
    // Numbers are stored as 32-bit integers: past the last one the work item is full, said as a typed error.
    if (lastIssued >= MAX_EPISODE_NUMBER) {
      return {
        ok: false,
        lastIssued,
        requested: lastIssued + 1,
        message: `The work item has issued the highest episode number (${MAX_EPISODE_NUMBER}); start its episodes under a new work item`,
      };
    }
    return { ok: true, episodeNumber: lastIssued + 1 };
  }
  if (!Number.isSafeInteger(requested) || requested < 0) {
    return { ok: false, lastIssued, requested, message: `Episode number must be an integer >= 0, got ${requested}` };
  }
  const episodeNumber = Math.max(1, requested);
  if (episodeNumber > lastIssued) return { ok: true, episodeNumber };
  return {
    ok: false,
    lastIssued,
    requested,
    message: `Episode number ${episodeNumber} is not after the last issued number ${lastIssued}; ` + `the next is ${lastIssued + 1} or later`,
  };
}
