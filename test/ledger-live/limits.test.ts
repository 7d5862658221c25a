// The per-connection subscription cap, and a slow consumer: its subscription ends with an error
// that names the seq to resume after, never a silent gap.
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { must } from '../../src/core/must.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { LEDGER_EVENTS, logSteps, range, seqsOf, startEpisode, storedLedger, waitUntil, watch } from './support.ts';

let t: TestApp;
beforeAll(async () => {
  // A bound of 1 byte: Json send that stalls counts as an overflow.
  t = await startTestApp({ SUBSCRIPTIONS_PER_CONNECTION: '2', SUBSCRIPTION_MAX_BUFFERED_BYTES: '1' });
});
afterAll(() => t.stop());

describe('per-connection cap', () => {
  it('refuses a subscription beyond the cap on that connection only, and admits one after another completes', async () => {
    const client = t.wsClient(t.keys.read);
    const [first, second, third] = [watch(client, LEDGER_EVENTS), watch(client, LEDGER_EVENTS), watch(client, LEDGER_EVENTS)];
    await waitUntil(() => third.done, 'the refusal');
    expect(must((third.error as Array<{ extensions: unknown }>)[0]).extensions).toEqual({ code: 'TOO_MANY_SUBSCRIPTIONS', limit: 2 });
    expect([first.done, second.done]).toEqual([false, false]);

    const elsewhere = watch(t.wsClient(t.keys.read), LEDGER_EVENTS);
    first.stop();
    const fourth = watch(client, LEDGER_EVENTS);
    const episode = await startEpisode(t);
    await waitUntil(() => [second, fourth, elsewhere].every((w) => w.values.length === 1), 'the admitted subscriptions to receive');
    expect(fourth.values[0].episodeId).toBe(episode);
    for (const w of [second, fourth, elsewhere]) w.stop();
    await logSteps(t, episode);
  });
});

/** A raw graphql-transport-ws client, so the test can stop reading its socket. */
async function rawSubscription(variables: Record<string, unknown>) {
  const ws = new WebSocket(t.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
  const messages: Json[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  await once(ws, 'open');
  ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${t.keys.read}` } }));
  await waitUntil(() => messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
  // With the payload: the big events below are big on the wire.
  const query = 'subscription($afterSeq: BigInt) { ledgerEvents(afterSeq: $afterSeq) { seq payload } }';
  ws.send(JSON.stringify({ id: 's1', type: 'subscribe', payload: { query, variables } }));
  return { ws, messages };
}

/**
 * Big events, in one commit so they are sent back to back: the kernel's socket buffers fill before
 * they can grow (trickled events let loopback buffers grow to tens of MB), and the sends stall.
 */
async function writeBigEvents(count: number, bytes: number) {
  const blob = 'x'.repeat(bytes);
  await t.services.writer.run(t.keys.tenantId, async (ctx) => {
    for (let i = 0; i < count; i++) ctx.events.push({ type: 'test.bulk', payload: { i, blob } });
  });
}

describe('slow consumer', () => {
  it('ends the subscription with SLOW_CONSUMER and resumeAfterSeq; resuming from there misses nothing', async () => {
    const before = (await storedLedger(t)).length;
    const { ws, messages } = await rawSubscription({ afterSeq: String(before) });
    ws.pause(); // the client stops reading
    await writeBigEvents(40, 512 * 1024);
    await new Promise((r) => setTimeout(r, 1_500)); // the server's check runs every 500 ms
    ws.resume();
    await waitUntil(() => messages.some((m) => m.type === 'complete'), 'the subscription to end', 30_000);
    ws.close();

    const nexts = messages.filter((m) => m.type === 'next');
    const delivered = nexts.filter((m) => m.payload.data?.ledgerEvents).map((m) => m.payload.data.ledgerEvents);
    const ending = nexts.at(-1).payload.errors[0];
    expect(ending.extensions.code).toBe('SLOW_CONSUMER');
    expect(ending.message).toMatch(/afterSeq/);
    const resumeAfterSeq = Number(ending.extensions.resumeAfterSeq);
    expect(seqsOf(delivered)).toEqual(range(resumeAfterSeq, before + 1)); // everything up to it, nothing after
    const head = (await storedLedger(t)).length;
    expect(resumeAfterSeq).toBeLessThan(head); // it really fell behind

    const resumed = watch(t.wsClient(t.keys.read), 'subscription($a: BigInt) { ledgerEvents(afterSeq: $a) { seq } }', { a: String(resumeAfterSeq) });
    await waitUntil(() => resumed.values.length === head - resumeAfterSeq, 'the rest');
    expect(seqsOf(resumed.values)).toEqual(range(head, resumeAfterSeq + 1));
    resumed.stop();
  });
});
