// Expensive work is fair between tenants (issue 29): one tenant's verifyLedger calls queue behind
// each other, never in front of another tenant's. Tenant A's verification is held in the database
// by a table lock (not by timing); A's second verification (another key) waits for A's permit,
// while tenant B's gets a permit of its own and reaches the database at once.
import { expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/store.ts';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import { postRaw, waitFor } from './support.ts';

let t: TestApp;
let b: TenantKeys;
useApp(
  async (app) => {
    t = app;
    b = await app.addTenant('tenant-b');
  },
  { VERIFY_LEDGER_CONCURRENCY: '1', VERIFY_LEDGER_TOTAL_CONCURRENCY: '3' },
);

const VERIFY = JSON.stringify({ query: '{ verifyLedger { ... on LedgerVerification { ok } } }' });

/** Sessions of this database waiting for a lock: each is a verification that holds its permit. */
async function lockWaiters(): Promise<number> {
  const { rows } = await t.services.db.pool.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
  );
  return rows[0].n;
}

it("runs tenant B's verification while tenant A's runs and A's next one waits behind it", async () => {
  const a2 = await createApiKey(t.database.db.prisma, { tenantId: t.keys.tenantId, name: 'second verifier', scopes: ['read'] });
  const client = await t.services.db.pool.connect();
  await client.query('BEGIN');
  await client.query("SET LOCAL lock_timeout = '20s'");
  await client.query('LOCK TABLE ledger_events IN ACCESS EXCLUSIVE MODE');
  const released = () => client.query('COMMIT').finally(() => client.release());
  try {
    const first = postRaw(t.url, VERIFY, t.keys.read);
    await waitFor(async () => (await lockWaiters()) >= 1, "A's first verification to hold its permit");
    const second = postRaw(t.url, VERIFY, a2.token);
    const other = postRaw(t.url, VERIFY, b.read);
    // B's verification got a permit although A's is held and A has another waiting: it is in the
    // database now (with one permit for everyone, as before, it would wait behind both of A's).
    await waitFor(async () => (await lockWaiters()) >= 2, "B's verification to run beside A's");
    await released();
    const answers = await Promise.all([first, second, other]);
    expect(answers.map((a) => a.body.data?.verifyLedger?.ok)).toEqual([true, true, true]);
  } catch (err) {
    await released().catch(() => undefined);
    throw err;
  }
});
