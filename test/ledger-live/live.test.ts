// Replay after a cursor, then live, over graphql-ws: every event exactly once, in seq order.
import { describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import { LEDGER_EVENTS, logSteps, range, seqsOf, startEpisode, storedLedger, waitUntil, watch } from './support.ts';

let t: TestApp;
// The safety re-read (5 s by default) is set past every wait here: a tail that ends only when it
// next wakes up cannot pass for one that ends at once.
useApp((app) => (t = app), { LEDGER_TAIL_SAFETY_MS: '120000' });

describe('ledgerEvents', () => {
  it('replays the events written before subscribing, then delivers new ones live, with no gap and no duplicate', async () => {
    const episode = await startEpisode(t);
    for (let i = 0; i < 4; i++) await logSteps(t, episode, 2);
    const before = (await storedLedger(t)).length;

    const w = watch(t.wsClient(t.keys.read), LEDGER_EVENTS, { afterSeq: '0' });
    await waitUntil(() => w.values.length >= before, 'the replay');
    // Written while the subscription switches to live, and afterwards.
    await Promise.all([logSteps(t, episode), logSteps(t, await startEpisode(t)), logSteps(t, episode, 3)]);
    for (let i = 0; i < 5; i++) await logSteps(t, episode);

    const stored = await storedLedger(t);
    await waitUntil(() => w.values.length >= stored.length, 'the live events');
    await new Promise((r) => setTimeout(r, 200)); // anything extra would arrive now
    expect(seqsOf(w.values)).toEqual(range(stored.length));
    expect(w.values.map((e) => e.hash)).toEqual(stored.map((e) => e.hash));
    expect(w.error).toBeUndefined();
    w.stop();
  });

  it('without afterSeq delivers only events committed after subscribing', async () => {
    const headBefore = (await storedLedger(t)).length;
    const episode = await startEpisode(t);
    const w = watch(t.wsClient(t.keys.read), LEDGER_EVENTS, {});
    // No acknowledgement marks the moment a subscription is live: write until one event arrives.
    await waitUntil(async () => {
      await logSteps(t, episode);
      return w.values.length > 0;
    }, 'a first live event');
    await logSteps(t, episode);
    const head = (await storedLedger(t)).length;
    await waitUntil(() => Number(w.values.at(-1)?.seq) === head, 'the last event');
    const seqs = seqsOf(w.values);
    expect(seqs[0]).toBeGreaterThan(headBefore + 1); // not the episode.started before subscribing
    expect(seqs).toEqual(range(head, seqs[0]));
    w.stop();
  });

  it('applies the filter to the replay and to the live events', async () => {
    const [mine, other] = [await startEpisode(t), await startEpisode(t)];
    await logSteps(t, mine);
    await logSteps(t, other);
    // Spelled in upper case: the filter reads an id in any letter case (canonicalId), live events included.
    const filter = { episodeId: mine.toUpperCase(), types: ['steps.logged'] };
    const w = watch(t.wsClient(t.keys.read), LEDGER_EVENTS, { afterSeq: '0', filter });
    await waitUntil(() => w.values.length === 1, 'the replayed match');
    await logSteps(t, other);
    await logSteps(t, mine);
    await waitUntil(() => w.values.length === 2, 'the live match');
    const expected = (await storedLedger(t)).filter((e) => e.episodeId === mine && e.type === 'steps.logged');
    expect(seqsOf(w.values)).toEqual(seqsOf(expected));
    expect(w.values.every((e) => e.episodeId === mine && e.type === 'steps.logged')).toBe(true);
    w.stop();
  });
});

describe('ending', () => {
  it('stops the tail at once when the client completes or disconnects, even while it waits for events', async () => {
    const bus = t.services.ledgerBus;
    await waitUntil(() => bus.subscribers === 0, 'earlier tests to release theirs');
    const client = t.wsClient(t.keys.read);
    const completed = watch(client, LEDGER_EVENTS);
    watch(client, LEDGER_EVENTS);
    await waitUntil(() => bus.subscribers === 2, 'both tails to subscribe');
    completed.stop();
    await waitUntil(() => bus.subscribers === 1, 'the completed one to stop');
    await client.dispose();
    await waitUntil(() => bus.subscribers === 0, 'the disconnected one to stop');
  });
});

describe('episodeUpdated and stepsLogged', () => {
  it('episodeUpdated yields the current state first, then the state after each change', async () => {
    const episode = await startEpisode(t);
    const w = watch(t.wsClient(t.keys.read), 'subscription($id: ID!) { episodeUpdated(id: $id) { id status stepCount } }', { id: episode });
    await waitUntil(() => w.values.length === 1, 'the current state');
    expect(w.values[0]).toEqual({ id: episode, status: 'RUNNING', stepCount: 0 });
    await logSteps(t, episode, 2);
    await waitUntil(() => w.values.at(-1)?.stepCount === 2, 'the state after logSteps');
    const done = await t.gql('mutation($id: ID!) { completeEpisode(episodeId: $id, outcome: { kind: SUCCESS, verdict: "ok" }) { __typename } }', {
      id: episode,
    });
    expect(done.errors).toBeUndefined();
    await waitUntil(() => w.values.at(-1)?.status === 'COMPLETED', 'the completed state');
    w.stop();
  });

  it('stepsLogged yields each batch with its steps, replayed after afterSeq and then live', async () => {
    const episode = await startEpisode(t);
    await logSteps(t, episode, 2);
    const query = 'subscription($id: ID!, $after: BigInt) { stepsLogged(episodeId: $id, afterSeq: $after) { seq episodeId steps { stepNumber action } } }';
    const w = watch(t.wsClient(t.keys.read), query, { id: episode.toUpperCase(), after: '0' }); // any letter case
    await waitUntil(() => w.values.length === 1, 'the replayed batch');
    await logSteps(t, await startEpisode(t)); // another episode's steps are not this one's
    await logSteps(t, episode, 3);
    await waitUntil(() => w.values.length === 2, 'the live batch');
    expect(w.values.map((b) => b.steps.map((s: { stepNumber: number }) => s.stepNumber))).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    expect(w.values.every((b) => b.episodeId === episode)).toBe(true);
    const stored = (await storedLedger(t)).filter((e) => e.episodeId === episode && e.type === 'steps.logged');
    expect(seqsOf(w.values)).toEqual(seqsOf(stored));
    w.stop();
  });
});
