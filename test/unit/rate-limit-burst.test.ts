// The per-key rate limit under a burst: concurrent requests share one claim on the database
// instead of each reserving a slice (which used up a minute's allowance with a hundredth of it).
import type pg from 'pg';
import { expect, it } from 'vitest';
import { RateLimiter } from '../../src/auth/rate-limit.ts';

/** rate_limit_windows in memory: the upsert adds the slice and returns the new total. */
function fakePool() {
  const used = new Map<string, number>();
  let queries = 0;
  const pool = {
    async query(_sql: string, [key, window, slice]: [string, number, number]) {
      queries += 1;
      await new Promise((r) => setTimeout(r, 5));
      const id = `${key}:${window}`;
      used.set(id, (used.get(id) ?? 0) + slice);
      return { rows: [{ used: used.get(id)! }] };
    },
  };
  return { pool: pool as unknown as pg.Pool, queries: () => queries };
}

const NOW = 1_800_000_000_000;

it('lets a burst of 300 concurrent requests through a 120,000/minute limit with one claim', async () => {
  const { pool, queries } = fakePool();
  const limiter = new RateLimiter(pool, 120_000);
  const decisions = await Promise.all(Array.from({ length: 300 }, () => limiter.take('k', NOW)));
  expect(decisions.every((d) => d.ok)).toBe(true);
  expect(queries()).toBe(1);
});

it('still counts a small limit exactly under a burst, and refuses the rest of the minute', async () => {
  const { pool } = fakePool();
  const limiter = new RateLimiter(pool, 5);
  const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.take('k', NOW)));
  expect(decisions.filter((d) => d.ok)).toHaveLength(5);
  expect((await limiter.take('k', NOW + 1_000)).ok).toBe(false);
  expect((await limiter.take('k', NOW + 60_000)).ok).toBe(true);
});
