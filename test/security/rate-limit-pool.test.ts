// The per-key rate limit on a real PostgreSQL pool (rate_limit_windows), as the server runs it:
// a burst shares one claim, a small limit is exact, and two processes share one allowance.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RateLimiter } from '../../src/auth/rate-limit.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

let database: MigratedDatabase;
beforeAll(async () => {
  database = await createMigratedDatabase();
});
afterAll(() => database.drop());

const NOW = 1_800_000_000_000; // the start of a minute
const pool = () => database.db.pool;

/** What the table holds for the key in the window of `now`. */
async function used(keyId: string, now = NOW): Promise<number | null> {
  const { rows } = await pool().query('SELECT used FROM rate_limit_windows WHERE key_id = $1 AND window_start = to_timestamp($2)', [
    keyId,
    Math.floor(now / 60_000) * 60,
  ]);
  return rows[0]?.used ?? null;
}

it('lets a burst of 300 concurrent requests through a 120,000/minute limit with one claimed slice', async () => {
  const key = randomUUID();
  const limiter = new RateLimiter(pool(), 120_000);
  const decisions = await Promise.all(Array.from({ length: 300 }, () => limiter.take(key, NOW)));
  expect(decisions.every((d) => d.ok)).toBe(true);
  expect(await used(key)).toBe(1_200); // one slice of 1%, not one per request
});

it('counts a small limit exactly under a burst, refuses the rest of the minute and opens the next', async () => {
  const key = randomUUID();
  const limiter = new RateLimiter(pool(), 5);
  const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.take(key, NOW)));
  expect(decisions.filter((d) => d.ok)).toHaveLength(5);
  expect(await limiter.take(key, NOW + 1_000)).toEqual({ ok: false, retryAfterMs: 59_000 });
  expect((await limiter.take(key, NOW + 60_000)).ok).toBe(true);
  expect(await used(key, NOW + 60_000)).toBe(1);
});

it('shares one allowance between two server processes (two limiters on one table)', async () => {
  const key = randomUUID();
  const [one, two] = [new RateLimiter(pool(), 7), new RateLimiter(pool(), 7)];
  const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).take(key, NOW)));
  expect(decisions.filter((d) => d.ok)).toHaveLength(7);
  expect([(await one.take(key, NOW)).ok, (await two.take(key, NOW)).ok]).toEqual([false, false]);
});
