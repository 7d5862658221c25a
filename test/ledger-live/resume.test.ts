// A subscriber that disconnects mid-stream and resubscribes with afterSeq = the last seq it saw
// receives every event exactly once, while writers keep writing throughout.
import { expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { LEDGER_EVENTS, logSteps, range, seqsOf, startEpisode, storedLedger, waitUntil, watch } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

it('resumes from the last seq seen without a gap or a duplicate', async () => {
  const episodes = await Promise.all([startEpisode(t), startEpisode(t), startEpisode(t)]);
  let writing = true;
  const writers = episodes.map(async (episode) => {
    while (writing) await logSteps(t, episode);
  });

  const first = t.wsClient(t.keys.read);
  const before = watch(first, LEDGER_EVENTS, { afterSeq: '0' });
  await waitUntil(() => before.values.length >= 20, 'events before the disconnect');
  await first.dispose(); // the socket goes away mid-stream, as a dropped connection would
  const received = [...before.values];
  const lastSeq = must(received.at(-1)).seq;

  // Writes continue while the subscriber is away, then after it is back.
  await waitUntil(async () => (await storedLedger(t)).length > Number(lastSeq) + 20, 'writes while disconnected');
  const after = watch(t.wsClient(t.keys.read), LEDGER_EVENTS, { afterSeq: lastSeq });
  await waitUntil(() => after.values.length >= 20, 'events after resuming');
  writing = false;
  await Promise.all(writers);

  const stored = await storedLedger(t);
  await waitUntil(() => Number(after.values.at(-1)?.seq) === stored.length, 'the last event');
  const all = [...received, ...after.values];
  expect(seqsOf(all)).toEqual(range(stored.length)); // strictly increasing, each seq once
  expect(new Set(all.map((e) => e.hash))).toEqual(new Set(stored.map((e) => e.hash)));
  after.stop();
});
