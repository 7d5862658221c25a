// The same subscriptions over SSE: yoga serves them on /graphql for Accept: text/event-stream.
import { expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import { LEDGER_EVENTS, logSteps, range, seqsOf, sseEvents, startEpisode, storedLedger, waitUntil } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

it('replays and then streams ledger events over SSE', async () => {
  const episode = await startEpisode(t);
  await logSteps(t, episode);
  const abort = new AbortController();
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${t.keys.read}` },
    body: JSON.stringify({ query: LEDGER_EVENTS, variables: { afterSeq: '0' } }),
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');

  const received: Array<{ seq: string }> = [];
  let wroteLive = false;
  for await (const { event, data } of sseEvents(res)) {
    if (event !== 'next') continue;
    expect(data.errors).toBeUndefined();
    received.push(data.data.ledgerEvents);
    if (received.length === 2 && !wroteLive) {
      wroteLive = true;
      await logSteps(t, episode, 2); // arrives live
    }
    if (received.length === 3) break;
  }
  abort.abort();
  await waitUntil(() => t.services.ledgerBus.subscribers === 0, 'the tail to stop when the client goes away');
  expect(seqsOf(received)).toEqual(range(3));
  expect(seqsOf(await storedLedger(t))).toEqual(range(3));
});
