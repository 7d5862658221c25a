// Audit findings (docs/SECURITY.md, "Audit"): /metrics needs a key and keeps a bounded set of
// labels; SSE subscriptions end when their key is revoked or expires, as WebSockets do; one key's
// open streams are capped. Real server, real PostgreSQL, real SSE over HTTP.
import { expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/store.ts';
import { LEDGER_EVENTS, sseEvents } from '../ledger-live/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { acked, postRaw, rawSocket, waitFor } from './support.ts';

let t: TestApp;
useApp((app) => (t = app), { KEY_RECHECK_MS: '100', MAX_STREAMS_PER_KEY: '3', METRICS_TOKEN: 'm'.repeat(40) });

const metricsUrl = () => t.url.replace('/graphql', '/metrics');

function metrics(token: string | null): Promise<Response> {
  return fetch(metricsUrl(), { headers: token ? { authorization: `Bearer ${token}` } : {} });
}

async function readKey(expiresAt: Date | null = null): Promise<{ id: string; token: string }> {
  const key = await createApiKey(t.database.db.prisma, { tenantId: t.keys.tenantId, name: 'sse reader', scopes: ['read'], expiresAt });
  return { id: key.id, token: key.token };
}

function subscribeSse(token: string, signal: AbortSignal): Promise<Response> {
  return fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: LEDGER_EVENTS, variables: { afterSeq: '0' } }),
    signal,
  });
}

/** Reads the SSE answer to its end; the codes of the errors it carried, and how long it stayed open. */
async function untilClosed(res: Response): Promise<{ codes: string[]; events: number }> {
  const codes: string[] = [];
  let events = 0;
  for await (const { event, data } of sseEvents(res)) {
    if (event !== 'next') continue;
    events += 1;
    for (const e of data.errors ?? []) codes.push(e.extensions?.code);
  }
  return { codes, events };
}

it('refuses /metrics without an admin key or the metrics token', async () => {
  expect((await metrics(null)).status).toBe(401);
  expect((await metrics(t.keys.read)).status).toBe(401);
  expect((await metrics(t.keys.write)).status).toBe(401);
  expect((await metrics(`${'m'.repeat(39)}x`)).status).toBe(401);
  expect((await metrics(t.keys.admin)).status).toBe(200);
  expect((await metrics('m'.repeat(40))).status).toBe(200);
});

it('keeps metric labels bounded: no operation names, URLs or unauthenticated traffic', async () => {
  await t.gql('query TenantSecretOperationName { viewer { id } }', {}, t.keys.read);
  const before = await (await metrics(t.keys.admin)).text();
  expect(before).not.toContain('TenantSecretOperationName');
  expect(before).toMatch(/graphql_envelop_request\{operationType="query",operation="viewer"\} \d+/);
  // A 1 MB unauthenticated request with a unique operation name, answered 401, adds nothing.
  const name = `Flood${'x'.repeat(1_000_000)}`;
  const refused = await postRaw(t.url, JSON.stringify({ query: `query ${name} { viewer { id } }` }), null);
  expect(refused.status).toBe(401);
  for (let i = 0; i < 20; i++) await t.gql(`query Unknown${i} { viewer { id } }`, {}, t.keys.read);
  const after = await (await metrics(t.keys.admin)).text();
  expect(after).not.toContain('Flood');
  expect(after).not.toContain('Unknown1');
  const series = (text: string) => text.split('\n').filter((l) => l.startsWith('graphql_envelop')).length;
  expect(series(after)).toBe(series(before));
});

it('ends an SSE subscription soon after its key is revoked, with KEY_REVOKED', async () => {
  const key = await readKey();
  const abort = new AbortController();
  const res = await subscribeSse(key.token, abort.signal);
  expect(res.status).toBe(200);
  const ended = untilClosed(res);
  await new Promise((r) => setTimeout(r, 200));
  const revoked = await t.gql('mutation($id: ID!) { revokeApiKey(id: $id) { ... on ApiKey { revokedAt } } }', { id: key.id });
  expect(revoked.data.revokeApiKey.revokedAt).toBeTruthy();
  const { codes } = await ended;
  expect(codes).toContain('KEY_REVOKED');
  abort.abort();
});

it('ends an SSE subscription when its key expires', async () => {
  const key = await readKey(new Date(Date.now() + 3_600_000));
  const res = await subscribeSse(key.token, new AbortController().signal);
  expect(res.status).toBe(200);
  // The clock moves past the expiry (a key expiring 1.5 s ahead was refused before the stream
  // opened on a busy machine); the server's recheck compares expires_at with its own clock.
  await t.database.db.pool.query('UPDATE api_keys SET expires_at = now() WHERE id = $1', [key.id]);
  const { codes } = await untilClosed(res);
  expect(codes).toEqual(['KEY_REVOKED']);
});

it("caps one key's open subscriptions across SSE and WebSocket, leaving other keys theirs", async () => {
  const key = await readKey();
  const abort = new AbortController();
  const open = await Promise.all([0, 1].map(() => subscribeSse(key.token, abort.signal)));
  expect(open.map((r) => r.status)).toEqual([200, 200]);
  const socket = rawSocket(t.url, key.token);
  await acked(socket);
  // Replaying from seq 0 (the key's own api_key.created event at least), it is open once an event arrives.
  socket.send({ id: 'a', type: 'subscribe', payload: { query: 'subscription { ledgerEvents(afterSeq: 0) { seq } }' } });
  await waitFor(() => socket.messages.find((m) => m.id === 'a' && m.type === 'next'), 'the WebSocket subscription to be open');
  const fourth = await subscribeSse(key.token, abort.signal);
  const { codes } = await untilClosed(fourth);
  expect(codes).toEqual(['TOO_MANY_STREAMS']);
  const other = await subscribeSse(t.keys.read, abort.signal);
  expect(other.status).toBe(200);
  expect(other.headers.get('content-type')).toContain('text/event-stream');
  abort.abort();
  socket.close();
});
