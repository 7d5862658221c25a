// MAX_STREAMS_PER_KEY holds for one key across SSE and graphql-ws together (issue 29): subscriptions
// opened at once over several sockets and SSE requests, mixed, are admitted up to the cap and no
// further; another key keeps its own; a completed stream frees its place. The count is per process.
import { expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/store.ts';
import { LEDGER_EVENTS, sseEvents, startEpisode } from '../ledger-live/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { acked, type RawSocket, rawSocket, waitFor } from './support.ts';

const CAP = 5;
let t: TestApp;
useApp((app) => (t = app), { MAX_STREAMS_PER_KEY: String(CAP) });

type Outcome = 'live' | 'refused' | 'pending';

/** An SSE subscription: refused (TOO_MANY_STREAMS) or live (an event arrived). */
function sse(token: string, abort: AbortController) {
  const state: { outcome: Outcome } = { outcome: 'pending' };
  void (async () => {
    const res = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: LEDGER_EVENTS, variables: { afterSeq: '0' } }),
      signal: abort.signal,
    });
    for await (const { event, data } of sseEvents(res)) {
      if (event !== 'next' || state.outcome !== 'pending') continue;
      state.outcome = data.errors?.[0]?.extensions?.code === 'TOO_MANY_STREAMS' ? 'refused' : data.data?.ledgerEvents ? 'live' : state.outcome;
    }
  })().catch(() => undefined);
  return state;
}

function wsOutcome(socket: RawSocket, id: string): Outcome {
  for (const m of socket.messages as Json[]) {
    if (m.id !== id || m.type !== 'next') continue;
    if (m.payload.errors?.[0]?.extensions?.code === 'TOO_MANY_STREAMS') return 'refused';
    if (m.payload.data?.ledgerEvents) return 'live';
  }
  return 'pending';
}

it(`admits ${CAP} streams of one key across SSE and graphql-ws opened at once, refuses the rest, and frees a place when one ends`, async () => {
  const key = await createApiKey(t.database.db.prisma, { tenantId: t.keys.tenantId, name: 'many streams', scopes: ['read'] });
  // Every stream replays from seq 0, so a live one shows itself with this event, whenever it opened.
  await startEpisode(t);
  const abort = new AbortController();
  const sockets = [0, 1, 2, 3].map(() => rawSocket(t.url, key.token));
  await Promise.all(sockets.map(acked));
  const ids = ['x', 'y', 'z'];
  // Interleaved: WebSocket subscribes and SSE requests race each other for the key's places.
  const sses: Array<{ outcome: Outcome }> = [];
  for (const socket of sockets) {
    for (const id of ids) socket.send({ id, type: 'subscribe', payload: { query: LEDGER_EVENTS, variables: { afterSeq: '0' } } });
    sses.push(sse(key.token, abort));
  }
  const outcomes = () => [...sockets.flatMap((s) => ids.map((id) => wsOutcome(s, id))), ...sses.map((s) => s.outcome)];
  await waitFor(() => !outcomes().includes('pending'), 'every stream to be live or refused');
  expect(outcomes().filter((o) => o === 'live')).toHaveLength(CAP);
  expect(outcomes().filter((o) => o === 'refused')).toHaveLength(16 - CAP);

  // Another key of the tenant has its own places.
  const other = sse(t.keys.read, abort);
  // Closing the sockets frees their places: a new SSE stream of the key is admitted.
  for (const s of sockets) s.close();
  await Promise.all(sockets.map((s) => s.closed));
  const liveSse = sses.filter((s) => s.outcome === 'live').length;
  const again = Array.from({ length: CAP - liveSse }, () => sse(key.token, abort));
  await waitFor(() => [...again, other].every((s) => s.outcome === 'live'), 'the new streams to be live');
  // The key is at its cap again.
  const over = sse(key.token, abort);
  await waitFor(() => over.outcome === 'refused', 'one more stream to be refused');
  abort.abort();
});
