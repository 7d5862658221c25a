// The API key cache against a real database whose only connection is held, so every reload waits
// out its checkout timeout (a saturated pool): a key read less than a minute ago still
// authenticates (a request that needs no database is not failed for the key's reload), an older
// one or an unknown key does not (the error reaches the caller, who answers OVERLOADED).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KeyCache } from '../../src/auth/key-cache.ts';
import { createApiKey, createTenant } from '../../src/auth/store.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { attachDatabase, createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

let database: MigratedDatabase;
let saturated: Database;
let token: string;
let other: string;

beforeAll(async () => {
  database = await createMigratedDatabase();
  const tenant = await createTenant(database.db.prisma, 'tenant-keys');
  token = (await createApiKey(database.db.prisma, { tenantId: tenant.id, name: 'read', scopes: ['read'] })).token;
  other = (await createApiKey(database.db.prisma, { tenantId: tenant.id, name: 'other', scopes: ['read'] })).token;
  // One connection, checkouts given up after 200 ms.
  saturated = createDatabase(database.url, 1, 200);
});

afterAll(async () => {
  await saturated?.close();
  await database?.drop();
});

it('authenticates a key read under a minute ago while the pool cannot lend a connection, and no other', async () => {
  const keys = new KeyCache(saturated.pool, 1_000);
  const t0 = new Date();
  const first = await keys.authenticate(token, t0);
  expect(first).toMatchObject({ viewer: { scopes: ['read'] } });
  const held = await saturated.pool.connect();
  try {
    const later = new Date(t0.getTime() + 30_000);
    expect(await keys.authenticate(token, later)).toMatchObject({ viewer: { scopes: ['read'] } });
    // Never read: nothing to fall back on.
    await expect(keys.authenticate(other, later)).rejects.toThrow(/timeout exceeded when trying to connect/);
    // Read too long ago to stand in for the row.
    await expect(keys.authenticate(token, new Date(t0.getTime() + 61_000))).rejects.toThrow(/timeout exceeded/);
  } finally {
    held.release();
  }
  // With the database back, the reload reads the row again (a revocation made elsewhere shows).
  const again = attachDatabase(database, 2);
  try {
    await again.db.pool.query('UPDATE api_keys SET revoked_at = now()');
  } finally {
    await again.drop();
  }
  expect(await keys.authenticate(token, new Date(t0.getTime() + 62_000))).toEqual({ failure: 'revoked' });
});

it("reads a key's row once for all of its concurrent requests when the kept row is due for a reload", async () => {
  const tenant = await createTenant(database.db.prisma, 'tenant-busy-key');
  const busy = (await createApiKey(database.db.prisma, { tenantId: tenant.id, name: 'busy', scopes: ['write'] })).token;
  const pool = database.db.pool;
  let reads = 0;
  const counting = Object.create(pool) as typeof pool;
  counting.query = ((text: unknown, values?: unknown) => {
    if (typeof text === 'string' && text.includes('FROM api_keys')) reads += 1;
    return pool.query(text as string, values as unknown[]);
  }) as typeof pool.query;
  const keys = new KeyCache(counting, 1_000);
  const t0 = new Date();
  const burst = async (at: Date) => {
    const answers = await Promise.all(Array.from({ length: 100 }, () => keys.authenticate(busy, at)));
    for (const a of answers) expect(a).toMatchObject({ viewer: { tenantId: tenant.id } });
  };
  await burst(t0);
  expect(reads).toBe(1);
  await burst(new Date(t0.getTime() + 1_500));
  expect(reads).toBe(2);
});
