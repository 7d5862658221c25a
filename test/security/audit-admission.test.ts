// Audit findings on admission (docs/SECURITY.md, "Audit"): half-sent requests hold no request slot
// and are cut off; one key holds at most its share of the slots; readiness says when every slot is
// taken; verifyLedger runs once per document and once at a time per key. Requests are held in
// progress deterministically by a row or table lock taken in PostgreSQL, not by timing.
import net from 'node:net';
import type pg from 'pg';
import { expect, it } from 'vitest';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import { postRaw, waitFor } from './support.ts';

let t: TestApp;
let other: TenantKeys;
useApp(
  async (app) => {
    t = app;
    other = await app.addTenant('other');
  },
  { MAX_CONCURRENT_REQUESTS: '4', MAX_REQUESTS_PER_KEY: '2', MAX_QUEUED_PER_KEY: '0', HEADERS_TIMEOUT_MS: '1000', BODY_TIMEOUT_MS: '1500' },
  // Admission slots are held per response on the socket: "another tenant is still served" proves
  // something only if its call could have been refused, so gql goes over the socket too.
  { overSocket: true },
);

const START = 'mutation { startEpisode(input: { taskDescription: "held", taskType: "t" }) { __typename } }';

/** Opens a connection that sends headers and half of a declared body, then goes quiet. */
function halfSentPost(url: string): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => {
      socket.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"query":"{ vi`);
      let answer = '';
      socket.on('data', (d) => (answer += d));
      const closed = new Promise<string>((r) => socket.on('close', () => r(answer)));
      resolve({ socket, closed });
    });
    socket.on('error', reject);
  });
}

/** Holds tenant `tenantId`'s ledger head locked: its writes wait until release(). */
async function holdLedgerHead(pool: pg.Pool, tenantId: string): Promise<() => Promise<void>> {
  const client = await pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM ledger_heads WHERE tenant_id = $1 FOR UPDATE', [tenantId]);
  return async () => {
    await client.query('COMMIT');
    client.release();
  };
}

const readyz = async () => (await fetch(t.url.replace('/graphql', '/readyz'))).status;

it('serves other clients while more half-sent POSTs than request slots wait, and cuts those off', async () => {
  const idle = await Promise.all(Array.from({ length: 8 }, () => halfSentPost(t.url)));
  await new Promise((r) => setTimeout(r, 200));
  const answer = await t.gql('{ viewer { name } }', {}, other.read);
  expect(answer.data?.viewer?.name).toBe('other');
  expect(await readyz()).toBe(200);
  // BODY_TIMEOUT_MS: node answers 408 and closes each of them.
  const answers = await Promise.all(idle.map((c) => c.closed));
  for (const a of answers) expect(a === '' || a.startsWith('HTTP/1.1 408')).toBe(true);
});

it('gives one key at most its share of the slots, says saturated when all are taken, and recovers', async () => {
  await t.gql(START, {}, t.keys.write); // the ledger head row exists from here on
  const release = await holdLedgerHead(t.services.db.pool, t.keys.tenantId);
  const held = [postRaw(t.url, JSON.stringify({ query: START }), t.keys.write), postRaw(t.url, JSON.stringify({ query: START }), t.keys.write)];
  await waitFor(
    async () =>
      (await t.services.db.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"))
        .rows[0].n >= 2,
    'two writes waiting',
  );
  const third = await postRaw(t.url, JSON.stringify({ query: START }), t.keys.write);
  expect(third.status).toBe(503);
  expect(third.body.errors[0].extensions.code).toBe('OVERLOADED');
  expect(third.body.errors[0].message).toContain('MAX_REQUESTS_PER_KEY');
  // Another tenant is still served, and readiness is true while slots are left.
  expect((await t.gql('{ viewer { name } }', {}, other.read)).data?.viewer?.name).toBe('other');
  expect(await readyz()).toBe(200);
  // Two more held by another key of the same tenant: all 4 slots are taken.
  held.push(postRaw(t.url, JSON.stringify({ query: START }), t.keys.admin), postRaw(t.url, JSON.stringify({ query: START }), t.keys.admin));
  await waitFor(async () => (await readyz()) === 503, 'readiness to report saturation');
  const refused = await postRaw(t.url, JSON.stringify({ query: '{ viewer { id } }' }), other.read);
  expect(refused.body.errors[0].extensions.code).toBe('OVERLOADED');
  await release();
  const done = await Promise.all(held);
  expect(done.map((d) => d.body.data?.startEpisode?.__typename)).toEqual([
    'StartEpisodePayload',
    'StartEpisodePayload',
    'StartEpisodePayload',
    'StartEpisodePayload',
  ]);
  expect(await readyz()).toBe(200);
});

it('refuses verifyLedger twice in one document, and a second one of the same key while the first runs', async () => {
  const aliased = await postRaw(t.url, JSON.stringify({ query: '{ a: verifyLedger { __typename } b: verifyLedger { __typename } }' }), t.keys.read);
  expect(aliased.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  expect(aliased.body.errors[0].message).toMatch(/verifyLedger may appear once/);

  const client = await t.services.db.pool.connect();
  await client.query('BEGIN');
  await client.query("SET LOCAL lock_timeout = '10s'");
  await client.query('LOCK TABLE ledger_events IN ACCESS EXCLUSIVE MODE');
  const released = () => client.query('COMMIT').finally(() => client.release());
  try {
    const first = postRaw(t.url, JSON.stringify({ query: '{ verifyLedger { ... on LedgerVerification { ok } } }' }), t.keys.read);
    await waitFor(
      async () =>
        (await t.services.db.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"))
          .rows[0].n >= 1,
      'the verification to wait',
    );
    const second = await postRaw(t.url, JSON.stringify({ query: '{ verifyLedger { ... on LedgerVerification { ok } } }' }), t.keys.read);
    expect(second.status).toBe(429);
    expect(second.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // Another tenant's simple query does not wait for the verification.
    expect((await t.gql('{ viewer { name } }', {}, other.read)).data?.viewer?.name).toBe('other');
    await released();
    expect((await first).body.data.verifyLedger.ok).toBe(true);
  } catch (err) {
    await released().catch(() => undefined);
    throw err;
  }
});
