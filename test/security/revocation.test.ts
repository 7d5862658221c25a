// A key's revocation or expiry ends its streams at once, in every process: the revocation's commit
// travels through the ledger fan-out (issue 29). Two server processes share one database; the
// periodic key re-read is set to a minute, so only the fan-out (or the expiry timer) can end the
// streams within the test. A writer keeps committing events on the process that holds the streams
// (the fastest path to a subscriber), and no event committed after the revocation may arrive.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey, revokeApiKeyRecorded } from '../../src/auth/store.ts';
import { must } from '../../src/core/must.ts';
import { createWriter } from '../../src/write.ts';
import { LEDGER_EVENTS, sseEvents, startEpisode } from '../ledger-live/support.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { acked, rawSocket, waitFor } from './support.ts';

let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  a = await startTestApp({ KEY_RECHECK_MS: '60000' });
  b = await startTestApp({ KEY_RECHECK_MS: '60000' }, { shareDatabaseOf: a });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

interface Delivered {
  seqs: number[];
  createdAt: string[];
  codes: string[];
}

/** An SSE ledgerEvents subscription on `app`; `ended` resolves when the server ends it. */
async function sseStream(app: TestApp, token: string): Promise<{ got: Delivered; ended: Promise<void> }> {
  const res = await fetch(app.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: LEDGER_EVENTS.replace('tenantId', 'tenantId createdAt') }),
  });
  expect(res.status).toBe(200);
  const got: Delivered = { seqs: [], createdAt: [], codes: [] };
  const ended = (async () => {
    for await (const { event, data } of sseEvents(res)) {
      if (event !== 'next') continue;
      for (const e of data.errors ?? []) got.codes.push(e.extensions?.code);
      const ev = data.data?.ledgerEvents;
      if (ev) got.seqs.push(Number(ev.seq)), got.createdAt.push(ev.createdAt);
    }
  })();
  return { got, ended };
}

/** A graphql-ws socket with one ledgerEvents subscription on `app`. */
async function wsStream(app: TestApp, token: string) {
  const socket = rawSocket(app.url, token);
  await acked(socket);
  socket.send({ id: 'live', type: 'subscribe', payload: { query: LEDGER_EVENTS.replace('tenantId', 'tenantId createdAt') } });
  const delivered = (): Json[] => socket.messages.filter((m) => m.type === 'next' && m.payload.data?.ledgerEvents).map((m) => m.payload.data.ledgerEvents);
  return { socket, delivered };
}

/** Commits events on `app` until stopped (each start is one episode.started event). */
function keepWriting(app: TestApp): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) await startEpisode(app);
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

async function revocationSeq(app: TestApp, keyId: string): Promise<number> {
  const { rows } = await app.services.db.pool.query<{ seq: string }>(
    `SELECT seq FROM ledger_events WHERE tenant_id = $1 AND type = 'api_key.revoked' AND payload->>'keyId' = $2`,
    [app.keys.tenantId, keyId],
  );
  return Number(must(rows[0]).seq);
}

it('a revocation on one process ends the key’s SSE and graphql-ws streams on another at once; nothing committed after it arrives', async () => {
  const key = await createApiKey(a.database.db.prisma, { tenantId: a.keys.tenantId, name: 'watched', scopes: ['read'] });
  const sse = await sseStream(b, key.token);
  const ws = await wsStream(b, key.token);
  const writer = keepWriting(b);
  await waitFor(() => sse.got.seqs.length >= 3 && ws.delivered().length >= 3, 'live events on both transports');
  const revoked = await a.gql('mutation($id: ID!) { revokeApiKey(id: $id) { ... on ApiKey { revokedAt } } }', { id: key.id });
  expect(revoked.data?.revokeApiKey.revokedAt).toBeTruthy();
  const cut = await revocationSeq(a, key.id);
  // The periodic re-read is a minute away: only the fan-out can end them now.
  await sse.ended;
  const closed = await ws.socket.closed;
  // Events keep committing after the revocation; none of them may reach the revoked key.
  for (let i = 0; i < 3; i++) await startEpisode(b);
  await writer.stop();
  expect(sse.got.codes).toEqual(['KEY_REVOKED']);
  expect(closed.code).toBe(4403);
  expect(Math.max(...sse.got.seqs)).toBeLessThan(cut);
  expect(Math.max(...ws.delivered().map((e) => Number(e.seq)))).toBeLessThan(cut);
});

it('an expiring key’s SSE and graphql-ws streams end when it expires; nothing created after the expiry arrives', async () => {
  const expiresAt = new Date(Date.now() + 2_500);
  const key = await createApiKey(a.database.db.prisma, { tenantId: a.keys.tenantId, name: 'expiring', scopes: ['read'], expiresAt });
  const sse = await sseStream(b, key.token);
  const ws = await wsStream(b, key.token);
  const writer = keepWriting(b);
  await sse.ended;
  const closed = await ws.socket.closed;
  await writer.stop();
  expect(sse.got.codes).toEqual(['KEY_REVOKED']);
  expect(closed.code).toBe(4403);
  const created = [...sse.got.createdAt, ...ws.delivered().map((e) => String(e.createdAt))].map((c) => Date.parse(c));
  expect(created.length).toBeGreaterThan(0);
  expect(Math.max(...created)).toBeLessThan(expiresAt.getTime());
});

it('cuts at the revocation’s place in the ledger even when its announcement never arrives', async () => {
  const key = await createApiKey(a.database.db.prisma, { tenantId: a.keys.tenantId, name: 'unannounced', scopes: ['read'] });
  const sse = await sseStream(b, key.token);
  const ws = await wsStream(b, key.token);
  const writer = keepWriting(b);
  await waitFor(() => sse.got.seqs.length >= 3 && ws.delivered().length >= 3, 'live events on both transports');
  // A writer without the server's commit hooks: the revocation commits, nobody announces it (a lost
  // notification). B's own writes wake its subscribers, whose next page holds the revocation event.
  await createWriter(a.services.db.pool, []).run(a.keys.tenantId, (w) => revokeApiKeyRecorded(w, key.id, { operator: 'cli' }));
  const cut = await revocationSeq(a, key.id);
  await sse.ended;
  const wsEnded = await waitFor(() => ws.socket.messages.find((m) => m.id === 'live' && m.type === 'complete'), 'the ws subscription to complete');
  await writer.stop();
  expect(wsEnded).toBeTruthy();
  expect(sse.got.codes).toEqual(['KEY_REVOKED']);
  const wsCodes = ws.socket.messages.flatMap((m) => (m.type === 'next' ? (m.payload.errors ?? []).map((e: Json) => e.extensions.code) : []));
  expect(wsCodes).toEqual(['KEY_REVOKED']);
  expect(Math.max(...sse.got.seqs)).toBeLessThan(cut);
  expect(Math.max(...ws.delivered().map((e) => Number(e.seq)))).toBeLessThan(cut);
  ws.socket.close();
});
