import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import {
  type ChildLeaseRequest,
  chargeLease,
  checkChildLease,
  checkLeaseUsable,
  isLeaseExpired,
  type Lease,
  type LeaseBudget,
  nextEpisodeNumber,
  remainingLeaseBudget,
} from '../../src/leases/rules.ts';

const NOW = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const NO_USAGE = { episodes: 0, toolCalls: 0, tokens: 0, wallMs: 0 };

function parentLease(overrides: Partial<Lease> = {}): Lease {
  return {
    budget: { episodes: 10, toolCalls: 100, tokens: 10_000, wallMs: 60_000 },
    consumed: { episodes: 4, toolCalls: 40, tokens: 4_000, wallMs: 20_000 },
    scope: ['repo:read', 'repo:write', 'shell'],
    expiresAtMs: NOW + HOUR,
    revoked: false,
    ...overrides,
  };
}

/** Exactly the parent's remaining budget, scope and expiry: the widest legal child. */
function widestChild(overrides: Partial<ChildLeaseRequest> = {}): ChildLeaseRequest {
  return {
    budget: { episodes: 6, toolCalls: 60, tokens: 6_000, wallMs: 40_000 },
    scope: ['repo:read', 'repo:write', 'shell'],
    expiresAtMs: NOW + HOUR,
    ...overrides,
  };
}

describe('remainingLeaseBudget', () => {
  it('subtracts consumption and clamps at zero; unlimited stays null', () => {
    expect(
      remainingLeaseBudget({
        budget: { episodes: 10, toolCalls: null, tokens: 100, wallMs: 5 },
        consumed: { episodes: 3, toolCalls: 999, tokens: 150, wallMs: 5 },
      }),
    ).toEqual({ episodes: 7, toolCalls: null, tokens: 0, wallMs: 0 });
  });

  it('also subtracts what is reserved: the remaining is what is left unreserved', () => {
    const lease = { budget: { episodes: 10, toolCalls: null, tokens: 100, wallMs: 5 }, consumed: { ...NO_USAGE, episodes: 3, tokens: 20 } };
    expect(remainingLeaseBudget(lease, { episodes: 2, toolCalls: 50, tokens: 90, wallMs: 1 })).toEqual({ episodes: 5, toolCalls: null, tokens: 0, wallMs: 4 });
  });
});

describe('isLeaseExpired and checkLeaseUsable', () => {
  it('expires at the expiry instant, not before', () => {
    expect(isLeaseExpired({ expiresAtMs: NOW }, NOW - 1)).toBe(false);
    expect(isLeaseExpired({ expiresAtMs: NOW }, NOW)).toBe(true);
    expect(isLeaseExpired({ expiresAtMs: null }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('reports revoked and expired leases', () => {
    expect(checkLeaseUsable(parentLease(), NOW)).toEqual([]);
    expect(checkLeaseUsable(parentLease({ revoked: true, expiresAtMs: NOW }), NOW).map((v) => v.rule)).toEqual(['revoked', 'expired']);
  });
});

describe('checkChildLease', () => {
  it('accepts a child equal to the parent remainder', () => {
    expect(checkChildLease(parentLease(), widestChild(), NOW)).toEqual([]);
  });

  it('accepts a strictly narrower child, including an empty scope', () => {
    const child = widestChild({ budget: { episodes: 1, toolCalls: 1, tokens: 1, wallMs: 1 }, scope: [], expiresAtMs: NOW + 1 });
    expect(checkChildLease(parentLease(), child, NOW)).toEqual([]);
  });

  it.each([
    ['episodes', 7],
    ['toolCalls', 61],
    ['tokens', 6_001],
    ['wallMs', 40_001],
  ] as const)('refuses %s one above the parent remainder', (key, amount) => {
    const child = widestChild({ budget: { ...widestChild().budget, [key]: amount } });
    expect(checkChildLease(parentLease(), child, NOW)).toEqual([expect.objectContaining({ rule: 'budget_exceeds_parent', field: `budget.${key}` })]);
  });

  it('refuses an unlimited child budget under a limited parent', () => {
    const child = widestChild({ budget: { ...widestChild().budget, tokens: null } });
    const [violation] = checkChildLease(parentLease(), child, NOW);
    expect(violation).toMatchObject({ rule: 'budget_exceeds_parent', field: 'budget.tokens' });
    expect(violation?.message).toBe("Child tokens budget unlimited exceeds the parent's remaining 6000");
  });

  it('lets any child budget through where the parent is unlimited', () => {
    const unlimited: LeaseBudget = { episodes: null, toolCalls: null, tokens: null, wallMs: null };
    const child = widestChild({ budget: { episodes: null, toolCalls: 1e9, tokens: null, wallMs: 1e9 } });
    expect(checkChildLease(parentLease({ budget: unlimited }), child, NOW)).toEqual([]);
  });

  it('refuses any budget once the parent has spent a resource', () => {
    const spent = parentLease({ consumed: { ...NO_USAGE, tokens: 10_000 } });
    const child = widestChild({ budget: { episodes: 1, toolCalls: 1, tokens: 1, wallMs: 1 } });
    expect(checkChildLease(spent, child, NOW).map((v) => v.field)).toEqual(['budget.tokens']);
  });

  it('checks the budget against what the parent has left unreserved', () => {
    const reserved = { episodes: 5, toolCalls: 0, tokens: 5_000, wallMs: 0 };
    const violations = checkChildLease(parentLease(), widestChild(), NOW, reserved);
    expect(violations.map((v) => v.field)).toEqual(['budget.episodes', 'budget.tokens']);
    expect(must(violations[1]).message).toBe("Child tokens budget 6000 exceeds the parent's remaining 1000");
    expect(checkChildLease(parentLease(), widestChild({ budget: { episodes: 1, toolCalls: 60, tokens: 1_000, wallMs: 40_000 } }), NOW, reserved)).toEqual([]);
  });

  it('refuses an expiry one millisecond after the parent', () => {
    const [violation, ...rest] = checkChildLease(parentLease(), widestChild({ expiresAtMs: NOW + HOUR + 1 }), NOW);
    expect(rest).toEqual([]);
    expect(violation).toMatchObject({ rule: 'expiry_after_parent', field: 'expiresAt' });
    expect(violation?.message).toBe("Child expiry 2026-01-01T01:00:00.001Z is after the parent's 2026-01-01T01:00:00.000Z");
  });

  it('refuses a never-expiring child under an expiring parent, and allows it under a never-expiring one', () => {
    expect(checkChildLease(parentLease(), widestChild({ expiresAtMs: null }), NOW).map((v) => v.rule)).toEqual(['expiry_after_parent']);
    expect(checkChildLease(parentLease({ expiresAtMs: null }), widestChild({ expiresAtMs: null }), NOW)).toEqual([]);
  });

  it('reports an out-of-range expiry as a number instead of throwing', () => {
    const [violation] = checkChildLease(parentLease(), widestChild({ expiresAtMs: 1e300 }), NOW);
    expect(violation?.message).toContain('1e+300');
  });

  it('refuses scope entries missing from the parent, naming each by index', () => {
    const child = widestChild({ scope: ['repo:read', 'deploy', '*'] });
    expect(checkChildLease(parentLease(), child, NOW)).toEqual([
      expect.objectContaining({ rule: 'scope_not_subset', field: 'scope.1', message: "Scope 'deploy' is not in the parent's scope" }),
      expect.objectContaining({ rule: 'scope_not_subset', field: 'scope.2' }),
    ]);
  });

  it("lets any scope through under the parent's '*'", () => {
    expect(checkChildLease(parentLease({ scope: ['*'] }), widestChild({ scope: ['*', 'deploy'] }), NOW)).toEqual([]);
  });

  it('refuses children of revoked or expired parents', () => {
    expect(checkChildLease(parentLease({ revoked: true }), widestChild(), NOW).map((v) => v.rule)).toEqual(['revoked']);
    const expired = checkChildLease(parentLease({ expiresAtMs: NOW }), widestChild({ expiresAtMs: NOW }), NOW);
    expect(expired).toEqual([expect.objectContaining({ rule: 'expired', field: 'parent lease', message: 'The parent lease has expired' })]);
  });

  it('reports every widening at once', () => {
    const child: ChildLeaseRequest = {
      budget: { episodes: 100, toolCalls: null, tokens: 1, wallMs: 1 },
      scope: ['admin'],
      expiresAtMs: NOW + 2 * HOUR,
    };
    expect(checkChildLease(parentLease({ revoked: true }), child, NOW).map((v) => v.field)).toEqual([
      'parent lease',
      'budget.episodes',
      'budget.toolCalls',
      'expiresAt',
      'scope.0',
    ]);
  });
});

describe('chargeLease (INV-EP03)', () => {
  const lease = { budget: { episodes: 3, toolCalls: null, tokens: 100, wallMs: 1000 }, consumed: { ...NO_USAGE, episodes: 1 } };

  it('deducts a charge that fits', () => {
    expect(chargeLease(lease, { episodes: 1, toolCalls: 50, tokens: 40, wallMs: 100 })).toEqual({
      ok: true,
      consumed: { episodes: 2, toolCalls: 50, tokens: 40, wallMs: 100 },
      remaining: { episodes: 1, toolCalls: null, tokens: 60, wallMs: 900 },
      exhausted: null,
      overdrawn: null,
    });
  });

  it('a charge landing exactly on a limit succeeds but leaves that resource exhausted', () => {
    const result = chargeLease(lease, { episodes: 1, toolCalls: 0, tokens: 100, wallMs: 0 });
    expect(result).toMatchObject({ ok: true, exhausted: 'tokens', remaining: { tokens: 0 } });
  });

  it('a charge one over a limit fails, records the overdraft and clamps the remainder', () => {
    const result = chargeLease(lease, { episodes: 1, toolCalls: 0, tokens: 101, wallMs: 0 });
    expect(result).toMatchObject({ ok: false, exhausted: 'tokens', consumed: { tokens: 101 }, remaining: { tokens: 0 } });
  });

  it('reports the first exhausted resource in seed order (episodes before tokens)', () => {
    const result = chargeLease(lease, { episodes: 2, toolCalls: 0, tokens: 500, wallMs: 0 });
    expect(result).toMatchObject({ ok: false, exhausted: 'episodes' });
  });

  it('is overdrawn when consumption and the other holds exceed the budget, though not spent out', () => {
    const result = chargeLease(lease, { episodes: 0, toolCalls: 0, tokens: 70, wallMs: 0 }, { ...NO_USAGE, tokens: 40 });
    expect(result).toMatchObject({ ok: false, overdrawn: 'tokens', exhausted: null, consumed: { tokens: 70 }, remaining: { tokens: 0 } });
    expect(chargeLease(lease, { episodes: 0, toolCalls: 0, tokens: 60, wallMs: 0 }, { ...NO_USAGE, tokens: 40 })).toMatchObject({
      ok: true,
      overdrawn: null,
      remaining: { tokens: 0 },
    });
  });

  it('reports the remaining net of the other holds', () => {
    expect(chargeLease(lease, { episodes: 1, toolCalls: 0, tokens: 10, wallMs: 0 }, { episodes: 1, toolCalls: 0, tokens: 30, wallMs: 200 }).remaining).toEqual({
      episodes: 0,
      toolCalls: null,
      tokens: 60,
      wallMs: 800,
    });
  });

  it('never exhausts an unlimited resource', () => {
    expect(chargeLease(lease, { episodes: 0, toolCalls: 1e12, tokens: 0, wallMs: 0 })).toMatchObject({ ok: true, exhausted: null });
  });

  it('does not mutate the lease', () => {
    chargeLease(lease, { episodes: 1, toolCalls: 1, tokens: 1, wallMs: 1 });
    expect(lease.consumed).toEqual({ ...NO_USAGE, episodes: 1 });
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('throws on an invalid charge amount %s', (amount) => {
    expect(() => chargeLease(lease, { ...NO_USAGE, tokens: amount })).toThrow(RangeError);
  });
});

describe('nextEpisodeNumber (INV-EP01/02)', () => {
  it('starts at 1 and follows the last issued number', () => {
    expect(nextEpisodeNumber(0)).toEqual({ ok: true, episodeNumber: 1 });
    expect(nextEpisodeNumber(3)).toEqual({ ok: true, episodeNumber: 4 });
    expect(nextEpisodeNumber(3, null)).toEqual({ ok: true, episodeNumber: 4 });
  });

  it('clamps a requested 0 to 1', () => {
    expect(nextEpisodeNumber(0, 0)).toEqual({ ok: true, episodeNumber: 1 });
  });

  it('refuses a requested 0 once episode 1 exists', () => {
    expect(nextEpisodeNumber(1, 0)).toMatchObject({ ok: false, lastIssued: 1, requested: 0 });
  });

  it('accepts the next number and a later one (gaps allowed)', () => {
    expect(nextEpisodeNumber(3, 4)).toEqual({ ok: true, episodeNumber: 4 });
    expect(nextEpisodeNumber(3, 10)).toEqual({ ok: true, episodeNumber: 10 });
  });

  it('refuses a number equal to or below the last issued', () => {
    expect(nextEpisodeNumber(3, 3)).toEqual({
      ok: false,
      lastIssued: 3,
      requested: 3,
      message: 'Episode number 3 is not after the last issued number 3; the next is 4 or later',
    });
    expect(nextEpisodeNumber(3, 2)).toMatchObject({ ok: false });
  });

  it.each([-1, 1.5, Number.NaN])('refuses a malformed requested number %s', (requested) => {
    expect(nextEpisodeNumber(0, requested)).toMatchObject({ ok: false, requested });
  });

  it.each([-1, 0.5])('throws on a corrupt lastIssued %s', (lastIssued) => {
    expect(() => nextEpisodeNumber(lastIssued)).toThrow(RangeError);
  });
});
